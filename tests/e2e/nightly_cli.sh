#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `idlelab nightly` where no kernel is built (fast; the five nights on the
# lab are tests/e2e-kernel/nightly_lab.sh): real git repositories, an
# "upstream" and a tracking clone fetched with libgit2; a tip measured
# already is `unchanged` (exit 0, nothing run) until the branch moves; bad
# track sections named by JSON path; a missing branch, remote or repository
# named; a second nightly on the same runs directory refused while the
# first holds it.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || { skip "git missing"; finish; exit $?; }
G="git -c user.name=T -c user.email=t@example.org -c init.defaultBranch=main"
up=$E2E_TMP/up
$G init -q "$up" && echo a > "$up/f" && $G -C "$up" add f && $G -C "$up" commit -q -m "first" &&
	echo b >> "$up/f" && $G -C "$up" commit -q -am "second: a change" && $G -C "$up" branch -q next HEAD~1 ||
	{ bad "upstream repository"; finish; exit 1; }
$G clone -q --bare "$up" "$E2E_TMP/track.git" && git -C "$E2E_TMP/track.git" remote rename origin up ||
	{ bad "tracking clone"; finish; exit 1; }
tip1=$(git -C "$up" rev-parse next)
tip2=$(git -C "$up" rev-parse main)
R=$E2E_TMP/reports
mkdir -p "$R"
plan() { # plan FILE TRACK-JSON
	cat > "$1" <<JSON
{"name": "nt", "host": "local", "governors": ["menu"],
 "workloads": [{"workload": "periodic", "params": {"hz": 1000, "duration": 0.02}}],
 "track": $2}
JSON
}
plan "$E2E_TMP/p.json" "{\"repo\": \"track.git\", \"remote\": \"up\", \"branch\": \"next\"}"
# a tip measured already (as a nightly journal says): nothing to do, whatever the plan's kernel
printf '{"type":"nightly","time":"2026-12-01T02:30:00.000Z","plan":"nt","host":"local","branch":"next","commit":"%s","run":"%s/x","verdict":"good"}\n' \
	"$tip1" "$R" > "$R/nightly.jsonl"
expect "the tip measured already: unchanged, exit 0" 0 "^unchanged: this tip was measured by x; nothing to do" \
	"$IDLELAB" nightly "$E2E_TMP/p.json" --dir "$R" -q
expect "the fetched tip and its subject are named" 0 "^nightly nt on local: next at $(echo "$tip1" | cut -c1-12) \\(\"first\"\\)" \
	"$IDLELAB" nightly "$E2E_TMP/p.json" --dir "$R" -q
[ "$(git -C "$E2E_TMP/track.git" rev-parse refs/remotes/up/next)" = "$tip1" ] &&
	ok "the branch was fetched into refs/remotes/up/next" || bad "the branch was fetched into refs/remotes/up/next"
expect "--json: unchanged" 0 '"verdict": "unchanged"' "$IDLELAB" nightly "$E2E_TMP/p.json" --dir "$R" -q --json
[ "$(ls -A "$R" | grep -v -e nightly.jsonl -e history.sqlite)" = "" ] && ok "nothing was run" || bad "nothing was run" "$(ls "$R")"
# upstream moves: the new tip is measured (the local host cannot build and boot it: a failure, said)
git -C "$up" branch -f next "$tip2"
expect "a new tip is measured; what stopped it is a failed nightly, exit 1" 1 "^failed \\(" \
	"$IDLELAB" nightly "$E2E_TMP/p.json" --dir "$R" -q
grep -q "\"type\":\"nightly-start\".*\"commit\":\"$tip2\"" "$R/nightly.jsonl" &&
	grep -q "\"commit\":\"$tip2\".*\"verdict\":\"failed\"" "$R/nightly.jsonl" &&
	ok "the journal has the start and the failed verdict" || bad "the journal has the start and the failed verdict" "$(cat "$R/nightly.jsonl")"
expect "a failure that is not the build is tried again the next time" 1 "^failed \\(infrastructure" \
	"$IDLELAB" nightly "$E2E_TMP/p.json" --dir "$R" -q

