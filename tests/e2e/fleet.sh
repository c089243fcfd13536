# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by e2e and bench scripts (after lib.sh): a fleet of real OpenSSH sshd
# hosts on 127.0.0.1, each in its own mount and PID namespace (unshare) where
# /sys/devices/system/cpu is a fixture tree (materialize) and /proc/cmdline a
# file, so each host sees its own cpuidle sysfs. Optional plants in a host's
# root: cpuinfo (bind-mounted over /proc/cpuinfo), detect-virt (a script over
# systemd-detect-virt), hold (a process holding /dev/cpu_dma_latency open),
# etc.up (an overlay over /etc, e.g. a tuned profile), sh (a broken /bin/sh:
# the shell the collection runs in).
# Root's home on every host is a fresh one with Debian's default dotfiles:
# sshd runs each command through root's bash, which reads ~/.bashrc, and the
# machine running the tests must not lend its own (a pyenv init there costs
# 130 ms of CPU per session and once was most of the benchmark's time).
# The hosts share one host key and one client key; $FLEET/ssh_config has an
# alias per host, $FLEET/home/.ssh/known_hosts their keys. Stopped (by PID) at exit.
FLEET=$E2E_TMP/fleet
FLEET_PIDS=
# The fleet's trees (a hundred hosts of some 500 files each) on a tmpfs of their own where root
# may mount one: on the CI machine's disk a file costs about a millisecond of system time, and
# making the trees was most of the audit test's time.
FLEET_TMPFS=
mkdir -p "$FLEET" && [ "$(id -u)" = 0 ] && mount -t tmpfs -o mode=0700,size=1g idlelab-fleet "$FLEET" 2>/dev/null &&
	FLEET_TMPFS=1
mkdir -p "$FLEET/home/.ssh" && [ "$(id -u)" = 0 ] && mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$FLEET/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$FLEET/client"
cp "$FLEET/client.pub" "$FLEET/authorized_keys"
mkdir -p "$FLEET/roothome"
for f in bashrc profile; do
	[ -f "/usr/share/base-files/dot.$f" ] && cp "/usr/share/base-files/dot.$f" "$FLEET/roothome/.$f"
done
cat > "$FLEET/sshd_config" <<CFG
ListenAddress 127.0.0.1
HostKey $FLEET/hostkey
AuthorizedKeysFile $FLEET/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin yes
LogLevel ERROR
MaxStartups 200
MaxSessions 200
CFG
printf 'Host 127.0.0.1\n  IdentityFile %s\n' "$FLEET/client" > "$FLEET/ssh_config"
cat > "$FLEET/inner.sh" <<'SH'
R=$1
mount --bind "$R/sys/devices/system/cpu" /sys/devices/system/cpu || exit 1
mount --bind "$R/cmdline" /proc/cmdline || exit 1
rh=$(getent passwd root | cut -d: -f6)
[ -d "$rh" ] && { mount --bind "$R/../roothome" "$rh" || exit 1; }
[ -f "$R/cpuinfo" ] && { mount --bind "$R/cpuinfo" /proc/cpuinfo || exit 1; }
dv=$(command -v systemd-detect-virt)
[ -f "$R/detect-virt" ] && [ -n "$dv" ] && { mount --bind "$R/detect-virt" "$dv" || exit 1; }
[ -f "$R/hold" ] && { sleep 3600 3>/dev/cpu_dma_latency & }
if [ -d "$R/etc.up" ]; then
	mkdir -p "$R/etc.work" && mount -t overlay overlay -o "lowerdir=/etc,upperdir=$R/etc.up,workdir=$R/etc.work" /etc || exit 1
fi
[ -f "$R/sh" ] && { mount --bind "$R/sh" "$(readlink -f /bin/sh)" || exit 1; }
shift
exec "$@"
SH
fleet_stop() {
	# unshare --fork ignores SIGTERM while it waits; SIGKILL takes its child (--kill-child) and the namespace along
	for p in $FLEET_PIDS; do kill -KILL "$p" 2>/dev/null; done
	for p in $FLEET_PIDS; do wait "$p" 2>/dev/null; done
	FLEET_PIDS=
}
trap 'fleet_stop; [ -n "$FLEET_TMPFS" ] && umount -l "$FLEET"; rm -rf "$E2E_TMP"' EXIT

# fleet_port: a free port on 127.0.0.1, from a pool that one python3 fills (bound all at once, so
# distinct): a python3 start per host was seconds of a 100-host fleet's setup
fleet_port() {
	[ -s "$FLEET/ports" ] || python3 -c 'import socket
ss = [socket.socket() for _ in range(256)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in ss))' > "$FLEET/ports"
	head -n 1 "$FLEET/ports"
	sed -i 1d "$FLEET/ports"
}

# fleet_tree NAME DUMP: the host's root ($FLEET/NAME) from a sysfs dump, with a plain cmdline; prints the root.
# Each dump is materialized once ($FLEET/.tpl) and copied: a fleet is mostly the same few fixtures.
fleet_tree() {
	ft_root=$FLEET/$1
	ft_tpl=$FLEET/.tpl/$(basename "$2")
	if [ ! -d "$ft_tpl" ]; then
		mkdir -p "$ft_tpl"
		grep '^/sys/devices/system/cpu/' "$2" > "$ft_tpl/dump.txt"
		materialize "$ft_tpl/dump.txt" "$ft_tpl"
	fi
	cp -R "$ft_tpl" "$ft_root"
	echo 'BOOT_IMAGE=/vmlinuz root=/dev/vda ro quiet' > "$ft_root/cmdline"
	echo "$ft_root"
}

# fleet_start NAME PORT: start NAME's sshd (its tree made first) on PORT; adds the alias and known_hosts line
fleet_start() {
	unshare -m -p -f --mount-proc --propagation private --kill-child \
		sh "$FLEET/inner.sh" "$FLEET/$1" /usr/sbin/sshd -D -e -f "$FLEET/sshd_config" -o "Port=$2" \
		2>>"$FLEET/$1.log" &
	FLEET_PIDS="$FLEET_PIDS $!"
	printf '[127.0.0.1]:%s %s\n' "$2" "$(cut -d' ' -f1-2 "$FLEET/hostkey.pub")" >> "$FLEET/home/.ssh/known_hosts"
	printf 'Host %s\n  HostName 127.0.0.1\n  Port %s\n  User root\n  IdentityFile %s\n  UserKnownHostsFile %s\n' "$1" "$2" "$FLEET/client" "$FLEET/home/.ssh/known_hosts" \
		>> "$FLEET/ssh_config"
}

# fleet_wait PORT...: until each port accepts connections (5 s at most each)
fleet_wait() {
	python3 - "$@" <<'PY'
import socket, sys, time
for p in sys.argv[1:]:
    end = time.time() + 5
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", int(p)), 1).close(); break
        except OSError:
            time.sleep(0.05)
PY
}
