#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `idlelab export --kcidb` (issue #42): stored runs (a two-kernel run, a two-governor try run, a
# traced run) and a nightly directory with a regression, as one KCIDB v5.3 document:
# - checked with python3-jsonschema against tests/fixtures/kcidb/v5.3-rules.json (the schema's
#   rules, written from kcidb-io's specification): required properties, no others, id and origin
#   patterns, statuses, test paths, number and environment shapes, culprit, incident links;
# - every link resolves (build -> checkout, test -> build, incident -> issue and test), ids are
#   unique, and a second export is the same document (derived ids);
# - the numbers are the comparison's means, to the digit; the nightly's regressed test is FAIL, an
#   issue, with an incident on it;
# - --submit to a kcidb-ng stand-in on 127.0.0.1 (tests/e2e/kcidbd.py): the bearer token, the
#   status polled until processed; a 503 then ok; a wrong token is a clear error that does not
#   print it; a service that never answers ends at the deadline; no token, or plain http to
#   another host, refused before anything is sent.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
T=$E2E_TMP
PY=/usr/bin/python3
if ! $PY -c 'import jsonschema' 2>/dev/null; then
	skip "python3-jsonschema missing (make deps)"; finish; exit $?
fi
FX=$SRC/tests/fixtures
# the nightly directory: its run (the two-kernel fixture run) regressed on one key metric
N=$T/nightly
mkdir -p "$N" && cp -r "$FX/journal/patched" "$N/20261130-023000-nightly-menu-teo-8f627f86062e"
cat > "$N/nightly.jsonl" <<'JSON'
{"type":"nightly-start","time":"2026-11-30T02:30:00Z","plan":"menu-teo","host":"kvm7","branch":"main","commit":"8f627f86062e1b2c3d4e5f60718293a4b5c6d7e8","run":"20261130-023000-nightly-menu-teo-8f627f86062e"}
{"type":"nightly","time":"2026-11-30T03:00:00Z","plan":"menu-teo","host":"kvm7","branch":"main","commit":"8f627f86062e1b2c3d4e5f60718293a4b5c6d7e8","subject":"cpuidle: teo: Drop a check","run":"20261130-023000-nightly-menu-teo-8f627f86062e","verdict":"regression","baseline":{"run":"20261129-023000-nightly-menu-teo-6146a0f1dfae","commit":"6146a0f1dfae5df9e3f6b5a0c4d1e2f3a4b5c6d7"},"reason":"menu@teo-1 worse on pingpong.usec_per_loop","repeat":false,"reported":["menu@teo-1|pingpong.usec_per_loop"]}
JSON
RUNS="$FX/journal/patched $FX/journal/trygov $FX/views/trace-durations $N"
expect "export --kcidb" 0 "" "$IDLELAB" export --kcidb $RUNS --origin idlelab_e2e -o "$T/doc.json"
"$IDLELAB" export --kcidb $RUNS --origin idlelab_e2e > "$T/doc2.json" 2>&1
cmp -s "$T/doc.json" "$T/doc2.json" && ok "a second export is the same document (ids derived, not random)" ||
	bad "a second export is the same document" "$(diff "$T/doc.json" "$T/doc2.json" | head -5)"
"$IDLELAB" compare "$FX/journal/patched" --format json > "$T/cmp.json"
$PY - "$T/doc.json" "$FX/kcidb/v5.3-rules.json" "$T/cmp.json" > "$T/check.txt" 2>&1 <<'PY'
import json, sys, jsonschema
doc, schema, cmp = (json.load(open(p)) for p in sys.argv[1:4])
errs = list(jsonschema.Draft7Validator(schema).iter_errors(doc))
print("schema:", "ok" if not errs else "; ".join("%s: %s" % (list(e.path), e.message[:120]) for e in errs[:5]))
ids = [o["id"] for k in ("checkouts", "builds", "tests", "issues", "incidents") for o in doc[k]]
ck, bu, te, iss = ({o["id"] for o in doc[k]} for k in ("checkouts", "builds", "tests", "issues"))
links = all(b["checkout_id"] in ck for b in doc["builds"]) and all(t["build_id"] in bu for t in doc["tests"]) and \
    all(i["issue_id"] in iss and i["test_id"] in te for i in doc["incidents"])
print("links:", "ok" if links and len(ids) == len(set(ids)) else "broken")
want = {(v["variant"], m["key"]): v["mean"] for m in cmp["metrics"] if m["key_metric"] for v in m["variants"]}
got = {(t["misc"]["variant"], t["misc"]["metric"]): t["number"]["value"] for t in doc["tests"] if t["misc"]["run"] == "patched"}
print("numbers:", "ok" if want and all(abs(got[k] - v) <= 1e-9 * max(1, abs(v)) for k, v in want.items()) else
      "differ %r %r" % (want, got))
