# SPDX-License-Identifier: GPL-2.0-or-later
# One sample, in ONE remote exec: set the governor and state `disable`
# values for the variant, optionally quiesce, pre-snapshot, run the workload
# (pinned, output to files), post-snapshot, then print everything framed.
# Nothing is printed until the post-snapshot is taken, so no SSH traffic
# lands inside the measured window. POSIX sh; works with busybox ash.
# idlelab prepends snapshot.sh as the function snap(), own.sh and trace.sh.
#
# args: ID ROOT QUIESCE_S CPUS GOVERNOR TIMEOUT_S UID:WORKDIR TRACE_KB NWRITES
#       [PATH VALUE]*NWRITES -- ARGV...
# TRACE_KB: 0, or an idle trace (trace.sh) with that ring buffer per CPU
# stdin: NONCE, one line
# frames: "@@NONCE fail REASON" | "@@NONCE uname R M" | "@@NONCE <pre|post|out|err|qos|trace> BYTES" + bytes
#         | "@@NONCE status N" | "@@NONCE end"
# The NONCE tags the frames and comes on stdin only: argv, the environment
# and the paths the workload's files have can all be read by the workload
# (/proc/PPID/cmdline, /proc/self/fd/1), and with the nonce it could print
# frames of its own. ID names the sample's files instead.
# WORKDIR is idlelab's private directory (own.sh), checked before use; the
# sample's files go in WORKDIR/s.ID and its process ids in WORKDIR/run.ID
# ("RUNNER WORKLOAD_GROUP WATCHDOG_GROUP"), so runners/cancel.sh can stop
# every process of the sample from another exec. Nothing is added to PATH:
# idlelab's own workloads come with their absolute path in ARGV.
IFS= read -r n
case $n in
'' | *[!A-Za-z0-9]*)
	echo "idlelab's runner: no frame nonce on stdin (does the transport pass stdin through?)" >&2
	exit 2 ;;
esac
exec < /dev/null
id=$1 R=$2 q=$3 cpus=$4 gov=$5 to=$6 W=$7 tk=$8 nw=$9
shift 9
fail() { printf '@@%s fail %s\n' "$n" "$*"; exit 0; }
own_fail() { fail "idlelab's working directory: $*"; }
own_uid=${W%%:*} W=${W#*:}
own "$W"
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
d=$W/s.$id
mkdir -m 700 "$d" || fail "cannot create $d"
trap '[ "$tk" = 0 ] || trdel "$id"; rm -rf "$d" "$W/run.$id"' EXIT
# the workload and the watchdog each in a process group of their own (setsid), so
# a timeout or a cancel kills everything they started (signals as `kill -KILL -PGID`,
# signal first and no `--`: the one form dash and busybox ash both take)
ss=
command -v setsid >/dev/null 2>&1 && ss=setsid
[ "$q" = 0 ] || sleep "$q"
# tron in this shell (its variables name the instance), its reason for failing in a file
if [ "$tk" != 0 ]; then
	tron "$id" "$tk" > "$d/tr" || fail "idle trace: $(cat "$d/tr")"
	trmark pre
fi
snap > "$d/pre"
[ "$tk" = 0 ] || trmark begin
$ss "$@" > "$d/out" 2> "$d/err" < /dev/null &
w=$!
# the time limit: one sleeping watchdog, not timeout(1) (busybox's polls every second,
# which would add wakeups to what is being measured)
dog=
if [ "$to" != 0 ]; then
	$ss sh -c 'sleep "$1"; kill -KILL "-$2" 2>/dev/null; kill -KILL "$2" 2>/dev/null' sh "$to" "$w" > /dev/null 2>&1 < /dev/null &
	dog=$!
fi
# one PM QoS scan (pmqos.sh) a second into the workload: who holds /dev/cpu_dma_latency, the
# effective limit (a limit of 0 bypasses the governor); none for a workload shorter than that
( sleep 1 && pmqos > "$d/qos.t" 2> /dev/null && mv "$d/qos.t" "$d/qos" ) > /dev/null 2>&1 < /dev/null &
qs=$!
echo "$$ $w $dog" > "$W/run.$id"
wait "$w"
st=$?
kill "$qs" 2>/dev/null
wait "$qs" 2>/dev/null
if [ -n "$dog" ]; then
	kill -KILL "-$dog" 2>/dev/null
	kill -KILL "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
fi
# anything the workload left running in its group goes too
kill -KILL "-$w" 2>/dev/null
[ "$tk" = 0 ] || trmark end
snap > "$d/post"
if [ "$tk" != 0 ]; then
	trmark post
	troff > "$d/trace"
	trdel "$id"
fi
printf '@@%s uname %s %s\n' "$n" "$(uname -r)" "$(uname -m)"
for f in pre post out err qos trace; do
	case $f in qos | trace) [ -f "$d/$f" ] || continue ;; esac
	printf '@@%s %s %s\n' "$n" "$f" "$(wc -c < "$d/$f")"
	cat "$d/$f"
done
printf '@@%s status %s\n' "$n" "$st"
printf '@@%s end\n' "$n"
