#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `idlelab try` (#32) on the fake host of fakeboot.sh (kernels built and
# booted in seconds): a two-patch series made with git format-patch
# --cover-letter --base on the stand-in kernel repository, both patches
# touching drivers/cpuidle/governors/teo.c:
# - the run measures base, patch-1, patch-2 and the A/A copy of the base, teo only;
# - reply.eml, read by Python's email module, answers the cover letter
#   (In-Reply-To, References with the thread's root) with the Tested-by block;
# - --dry-run builds nothing; a Message-ID the server does not have (a
#   loopback HTTP server answering 404) is an error naming the server;
#   an mbox without patches, a base the repository lacks, a patch that does
#   not apply: errors naming the file or the revision.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v git >/dev/null || [ ! -x "$PY" ]; then
	skip "needs root (mount), unshare, git and /usr/bin/python3"; finish; exit $?
fi
. "$(dirname "$0")/fakeboot.sh"
fakeboot_begin fb
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$E2E_TMP"' EXIT
G="git -c user.name=Tester -c user.email=tester@example.org -C $FB_REPO"
$G config user.name "Tester" && $G config user.email "tester@example.org"
# the fake haltpoll guest offers teo too (its sysfs is plain files: the governor written is read back)
printf 'ladder menu teo haltpoll\n' > "$FB/fix/sys/devices/system/cpu/cpuidle/available_governors"

# the series: two patches on teo.c (the stand-in's level goes with them), posted in reply to an RFC's root
mkdir -p "$FB_REPO/drivers/cpuidle/governors"
echo "/* teo */" > "$FB_REPO/drivers/cpuidle/governors/teo.c"
$G add drivers && $G commit -q -m "cpuidle: add teo"
base=$($G rev-parse HEAD)
$G checkout -q -b series
echo "/* teo: tick */" > "$FB_REPO/drivers/cpuidle/governors/teo.c"
echo 101 > "$FB_REPO/level"
$G commit -q -am "cpuidle: teo: one"
echo "/* teo: tick, two */" > "$FB_REPO/drivers/cpuidle/governors/teo.c"
$G commit -q -am "cpuidle: teo: two"
mkdir -p "$T/p"
$G format-patch -q --cover-letter --base="$base" --thread --in-reply-to="<rfc-root@example.org>" \
	--to=linux-pm@vger.kernel.org --cc="Re Viewer <rev@example.org>" -o "$T/p" "$base..series"
$G checkout -q main
sed -i 's/\*\*\* SUBJECT HERE \*\*\*/teo: two small things/; s/\*\*\* BLURB HERE \*\*\*/This makes teo tick less often./' "$T/p/0000-"*.patch
cat "$T/p"/*.patch > "$T/series.mbox"
cover_id=$(sed -n 's/^Message-ID: <\(.*\)>$/\1/Ip' "$T/p/0000-"*.patch)

# --dry-run: the plan, nothing built
out=$("$IDLELAB" try "$T/series.mbox" --repo "$FB_REPO" --host fb --workload level --iterations 3 \
	--workloads-dir "$FB_WL" --dry-run 2>&1); rc=$?
[ $rc = 0 ] && printf '%s\n' "$out" | grep -q "^base: $base (the series' base-commit: trailer" &&
	printf '%s\n' "$out" | grep -q "would build: base .*patch-1 .*patch-2 .*base-aa" &&
	printf '%s\n' "$out" | grep -q "^governors: teo$" &&
	ok "--dry-run: the base from the trailer, base + patch-1 + patch-2 + base-aa, teo" ||
	bad "--dry-run: the base from the trailer, base + patch-1 + patch-2 + base-aa, teo" "exit $rc: $out"
[ ! -e "$T/cache/obj" ] && [ ! -e "$T/cache/artifacts" ] && [ ! -e "$T/cache/work" ] && ! $G show-ref | grep -q refs/idlelab &&
	ok "--dry-run: no build directory, no artifact, no variant ref" ||
	bad "--dry-run: no build directory, no artifact, no variant ref" "$(ls -R "$T/cache" 2>&1 | head; $G show-ref)"

# the same series as plain diffs (no "diff --git" or "index" line, as many maintainers' tools send
# it), its 2/2 made not to apply: said in seconds, with the patch, its file and the base, nothing
# built; --patches 1 (b4's habit) takes the prefix that applies
sed -e '/^diff --git /d' -e '/^index [0-9a-f]*\.\.[0-9a-f]*/d' "$T/p/0001-"*.patch > "$T/plain.mbox"
sed -e '/^diff --git /d' -e '/^index [0-9a-f]*\.\.[0-9a-f]*/d' -e 's|^-/\* teo: tick \*/$|-/* teo: tock */|' \
	"$T/p/0002-"*.patch >> "$T/plain.mbox"
