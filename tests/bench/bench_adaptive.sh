#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark on the lab host: samples and wall time to a decision, adaptive
# runs against fixed ones (docs/report.md "Adaptive runs").
#  1. The demo plan (examples/governors.json: ladder/menu/teo, an A/A copy of
#     menu, three workloads) with a fixed `iterations: 10`; its verdicts are
#     the reference decisions.
#  2. The same rounds as an adaptive run {"min": 5, "max": 40} would have
#     judged them: the run is interleaved, so its first n rounds are what an
#     adaptive run has seen after round n. For each clear contrast of the
#     fixed run (a key comparison better or worse), the first round at which
#     the adaptive design (alpha / 36 a look) decides it the same way, and the
#     wall time the run had taken by then.
#  3. A real adaptive run on the lab of the plan's clear contrasts (ladder vs
#     menu on pingpong and the bimodal sleeper, {"min": 3, "max": 20}): where
#     it stopped, and why.
IL_SRCDIR=${IL_SRCDIR:-.}
. "$IL_SRCDIR/tests/e2e/lib.sh"
lab_bench "bench adaptive" || exit 0
trap '"$IDLELAB" lab down --name bench >/dev/null 2>&1; rm -rf "$E2E_TMP"' EXIT
"$IDLELAB" lab up --name bench --source "$SRC" -q >/dev/null 2>&1 || { echo "bench adaptive: lab up failed"; exit 1; }
python3 - "$SRC/examples/governors.json" "$E2E_TMP" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["host"] = "labvm-bench"
p["iterations"] = 10
json.dump(p, open(sys.argv[2] + "/fixed.json", "w"))
a = dict(p, name="governors-adaptive", governors=["menu", "ladder"], iterations={"min": 3, "max": 20})
a["workloads"] = [w for w in p["workloads"] if w.get("label") == "sleeper-bimodal" or w["workload"] == "pingpong"]
json.dump(a, open(sys.argv[2] + "/adaptive.json", "w"))
PY
WL="--workloads-dir $SRC/workloads --workload-bin $SRC/build/workloads"
t0=$(date +%s)
"$IDLELAB" run "$E2E_TMP/fixed.json" --out "$E2E_TMP/fixed" $WL -q >/dev/null || { echo "bench adaptive: fixed run failed"; exit 1; }
t1=$(date +%s)
"$IDLELAB" compare "$E2E_TMP/fixed" --format json > "$E2E_TMP/fixed.cmp.json" || exit 1
# the fixed run's first n rounds, judged as an adaptive {5, 40} run would have at round n
n=5
while [ $n -le 10 ]; do
	mkdir -p "$E2E_TMP/prefix-$n"
	python3 - "$E2E_TMP/fixed/journal.jsonl" "$E2E_TMP/prefix-$n/journal.jsonl" $n <<'PY'
import json, sys
n = int(sys.argv[3])
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r["type"] == "run-start":
            r["adaptive"] = {"min": 5, "max": 40}
        if r["type"] == "sample" and not r.get("warmup") and r.get("iteration", 0) >= n:
            continue
        out.write(json.dumps(r) + "\n")
PY
	"$IDLELAB" compare "$E2E_TMP/prefix-$n" --format json > "$E2E_TMP/prefix-$n.json" || exit 1
	n=$((n + 1))
done
t2=$(date +%s)
"$IDLELAB" run "$E2E_TMP/adaptive.json" --out "$E2E_TMP/adaptive" $WL -q >/dev/null || { echo "bench adaptive: adaptive run failed"; exit 1; }
t3=$(date +%s)
python3 - "$E2E_TMP" $((t1 - t0)) $((t3 - t2)) <<'PY'
import datetime, json, sys
d, fixed_s, adapt_s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def verdicts(path):
    c = json.load(open(path))
    return {(m["key"], x["variant"]): x["verdict"] for m in c["metrics"] if m["key_metric"]
            for x in m["variants"] if x["verdict"] not in ("ref",)}
fixed = verdicts(d + "/fixed.cmp.json")
clear = sorted(k for k, v in fixed.items() if v in ("better", "worse") and not k[1].endswith("-again"))
samples = [json.loads(l) for l in open(d + "/fixed/journal.jsonl")]
samples = [r for r in samples if r["type"] == "sample" and r.get("final")]
def t(s):
    return datetime.datetime.strptime(s.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
start = min(t(r["started"]) for r in samples)
def wall(n):   # the run's wall time until its first n counted rounds were done
    return max(t(r["ended"]) for r in samples if r.get("warmup") or r["iteration"] < n) - start
prefix = {n: verdicts("%s/prefix-%d.json" % (d, n)) for n in range(5, 11)}
print("bench adaptive: fixed iterations 10 of examples/governors.json on the lab: %d samples, %d s; "
      "%d clear contrasts (key metrics better/worse)" % (len(samples), fixed_s, len(clear)))
ratios = []
for k in clear:
    at = next((n for n in range(5, 11) if prefix[n].get(k) == fixed[k]), None)
    if at:
        ratios.append(10 / at)
    print("  %-40s %-12s %-6s adaptive {5,40} decides it at round %s, %s (fixed: 10, %.0f s)" %
          (k[0], k[1], fixed[k], at if at else "> 10", "%.0f s" % wall(at) if at else "-", wall(10)))
if ratios:
    print("bench adaptive: clear contrasts decided with %.1fx fewer rounds (median; min %.1fx)" %
          (sorted(ratios)[len(ratios) // 2], min(ratios)))
other = {k: v for k, v in prefix[10].items() if k not in clear}
print("bench adaptive: the other key comparisons at round 10 under the adaptive design: %s" %
      ", ".join("%s %d" % (v, list(other.values()).count(v)) for v in sorted(set(other.values()))))
rec = [json.loads(l) for l in open(d + "/adaptive/journal.jsonl")]
stop = [r for r in rec if r["type"] == "stop"]
ok = [r for r in rec if r["type"] == "sample" and r.get("status") == "ok"]
s = stop[-1] if stop else {}
print("bench adaptive: a real adaptive run (menu vs ladder, pingpong + sleeper-bimodal, {3, 20}): "
      "stopped after %s rounds (%s: %s), %d ok samples, %d s; fixed 10 would be %d samples"
      % (s.get("rounds"), s.get("reason"), s.get("why"), len(ok), adapt_s, 2 * 2 * 10))
PY
