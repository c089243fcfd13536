#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark on the lab host: boot to SSH-ready time, and harness
# perturbation — idle entries per second on the guest's CPUs during a
# `sleep 10` run by idlelab (one exec: governor write, snapshots, workload)
# against the same `sleep 10` with the counters read by hand in one SSH
# command. Target: idlelab adds < 1% idle entries. The observer effect of
# idle traces: the demo's sleeper under menu, traced and not, interleaved;
# tracing must not move idle entries/s and miss % by more than the noise
# (2 x the standard error of the difference), or the line says by how much
# it does. Then boot to SSH of each
# lab architecture, three boots each (builds cached; the x86_64 lab's when
# qemu-system-x86 and iasl are installed).
IL_SRCDIR=${IL_SRCDIR:-.}
. "$IL_SRCDIR/tests/e2e/lib.sh"
lab_bench "bench lab" || exit 0
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
print("bench lab: lab up to SSH-ready %.1f s (build cached), of which boot %.1f s" % (up["ssh_ready_s"], up["boot_to_ssh_s"]))
print("bench lab: idle entries/s during sleep 10: idlelab %.1f (median of %d), by hand %.1f (median of %d): %+.2f%% (target < +1%%)"
      % (i, len(rates), h, len(hand), (i - h) / h * 100))
PY

# the observer effect of idle traces ("trace": "idle", runners/trace.sh): the demo's sleeper, both ways
cat > "$E2E_TMP/trace.json" <<'JSON'
{"name": "observer", "host": "labvm-bench", "governors": ["menu"],
 "workloads": [{"workload": "sleeper", "label": "plain", "params": {"duration": 2, "mix": "50:300,50:2400"}},
               {"workload": "sleeper", "label": "traced", "params": {"duration": 2, "mix": "50:300,50:2400"},
                "trace": "idle"}],
 "iterations": 8, "warmup": 1, "quiesce_s": 0.5}
JSON
"$IDLELAB" run "$E2E_TMP/trace.json" --out "$E2E_TMP/trace" -q >/dev/null || { echo "bench lab: traced run failed"; exit 1; }
python3 - "$E2E_TMP/trace/journal.jsonl" <<'PY'
import json, math, statistics
import sys
rows = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "sample" and r["status"] == "ok"]
def col(label, key):
    return [r["idle"]["total"][key] for r in rows if r["workload"] == label and r["idle"]["total"].get(key) is not None]
for key, what in (("idles_per_s", "idle entries/s"), ("miss_pct", "miss %")):
    a, b = col("plain", key), col("traced", key)
    ma, mb = statistics.mean(a), statistics.mean(b)
    se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    d, noise = mb - ma, 2 * se
    print("bench lab: idle trace observer effect, %s: plain %.2f, traced %.2f (means of %d, %d): %+.2f (%+.1f%%), "
          "noise +-%.2f: %s" % (what, ma, mb, len(a), len(b), d, 100 * d / ma if ma else 0, noise,
                                "within the noise" if abs(d) <= noise else "BEYOND the noise: tracing moves it by %+.1f%%" % (100 * d / ma)))
PY

# boot to SSH per architecture: QEMU's start to the first SSH command answered, median of 3
boots() {
	arch=$1 name=$2
	"$IDLELAB" lab up --arch $arch --name $name --source "$SRC" -q >/dev/null 2>&1 || { echo "bench lab: $arch: lab up failed"; return 1; }
	"$IDLELAB" lab down --arch $arch --name $name >/dev/null 2>&1
	for i in 1 2 3; do
		"$IDLELAB" lab up --arch $arch --name $name --source "$SRC" --json > "$E2E_TMP/boot-$arch-$i.json" 2>/dev/null ||
			{ echo "bench lab: $arch: lab up failed"; return 1; }
		"$IDLELAB" lab down --arch $arch --name $name >/dev/null 2>&1
	done
	python3 - "$arch" "$E2E_TMP"/boot-$arch-*.json <<'PY'
import json, sys, statistics
b = [json.load(open(f))["boot_to_ssh_s"] for f in sys.argv[2:]]
print("bench lab: %s boot to SSH %.2f s (median of %d: %s)" % (sys.argv[1], statistics.median(b), len(b),
      ", ".join("%.2f" % x for x in b)))
PY
}
"$IDLELAB" lab down --name bench >/dev/null 2>&1
boots arm64 bench || exit 1
if command -v qemu-system-x86_64 >/dev/null && command -v iasl >/dev/null; then
	trap '"$IDLELAB" lab down --name bench >/dev/null 2>&1; "$IDLELAB" lab down --arch x86_64 --name bench >/dev/null 2>&1; rm -rf "$E2E_TMP"' EXIT
	boots x86_64 bench || exit 1
else
	echo "bench lab: x86_64 boot skipped (qemu-system-x86 or acpica-tools missing: make deps)"
fi
