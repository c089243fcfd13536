#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `idlelab nightly --kcidb` (issue #42), whole nightlies on the fake host of fakeboot.sh and a
# kcidb-ng stand-in on 127.0.0.1 (tests/e2e/kcidbd.py): each measured night's results are owed
# to KCIDB like an alert (docs/nightly.md's delivery journal):
# - night 1 (the baseline) while the service is down: the submission fails, is journaled as
#   such, and the night exits 1 with its verdict kept;
# - night 2 (the tip unchanged) with the service up: the owed night is submitted, its tests DONE
#   (a baseline judges nothing), and journaled as delivered;
# - night 3 (a regression): submitted at once, the regressed test FAIL with an issue and an
#   incident on it, the others PASS;
# - night 4 (unchanged, nothing owed): nothing is sent again.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
PY=/usr/bin/python3
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v git >/dev/null || [ ! -x "$PY" ]; then
	skip "needs root (mount), unshare, git and /usr/bin/python3"; finish; exit $?
fi
. "$(dirname "$0")/fakeboot.sh"
fakeboot_begin fb
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$E2E_TMP"' EXIT
R=$T/reports
fb_plan "$T/p.json" nk
N="$IDLELAB nightly $T/p.json --dir $R -q --workloads-dir $FB_WL --kcidb --kcidb-origin idlelab_e2e --kcidb-deadline 3"
DEAD=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
posts() { grep -c '"path": "/submit"' "$T/kcidb.log" 2>/dev/null || echo 0; }

KCIDB_REST="http://tok-e2e-77@127.0.0.1:$DEAD" $N > "$T/n1.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q "^baseline: " "$T/n1.out" && grep -q "deadline of 3 s" "$T/n1.out" &&
	grep -q '"type":"nightly-alert".*"destination":"kcidb","delivered":false' "$R/nightly.jsonl" &&
	! grep -q tok-e2e "$T/n1.out" &&
	ok "night 1: the baseline kept, its KCIDB submission failed and journaled, exit 1, no token shown" ||
	bad "night 1: the baseline kept, its KCIDB submission failed and journaled" "exit $rc: $(cat "$T/n1.out")"

$PY "$SRC/tests/e2e/kcidbd.py" "$T/kcidb.port" "$T/kcidb.log" tok-e2e-77 ok &
PIDS="$PIDS $!"
i=0
while [ ! -s "$T/kcidb.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
export KCIDB_REST="http://tok-e2e-77@127.0.0.1:$(cat "$T/kcidb.port")"
expect "night 2: unchanged, the owed night submitted" 0 "^kcidb: the results of .* submitted to KCIDB \\(submission sub-1\\)" $N
night1=$(sed -n 's/.*"type":"nightly",.*"run":"\([^"]*\)".*"verdict":"baseline".*/\1/p' "$R/nightly.jsonl" | head -1)
$PY - "$T/kcidb.log" "${night1##*/}" <<'PY' && ok "night 2: the document is night 1's, its tests DONE" ||
import json, sys
posts = [json.loads(l) for l in open(sys.argv[1]) if '"/submit"' in l]
d = json.loads(posts[-1]["body"])
assert d["version"] == {"major": 5, "minor": 3} and d["tests"], d
assert {t["misc"]["run"] for t in d["tests"]} == {sys.argv[2]}, {t["misc"]["run"] for t in d["tests"]}
assert all(t["status"] == "DONE" and t["id"].startswith("idlelab_e2e:") for t in d["tests"])
PY
	bad "night 2: the document is night 1's, its tests DONE" "$(tail -c 600 "$T/kcidb.log")"
grep -q '"type":"nightly-alert".*"destination":"kcidb","delivered":true' "$R/nightly.jsonl" &&
	ok "night 2: the submission journaled as delivered" || bad "night 2: the submission journaled as delivered"

echo 130 > "$FB_REPO/level"
git -c user.name=T -c user.email=t@example.org -C "$FB_REPO" commit -q -a -m "cpuidle: menu: deeper states"
$N > "$T/n3.out" 2>&1
rc=$?
[ $rc = 3 ] && grep -q "^kcidb: the results of .* submitted to KCIDB (submission sub-2)" "$T/n3.out" &&
	ok "night 3: the regression submitted at once" || bad "night 3: the regression submitted at once" "exit $rc: $(cat "$T/n3.out")"
$PY - "$T/kcidb.log" <<'PY' && ok "night 3: the regressed test FAIL, an issue and an incident on it, the others PASS" ||
import json, sys
posts = [json.loads(l) for l in open(sys.argv[1]) if '"/submit"' in l]
d = json.loads(posts[-1]["body"])
fail = [t for t in d["tests"] if t["status"] == "FAIL"]
assert len(fail) >= 1 and all(t["status"] in ("PASS", "FAIL") for t in d["tests"]), [t["status"] for t in d["tests"]]
assert len(d["issues"]) == 1 and "regression at" in d["issues"][0]["report_subject"], d["issues"]
assert sorted(i["test_id"] for i in d["incidents"]) == sorted(t["id"] for t in fail), d["incidents"]
PY
	bad "night 3: the regressed test FAIL, an issue and an incident on it" "$(tail -c 900 "$T/kcidb.log")"
n=$(posts)
expect "night 4: unchanged, nothing owed" 0 "^unchanged: " $N
[ "$(posts)" = "$n" ] && ok "night 4: nothing submitted twice" || bad "night 4: nothing submitted twice" "$n -> $(posts)"
expect "--kcidb without KCIDB_REST is a usage error" 2 "--kcidb needs KCIDB_REST" \
	env -u KCIDB_REST $N
finish
