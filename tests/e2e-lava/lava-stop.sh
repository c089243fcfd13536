#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lava-stop.sh ROOT [--keep-mounts]
#
# Stops what lava-setup.sh started inside ROOT and unmounts it; ROOT itself (with
# the installed LAVA, its database and the job outputs) stays for the next run.
#   1. lava-worker, lava-scheduler, lava-publisher, gunicorn: SIGTERM by the PIDs in
#      ROOT/run/idlelab-lava/*.pid, up to 15 s, then SIGKILL;
#   2. postgresql: pg_ctlcluster 15 main stop -m fast (inside the root);
#   3. any process still running with its root inside ROOT (lava-run, qemu, gunicorn
#      workers, postgres children): SIGTERM then SIGKILL, by PID;
#   4. every mount at or below ROOT, deepest first (unless --keep-mounts).
set -uo pipefail
ROOT=$(realpath "${1:?usage: lava-stop.sh ROOT [--keep-mounts]}")
keep=${2:-}
RUN=$ROOT/run/idlelab-lava
say() { echo "lava-stop: $*"; }
inroot() {
	chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/sh -c "$1"
}
inside() {	# PIDs whose root directory is ROOT or below
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case $r in "$ROOT" | "$ROOT"/*) echo "${p#/proc/}" ;; esac
	done
}
for s in lava-worker lava-scheduler lava-publisher gunicorn; do
	f=$RUN/$s.pid
	[ -s "$f" ] || continue
	pid=$(cat "$f")
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"
		for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
		kill -0 "$pid" 2>/dev/null && { say "$s ($pid) ignored SIGTERM, SIGKILL"; kill -KILL "$pid"; }
		say "$s ($pid) stopped"
	fi
	rm -f "$f"
done
if [ -x "$ROOT/usr/bin/pg_ctlcluster" ] && [ -d "$ROOT/proc/self" ]; then
	if inroot 'pg_lsclusters -h' 2>/dev/null | awk '$4 == "online" { f = 1 } END { exit !f }'; then
		inroot 'pg_ctlcluster 15 main stop -m fast' && say "postgresql stopped"
	fi
fi
left=$(inside)
if [ -n "$left" ]; then
	say "terminating leftover processes in the root: $(echo $left)"
	kill -TERM $left 2>/dev/null
	sleep 2
	left=$(inside)
	[ -z "$left" ] || kill -KILL $left 2>/dev/null
	sleep 0.5
fi
[ "$keep" = --keep-mounts ] && exit 0
for m in $(awk -v r="$ROOT" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r); do
	umount "$m" 2>/dev/null || umount -l "$m" || say "cannot unmount $m"
done
if awk -v r="$ROOT" '$2 == r || index($2, r "/") == 1 { f = 1 } END { exit !f }' /proc/self/mounts; then
	say "mounts left below $ROOT"; exit 1
fi
say "stopped; $ROOT unmounted and kept"
