# SPDX-License-Identifier: GPL-2.0-or-later
# The host lock: one idlelab run per host at a time (idlelab prepends own.sh).
# flock(1) on WORKDIR/host.lock, held by this process for as long as the
# exec that started it lives: idlelab closes it at the end of its run, and a
# dead idlelab, a dropped connection or a reboot end it too, so a lock is
# never left behind. The holder's description goes to WORKDIR/host.holder.
#   lock.sh UID:WORKDIR HOLDER
# Output: "idlelab.lock:held" (then it waits for EOF on stdin), or
#         "idlelab.lock_busy:HOLDER" (exit 4), or "idlelab.lock_fail:REASON" (exit 3).
own_fail() { printf 'idlelab.lock_fail:%s\n' "$*"; exit 3; }
W=$1 who=$2
own_uid=${W%%:*} W=${W#*:}
own "$W"
command -v flock >/dev/null 2>&1 ||
	own_fail "no flock(1) on the host (util-linux): idlelab cannot keep a second run off it"
exec 9>>"$W/host.lock" || own_fail "cannot open $W/host.lock"
if ! flock -n 9; then
	printf 'idlelab.lock_busy:%s\n' "$(cat "$W/host.holder" 2>/dev/null || echo 'another idlelab run')"
	exit 4
fi
printf '%s, since %s\n' "$who" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$W/host.holder"
printf 'idlelab.lock:held\n'
cat > /dev/null
rm -f "$W/host.holder"
