#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The governor bypassed (issue #30): a run on a command-transport host that
# sees a fixture sysfs tree (the haltpoll guest of tests/fixtures/sysfs,
# bind-mounted over /sys/devices/system/cpu in a private mount namespace, as
# cmd_transport.sh does) while a helper process holds this machine's real
# /dev/cpu_dma_latency at 0, as cyclictest without --laptop does. The
# runner's PM QoS scan sees the holder and the limit of 0: every sample says
# "governor bypassed", compare marks the idle metrics bypassed, and the
# Tested-by says so. The same run without the helper is not marked.
. "$(dirname "$0")/lib.sh"
SRC=${IL_SRCDIR:-.}
T=$E2E_TMP
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v python3 >/dev/null; then
	skip "needs root (mount, /dev/cpu_dma_latency), unshare and python3"; finish; exit $?
fi
if [ ! -c /dev/cpu_dma_latency ]; then
	skip "this kernel has no /dev/cpu_dma_latency (CONFIG_CPU_IDLE PM QoS)"; finish; exit $?
fi
materialize "$FIX/x86-haltpoll-2vcpu-before.txt" "$T/fix"
mkdir -m 700 "$T/home"
if [ "$(unshare -m sh -c 'mount --bind "$0" /sys/devices/system/cpu && cat /sys/devices/system/cpu/cpuidle/current_driver' \
	"$T/fix/sys/devices/system/cpu" 2>&1)" != haltpoll ]; then
	skip "cannot bind-mount a fixture over /sys/devices/system/cpu in a private mount namespace here"; finish; exit $?
fi
# someone already holding it (a tuned profile, a running cyclictest) would make the control run bypassed too
held_before=$(ls -l /proc/[0-9]*/fd 2>/dev/null | grep -c -- '-> /dev/cpu_dma_latency$')
export IDLELAB_HOSTS=$T/hosts
mkdir -p "$IDLELAB_HOSTS"
python3 - "$IDLELAB_HOSTS/qos.json" "$T/home" "$T/fix/sys/devices/system/cpu" <<'PY'
import json, sys
cmd = ["env", "HOME=" + sys.argv[2], "unshare", "-m", "sh", "-c",
       'mount --bind "$0" /sys/devices/system/cpu && exec sh -c "$1"', sys.argv[3], "{cmd}"]
json.dump({"transport": {"exec": cmd, "push": ["cp", "{src}", "{dst}"]}, "connect_timeout_s": 5,
           "command_timeout_s": 60}, open(sys.argv[1], "w"))
PY
WL="--workloads-dir $SRC/workloads --workload-bin $SRC/build/workloads"
# periodic wake-ups for 1.5 s: long enough for the runner's scan a second in
plan() {
	cat > "$T/plan-$1.json" <<JSON
{"name": "bypass-$1", "host": "qos", "governors": ["menu", "haltpoll"],
 "workloads": [{"workload": "periodic", "params": {"hz": 200, "duration": 1.5}}],
 "iterations": $2, "warmup": 0, "quiesce_s": 0}
JSON
}

# the helper: one CPU latency request of 0, held until killed (what cyclictest does without --laptop)
python3 -c 'import os, struct, sys, time
fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
os.write(fd, struct.pack("i", 0))
print("held", flush=True)
time.sleep(600)' > "$T/holder.out" 2>&1 &
holder=$!
i=0
while [ "$i" -lt 50 ] && ! grep -q held "$T/holder.out"; do sleep 0.1; i=$((i + 1)); done
limit=$(od -An -t d4 -N 4 /dev/cpu_dma_latency | tr -d ' ')
[ "$limit" = 0 ] && ok "the helper holds /dev/cpu_dma_latency at 0" ||
	bad "the helper holds /dev/cpu_dma_latency at 0" "reads $limit; $(cat "$T/holder.out")"
plan held 2
# shellcheck disable=SC2086
expect "a run with the limit held at 0 completes" 0 "run complete" "$IDLELAB" run "$T/plan-held.json" --out "$T/held" $WL
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
j=$T/held/journal.jsonl
n=$(grep '"type":"sample"' "$j" | grep '"status":"ok"' | grep -c '"governor_bypass":{"cpu_latency_us":0,')
[ "$n" = 4 ] && ok "every ok sample records the governor bypassed" || bad "every ok sample records the governor bypassed" \
	"$n of 4; $(head -c 2000 "$j")"
grep '"type":"sample"' "$j" | grep -q "governor bypassed: CPU latency limit 0 us (held by [^)]*PID $holder/python3" &&
	ok "... with the caveat naming the holder (PID $holder/python3)" ||
	bad "... with the caveat naming the holder (PID $holder/python3)" "$(grep -o 'governor bypassed[^"]*' "$j" | head -n 2)"
expect "compare warns first" 0 "^WARNING: governor bypassed in 2 of 2 samples of menu, 2 of 2 samples of haltpoll" \
	"$IDLELAB" compare "$T/held"
# the verdict sentence is wrapped where its length (the findings before it) puts the breaks: read it as one line
expect "compare's verdict counts the bypassed idle comparisons" 0 "governor bypassed \\(CPU latency limit 0\\) in 4 samples: [1-9][0-9]* idle metric" \
	sh -c '"$1" compare "$2" | tr -s "\n " "  "' sh "$IDLELAB" "$T/held"
expect "the Tested-by says the governor was bypassed" 0 "the governor was bypassed in 4 counted samples" \
	sh -c '"$1" tested-by "$2" | tr -s "\n " "  "' sh "$IDLELAB" "$T/held"

# the control: the same run without the helper
if [ "$held_before" -eq 0 ] && [ "$(od -An -t d4 -N 4 /dev/cpu_dma_latency | tr -d ' ')" != 0 ]; then
	plan free 1
	# shellcheck disable=SC2086
	expect "the same run without the helper completes" 0 "run complete" "$IDLELAB" run "$T/plan-free.json" --out "$T/free" $WL
	grep '"type":"sample"' "$T/free/journal.jsonl" | grep -q '"status":"ok"' &&
		! grep -q 'governor_bypass\|governor bypassed' "$T/free/journal.jsonl" &&
		ok "... and no sample of it is marked bypassed" ||
		bad "... and no sample of it is marked bypassed" "$(head -c 2000 "$T/free/journal.jsonl")"
else
	skip "control run: another process already holds /dev/cpu_dma_latency on this machine"
fi
finish
