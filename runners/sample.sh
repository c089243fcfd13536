# SPDX-License-Identifier: GPL-2.0-or-later
# One sample, in ONE remote exec: set the governor and state `disable`
# values for the variant, optionally quiesce, pre-snapshot, run the workload
# (pinned, output to files), post-snapshot, then print everything framed.
# Nothing is printed until the post-snapshot is taken, so no SSH traffic
# lands inside the measured window. POSIX sh; works with busybox ash.
# idlelab prepends snapshot.sh as the function snap().
#
# args: NONCE ROOT QUIESCE_S CPUS GOVERNOR TIMEOUT_S BINDIR NWRITES
#       [PATH VALUE]*NWRITES -- ARGV...
# frames: "@@NONCE fail REASON" | "@@NONCE uname R M" | "@@NONCE <pre|post|out|err> BYTES" + bytes
#         | "@@NONCE status N" | "@@NONCE end"
n=$1 R=$2 q=$3 cpus=$4 gov=$5 to=$6 bin=$7 nw=$8
shift 8
fail() { printf '@@%s fail %s\n' "$n" "$*"; exit 0; }
[ -n "$bin" ] && PATH=$bin:$PATH && export PATH
if [ -n "$gov" ]; then
	printf '%s' "$gov" > "$R/sys/devices/system/cpu/cpuidle/current_governor" 2>/dev/null ||
		fail "cannot write '$gov' to current_governor"
fi
while [ "$nw" -gt 0 ]; do
	printf '%s' "$2" > "$R$1" 2>/dev/null || fail "cannot write '$2' to $1"
	shift 2
	nw=$((nw - 1))
done
[ "$1" = "--" ] || fail "runner arguments out of order"
shift
command -v "$1" >/dev/null 2>&1 || fail "workload program '$1' not found on the host"
if [ -n "$cpus" ]; then
	command -v taskset >/dev/null 2>&1 || fail "taskset not found on the host (needed for cpus)"
	set -- taskset -c "$cpus" "$@"
fi
d=$(mktemp -d 2>/dev/null || mktemp -d -t idlelab.XXXXXX) || fail "cannot create a temporary directory"
trap 'rm -rf "$d"' EXIT
[ "$q" = 0 ] || sleep "$q"
snap > "$d/pre"
"$@" > "$d/out" 2> "$d/err" < /dev/null &
w=$!
# the time limit: one sleeping watchdog, not timeout(1) (busybox's polls every second,
# which would add wakeups to what is being measured)
dog=
if [ "$to" != 0 ]; then
	(sleep "$to" && kill -KILL "$w" 2>/dev/null) &
	dog=$!
fi
wait "$w"
st=$?
if [ -n "$dog" ]; then
	pkill -P "$dog" sleep 2>/dev/null
	kill "$dog" 2>/dev/null
fi
snap > "$d/post"
printf '@@%s uname %s %s\n' "$n" "$(uname -r)" "$(uname -m)"
for f in pre post out err; do
	printf '@@%s %s %s\n' "$n" "$f" "$(wc -c < "$d/$f")"
	cat "$d/$f"
done
printf '@@%s status %s\n' "$n" "$st"
printf '@@%s end\n' "$n"
