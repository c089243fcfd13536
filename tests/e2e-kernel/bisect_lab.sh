#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bisection for real, on the lab host: a history of 9 commits on top of the
# lab's tree (made here, pushed into the kernel cache's imported repository)
# with a commit that does not build, one whose kernel panics at boot (the
# host is lost: retried, then skipped), and one that makes menu always pick
# the deepest state (the culprit). idlelab bisect must name the culprit from
# idle.aboves, skip the other two without blaming them, survive a kill in
# the middle (--resume finishes it without measuring a journalled round
# again), and drive `git bisect run` through --step to the same commit.
. "$(dirname "$0")/../e2e/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
kernel_lab_needs qemu-system-aarch64 dtc dropbearkey aarch64-linux-gnu-gcc git python3
lab_fresh bs
trap '"$IDLELAB" lab down --name bs >/dev/null 2>&1; git -C "$repo" update-ref -d refs/idlelab/test/bisect-e2e 2>/dev/null;
      git -C "$repo" for-each-ref --format="%(refname)" refs/idlelab/confirm | xargs -r -n1 git -C "$repo" update-ref -d;
      rm -rf "$E2E_TMP"' EXIT
repo=$(tarball_repo "$IDLELAB_CACHE")
base=$(git -C "$repo" rev-parse refs/idlelab/import)

bisect_history "$E2E_TMP/hist" "$repo" refs/idlelab/test/bisect-e2e
c="$E2E_TMP/hist"
[ "$(git -C "$repo" rev-list --count "$base"..refs/idlelab/test/bisect-e2e)" = 9 ] && ok "a history of 9 commits" ||
	bad "a history of 9 commits"

bisect_plan "$E2E_TMP/plan.json" bisect-e2e labvm-bs "$repo"
B="$E2E_TMP/bis"
# killed once it is past the endpoints (the fourth round under way), then resumed
"$IDLELAB" bisect "$E2E_TMP/plan.json" --good "$base" --bad refs/idlelab/test/bisect-e2e --metric idle.aboves \
	--confirm --out "$B" > "$E2E_TMP/first.out" 2> "$E2E_TMP/first.err" &
pid=$!
i=0
while [ "$(ls -d "$B"/steps/*-r*/ 2>/dev/null | wc -l)" -lt 4 ] && kill -0 $pid 2>/dev/null && [ $i -lt 1200 ]; do
	sleep 0.5; i=$((i + 1))
done
kill -INT $pid 2>/dev/null
wait $pid
rc=$?
[ $rc = 130 ] && grep -q "idlelab bisect --resume $B continues" "$E2E_TMP/first.err" &&
	ok "a killed bisection stops cleanly and says how to resume" ||
	bad "a killed bisection stops cleanly and says how to resume" "exit $rc; $(tail -5 "$E2E_TMP/first.err")"
expect "resume: the culprit named" 0 "first bad commit $(echo "$culprit" | cut -c1-12) cpuidle: menu: Always pick the deepest state" \
	"$IDLELAB" bisect --resume "$B"
"$IDLELAB" bisect --resume "$B" --json > "$E2E_TMP/res.json"
python3 - "$E2E_TMP/res.json" "$B/bisect.jsonl" <<'PY' && ok "skips for the build failure and the lost host, nothing measured twice" ||
import json, sys
r = json.load(open(sys.argv[1]))
v = {s["subject"]: s for s in r["steps"]}
b = v["cpuidle: teo: break the build (test)"]
p = v["init: panic before init, teo: build again (test)"]
assert b["verdict"] == "skip" and "does not build" in b["reason"], b
assert p["verdict"] == "skip" and "host or boot failure, retried" in p["reason"], p
assert r["state"] == "found" and r["p_wrong"] < 0.2, r
# --confirm (given before the kill, kept for the resume): the culprit reverted on bad measures like good
assert r["confirmation"]["verdict"] == "good", r["confirmation"]
assert r["confirmation"]["subject"].startswith('Revert "cpuidle: menu: Always pick the deepest state'), r["confirmation"]
assert all(s["verdict"] in ("good", "bad", "skip") for s in r["steps"]), r["steps"]
rounds = [(x["commit"], x["round"]) for x in map(json.loads, open(sys.argv[2])) if x["type"] == "round"]
assert len(rounds) == len(set(rounds)), rounds
print("  steps:", [(s["commit"][:12], s["verdict"], s["n"]) for s in r["steps"]], "samples", r["samples"],
      "p_wrong", r["p_wrong"])
PY
	bad "skips for the build failure and the lost host, nothing measured twice" "$(head -c 3000 "$E2E_TMP/res.json")"

# git bisect run drives the same decisions through --step (journalled commits are not measured again)
(cd "$c" && git bisect start refs/heads/hist "$base" >/dev/null 2>&1 &&
	git bisect run sh -c "\"$IDLELAB\" bisect --step \"$B\" --rev \$(git rev-parse HEAD)" > "$E2E_TMP/gb.out" 2>&1)
grep -q "^$culprit is the first bad commit" "$E2E_TMP/gb.out" && ok "git bisect run with --step finds the culprit" ||
	bad "git bisect run with --step finds the culprit" "$(tail -30 "$E2E_TMP/gb.out")"
(cd "$c" && git bisect reset >/dev/null 2>&1)
"$IDLELAB" lab down --name bs >/dev/null 2>&1
finish
