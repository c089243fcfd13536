#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `idlelab alert send` against real servers on 127.0.0.1: Debian's aiosmtpd
# (smtpd.py: every message kept as received, AUTH with one user) and an HTTP
# server that records POSTs (pdu.py). The mail as the server got it (headers,
# RFC 2047 subject, CRLF, the tables, range, reproduce and bisect commands),
# the webhook JSON; a login from a private auth file; an auth file readable by
# others refused; a server that is down, a webhook answering 500, STARTTLS
# that the server lacks: clear errors, exit 1; a password never in any output.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
ALERT=$SRC/tests/fixtures/alert/two-workloads.json
PW=Hunter2-never-shown
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$E2E_TMP"' EXIT

# Debian's aiosmtpd is under Debian's python3, which may not be the first on PATH
PY=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import aiosmtpd' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { skip "python3-aiosmtpd missing (make deps)"; finish; exit $?; }

# wait_port FILE: the port a server wrote to FILE (empty after 10 s)
wait_port() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	cat "$1" 2>/dev/null
}

mkdir -p "$E2E_TMP/mail"
"$PY" "$SRC/tests/e2e/smtpd.py" "$E2E_TMP/smtp.port" "$E2E_TMP/mail" "nightly:$PW" 2>"$E2E_TMP/smtpd.log" &
PIDS="$PIDS $!"
python3 "$SRC/tests/e2e/pdu.py" "$E2E_TMP/hook.port" "$E2E_TMP/hook.log" &
PIDS="$PIDS $!"
python3 "$SRC/tests/e2e/pdu.py" "$E2E_TMP/bad.port" "$E2E_TMP/bad.log" false &
PIDS="$PIDS $!"
SMTP_PORT=$(wait_port "$E2E_TMP/smtp.port")
HOOK_PORT=$(wait_port "$E2E_TMP/hook.port")
BAD_PORT=$(wait_port "$E2E_TMP/bad.port")
[ -n "$SMTP_PORT" ] && [ -n "$HOOK_PORT" ] && [ -n "$BAD_PORT" ] && ok "servers up on 127.0.0.1" ||
	{ bad "servers up on 127.0.0.1" "$(cat "$E2E_TMP/smtpd.log")"; finish; exit 1; }
SMTP=smtp://127.0.0.1:$SMTP_PORT/
HOOK=http://127.0.0.1:$HOOK_PORT/hooks/idlelab
# a port nothing listens on: bound by the kernel's choice, then closed
DOWN=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# every output of every command, to check that the password never shows
ALL=$E2E_TMP/all-output
# run CMD...: CMD's output (stdout and stderr) printed, kept in $E2E_TMP/out and added to $ALL
run() { "$@" >"$E2E_TMP/out" 2>&1; rc=$?; tee -a "$ALL" < "$E2E_TMP/out"; return $rc; }

expect "dry run prints the mail and the webhook JSON" 0 '"schema": "idlelab-alert/1"' \
	"$IDLELAB" alert send "$ALERT" --dry-run --from nightly@lab.example.org --to pm@example.org
expect "dry run: the subject" 0 '^Subject: idlelab: \+20\.6% regression of schbench\.p99_latency \(teo\) and 3 more$' \
	"$IDLELAB" alert send "$ALERT" --dry-run
expect "nothing to send to is a usage error" 2 "give --smtp, --webhook or --dry-run" "$IDLELAB" alert send "$ALERT"
expect "--smtp without --to is a usage error" 2 "--smtp needs --to" "$IDLELAB" alert send "$ALERT" --smtp "$SMTP"
sed 's/"p": 0.0031/"p": 3.1/' "$ALERT" > "$E2E_TMP/bad-p.json"
expect "bad input is named by its JSON path" 1 "^idlelab: error: alert: regressions\[2\]\.p: expected a number from 0 to 1" \
	"$IDLELAB" alert send "$E2E_TMP/bad-p.json" --dry-run

# ---- mail and webhook, with a login from a private auth file ----
printf 'nightly:%s\n' "$PW" > "$E2E_TMP/auth"
chmod 600 "$E2E_TMP/auth"
if run "$IDLELAB" alert send "$ALERT" --smtp "$SMTP" --auth-file "$E2E_TMP/auth" --from nightly@lab.example.org \
	--to pm@example.org,dev@example.org --webhook "$HOOK" &&
	grep -q "^alert: mail sent to 2 recipients via $SMTP\$" "$E2E_TMP/out" &&
	grep -q "^alert: webhook posted to http://127.0.0.1:$HOOK_PORT/\*\*\*\$" "$E2E_TMP/out"; then
	ok "alert sent by mail and webhook"
else
	bad "alert sent by mail and webhook" "$(cat "$E2E_TMP/out" "$E2E_TMP/smtpd.log")"
