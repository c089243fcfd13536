#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Order effects on the lab (issue #41): the demo's plan (examples/governors.json: menu, ladder,
# teo and menu-again, the A/A pair) run RUNS times in each ORDER on a lab host. For each key
# metric it prints the A/A pair's change (menu-again against menu) in every run, their mean (a
# position or carry-over effect shows as a change of one sign) and mean |change|, and how many
# runs called the pair different (host not quiet). The numbers behind the default order
# (docs/plan.md "order"). About 5 minutes a run on 2 cores, so not part of make bench:
#   tests/bench/lab_order.sh [RUNS [ORDERS [HOST]]]     (default: 3 "interleave random balanced" labvm)
# The lab must be up (idlelab lab up); the runs are kept in a directory it names.
set -eu
IDLELAB=${IDLELAB:-./idlelab}
RUNS=${1:-3}
ORDERS=${2:-interleave random balanced}
HOST=${3:-labvm}
SRC=${IL_SRCDIR:-.}
out=$(mktemp -d "${TMPDIR:-/tmp}/idlelab-order.XXXXXX")
echo "lab_order: $RUNS runs of examples/governors.json in each order ($ORDERS) on $HOST; runs in $out"
# the orders alternate run by run, so that a slow change of the host falls on each alike
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	for order in $ORDERS; do
		python3 - "$SRC/examples/governors.json" "$order" "$i" > "$out/plan-$order-$i.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.update(name="order-%s-%s" % (sys.argv[2], sys.argv[3]), order=sys.argv[2], seed=int(sys.argv[3]))
print(json.dumps(p))
PY
		t0=$(date +%s)
		"$IDLELAB" run "$out/plan-$order-$i.json" --host "$HOST" --out "$out/$order-$i" -q \
			--workloads-dir "$SRC/workloads" > "$out/$order-$i.log" 2>&1 ||
			{ echo "lab_order: $order run $i failed:"; tail -n 5 "$out/$order-$i.log"; exit 1; }
		"$IDLELAB" compare "$out/$order-$i" --format json > "$out/$order-$i.json"
		echo "  $order run $i: $(($(date +%s) - t0)) s"
	done
done
python3 - "$out" "$RUNS" $ORDERS <<'PY'
import json, os, sys
out, runs, orders = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = {}
for o in orders:
    for i in range(1, runs + 1):
        c = json.load(open(os.path.join(out, "%s-%d.json" % (o, i))))
        for m in c["metrics"]:
            if not m.get("key_metric"):
                continue
            aa = next(v for v in m["variants"] if v["variant"] == "menu-again")
            rows.setdefault(m["key"], {}).setdefault(o, []).append((aa["change_pct"], aa["verdict"]))
print("A/A pair (menu-again vs menu) per key metric: change %% in each run; mean; mean |change|; runs flagged")
print("%-40s %-10s %-26s %8s %8s %6s" % ("key metric", "order", "runs", "mean", "mean||", "flag"))
tot = {o: [0.0, 0, 0] for o in orders}
for k in sorted(rows):
    for o in orders:
        v = rows[k].get(o, [])
        ch = [x for x, _ in v if x is not None]
        flag = sum(1 for _, vd in v if vd not in ("same", "unknown"))
        mean = sum(ch) / len(ch) if ch else float("nan")
        mabs = sum(abs(x) for x in ch) / len(ch) if ch else float("nan")
        tot[o][0] += mabs if ch else 0
        tot[o][1] += 1 if ch else 0
        tot[o][2] += flag
        print("%-40s %-10s %-26s %+8.2f %8.2f %3d/%d" % (k, o, " ".join("%+.1f" % x for x in ch), mean, mabs, flag, len(v)))
print("over the key metrics: mean |A/A change| and A/A pairs flagged, per order")
for o in orders:
    s, n, f = tot[o]
    print("  %-10s %6.2f%%  %d flagged" % (o, s / n if n else float("nan"), f))
PY
