#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `idlelab bisect` refusing before it measures anything (issue #28): an
# endpoint that does not resolve, swapped endpoints, too few samples, an
# --out that exists; a refused bisection leaves nothing behind (the
# corrected command must not find "exists", nor --resume a directory with
# nothing to resume), and an existing directory keeps exactly what it had.
# Options a bisection fixes when it begins are refused with --resume and
# --step instead of being ignored. A git repository made here; no host, no
# kernel build (the bisection for real is tests/e2e-kernel/bisect_lab.sh).
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
if ! command -v git >/dev/null; then
	skip "git missing"; finish; exit $?
fi
git init -q "$T/repo"
for i in 1 2 3; do
	echo "$i" > "$T/repo/f"
	git -C "$T/repo" add f
	git -C "$T/repo" -c user.name=Lab -c user.email=lab@example.org commit -q -m "commit $i"
done
first=$(git -C "$T/repo" rev-parse HEAD~2)
last=$(git -C "$T/repo" rev-parse HEAD)
cat > "$T/plan.json" <<JSON
{"name": "bis", "host": "nohost", "kernels": [{"name": "linux", "repo": "$T/repo"}], "governors": ["menu"],
 "workloads": ["periodic"]}
JSON
gone() { [ ! -e "$1" ] && ok "$2: nothing left behind" || bad "$2: nothing left behind" "$(ls -la "$1" 2>&1)"; }

expect "an endpoint that does not resolve is refused" 1 "nosuchrev" \
	"$IDLELAB" bisect "$T/plan.json" --good nosuchrev --bad "$last" --out "$T/b1" -q
gone "$T/b1" "an endpoint that does not resolve"
expect "swapped endpoints are refused, both named" 1 "$(echo "$last" | cut -c1-12).*$(echo "$first" | cut -c1-12)" \
	"$IDLELAB" bisect "$T/plan.json" --good "$last" --bad "$first" --out "$T/b2" -q
gone "$T/b2" "swapped endpoints"
# refused inside the bisection itself, after the command wrote its plan.json and bisect.json
expect "too few samples a round are refused" 1 "at least 3 samples" \
	"$IDLELAB" bisect "$T/plan.json" --good "$first" --bad "$last" --samples 2 --out "$T/b3" -q
gone "$T/b3" "too few samples"
# the corrected command is not told the directory exists (it goes on to the plan's host, absent here)
out=$("$IDLELAB" bisect "$T/plan.json" --good nosuchrev --bad "$last" --out "$T/b5" -q 2>&1)
out=$("$IDLELAB" bisect "$T/plan.json" --good "$first" --bad "$last" --samples 2 --out "$T/b5" -q 2>&1)
case $out in
*exists*) bad "a corrected command does not find the refused one's directory" "$out" ;;
*) ok "a corrected command does not find the refused one's directory" ;;
esac
gone "$T/b5" "the corrected command, refused again"
mkdir "$T/b4"
echo mine > "$T/b4/mine"
expect "an --out that exists is refused" 1 "b4 exists: 'idlelab bisect --resume" \
	"$IDLELAB" bisect "$T/plan.json" --good "$first" --bad "$last" --out "$T/b4" -q
[ "$(ls -A "$T/b4")" = mine ] && [ "$(cat "$T/b4/mine")" = mine ] &&
	ok "an existing directory keeps exactly what it had" || bad "an existing directory keeps exactly what it had" "$(ls -A "$T/b4")"
expect "--resume takes no --good" 2 "--good cannot be given with --resume: the bisection in $T/b4 keeps what it began with" \
	"$IDLELAB" bisect --resume "$T/b4" --good "$first"
expect "--resume takes no --metric" 2 "--metric cannot be given with --resume" \
	"$IDLELAB" bisect --resume "$T/b4" --metric idle.aboves
expect "--step takes no --samples" 2 "--samples cannot be given with --step" \
	"$IDLELAB" bisect --step "$T/b4" --samples 5
expect "--rev is for --step" 2 "--rev is for --step" \
	"$IDLELAB" bisect --resume "$T/b4" --rev HEAD
expect "--resume of a directory without a bisection says so" 1 "not a bisection directory" \
	"$IDLELAB" bisect --resume "$T/b4"
finish
