#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The nightly when nobody is watching (#28), whole nightlies on the fake
# host of fakeboot.sh (built, booted and measured in seconds), a real SMTP
# server (aiosmtpd) and a webhook on 127.0.0.1:
# - a regression whose deliveries fail (no SMTP server, the webhook answers
#   500) is journaled with its alert owed; the next nights (the tip
#   unchanged) deliver what is still owed, each destination exactly once;
# - the tip's subject (escape sequences, a TAB, a CR, 1,010 bytes) neither
#   blocks the verdict nor the mail, nor reaches the terminal raw;
# - a webhook's secret path is never printed;
# - a torn last line of nightly.jsonl is cut, never fatal;
# - a damaged history.sqlite is made again, a locked one leaves the drift
#   unjudged (said): neither decides whether the verdict is journaled;
# - kill -9 at 24 instants of the nightlies that retry a failed delivery:
#   still one mail and one webhook per alert, sent again only after a kill
#   between the destination's answer and the journal's record (counted), and
#   then under the same Message-ID / Idempotency-Key.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
PY=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import aiosmtpd' 2>/dev/null; then PY=$p; break; fi
done
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null || ! command -v git >/dev/null || [ -z "$PY" ]; then
	skip "needs root (mount), unshare, git and python3-aiosmtpd (make deps)"; finish; exit $?