t0=$(date +%s)
out=$("$IDLELAB" try "$T/plain.mbox" --repo "$FB_REPO" --host fb --workload level --iterations 3 \
	--workloads-dir "$FB_WL" --dry-run 2>&1); rc=$?
[ $rc != 0 ] && printf '%s\n' "$out" | grep -q "patch 2/2 'cpuidle: teo: two' does not apply on base ${base%"${base#????????????}"} + 1/2: drivers/cpuidle/governors/teo.c: " &&
	! printf '%s\n' "$out" | grep -q "patch 1/2" && [ $(($(date +%s) - t0)) -lt 10 ] &&
	ok "plain diffs: the patch that does not apply is named with its file and base, in seconds" ||
	bad "plain diffs: the patch that does not apply is named with its file and base" "exit $rc: $out"
out=$("$IDLELAB" try "$T/plain.mbox" --repo "$FB_REPO" --host fb --workload level --iterations 3 \
	--workloads-dir "$FB_WL" --dry-run --patches 1 2>&1); rc=$?
[ $rc = 0 ] && printf '%s\n' "$out" | grep -q "would build: base .*patch-1 (+ 'cpuidle: teo: one'); base-aa" &&
	printf '%s\n' "$out" | grep -q '"patches": "1"' &&
	ok "--patches 1: the prefix that applies is planned" || bad "--patches 1: the prefix that applies is planned" "exit $rc: $out"
expect "--patches out of the series" 1 "patches: 3 is not in 1-2" \
	"$IDLELAB" try "$T/plain.mbox" --repo "$FB_REPO" --host fb --workload level --workloads-dir "$FB_WL" --dry-run --patches 1-3

# the run and the reply
R=$T/run
out=$("$IDLELAB" try "$T/series.mbox" --repo "$FB_REPO" --host fb --workload level --iterations 3 \
	--workloads-dir "$FB_WL" --out "$R" -q 2>&1); rc=$?
[ $rc = 0 ] && [ -f "$R/reply.eml" ] && ok "try: exit 0, the reply written" || bad "try: exit 0, the reply written" "exit $rc: $out"
vars=$("$PY" -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "run-start": print(" ".join(v["label"] for v in r["variants"]))' "$R/journal.jsonl")
[ "$vars" = "teo@base teo@patch-1 teo@patch-2 teo@base-aa" ] &&
	ok "the run: base, patch-1, patch-2 and the A/A base copy, teo only" ||
	bad "the run: base, patch-1, patch-2 and the A/A base copy, teo only" "$vars"
[ "$(grep -c '"type":"sample".*"status":"ok"' "$R/journal.jsonl")" = 12 ] && ok "12 samples counted" ||
	bad "12 samples counted" "$(grep '"type":"sample"' "$R/journal.jsonl" | head -3)"
"$PY" -c 'import json, sys
k = json.load(open(sys.argv[1]))["kernels"]
assert [e["name"] for e in k] == ["base", "patch-%d", "base-aa"] and k[0]["commit"] == k[2]["commit"] == sys.argv[2]' \
	"$R/plan.json" "$base" &&
	ok "the plan is in the run directory" || bad "the plan is in the run directory" "$(cat "$R/plan.json")"
block=$("$IDLELAB" tested-by "$R" --as "Tester <tester@example.org>")
printf '%s\n' "$block" > "$T/block.txt"
"$PY" - "$R/reply.eml" "$cover_id" "$T/block.txt" > "$T/check.txt" 2>&1 <<'PY'
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
cover, block = sys.argv[2], open(sys.argv[3]).read().strip()
body = m.get_body(preferencelist=("plain",)).get_content()
checks = [
    ("In-Reply-To", m["In-Reply-To"] == "<%s>" % cover),
    ("References", m["References"].split() == ["<rfc-root@example.org>", "<%s>" % cover]),
    ("Subject", m["Subject"] == "Re: [PATCH 0/2] teo: two small things"),
    ("From", m["From"].addresses[0].addr_spec == "tester@example.org"),
    ("To", [a.addr_spec for a in m["To"].addresses] == ["tester@example.org"]),
    ("Cc: reply-all", m["Cc"] is not None and [a.addr_spec for a in m["Cc"].addresses] == ["linux-pm@vger.kernel.org", "rev@example.org"]),
    ("Message-ID", m["Message-ID"].startswith("<idlelab-try.")),
    ("Date", m["Date"] is not None),
    ("quote", "> This makes teo tick less often." in body),
    ("block", block in body),
    ("A/A", "(A/A)" in body),
    ("no trailer on a lab-less fake? (command host: due)", body.rstrip().endswith("Tested-by: Tester <tester@example.org>")),
]
bad = [n for n, c in checks if not c]
print("bad:", bad, m["In-Reply-To"], m["References"], m["Subject"], m["To"], m["Cc"]) if bad else print("all good")
PY
grep -q "all good" "$T/check.txt" &&
	ok "reply.eml: In-Reply-To the cover, References root first, Re: subject, the quote, the tested-by block and trailer" ||
	bad "reply.eml: In-Reply-To the cover, References root first, Re: subject, the quote, the tested-by block and trailer" \
		"$(cat "$T/check.txt")"

# errors
"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' > "$T/port"
PORT=$(cat "$T/port")
mkdir -p "$T/www"
(cd "$T/www" && exec "$PY" -m http.server --bind 127.0.0.1 "$PORT") > /dev/null 2>&1 &
PIDS="$PIDS $!"
i=0; while ! "$PY" -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$PORT" 2>/dev/null &&
	[ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
expect "a Message-ID the server does not have: an error naming the server" 1 \
	"cannot fetch <nope@example.org> from http://127.0.0.1:$PORT: .*404" \
	"$IDLELAB" try "<nope@example.org>" --server "http://127.0.0.1:$PORT" --repo "$FB_REPO" --dry-run
printf 'From x Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\nSubject: hello\n\nno patch here\n' > "$T/none.mbox"
expect "an mbox without patches: an error naming it" 1 "$T/none.mbox: no patches" \
	"$IDLELAB" try "$T/none.mbox" --repo "$FB_REPO" --dry-run
grep -v '^base-commit:' "$T/series.mbox" > "$T/nobase.mbox"
expect "a --base the repository lacks: an error naming it and the repository" 1 \
	"the base v9.9 \\(from --base\\) is not a commit of $FB_REPO" \
	"$IDLELAB" try "$T/nobase.mbox" --repo "$FB_REPO" --base v9.9 --dry-run
expect "without a trailer or --base: HEAD, said" 0 "^base: .*(the repository's HEAD)" \
	"$IDLELAB" try "$T/nobase.mbox" --repo "$FB_REPO" --dry-run --workloads-dir "$FB_WL" --workload level
# a cached thread that is not the thread it is filed as (a planted mbox: root would build and boot
# it) is fetched again: the cache entry of the cover letter's id holds other messages, the server
# the real thread
mkdir -p "$T/www/all/$cover_id" "$T/cache/threads"
gzip -c "$T/series.mbox" > "$T/www/all/$cover_id/t.mbox.gz"
key=$(printf '%s' "$cover_id" | sha256sum | cut -c1-64)
cp "$T/plain.mbox" "$T/cache/threads/$key.mbox"
out=$("$IDLELAB" try "<$cover_id>" --server "http://127.0.0.1:$PORT" --repo "$FB_REPO" --host fb --workload level \
	--workloads-dir "$FB_WL" --dry-run 2>&1); rc=$?
[ $rc = 0 ] && printf '%s\n' "$out" | grep -q "would build: base .*patch-1 .*patch-2 .*base-aa" &&
	cmp -s "$T/cache/threads/$key.mbox" "$T/series.mbox" &&
	ok "a cached thread without the Message-ID it is filed as: fetched again, the planted mbox replaced" ||
	bad "a cached thread without the Message-ID it is filed as: fetched again" "exit $rc: $out"
first=$($G rev-list --max-parents=0 HEAD)
expect "a patch that does not apply: an error naming it" 1 "patch 1/2 'cpuidle: teo: one' does not apply" \
	"$IDLELAB" try "$T/nobase.mbox" --repo "$FB_REPO" --base "$first" --host fb --workload level --iterations 2 \
	--workloads-dir "$FB_WL" --out "$T/run2" -q

# --iterations auto: looked at after 5 rounds of every kernel (a stage: base, patch-1, patch-2,
# base-aa in turn), then every 5 more up to 20; here the first look decides every comparison of
# the reply (each patch +1% on a 0.2% noise, the A/A pair the same), so the run stops there
out=$("$IDLELAB" try "$T/series.mbox" --repo "$FB_REPO" --host fb --workload level --iterations auto \
	--workloads-dir "$FB_WL" --dry-run 2>&1); rc=$?
[ $rc = 0 ] && printf '%s\n' "$out" | tr -d ' \n' | grep -q '"iterations":{"min":5,"max":20,"step":5}' &&
	ok "--iterations auto: the plan's iterations are 5 to 20, looked at every 5" ||
	bad "--iterations auto: the plan's iterations are 5 to 20, looked at every 5" "exit $rc: $out"
R=$T/run-auto
out=$("$IDLELAB" try "$T/series.mbox" --repo "$FB_REPO" --host fb --workload level --iterations auto \
	--workloads-dir "$FB_WL" --out "$R" -q 2>&1); rc=$?
"$PY" - "$R/journal.jsonl" > "$T/auto.txt" 2>&1 <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
start = next(r for r in recs if r["type"] == "run-start")
assert start["adaptive"] == {"min": 5, "max": 20, "step": 5}, start["adaptive"]
ok = [r for r in recs if r["type"] == "sample" and r.get("status") == "ok"]
# a stage is each kernel's block of rounds in turn: base x5, patch-1 x5, patch-2 x5, base-aa x5
order = [r["variant"] for r in ok]
want = [v for v in ("teo@base", "teo@patch-1", "teo@patch-2", "teo@base-aa") for _ in range(5)]
assert order == want, order
stop = next(r for r in recs if r["type"] == "stop")
assert stop["rounds"] == 5 and stop["reason"] == "decided" and stop["skipped"] == 60, stop
print("all good")
PY
[ $rc = 0 ] && grep -q "all good" "$T/auto.txt" &&
	ok "--iterations auto: 5 rounds of each kernel in turn, then stopped: every comparison of the reply decided" ||
	bad "--iterations auto: 5 rounds of each kernel in turn, then stopped" "exit $rc: $out $(cat "$T/auto.txt")"
# (the line is wrapped at 100 columns, continued with two spaces)
sed -n '/^Iterations:/,/^$/p' "$R/reply.eml" | tr '\n' ' ' | tr -s ' ' > "$T/iter.txt"
grep -q "^Iterations: adaptive run (iterations 5-20 looked at every 5, alpha 0.05 over 4 looks: 0.0125 a look): stopped after 5 rounds: every key comparison decided" "$T/iter.txt" &&
	ok "--iterations auto: the reply says how far the run went and why it stopped" ||
	bad "--iterations auto: the reply says how far the run went and why it stopped" "$(grep -A2 '^Iterations' "$R/reply.eml")"
finish
