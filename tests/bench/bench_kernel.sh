#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: kernel variants on the lab's real linux-source tree ($TARBALL, the import
# cached in build/e2e-kernel-cache, as left by tests/e2e-kernel/kernel_stage.sh):
# preparing a 4-patch series (target < 5 s for all four variants), and the
# incremental build of each variant after the previous one, against the
# clean build of the base recorded in the cache (target >= 10x faster); and
# the apply check of a 10-patch series of plain diffs (target < 2 s).
IL_SRCDIR=${IL_SRCDIR:-.}
. "$IL_SRCDIR/tests/e2e/lib.sh"
SRC=$(cd "$IL_SRCDIR" && pwd)
IDLELAB=${IDLELAB:-$SRC/idlelab}
CACHE=${E2E_KERNEL_CACHE:-$SRC/build/e2e-kernel-cache}
if [ ! -f "$TARBALL" ] || ! command -v aarch64-linux-gnu-gcc >/dev/null; then
	echo "bench kernel: skipped (linux-source-$KVER or gcc-aarch64-linux-gnu missing)"; exit 0
fi
kernel_plan "$E2E_TMP/base.json" b
"$IDLELAB" kernel prepare "$E2E_TMP/base.json" --cache "$CACHE" >/dev/null || exit 1
repo=$(tarball_repo "$CACHE")
git clone -q --shared --no-checkout "$repo" "$E2E_TMP/c" 2>/dev/null
cd "$E2E_TMP/c" && git fetch -q origin refs/idlelab/import && git sparse-checkout set drivers/cpuidle/governors &&
	git checkout -q -B w FETCH_HEAD
i=0
for f in menu teo ladder haltpoll; do
	i=$((i + 1))
	printf '\n/* idlelab bench %d */\n' $i >> drivers/cpuidle/governors/$f.c
	git -c user.name=B -c user.email=b@example.org commit -q -am "cpuidle: $f: bench change $i"
done
git -c user.name=B -c user.email=b@example.org format-patch -q --stdout HEAD~4 > "$E2E_TMP/s.mbox"
cd - >/dev/null
# the apply check before any build (issue #39): a 10-patch series as plain diffs (no "diff --git"
# line, as many maintainers send them), parsed and applied in memory to the lab's tree, each in turn
cd "$E2E_TMP/c" && git sparse-checkout set drivers/cpuidle && git checkout -q -B w10 FETCH_HEAD
i=0
for f in governors/menu.c governors/teo.c governors/ladder.c governors/haltpoll.c cpuidle.c driver.c \
	governor.c sysfs.c poll_state.c cpuidle-haltpoll.c; do
	i=$((i + 1))
	printf '\n/* idlelab bench %d */\n' $i >> drivers/cpuidle/$f
	git -c user.name=B -c user.email=b@example.org commit -q -am "cpuidle: bench change $i"
done
git -c user.name=B -c user.email=b@example.org format-patch -q --stdout HEAD~10 |
	sed -e '/^diff --git /d' -e '/^index [0-9a-f]*\.\.[0-9a-f]*/d' > "$E2E_TMP/s10.mbox"
cd - >/dev/null
kernel_plan "$E2E_TMP/p10.json" b ten-%d "$E2E_TMP/s10.mbox"
best=
for k in 1 2 3; do
	t0=$(date +%s.%N)
	"$IDLELAB" kernel prepare "$E2E_TMP/p10.json" --cache "$CACHE" >/dev/null || exit 1
	t1=$(date +%s.%N)
	t=$(echo "$t1 - $t0" | bc -l)
	[ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ] && best=$t
done
printf 'bench kernel: apply check of a 10-patch series (plain diffs) on linux-source-%s, parse + apply + 10 variants: %.2f s, best of 3 (target < 2 s)\n' "$KVER" "$best"
kernel_plan "$E2E_TMP/plan.json" b bench-%d "$E2E_TMP/s.mbox"
t0=$(date +%s.%N)
"$IDLELAB" kernel prepare "$E2E_TMP/plan.json" --cache "$CACHE" >/dev/null || exit 1
t1=$(date +%s.%N)
printf 'bench kernel: preparing 4 variants of a 4-patch series on linux-source-%s (import cached): %.2f s (target < 5 s)\n' \
	"$KVER" "$(echo "$t1 - $t0" | bc -l)"
"$IDLELAB" kernel build "$E2E_TMP/plan.json" --cache "$CACHE" --json > "$E2E_TMP/b.json" 2>/dev/null || exit 1
"$IDLELAB" kernel list --cache "$CACHE" --json > "$E2E_TMP/l.json"
python3 - "$E2E_TMP/b.json" "$E2E_TMP/l.json" <<'PY'
import json, sys
built = json.load(open(sys.argv[1]))
clean = [m["build_s"] for m in json.load(open(sys.argv[2])) if not m.get("incremental")]
inc = [b["seconds"] for b in built if b["name"].startswith("bench-") and not b["cached"]]
if not inc:
    print("bench kernel: variants were cached; nothing to time"); sys.exit(0)
avg = sum(inc) / len(inc)
print("bench kernel: incremental builds of bench-1..4 (one governor file each): " + ", ".join("%.1f s" % x for x in inc))
if clean:
    print("bench kernel: clean build of the base in this cache: %.1f s -> incremental %.0fx faster (target >= 10x)" % (max(clean), max(clean) / avg))
else:
    print("bench kernel: no clean build recorded in this cache (run tests/e2e-kernel/kernel_stage.sh on an empty cache)")
PY
