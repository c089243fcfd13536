# SPDX-License-Identifier: GPL-2.0-or-later
# Stop every process of a sample from another exec (idlelab prepends own.sh):
# the runner, the workload's process group and the watchdog's, as recorded by
# sample.sh in WORKDIR/run.ID; then check none is left and remove the
# sample's files and its tracefs instance (trace.sh). OpenSSH does not deliver channel signals, so a closed
# connection alone would leave them running as root.
#   cancel.sh UID:WORKDIR ID        one sample
#   cancel.sh UID:WORKDIR --all     every sample recorded there (leftovers of a killed run)
# Output: "idlelab.cancel:N" (samples stopped) or one "idlelab.cancel_fail:REASON" line, exit 3.
own_fail() { printf 'idlelab.cancel_fail:%s\n' "$*"; exit 3; }
W=$1 which=$2
own_uid=${W%%:*} W=${W#*:}
own "$W"
alive() { for p in "$@"; do kill -0 "$p" 2>/dev/null && return 0; kill -0 "-$p" 2>/dev/null && return 0; done; return 1; }
count=0
for f in "$W"/run.*; do
	[ -f "$f" ] || continue
	id=${f##*/run.}
	[ "$which" = --all ] || [ "$which" = "$id" ] || continue
	read -r runner wl dog < "$f" || true
	i=0
	while :; do
		for p in $wl $dog; do kill -KILL "-$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
		[ -n "$runner" ] && kill -KILL "$runner" 2>/dev/null
		alive $runner $wl $dog || break
		i=$((i + 1))
		[ $i -ge 50 ] && own_fail "sample $id: processes $runner $wl $dog still alive after SIGKILL"
		sleep 0.1
	done
	trdel "$id"
	rm -rf "$W/s.$id" "$f"
	count=$((count + 1))
done
printf 'idlelab.cancel:%s\n' "$count"