# bad plans and repositories: named
plan "$E2E_TMP/b1.json" '{"repo": "track.git"}'
expect "track.branch missing: named by JSON path" 1 "b1.json: track.branch: expected a branch name \\(required\\)" \
	"$IDLELAB" nightly "$E2E_TMP/b1.json" --dir "$R"
plan "$E2E_TMP/b2.json" '{"repo": "track.git", "branch": "next", "window": 2}'
expect "track.window out of range: named" 1 "b2.json: track.window: expected nightlies, 4 to 1000" \
	"$IDLELAB" nightly "$E2E_TMP/b2.json" --dir "$R"
plan "$E2E_TMP/b3.json" '{"repo": "track.git", "branch": "next", "colour": 1}'
expect "an unknown track key is named" 1 "b3.json: track.*colour" "$IDLELAB" nightly "$E2E_TMP/b3.json" --dir "$R"
printf '{"name": "nt", "host": "local", "governors": ["menu"], "workloads": [{"workload": "periodic"}]}\n' > "$E2E_TMP/b4.json"
expect "a plan without track is refused" 1 "b4.json: track: expected an object naming the repository and branch" \
	"$IDLELAB" nightly "$E2E_TMP/b4.json" --dir "$R"
plan "$E2E_TMP/b5.json" '{"repo": "track.git", "remote": "up", "branch": "nope"}'
expect "a branch the remote lacks is named" 1 "no branch 'nope' on remote 'up'" "$IDLELAB" nightly "$E2E_TMP/b5.json" --dir "$R"
# a branch deleted upstream: its remote-tracking ref stays behind, and would be "unchanged" every night
git -C "$up" branch -q gone HEAD && git -C "$E2E_TMP/track.git" fetch -q up gone:refs/remotes/up/gone &&
	git -C "$up" branch -q -D gone
plan "$E2E_TMP/b9.json" '{"repo": "track.git", "remote": "up", "branch": "gone"}'
expect "a tracked branch deleted upstream fails, naming the branch, the remote and the stale ref" 1 \
	"no branch 'gone' on remote 'up' \(.*up\): deleted there\? \(its remote-tracking ref, still at $(echo "$tip2" | cut -c1-12), is stale\)" \
	"$IDLELAB" nightly "$E2E_TMP/b9.json" --dir "$R" -q
plan "$E2E_TMP/b6.json" '{"repo": "track.git", "remote": "down", "branch": "next"}'
expect "a remote the repository lacks is named" 1 "no remote 'down'" "$IDLELAB" nightly "$E2E_TMP/b6.json" --dir "$R"
plan "$E2E_TMP/b7.json" '{"repo": "nowhere", "branch": "next"}'
expect "a repository that is not one is named" 1 "nowhere' is not a git repository" "$IDLELAB" nightly "$E2E_TMP/b7.json" --dir "$R"
plan "$E2E_TMP/b8.json" '{"repo": "track.git", "branch": "nope"}'
expect "without remote: the local branch (missing here) is named" 1 "no branch 'nope': " \
	"$IDLELAB" nightly "$E2E_TMP/b8.json" --dir "$R"
expect "--smtp without --to is a usage error" 2 "--smtp needs --to" \
	"$IDLELAB" nightly "$E2E_TMP/p.json" --dir "$R" --smtp smtp://127.0.0.1:1/

# one nightly at a time per runs directory
python3 -c '
import fcntl, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], "w").close(); time.sleep(30)' \
	"$R/nightly.jsonl" "$E2E_TMP/locked" &
holder=$!
i=0; while [ ! -e "$E2E_TMP/locked" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
expect "a second nightly on the same runs directory is refused" 1 "another nightly of this runs directory is running" \
	"$IDLELAB" nightly "$E2E_TMP/p.json" --dir "$R" -q
kill $holder 2>/dev/null; wait $holder 2>/dev/null
expect "help nightly" 0 "idlelab nightly PLAN" "$IDLELAB" help nightly
finish
