#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: localizing a governor regression on the lab host (the e2e's
# 9-commit history on the lab's tree: one commit that does not build, one that
# panics at boot, and menu made to always pick the deepest state), by
# idlelab's adaptive bisection (4 samples a round, doubling up to 16 on
# undecided commits) against a fixed-n bisection (10 samples per commit,
# no doubling: --samples 10 --max-samples 10). Both must name the same
# commit; printed: samples spent and wall time of each. Target: >= 2x fewer
# samples for the adaptive one. BENCH_BISECT_MODES="adaptive" (or "fixed") runs one side only.
IL_SRCDIR=${IL_SRCDIR:-.}
. "$IL_SRCDIR/tests/e2e/lib.sh"
SRC=$(cd "$IL_SRCDIR" && pwd)
IDLELAB=${IDLELAB:-$SRC/idlelab}
export IDLELAB_CACHE=${E2E_KERNEL_CACHE:-$SRC/build/e2e-kernel-cache}
for t in qemu-system-aarch64 dtc dropbearkey aarch64-linux-gnu-gcc git python3; do
	command -v $t >/dev/null || { echo "bench bisect: skipped ($t missing)"; exit 0; }
done
[ -f $TARBALL ] || { echo "bench bisect: skipped (linux-source-$KVER missing)"; exit 0; }
cd "$SRC"
"$IDLELAB" lab down --name bb >/dev/null 2>&1
"$IDLELAB" lab up --name bb --source "$SRC" -q >/dev/null 2>&1 || { echo "bench bisect: lab up failed"; exit 1; }
repo=$(tarball_repo "$IDLELAB_CACHE")
trap '"$IDLELAB" lab down --name bb >/dev/null 2>&1; git -C "$repo" update-ref -d refs/idlelab/test/bisect-bench 2>/dev/null; rm -rf "$E2E_TMP"' EXIT
base=$(git -C "$repo" rev-parse refs/idlelab/import)
bisect_history "$E2E_TMP/hist" "$repo" refs/idlelab/test/bisect-bench >/dev/null || { echo "bench bisect: history failed"; exit 1; }
bisect_plan "$E2E_TMP/plan.json" bisect-bench labvm-bb "$repo"
for mode in ${BENCH_BISECT_MODES:-adaptive fixed}; do
	case $mode in adaptive) n="--samples 4" ;; fixed) n="--samples 10 --max-samples 10" ;; esac
	t0=$(date +%s)
	"$IDLELAB" bisect "$E2E_TMP/plan.json" --good "$base" --bad refs/idlelab/test/bisect-bench --metric idle.aboves $n \
		--out "$E2E_TMP/$mode" --json -q > "$E2E_TMP/$mode.json" 2> "$E2E_TMP/$mode.err" ||
		{ echo "bench bisect: $mode bisection failed: $(tail -3 "$E2E_TMP/$mode.err")"; exit 1; }
	echo $(( $(date +%s) - t0 )) > "$E2E_TMP/$mode.s"
done
python3 - "$E2E_TMP" "$culprit" <<'PY'
import json, sys
d, culprit = sys.argv[1], sys.argv[2]
r = {m: json.load(open("%s/%s.json" % (d, m))) for m in ("adaptive", "fixed")}
t = {m: int(open("%s/%s.s" % (d, m)).read()) for m in r}
for m in r:
    ok = r[m]["state"] == "found" and r[m]["first_bad"] == culprit
    print("bench bisect: %-8s %3d samples, %4d s, %d steps, answer %s, p(wrong) <= %.3g" % (m, r[m]["samples"], t[m],
          len(r[m]["steps"]), "right" if ok else "WRONG (%s)" % r[m].get("first_bad"), r[m]["p_wrong"]))
print("bench bisect: adaptive spends %.1fx fewer samples than fixed n=10 (target >= 2x), %.1fx less time"
      % (r["fixed"]["samples"] / max(1, r["adaptive"]["samples"]), t["fixed"] / max(1, t["adaptive"])))
PY