fail = [t for t in doc["tests"] if t["status"] == "FAIL"]
print("nightly:", "ok" if len(fail) == 1 and fail[0]["misc"]["variant"] == "menu@teo-1" and
      fail[0]["misc"]["metric"] == "pingpong.usec_per_loop" and len(doc["issues"]) == 1 and
      doc["incidents"] == [{"id": doc["incidents"][0]["id"], "origin": "idlelab_e2e", "issue_id": doc["issues"][0]["id"],
                            "issue_version": 1, "test_id": fail[0]["id"], "present": True}] and
      all(t["status"] == "DONE" for t in doc["tests"] if "nightly" not in t["misc"]) else "wrong %r" % fail)
tr = [t for t in doc["tests"] if t["misc"]["run"] == "trygov"]
print("paths:", "ok" if tr and all(t["path"].startswith("idlelab.") and t["path"].endswith("." + t["misc"]["governor"])
                                   for t in tr) else "wrong")
PY
for w in schema links numbers nightly paths; do
	grep -qx "$w: ok" "$T/check.txt" && ok "document: $w" || bad "document: $w" "$(cat "$T/check.txt")"
done
expect "an origin KCIDB does not take is a usage error" 2 "expected lower-case letters, digits and '_'" \
	"$IDLELAB" export --kcidb "$FX/journal/patched" --origin Not-One

# --submit
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$E2E_TMP"' EXIT
serve() { # MODE: starts kcidbd.py, sets PORT and LOG
	rm -f "$T/port.$1"
	LOG=$T/req.$1
	$PY "$SRC/tests/e2e/kcidbd.py" "$T/port.$1" "$LOG" sekrit-token-123 "$1" &
	PIDS="$PIDS $!"
	i=0
	while [ ! -s "$T/port.$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	PORT=$(cat "$T/port.$1")
}
serve ok
KCIDB_REST="http://sekrit-token-123@127.0.0.1:$PORT" "$IDLELAB" export --kcidb $RUNS --origin idlelab_e2e --submit \
	> "$T/sub.out" 2> "$T/sub.err"
rc=$?
[ $rc = 0 ] && grep -q "KCIDB processed submission sub-1" "$T/sub.err" &&
	$PY -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; d=json.load(open(sys.argv[2]))
assert r[0]["method"] == "POST" and r[0]["path"] == "/submit" and r[0]["authorization"] == "Bearer sekrit-token-123"
assert json.loads(r[0]["body"]) == d and [x["path"] for x in r[1:]] == ["/status?id=sub-1"] * 2' "$LOG" "$T/doc.json" &&
	ok "--submit: the document with the bearer token, polled until processed" ||
	bad "--submit: the document with the bearer token, polled until processed" "exit $rc: $(cat "$T/sub.err"; cat "$LOG" | cut -c1-300)"
serve flaky
KCIDB_REST="http://sekrit-token-123@127.0.0.1:$PORT/" "$IDLELAB" export --kcidb "$FX/journal/patched" --submit -q \
	> /dev/null 2> "$T/flaky.err"
rc=$?
[ $rc = 0 ] && [ "$(grep -c '"/submit"' "$LOG")" = 2 ] && ok "--submit: a 503 is tried again, then it goes through" ||
	bad "--submit: a 503 is tried again" "exit $rc: $(cat "$T/flaky.err")"
KCIDB_REST="http://sekrit-WRONG-999@127.0.0.1:$PORT" "$IDLELAB" export --kcidb "$FX/journal/patched" --submit \
	> /dev/null 2> "$T/401.err"
rc=$?
[ $rc != 0 ] && grep -q "refused the token (HTTP 401)" "$T/401.err" && ! grep -q "sekrit" "$T/401.err" &&
	ok "--submit: a wrong token is a clear error that does not print it" ||
	bad "--submit: a wrong token is a clear error that does not print it" "exit $rc: $(cat "$T/401.err")"
serve bad
KCIDB_REST="http://sekrit-token-123@127.0.0.1:$PORT" "$IDLELAB" export --kcidb "$FX/journal/patched" --submit \
	> /dev/null 2> "$T/400.err"
[ $? != 0 ] && grep -q "refused the document (HTTP 400): {\"error\": \"document invalid\"}" "$T/400.err" &&
	ok "--submit: a refused document says what the service said" || bad "--submit: a 400" "$(cat "$T/400.err")"
serve hang
t0=$(date +%s)
KCIDB_REST="http://sekrit-token-123@127.0.0.1:$PORT" "$IDLELAB" export --kcidb "$FX/journal/patched" --submit \
	--deadline 3 > /dev/null 2> "$T/hang.err"
rc=$? el=$(($(date +%s) - t0))
[ $rc != 0 ] && [ $el -le 10 ] && grep -q "deadline of 3 s" "$T/hang.err" && ! grep -q sekrit "$T/hang.err" &&
	ok "--submit: a service that never answers ends at the deadline (${el} s)" ||
	bad "--submit: a service that never answers ends at the deadline" "exit $rc after $el s: $(cat "$T/hang.err")"
expect "--submit without a token" 1 "KCIDB_REST has no token" \
	env KCIDB_REST="http://127.0.0.1:$PORT" "$IDLELAB" export --kcidb "$FX/journal/patched" --submit
expect "--submit over plain http to another host" 1 "plain http only to a loopback address" \
	env KCIDB_REST="http://tok@kcidb.example.org" "$IDLELAB" export --kcidb "$FX/journal/patched" --submit
finish