fi
"$PY" - "$E2E_TMP/mail" "$E2E_TMP/hook.log" <<'PY' && ok "the mail and the webhook JSON as received" ||
import email, email.header, email.policy, json, sys
box, hooklog = sys.argv[1], sys.argv[2]
env = json.load(open(box + "/1.json"))
assert env["from"] == "nightly@lab.example.org", env
assert env["to"] == ["pm@example.org", "dev@example.org"], env
assert env["login"] == "nightly", env
raw = open(box + "/1.eml", "rb").read()
assert b"\n" not in raw.replace(b"\r\n", b""), "a bare LF"
assert max(len(l) for l in raw.split(b"\r\n")) <= 998
msg = email.message_from_bytes(raw, policy=email.policy.default)
subject = "idlelab: +20.6% regression of schbench.p99_latency (teo) and 3 more on pm-next 0123456789ab"
assert msg["Subject"] == subject, msg["Subject"]
assert msg["From"] == "nightly@lab.example.org" and msg["To"] == "pm@example.org, dev@example.org", (msg["From"], msg["To"])
assert msg["Date"].datetime is not None and msg["Message-ID"].endswith("@lab.example.org>"), (msg["Date"], msg["Message-ID"])
assert msg["MIME-Version"] == "1.0" and msg.get_content_type() == "text/plain" and msg.get_content_charset() == "utf-8"
assert msg["Content-Transfer-Encoding"] == "8bit"
body = msg.get_content().replace("\r\n", "\n")  # the CRLF of the wire, as the text it carries
want = [
    "plan:     governors\nhost:     labvm\nbranch:   pm-next\n",
    "commit:   0123456789abcdef0123456789abcdef01234567 (\"cpuidle: teo:",
    "\nworkload: schbench\n",
    "\n    84.200 ±  4%     +20.6%      101.50 ±  4%   0.00021    10/10  p99_latency (teo, us)\n",
    "\nworkload: periodic\n",
    "\n    0.1234 ±  2%     +12.7%      0.1391 ±  1%   0.00018    10/10  idle_miss (teo, ratio)\n",
    "\ncommit range:\n  fedcba9876543210fedcba9876543210fedcba98..0123456789abcdef0123456789abcdef01234567\n",
    "\nto reproduce:\n  idlelab run examples/nightly.json --host labvm\n",
    "\nto bisect (suggested):\n  idlelab bisect examples/nightly.json --good fedcba987654 --bad 0123456789ab "
    "--metric schbench.p99_latency\n",
]
for w in want:
    assert w in body, (w, body)
assert body.index("workload: schbench") < body.index("workload: periodic")
table = [l for l in body.split("\n") if "±" in l]
assert len(table) == 4 and all(len(l) <= 100 for l in table), table
hooks = [json.loads(l) for l in open(hooklog)]
assert len(hooks) == 1 and hooks[0]["method"] == "POST" and hooks[0]["path"] == "/hooks/idlelab", hooks
assert hooks[0]["headers"]["Content-Type"] == "application/json", hooks[0]["headers"]
w = json.loads(hooks[0]["body"])
assert w["schema"] == "idlelab-alert/1" and w["subject"] == subject, w
assert w["text"] == body, (w["text"], body)
assert [r["metric"] for r in w["regressions"]] == ["p99_latency", "requests_per_s", "idle_miss", "aboves"]
assert w["baseline"] == {"commit": "fedcba9876543210fedcba9876543210fedcba98", "run": "2026-11-30-governors"}
assert w["range"].endswith("..0123456789abcdef0123456789abcdef01234567") and w["bisect"].startswith("idlelab bisect")
PY
	bad "the mail and the webhook JSON as received" "$(ls "$E2E_TMP/mail"; cat "$E2E_TMP/hook.log")"

# a subject that is not ASCII travels as RFC 2047 encoded-words
sed 's/"branch": "pm-next"/"branch": "pm-nächste-größe"/' "$ALERT" > "$E2E_TMP/utf8.json"
if run "$IDLELAB" alert send "$E2E_TMP/utf8.json" --smtp "$SMTP" --from nightly@lab.example.org --to pm@example.org &&
	"$PY" - "$E2E_TMP/mail/2.eml" "$E2E_TMP/mail/2.json" <<'PY'; then
import email, email.policy, json, sys
raw = open(sys.argv[1], "rb").read()
head = raw.split(b"\r\n\r\n")[0]
assert b"=?UTF-8?B?" in head and all(b < 0x80 for b in head), head
msg = email.message_from_bytes(raw, policy=email.policy.default)
assert msg["Subject"] == "idlelab: +20.6% regression of schbench.p99_latency (teo) and 3 more on pm-nächste-größe 0123456789ab", msg["Subject"]
assert "branch:   pm-nächste-größe\r\n" in msg.get_content()
assert json.load(open(sys.argv[2]))["login"] is None
PY
	ok "a UTF-8 subject as RFC 2047 encoded-words, without a login"
