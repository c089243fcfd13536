#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds that a later test needs, started at the beginning of `make check` so
# that they fill the core the single-threaded phases leave idle (the unit
# tests, ASan+UBSan, valgrind, most fast e2e scripts), at nice 19 so that the
# tests keep their CPU. The test that needs one waits for it; the build is
# the same command the test would run, into the same cache, so the test's
# own step then finds it cached and says so.
#
#   tests/prebuild.sh start NAME    start NAME's build in the background (a no-op when its tools are missing:
#                                   the test skips itself then)
#   tests/prebuild.sh wait NAME     wait for it; its log's tail and "prebuild NAME: exit N after S s";
#                                   exit 0 when it built, 3 when it was never started, else the build's status
#   tests/prebuild.sh stop NAME     end it if it still runs (make check's end: no process left behind)
#
# NAME (one table, the tests that use each):
#   lab-x86_64   the x86_64 lab host (its kernel, packages, SSDTs): tests/e2e-kernel/lab_x86.sh
#
# State in $TEST_LOGDIR (build/test-logs): NAME.prebuild.{log,pid,rc,t0}, made afresh by start.
set -u
[ $# = 2 ] || { echo "usage: tests/prebuild.sh start|wait|stop NAME" >&2; exit 2; }
# (verb run: the build itself, in the background process start made)
verb=$1 name=$2
SRC=$(cd "$(dirname "$0")/.." && pwd)
logdir=${TEST_LOGDIR:-$SRC/build/test-logs}
case $logdir in /*) ;; *) logdir=$SRC/$logdir ;; esac
p=$logdir/$name.prebuild
IDLELAB=${IDLELAB:-$SRC/idlelab}

# the build of NAME, as its test runs it (IDLELAB_CACHE as tests/e2e/lib.sh's kernel_lab_needs sets it)
needs() {
	for t in "$@"; do command -v "$t" > /dev/null || return 1; done
	[ -f /usr/src/linux-source-6.1.tar.xz ]
}
build() {
	export IDLELAB_CACHE=${E2E_KERNEL_CACHE:-$SRC/build/e2e-kernel-cache}
	cd "$SRC" || return 1
	case $name in
	lab-x86_64) "$IDLELAB" lab build --arch x86_64 --source "$SRC" ;;
	esac
}
case $name in
lab-x86_64) tools="qemu-system-x86_64 iasl dropbearkey cpio git" ;;
*) echo "prebuild: unknown build '$name' (lab-x86_64)" >&2; exit 2 ;;
esac

# a process and everything below it, children first stopped so none is left to be reparented
killtree() {
	kill -STOP "$1" 2> /dev/null
	for c in $(ps -o pid= --ppid "$1" 2> /dev/null); do killtree "$c"; done
	kill -TERM "$1" 2> /dev/null
	kill -CONT "$1" 2> /dev/null
}
alive() { [ -s "$p.pid" ] && kill -0 "$(cat "$p.pid")" 2> /dev/null; }

case $verb in
start)
	mkdir -p "$logdir" || exit 1
	rm -f "$p.log" "$p.pid" "$p.rc" "$p.t0"
	# shellcheck disable=SC2086
	needs $tools || exit 0
	date +%s > "$p.t0"
	# in make's process group: an interrupted make check ends it too
	nice -n 19 sh "$0" run "$name" < /dev/null > "$p.log" 2>&1 &
	echo $! > "$p.pid"
	echo "prebuild $name: started in the background at nice 19 (log: $p.log)"
	;;
run)
	build
	rc=$?
	echo $rc > "$p.rc.tmp" && mv "$p.rc.tmp" "$p.rc"
	exit $rc
	;;
wait)
	[ -e "$p.t0" ] || exit 3
	# the build ends by itself (its own tool timeouts): waited for while its process lives
	while [ ! -e "$p.rc" ] && alive; do sleep 1; done
	rc=$(cat "$p.rc" 2> /dev/null || echo 1)
	tail -n 5 "$p.log" 2> /dev/null | sed 's/^/  | /'
	echo "prebuild $name: exit $rc after $(($(date +%s) - $(cat "$p.t0"))) s since its start"
	exit "$rc"
	;;
stop)
	if alive; then
		killtree "$(cat "$p.pid")"
		echo "prebuild $name: stopped (no test waited for it)"
	fi
	rm -f "$p.pid"
	;;
*) echo "usage: tests/prebuild.sh start|wait|stop NAME" >&2; exit 2 ;;
esac
