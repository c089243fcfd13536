#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark on the lab host: boot to SSH-ready time, and harness
# perturbation — idle entries per second on the guest's CPUs during a
# `sleep 10` run by idlelab (one exec: governor write, snapshots, workload)
# against the same `sleep 10` with the counters read by hand in one SSH
# command. Target: idlelab adds < 1% idle entries.
IL_SRCDIR=${IL_SRCDIR:-.}
. "$IL_SRCDIR/tests/e2e/lib.sh"
SRC=$(cd "$IL_SRCDIR" && pwd)
IDLELAB=${IDLELAB:-$SRC/idlelab}
export IDLELAB_CACHE=${E2E_KERNEL_CACHE:-$SRC/build/e2e-kernel-cache}
if ! command -v qemu-system-aarch64 >/dev/null || [ ! -f /usr/src/linux-source-6.1.tar.xz ]; then
	echo "bench lab: skipped (qemu-system-arm or linux-source-6.1 missing)"; exit 0
fi
trap '"$IDLELAB" lab down --name bench >/dev/null 2>&1; rm -rf "$E2E_TMP"' EXIT
"$IDLELAB" lab up --name bench --source "$SRC" --json > "$E2E_TMP/up.json" 2>/dev/null || { echo "bench lab: lab up failed"; exit 1; }
mkdir -p "$E2E_TMP/wl"
cat > "$E2E_TMP/wl/sleep.json" <<'JSON'
{"description": "sleep", "argv": ["sh", "-c", "sleep \"$1\"; echo 'slept: 1'", "sh", "{s}"],
 "params": {"s": {"type": "integer", "default": 10}}, "parser": "idlelab-kv",
 "metrics": {"slept": {"unit": "1", "better": "higher"}}}
JSON
cat > "$E2E_TMP/plan.json" <<'JSON'
{"name": "perturb", "host": "labvm-bench", "workloads": ["sleep"], "iterations": 3, "quiesce_s": 0}
JSON
"$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run" --workloads-dir "$E2E_TMP/wl" -q >/dev/null || { echo "bench lab: run failed"; exit 1; }
for i in 1 2 3; do
	"$IDLELAB" lab ssh --name bench -- 'c() { cat /proc/uptime; cat /sys/devices/system/cpu/cpu*/cpuidle/state*/usage; }; c; echo --; sleep 10; c' \
		> "$E2E_TMP/hand$i.txt" 2>/dev/null
done
python3 - "$E2E_TMP/up.json" "$E2E_TMP/run/journal.jsonl" "$E2E_TMP"/hand*.txt <<'PY'
import json, sys, statistics
up = json.load(open(sys.argv[1]))
rates = [r["idle"]["total"]["idles_per_s"] for r in map(json.loads, open(sys.argv[2]))
         if r["type"] == "sample" and r["status"] == "ok"]
hand = []
for f in sys.argv[3:]:
    a, b = open(f).read().split("--\n")
    def parse(t):
        lines = t.split("\n")
        return float(lines[0].split()[0]), sum(int(x) for x in lines[1:] if x.strip())
    (t0, u0), (t1, u1) = parse(a), parse(b)
    hand.append((u1 - u0) / (t1 - t0))
i, h = statistics.median(rates), statistics.median(hand)
print("bench lab: boot to SSH-ready %.1f s (lab up, build cached)" % up["ssh_ready_s"])
print("bench lab: idle entries/s during sleep 10: idlelab %.1f (median of %d), by hand %.1f (median of %d): %+.2f%% (target < +1%%)"
      % (i, len(rates), h, len(hand), (i - h) / h * 100))
PY