fi
. "$(dirname "$0")/fakeboot.sh"
fakeboot_begin fb
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$E2E_TMP"' EXIT
wait_port() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	cat "$1" 2>/dev/null
}
# the webhook answers 200 only while $T/hook-ok exists, else 500
python3 "$SRC/tests/e2e/pdu.py" "$T/hook.port" "$T/hook.log" test -e "$T/hook-ok" &
PIDS="$PIDS $!"
HOOK=$(wait_port "$T/hook.port")
# a port nothing listens on: the mail server is down
DEAD=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$T/mail"
R=$T/reports
fb_plan "$T/p.json" nt
N="$IDLELAB nightly $T/p.json --dir $R -q --workloads-dir $FB_WL"
SECRET=T0KEN-in-the-path-0123456789
HOOKURL=http://127.0.0.1:$HOOK/services/$SECRET
DEST="--to pm@example.org --from nightly@lab.example.org --webhook $HOOKURL"
mails() { ls "$T/mail"/*.eml 2>/dev/null | wc -l; }
hooks() { grep -c '"method": "POST"' "$T/hook.log" 2>/dev/null || echo 0; }
verdicts() { python3 -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "nightly": print(r["verdict"], ",".join(r.get("owed", [])))' "$R/nightly.jsonl"; }

expect "night 1: the baseline" 0 "^baseline: the first nightly" $N

# a regression whose tip's subject is hostile: escapes, TAB, CR, and 1,010 bytes
printf 'cpuidle: \033[2J\033]0;owned\007 menu:\tdeeper\rstates %s\n' "$(printf '%01010d' 0 | tr 0 x)" > "$T/msg"
echo 130 > "$FB_REPO/level"
git -c user.name=T -c user.email=t@example.org -C "$FB_REPO" commit -q -a -F "$T/msg"
tip=$(git -C "$FB_REPO" rev-parse HEAD)
out=$($N --smtp "smtp://127.0.0.1:$DEAD/" $DEST 2>&1); rc=$?
[ $rc = 1 ] && printf '%s\n' "$out" | grep -q "^regression: 1 metric worse beyond noise" &&
	ok "night 2: the regression measured, both deliveries failed: exit 1" ||
	bad "night 2: the regression measured, both deliveries failed: exit 1" "exit $rc: $out"
printf '%s' "$out" | grep -q "$(printf '\033')" && bad "night 2: no escape byte reaches the terminal" "$out" ||
	ok "night 2: no escape byte reaches the terminal"
printf '%s' "$out" | grep -q "$SECRET" && bad "night 2: the webhook's secret path is never printed" "$out" ||
	ok "night 2: the webhook's secret path is never printed"
printf '%s\n' "$out" | grep -q "webhook http://127.0.0.1:$HOOK/\*\*\*: answered HTTP 500" &&
	ok "night 2: the webhook's failure names its URL, path hidden" ||
	bad "night 2: the webhook's failure names its URL, path hidden" "$out"
[ "$(verdicts | tail -1)" = "regression mail,webhook" ] &&
	ok "night 2: the verdict is journaled with its alert owed to mail and webhook" ||
	bad "night 2: the verdict is journaled with its alert owed to mail and webhook" "$(verdicts)"
[ "$(grep -c '"type":"nightly-alert".*"delivered":false' "$R/nightly.jsonl")" = 2 ] &&
	ok "night 2: both failed attempts journaled" || bad "night 2: both failed attempts journaled" "$(cat "$R/nightly.jsonl")"

# the mail server is up: only the mail is delivered (the webhook still answers 500)
"$PY" "$SRC/tests/e2e/smtpd.py" "$T/smtp.port" "$T/mail" 2>"$T/smtpd.log" &
PIDS="$PIDS $!"
SMTP=$(wait_port "$T/smtp.port")
M="--smtp smtp://127.0.0.1:$SMTP/ $DEST"
expect "night 3: the tip unchanged, the owed mail delivered, the webhook still failing: exit 1" 1 \
	"alert: mail sent to 1 recipient" $N $M
[ "$(mails)" = 1 ] && ok "night 3: one mail" || bad "night 3: one mail" "$(mails)"
subj=$(tr -d '\r' < "$T/mail/1.eml" | awk '/^Subject:/ { s = $0; f = 1; next } f && /^[ \t]/ { s = s $0; next } { f = 0 } END { print s }')
printf '%s' "$subj" | grep -q "regression of level.lat_us" && ok "night 3: the mail is the alert" ||
	bad "night 3: the mail is the alert" "$subj"
if tr -d '\r' < "$T/mail/1.eml" | awk 'length > 998 { bad = 1 } END { exit !bad }'; then
	bad "night 3: no mail line over 998 bytes"
else ok "night 3: no mail line over 998 bytes"; fi
tr -d '\r' < "$T/mail/1.eml" | grep -q "menu: deeper?states" && tr -d '\r' < "$T/mail/1.eml" | grep -q "xxx\.\.\.\")" &&
	! tr -d '\r' < "$T/mail/1.eml" | grep -q "$(printf '\033')" &&
	ok "night 3: the subject in the mail: control bytes as ?, cut with ..." ||
	bad "night 3: the subject in the mail: control bytes as ?, cut with ..." "$(grep -a menu "$T/mail/1.eml")"
touch "$T/hook-ok"
expect "night 4: only the webhook is still owed: posted, exit 0" 0 "alert: webhook posted to http://127.0.0.1:$HOOK/\*\*\*" \
	$N $M
[ "$(mails)" = 1 ] && [ "$(hooks)" = 3 ] && ok "night 4: no second mail; the third POST answered 200" ||
	bad "night 4: no second mail; the third POST answered 200" "mails $(mails), hooks $(hooks)"
expect "night 5: nothing owed: nothing sent, exit 0" 0 "^unchanged: " $N $M
[ "$(mails)" = 1 ] && [ "$(hooks)" = 3 ] && ok "night 5: still one mail and one delivered POST" ||
	bad "night 5: still one mail and one delivered POST" "mails $(mails), hooks $(hooks)"

# a torn last line (a full disk during the append): cut, never fatal, never glued to the next record
printf '{"type":"nightly-alert","time":"2026-12-0' >> "$R/nightly.jsonl"
expect "a torn last line of nightly.jsonl: the next nightly runs" 0 "^unchanged: " $N $M
fb_commit 100 "cpuidle: menu: back to shallower states"
expect "the next new tip after the repair is judged" 0 "^good: " $N $M
python3 -c 'import json, sys
[json.loads(l) for l in open(sys.argv[1])]' "$R/nightly.jsonl" && ok "nightly.jsonl is whole again" ||
	bad "nightly.jsonl is whole again" "$(tail -c 600 "$R/nightly.jsonl")"

# the history index: damaged, made again; locked, the drift not judged; the verdict journaled either way
dd if=/dev/urandom of="$R/history.sqlite" bs=1024 count=8 2>/dev/null
fb_commit 101 "a harmless change"
expect "a damaged history.sqlite is made again from the runs" 0 \
	"note: +the history index was damaged .*made again from the runs" $N $M
[ -e "$R/history.sqlite.damaged" ] && ok "the damaged index was moved aside" || bad "the damaged index was moved aside"
python3 -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close(); time.sleep(40)' "$R/history.sqlite" "$T/locked" &
holder=$!
i=0; while [ ! -e "$T/locked" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
fb_commit 102 "another harmless change"
expect "a locked history.sqlite: the drift not judged, said; the verdict journaled" 0 \
	"note: +the drift over the last nightlies was not judged" $N $M
kill $holder 2>/dev/null; wait $holder 2>/dev/null
[ "$(verdicts | tail -1)" = "good " ] && ok "the locked night's verdict is in the journal" ||
	bad "the locked night's verdict is in the journal" "$(verdicts)"

# a host's names reach the terminal only through the one sanitizer: host check, snapshot, audit
printf 'hal\033[31mtpoll\033]0;x\007\n' > "$FB/fix/sys/devices/system/cpu/cpuidle/current_driver"
printf 'ladder menu \033[2Jhaltpoll\n' > "$FB/fix/sys/devices/system/cpu/cpuidle/available_governors"
for c in "host check fb" "snapshot --host fb" "audit fb --window 0.2"; do
	# shellcheck disable=SC2086
	out=$("$IDLELAB" $c 2>&1)
	if printf '%s' "$out" | grep -q "$(printf '\033')"; then bad "$c: no escape byte from the host reaches the terminal" "$out"
	elif [ "$c" = "audit fb --window 0.2" ] || printf '%s' "$out" | grep -q "hal?\[31mtpoll"; then
		ok "$c: no escape byte from the host reaches the terminal"
	else bad "$c: no escape byte from the host reaches the terminal" "the driver not shown: $out"; fi
done
printf 'haltpoll\n' > "$FB/fix/sys/devices/system/cpu/cpuidle/current_driver"
printf 'ladder menu haltpoll\n' > "$FB/fix/sys/devices/system/cpu/cpuidle/available_governors"

# kill -9 at 24 instants of the nightlies retrying a failed first delivery: one mail, one POST per alert,
# save where a kill fell between the destination taking the alert and the journal's record of it
# (RFC 1047's window: no client can know then, and it rightly sends again, under the same id).
# The servers record what they take before they answer (smtp_stall.py --keep, PDU_LOG_STATUS), so
# after each kill "taken but not journaled" counts exactly the kills that fell in that window.
mkdir -p "$T/acked"
python3 "$SRC/tests/e2e/smtp_stall.py" "$T/acked.port" --keep "$T/acked" &
PIDS="$PIDS $!"
PDU_LOG_STATUS=1 python3 "$SRC/tests/e2e/pdu.py" "$T/hook2.port" "$T/hook2.log" test -e "$T/hook-ok" &
PIDS="$PIDS $!"
HOOK2=$(wait_port "$T/hook2.port")
DEST="--to pm@example.org --from nightly@lab.example.org --webhook http://127.0.0.1:$HOOK2/services/$SECRET"
M="--smtp smtp://127.0.0.1:$(wait_port "$T/acked.port")/ $DEST"
fb_commit 140 "cpuidle: menu: even deeper"
tip2=$(git -C "$FB_REPO" rev-parse HEAD)
t12=$(echo "$tip2" | cut -c1-12)
rm -f "$T/hook-ok"
expect "a second regression, its deliveries failing" 1 "^regression: " $N --smtp "smtp://127.0.0.1:$DEAD/" $DEST
touch "$T/hook-ok"
# taken: the mails of the alert the server took, and the POSTs it answered 200; journaled: the
# deliveries nightly.jsonl records, per destination
taken() {
	m=$(grep -l "$t12" "$T"/acked/*.eml 2>/dev/null | wc -l)
	w=$(python3 -c 'import json, os, sys
print(sum(1 for l in open(sys.argv[1]) for r in [json.loads(l)] if r["status"] == 200 and json.loads(r["body"]).get("commit") == sys.argv[2]) if os.path.exists(sys.argv[1]) else 0)' "$T/hook2.log" "$tip2")
	echo "$m $w"
}
journaled() {
	python3 -c 'import json, sys
n = {"mail": 0, "webhook": 0}
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "nightly-alert" and r["delivered"] and r["commit"] == sys.argv[2]:
        n[r["destination"]] += 1
print(n["mail"], n["webhook"])' "$R/nightly.jsonl" "$tip2"
}
# unrecorded: taken minus journaled, per destination
unrecorded() {
	set -- $(taken) $(journaled)
	echo "$(($1 - $3)) $(($2 - $4))"
}
window=0
before=$(unrecorded)
for ms in 0 15 30 45 60 75 90 105 120 140 160 180 200 220 240 260 280 300 330 360 400 450 500 600; do
	$N $M >/dev/null 2>&1 &
	p=$!
	sleep "$(echo "$ms" | awk '{ printf "%.3f", $1 / 1000 }')"
	kill -9 $p 2>/dev/null
	wait $p 2>/dev/null
	now=$(unrecorded)
	[ "$now" != "$before" ] && window=$((window + 1))
	before=$now
done
expect "after the kills, a whole nightly: nothing owed is left undelivered" 0 "" $N $M
expect "and the one after sends nothing" 0 "^unchanged: " $N $M
[ "$(unrecorded)" = "$before" ] && ok "the nightlies not killed took nothing unrecorded" ||
	bad "the nightlies not killed took nothing unrecorded" "taken $(taken), journaled $(journaled)"
set -- $(taken)
[ $(($1 + $2)) -le $((2 + window)) ] && [ "$1" -ge 1 ] && [ "$2" -ge 1 ] &&
	ok "24 kills: one mail and one webhook POST of the alert, each again only after a kill in RFC 1047's window ($window)" ||
	bad "24 kills: one mail and one webhook POST of the alert, each again only after a kill in RFC 1047's window ($window)" \
		"mails $1, POSTs $2: $(grep -l "$t12" "$T"/acked/*.eml)"
# every attempt named the alert the same way: the mail's Message-ID, the webhook's Idempotency-Key
keys=$(python3 -c 'import json, sys
print(len({json.loads(l)["headers"].get("Idempotency-Key") for l in open(sys.argv[1])}))' "$T/hook2.log")
mid=$(grep -h -i "^Message-ID: <.*nightly.idlelab@lab.example.org>" $(grep -l "$t12" "$T"/acked/*.eml) /dev/null | sort -u | wc -l)
[ "$keys" = 1 ] && [ "$mid" = 1 ] && ok "every copy carries the alert's one id (Idempotency-Key, Message-ID)" ||
	bad "every copy carries the alert's one id (Idempotency-Key, Message-ID)" "keys $keys, Message-IDs $mid"
[ "$(journaled)" = "1 1" ] && ok "24 kills: one delivery journaled per destination" ||
	bad "24 kills: one delivery journaled per destination" "$(grep nightly-alert "$R/nightly.jsonl" | tail -8)"
finish
