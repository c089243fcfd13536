# SPDX-License-Identifier: GPL-2.0-or-later
# idlelab's private working directory on this host for this login (see
# own.sh, prepended by idlelab), made and checked, with the subdirectories
# named as arguments made and checked the same way inside it.
#   workdir.sh [SUB...]
# Run as idlelab's login itself (never through sudo): uploads land here over SFTP.
# Output: "idlelab.workdir:UID:DIR", or one "idlelab.workdir_fail:REASON" line and exit 3.
own_fail() { printf 'idlelab.workdir_fail:%s\n' "$*"; exit 3; }
w=$(own_base)
own "$w"
for sub in "$@"; do
	case $sub in */* | .* | "") own_fail "bad subdirectory name '$sub'" ;; esac
	own "$w/$sub"
done
printf 'idlelab.workdir:%s:%s\n' "$(id -u)" "$w"