else
	bad "a UTF-8 subject as RFC 2047 encoded-words, without a login" "$(cat "$E2E_TMP/out")"
fi

# ---- failures: clear, exit 1, nothing sent ----
chmod 644 "$E2E_TMP/auth"
expect "an auth file readable by others is refused" 1 \
	"auth file '$E2E_TMP/auth': mode 0644 lets others read it: refused" \
	run "$IDLELAB" alert send "$ALERT" --smtp "$SMTP" --auth-file "$E2E_TMP/auth" --to pm@example.org
ln -s "$E2E_TMP/auth" "$E2E_TMP/auth-link"
chmod 600 "$E2E_TMP/auth"
expect "an auth file that is a symbolic link is refused" 1 "a symbolic link" \
	run "$IDLELAB" alert send "$ALERT" --dry-run --auth-file "$E2E_TMP/auth-link"
printf 'nightly:%s-wrong\n' "$PW" > "$E2E_TMP/auth"
expect "a login the server refuses" 1 "^idlelab: error: mail via $SMTP: .*(Login denied|denied)" \
	run "$IDLELAB" alert send "$ALERT" --smtp "$SMTP" --auth-file "$E2E_TMP/auth" --to pm@example.org
expect "an SMTP server that is down (its URL shown with the password hidden)" 1 "^idlelab: error: mail via smtp://nightly:\\*\\*\\*@127.0.0.1:$DOWN/: .*(Couldn't connect|Failed to connect)" \
	run "$IDLELAB" alert send "$ALERT" --smtp "smtp://nightly:$PW@127.0.0.1:$DOWN" --to pm@example.org
expect "STARTTLS required from a server without it" 1 "^idlelab: error: mail via $SMTP: .*STARTTLS" \
	run "$IDLELAB" alert send "$ALERT" --smtp "$SMTP" --starttls --to pm@example.org
expect "a webhook answering 500" 1 "^idlelab: error: webhook http://127.0.0.1:$BAD_PORT/\\*\\*\\*\\?\\*\\*\\*: answered HTTP 500" \
	run "$IDLELAB" alert send "$ALERT" --webhook "http://127.0.0.1:$BAD_PORT/x?token=$PW"
expect "a webhook that is down" 1 "^idlelab: error: webhook http://127.0.0.1:$DOWN/: " \
	run "$IDLELAB" alert send "$ALERT" --webhook "http://127.0.0.1:$DOWN/"
expect "a mail that fails does not stop the webhook" 1 "alert: webhook posted to http://127.0.0.1:$HOOK_PORT/" \
	run "$IDLELAB" alert send "$ALERT" --smtp "smtp://127.0.0.1:$DOWN" --to pm@example.org --webhook "$HOOK"
# a webhook whose secret is its path (Slack, Discord): never shown
expect "a webhook's path is hidden in its errors" 1 "^idlelab: error: webhook http://127.0.0.1:$BAD_PORT/\\*\\*\\*: answered HTTP 500" \
	run "$IDLELAB" alert send "$ALERT" --webhook "http://127.0.0.1:$BAD_PORT/services/T0/B0/$PW"
# a server that takes the message and never answers QUIT: sent, and no two-minute wait for the goodbye
python3 "$SRC/tests/e2e/smtp_stall.py" "$E2E_TMP/stall.port" &
PIDS="$PIDS $!"
STALL=$(wait_port "$E2E_TMP/stall.port")
t0=$(date +%s)
expect "a server that never answers QUIT: the mail counts as sent" 0 "^alert: mail sent to 1 recipient" \
	run "$IDLELAB" alert send "$ALERT" --smtp "smtp://127.0.0.1:$STALL/" --to pm@example.org
[ $(($(date +%s) - t0)) -lt 10 ] && ok "and nothing waits for its goodbye" || bad "and nothing waits for its goodbye" "$(($(date +%s) - t0)) s"
n=$(ls "$E2E_TMP/mail"/*.eml | wc -l)
[ "$n" = 2 ] && ok "the refused sends delivered nothing" || bad "the refused sends delivered nothing" "$(ls "$E2E_TMP/mail")"
[ "$(wc -l < "$E2E_TMP/hook.log")" = 2 ] && ok "the webhook got the second alert" || bad "the webhook got the second alert"
if grep -q -- "$PW" "$ALL" "$E2E_TMP/mail"/*.eml "$E2E_TMP/hook.log"; then
	bad "the password never appears" "$(grep -n -- "$PW" "$ALL" "$E2E_TMP/mail"/*.eml "$E2E_TMP/hook.log")"
else
	ok "the password never appears"
fi
finish
