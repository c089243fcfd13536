#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel stage against a real kernel: import Debian's linux-source
# tarball of the lab's tree ($TARBALL, libgit2), make a real two-patch series against
# drivers/cpuidle/governors/ with git format-patch, prepare the variants
# (base, +1, +1..2) and build a minimal arm64 Image for each with
# gcc-aarch64-linux-gnu and the lab host's config fragment. The variants after
# the base must build incrementally, and each Image must carry its variant's
# LOCALVERSION. The cache is build/e2e-kernel-cache, shared with lab.sh (the
# base is the lab's kernel); the series' commits carry today's date, so its
# variants are new builds every run, incremental on the base's O= directory.
. "$(dirname "$0")/../e2e/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
if [ ! -f "$TARBALL" ] || ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v git >/dev/null; then
	skip "linux-source-$KVER, gcc-aarch64-linux-gnu or git missing (make deps installs them)"; finish; exit $?
fi
CACHE=${E2E_KERNEL_CACHE:-$SRC/build/e2e-kernel-cache}
mkdir -p "$CACHE"
kernel_plan "$E2E_TMP/base.json" kstage
t0=$(date +%s)
expect "import linux-source-$KVER and prepare the base" 0 "^labvm-$KVER +commit [0-9a-f]{12} tree" \
	"$IDLELAB" kernel prepare "$E2E_TMP/base.json" --cache "$CACHE"
echo "  (import/prepare: $(( $(date +%s) - t0 )) s)"
repo=$(tarball_repo "$CACHE")
# a sparse clone sharing the import's objects: only the governors are written out
git clone -q --shared --no-checkout "$repo" "$E2E_TMP/clone" 2>/dev/null
cd "$E2E_TMP/clone"
git fetch -q origin refs/idlelab/import
git sparse-checkout set drivers/cpuidle/governors
git checkout -q -B work FETCH_HEAD
sed -i 's/^#define MAX_INTERESTING (50000 \* NSEC_PER_USEC)$/#define MAX_INTERESTING (60000 * NSEC_PER_USEC)/' drivers/cpuidle/governors/menu.c
git -c user.name='Lab Tester' -c user.email=lab@example.org commit -q -am 'cpuidle: menu: Look at idle periods up to 60 ms

Signed-off-by: Lab Tester <lab@example.org>'
sed -i 's/^#define DECAY_SHIFT\t3$/#define DECAY_SHIFT\t4/' drivers/cpuidle/governors/teo.c
git -c user.name='Lab Tester' -c user.email=lab@example.org commit -q -am 'cpuidle: teo: Decay the metrics more slowly

Signed-off-by: Lab Tester <lab@example.org>'
[ "$(git rev-list --count HEAD~2..HEAD 2>/dev/null)" = 2 ] || { bad "make a two-patch series" "the sed edits did not apply"; finish; exit 1; }
git -c user.name='Lab Tester' -c user.email=lab@example.org format-patch -q --stdout --cover-letter HEAD~2 > "$E2E_TMP/series.mbox"
cd - >/dev/null
n=$(git -C "$E2E_TMP/clone" diff --stat HEAD~2 | tail -1)
echo "  series: $n"
kernel_plan "$E2E_TMP/plan.json" kstage gov-%d "$E2E_TMP/series.mbox"
expect "series show: two patches" 0 "\\[2/2\\] cpuidle: teo: Decay the metrics more slowly" \
	"$IDLELAB" series show "$E2E_TMP/series.mbox"
expect "prepare: base + 2 cumulative variants" 0 "gov-2 +commit" "$IDLELAB" kernel prepare "$E2E_TMP/plan.json" --cache "$CACHE"
t0=$(date +%s)
expect "build all variants" 0 "gov-2 +$KVER\\.[0-9]+-il[0-9a-f]{8}" \
	"$IDLELAB" kernel build "$E2E_TMP/plan.json" --cache "$CACHE"
echo "  (builds: $(( $(date +%s) - t0 )) s)"
"$IDLELAB" kernel build "$E2E_TMP/plan.json" --cache "$CACHE" --json > "$E2E_TMP/built.json"
python3 - "$E2E_TMP/built.json" "labvm-$KVER" <<'PY' && ok "incremental variants, each Image carrying its own release" || bad "incremental variants, each Image carrying its own release"
import json, sys, os, re
ms = {}
for b in json.load(open(sys.argv[1])):
    m = json.load(open(os.path.join(b["dir"], "manifest.json")))
    m["dir"] = b["dir"]
    ms[b["name"]] = m
base, g1, g2 = ms[sys.argv[2]], ms["gov-1"], ms["gov-2"]
for m in (base, g1, g2):
    img = open(os.path.join(m["dir"], "Image"), "rb").read()
    assert m["release"].encode() in img, ("release not in Image", m["name"])
    assert re.search(r"-il[0-9a-f]{8}$", m["release"]), m["release"]
    log = open(os.path.join(m["dir"], "build.log")).read()
    m["cc"] = len(re.findall(r"^  CC ", log, re.M))
print("  base: %.1f s (%d files compiled%s), gov-1: %.1f s (%d), gov-2: %.1f s (%d)" % (
    base["build_s"], base["cc"], ", incremental" if base["incremental"] else "", g1["build_s"], g1["cc"], g2["build_s"], g2["cc"]))
# gov-1 is the first build in this lineage's O= directory when the base came from the cache
# (built under another lineage); gov-2 always follows gov-1 in the same directory
assert g2["incremental"], "gov-2 did not build on gov-1's objects"
# the patched file plus what embeds the release string (LOCALVERSION differs per variant)
assert g2["cc"] <= 20, "gov-2 rebuilt too much"
assert g1["cc"] <= 20 or not g1["incremental"], "gov-1 rebuilt too much"
clean = max(m["build_s"] for m in (base, g1, g2))
assert g2["build_s"] * 10 <= clean, "incremental build not >= 10x faster than a clean one"
assert len({base["release"], g1["release"], g2["release"]}) == 3
PY
expect "a second build is a cache hit" 0 "gov-2 .*\\(cached\\)" "$IDLELAB" kernel build "$E2E_TMP/plan.json" --cache "$CACHE"
finish
