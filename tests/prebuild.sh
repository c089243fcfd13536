#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds that later tests need, started at the beginning of `make check` so
# that they fill the core the single-threaded phases leave idle (the unit
# tests, ASan+UBSan, valgrind, most fast e2e scripts), at nice 19 so that the
# tests keep their CPU. One background job builds them in the order given
# (one at a time: they share the kernel cache and its imported tree). A build
# is the very command its tests would run, into the same cache, so their own
# step then finds it cached and says so.
#
#   tests/prebuild.sh start NAME...  start the job (a build whose tools are missing is left out:
#                                    its tests skip themselves)
#   tests/prebuild.sh wait NAME      wait for NAME; its log's tail and "prebuild NAME: exit N after S s";
#                                    exit 0 when it built, 3 when it was never started, else its status
#   tests/prebuild.sh stop           end the job if it still runs (make check's end: no process left behind)
#
# NAME (one table; the tests that use each):
#   lab-arm64    the arm64 lab host: every tests/e2e-kernel script but lab_x86 (cached already after
#                the demo, as in CI)
#   lab-x86_64   the x86_64 lab host (its kernel, packages, SSDTs): tests/e2e-kernel/lab_x86.sh
#
# State in $TEST_LOGDIR (build/test-logs): prebuild.{pid,t0} for the job, NAME.prebuild.{log,rc} for
# each build, made afresh by start.
set -u
usage() { echo "usage: tests/prebuild.sh start NAME... | wait NAME | stop" >&2; exit 2; }
[ $# -ge 1 ] || usage
verb=$1
shift
SRC=$(cd "$(dirname "$0")/.." && pwd)
logdir=${TEST_LOGDIR:-$SRC/build/test-logs}
case $logdir in /*) ;; *) logdir=$SRC/$logdir ;; esac
job=$logdir/prebuild
IDLELAB=${IDLELAB:-$SRC/idlelab}

# each build's tools, as its tests' kernel_lab_needs (tests/e2e/lib.sh) asks for them
tools_of() {
	case $1 in
	lab-arm64) echo "qemu-system-aarch64 dtc dropbearkey aarch64-linux-gnu-gcc cpio git" ;;
	lab-x86_64) echo "qemu-system-x86_64 iasl dropbearkey cpio git" ;;
	*) return 1 ;;
	esac
}
needs() {
	for t in $(tools_of "$1"); do command -v "$t" > /dev/null || return 1; done
	[ -f /usr/src/linux-source-6.12.tar.xz ] # the labs' default tree (lab/labtree.h)
}
# the build, as its tests run it (IDLELAB_CACHE as kernel_lab_needs sets it)
build() {
	export IDLELAB_CACHE=${E2E_KERNEL_CACHE:-$SRC/build/e2e-kernel-cache}
	cd "$SRC" || return 1
	case $1 in
	lab-arm64) "$IDLELAB" lab build --source "$SRC" ;;
	lab-x86_64) "$IDLELAB" lab build --arch x86_64 --source "$SRC" ;;
	esac
}
alive() { [ -s "$job.pid" ] && kill -0 "$(cat "$job.pid")" 2> /dev/null; }
# a process and everything below it, each stopped first so that none is left to be reparented
killtree() {
	kill -STOP "$1" 2> /dev/null
	for c in $(ps -o pid= --ppid "$1" 2> /dev/null); do killtree "$c"; done
	kill -TERM "$1" 2> /dev/null
	kill -CONT "$1" 2> /dev/null
}

case $verb in
start)
	[ $# -ge 1 ] || usage
	for n in "$@"; do tools_of "$n" > /dev/null || { echo "prebuild: unknown build '$n' (lab-arm64, lab-x86_64)" >&2; exit 2; }; done
	mkdir -p "$logdir" || exit 1
	rm -f "$job.pid" "$job.t0" "$job.names"
	todo=
	for n in "$@"; do
		rm -f "$logdir/$n.prebuild.log" "$logdir/$n.prebuild.rc"
		needs "$n" && todo="$todo $n"
	done
	[ -n "$todo" ] || exit 0
	echo "$todo" > "$job.names"
	date +%s > "$job.t0"
	# in make's process group: an interrupted make check ends it too
	nice -n 19 sh "$0" run $todo < /dev/null > /dev/null 2>&1 &
	echo $! > "$job.pid"
	echo "prebuild:$todo: started in the background at nice 19 (logs: $logdir/NAME.prebuild.log)"
	;;
run)
	# the job itself: the builds in turn, each one's status written once it ends
	for n in "$@"; do
		build "$n" > "$logdir/$n.prebuild.log" 2>&1
		echo $? > "$logdir/$n.prebuild.rc.tmp" && mv "$logdir/$n.prebuild.rc.tmp" "$logdir/$n.prebuild.rc"
	done
	;;
wait)
	[ $# = 1 ] || usage
	case " $(cat "$job.names" 2> /dev/null) " in *" $1 "*) ;; *) exit 3 ;; esac
	rc=$logdir/$1.prebuild.rc
	# the job ends by itself (its tools' own timeouts): waited for while it lives
	while [ ! -e "$rc" ] && alive; do sleep 1; done
	st=$(cat "$rc" 2> /dev/null || echo 1)
	tail -n 5 "$logdir/$1.prebuild.log" 2> /dev/null | sed 's/^/  | /'
	echo "prebuild $1: exit $st after $(($(date +%s) - $(cat "$job.t0"))) s since the job's start"
	exit "$st"
	;;
stop)
	if alive; then
		killtree "$(cat "$job.pid")"
		echo "prebuild: stopped (a build no test waited for)"
	fi
	rm -f "$job.pid"
	;;
*) usage ;;
esac
