# SPDX-License-Identifier: GPL-2.0-or-later
# own DIR: idlelab's private directory DIR exists (made here with mode 0700
# when missing) and is safe to use as root: a directory, not a symlink, owned
# by idlelab's login (uid $own_uid, default this process's: a runner started
# through sudo checks the login's directory), no group or world permission bits. Another local user can
# then plant nothing in it: no program idlelab runs, no symlink an upload or
# a temporary file would follow. On a violation own_fail (defined by the
# script that includes this one) is called with the reason.
# own_base: the directory idlelab's private ones go in: $HOME/.idlelab when
# HOME is this user's own and not writable by others, else /var/tmp/idlelab-UID.
own() {
	[ -e "$1" ] || [ -L "$1" ] || mkdir -m 700 "$1" 2>/dev/null || [ -d "$1" ] || own_fail "cannot create $1"
	[ -L "$1" ] && own_fail "$1 is a symlink, not idlelab's own directory"
	[ -d "$1" ] || own_fail "$1 is not a directory"
	# shellcheck disable=SC2046
	set -- "$1" $(ls -ldn "$1")
	[ "$4" = "${own_uid:-$(id -u)}" ] || own_fail "$1 is owned by uid $4, not by idlelab's login (uid ${own_uid:-$(id -u)})"
	case $2 in d???------*) ;; *) own_fail "$1 has mode $2, not drwx------ (other users could use it)" ;; esac
}
own_base() {
	if [ -n "$HOME" ] && [ -d "$HOME" ] && [ ! -L "$HOME" ]; then
		# shellcheck disable=SC2046
		set -- $(ls -ldn "$HOME")
		if [ "$3" = "$(id -u)" ]; then
			case $1 in d????-??-*) echo "$HOME/.idlelab"; return ;; esac
		fi
	fi
	echo "/var/tmp/idlelab-$(id -u)"
}
