#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# idlelab's LAVA side without a LAVA server (tests/e2e-lava has the real one):
# `lava template`, `lava jobdef` (jobs dealt out over boards, images as URLs
# or published by hash, a host's own template, errors that name the file),
# `host show` of a LAVA host, and a run against a server that is not there:
# a clear error naming the URL, nothing journaled as data, the token in no
# output. Against a LAVA server that misbehaves (fakelava.py): an answer that
# is not LAVA's stops the run at once naming the job and what was expected; a
# server that stops answering (queued or running) is given up at the job's
# time-out and the job canceled; a token the server echoes is in no output.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; wait 2>/dev/null; rm -rf "$E2E_TMP"' EXIT
export IDLELAB_HOSTS=$E2E_TMP/hosts
mkdir -p "$IDLELAB_HOSTS" "$E2E_TMP/img" "$E2E_TMP/art"
printf 'secret-token-e2e\n' > "$E2E_TMP/token" && chmod 600 "$E2E_TMP/token"
printf 'kernel image\n' > "$E2E_TMP/img/Image"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$IDLELAB_HOSTS/lq.json" <<JSON
{"lava": {"url": "http://127.0.0.1:$port", "token_file": "$E2E_TMP/token", "device_type": "qemu", "boards": 2,
  "poll_s": 1, "artifact_dir": "$E2E_TMP/art", "artifact_url": "http://127.0.0.1:8000/art",
  "images": {"kernel": "$E2E_TMP/img/Image", "ramdisk": "https://example.org/r.cpio.gz", "dtb": "file:///srv/x.dtb"}}}
JSON
cat > "$E2E_TMP/plan.json" <<'JSON'
{"name": "lq", "host": "lq", "governors": ["menu", {"label": "teo-nodeep", "governor": "teo", "disable": ["ret-deep"]}],
 "workloads": [{"workload": "sleeper", "params": {"duration": 1}}], "iterations": 3, "warmup": 0,
 "order": "interleave", "retries": 1, "timeout_s": 30}
JSON
expect "lava template: the built-in deploy and boot" 0 "prompts: \['/ # '\]" "$IDLELAB" lava template
"$IDLELAB" lava jobdef "$E2E_TMP/plan.json" > "$E2E_TMP/jobs.yaml" 2>"$E2E_TMP/err"
[ "$(grep -c '^device_type: qemu$' "$E2E_TMP/jobs.yaml")" = 2 ] && ok "jobdef: two boards, two jobs" ||
	bad "jobdef: two boards, two jobs" "$(cat "$E2E_TMP/err"; head -5 "$E2E_TMP/jobs.yaml")"
[ "$(grep -c 'il_sample ' "$E2E_TMP/jobs.yaml")" = 6 ] && grep -q "il_sample 1 IL[0-9a-f]* s1-teo-nodeep-sleeper teo ret-deep 0 '' 30 -- /usr/local/bin/sleeper " "$E2E_TMP/jobs.yaml" &&
	ok "jobdef: six samples dealt out, disable by name, the workload from bindir" || bad "jobdef: samples" "$(grep il_sample "$E2E_TMP/jobs.yaml")"
h=$(sha256sum "$E2E_TMP/img/Image" | cut -c1-16)
grep -q "url: 'http://127.0.0.1:8000/art/$h/Image'" "$E2E_TMP/jobs.yaml" && grep -q "url: 'https://example.org/r.cpio.gz'" "$E2E_TMP/jobs.yaml" &&
	ok "jobdef: a local image named by its hash under artifact_url, a URL as given" || bad "jobdef: image URLs" "$(grep url: "$E2E_TMP/jobs.yaml")"
[ -z "$(ls -A "$E2E_TMP/art")" ] && ok "jobdef copies nothing" || bad "jobdef copies nothing"
# a board's own template: its actions kept, LAVA's own placeholders left alone
printf 'device_type: x\ntimeouts: {job: {minutes: 1}, action: {minutes: 9}}\nactions:\n- deploy: {to: tftp, kernel: {url: "{idlelab.kernel_url}"}, image_arg: "-k {kernel}"}\n- boot: {method: u-boot, commands: ramdisk}\n' > "$E2E_TMP/board.yaml"
sed "s|\"boards\": 2,|\"boards\": 1, \"job_template\": \"$E2E_TMP/board.yaml\",|" "$IDLELAB_HOSTS/lq.json" > "$IDLELAB_HOSTS/lb.json"
expect "jobdef with the host's template" 0 "method: u-boot" "$IDLELAB" lava jobdef "$E2E_TMP/plan.json" --host lb
expect "... LAVA's own placeholders left alone" 0 'image_arg: "-k \{kernel\}"' "$IDLELAB" lava jobdef "$E2E_TMP/plan.json" --host lb
printf 'actions:\n- deploy: {kernel: {url: "{idlelab.kernl_url}"}}\n' > "$E2E_TMP/board.yaml"
expect "a misspelt placeholder names the template" 1 "board.yaml: '\{idlelab.kernl_url\}': unknown placeholder" \
	"$IDLELAB" lava jobdef "$E2E_TMP/plan.json" --host lb
expect "jobdef on a plan without LAVA hosts" 1 "none of the plan's hosts is a LAVA host" \
	"$IDLELAB" lava jobdef "$E2E_TMP/plan.json" --host local
expect "audit: a LAVA host is no machine to audit" 1 "host 'lq' is a LAVA host" "$IDLELAB" audit lq --window 0
expect "host show: the section, the token file's path only" 0 "\"device_type\": \"qemu\"" "$IDLELAB" host show lq --json
"$IDLELAB" host show lq --json 2>&1 | grep -q secret-token-e2e && bad "host show prints no token" || ok "host show prints no token"
# no server at the URL: the run fails naming it; nothing is data. A damaged copy of the kernel
# left in artifact_dir is replaced, not deployed.
h=$(sha256sum "$E2E_TMP/img/Image" | cut -c1-16)
mkdir -p "$E2E_TMP/art/$h" && echo damaged > "$E2E_TMP/art/$h/Image"
"$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run" > "$E2E_TMP/run.log" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q "127.0.0.1:$port" "$E2E_TMP/run.log" && ok "a LAVA server that is not there: exit 1 naming it" ||
	bad "a LAVA server that is not there" "exit $rc: $(cat "$E2E_TMP/run.log")"
grep -q secret-token-e2e "$E2E_TMP/run.log" "$E2E_TMP/run/journal.jsonl" && bad "the token in no output" || ok "the token in no output"
grep -q '"status": *"ok"' "$E2E_TMP/run/journal.jsonl" && bad "nothing journaled as data" || ok "nothing journaled as data"
cmp -s "$E2E_TMP/img/Image" "$E2E_TMP/art/$h/Image" && ok "the run published the kernel under its hash (a damaged copy replaced)" || bad "the run published the kernel under its hash"
expect "resume: the same clear error, nothing submitted twice" 1 "127.0.0.1:$port" "$IDLELAB" run --resume "$E2E_TMP/run"
chmod 777 "$E2E_TMP/art/$h"
expect "an artifact directory others can write is refused" 1 "could swap the kernel LAVA deploys" \
	"$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run3"
chmod 755 "$E2E_TMP/art/$h"

# wait_port FILE: the port a server wrote to FILE (empty after 10 s)
wait_port() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	cat "$1" 2>/dev/null
}
# fake_lava MODE: fakelava.py answering as MODE, and host lf-MODE on it with 3 s time-outs
fake_lava() {
	python3 "$SRC/tests/e2e/fakelava.py" "$E2E_TMP/fl-$1.port" "$E2E_TMP/fl-$1.log" "$1" &
	PIDS="$PIDS $!"
	printf '{"lava": {"url": "http://127.0.0.1:%s", "token_file": "%s", "device_type": "qemu", "poll_s": 1,
	  "queue_timeout_s": 3, "job_timeout_s": 3, "images": {"kernel": "http://127.0.0.1:9/Image"}}}\n' \
		"$(wait_port "$E2E_TMP/fl-$1.port")" "$E2E_TMP/token" > "$IDLELAB_HOSTS/lf-$1.json"
}
# run_fake MODE: the plan on lf-MODE, killed after 60 s (an endless loop fails, never hangs the suite);
# $rc, $secs it took, its output in $E2E_TMP/fl-MODE.out
run_fake() {
	start=$(date +%s)
	timeout 60 "$IDLELAB" run "$E2E_TMP/plan1.json" --host "lf-$1" --out "$E2E_TMP/run-$1" > "$E2E_TMP/fl-$1.out" 2>&1
	rc=$? secs=$(($(date +%s) - start))
}
cat > "$E2E_TMP/plan1.json" <<'JSON'
{"name": "lf", "host": "lq", "governors": ["menu"], "workloads": [{"workload": "sleeper", "params": {"duration": 1}}],
 "iterations": 2, "warmup": 0, "retries": 0, "timeout_s": 30}
JSON
for m in state5 silent running echo401; do fake_lava $m; done
# "state": 5 is no answer of LAVA's: the run stops at the first poll, naming the server, the job and what was expected
run_fake state5
if [ "$rc" = 1 ] && [ "$secs" -lt 20 ] &&
	grep -q "LAVA job 1: the server's answer is not LAVA's, the run stops" "$E2E_TMP/fl-state5.out" &&
	grep -q "127.0.0.1:[0-9]*/api/v0.2/jobs/1/: state: expected one of Submitted, Scheduling" "$E2E_TMP/fl-state5.out"; then
	ok "a job state that is not LAVA's stops the run at once, naming server, job and what was expected"
else
	bad "a job state that is not LAVA's stops the run" "exit $rc after $secs s: $(tail -5 "$E2E_TMP/fl-state5.out")"
fi
[ "$(grep -c '"path": "/api/v0.2/jobs/1/"' "$E2E_TMP/fl-state5.log")" = 1 ] && ok "... after one poll" ||
	bad "... after one poll" "$(cat "$E2E_TMP/fl-state5.log")"
# a server that never answers a poll: the job is given up at queue_timeout_s, canceled, its samples infra_failed
run_fake silent
if [ "$rc" != 124 ] && [ "$secs" -lt 20 ] && grep -q '"path": "/api/v0.2/jobs/1/cancel/"' "$E2E_TMP/fl-silent.log" &&
	grep -q 'LAVA job 1: no usable answer from the server for [0-9]* s, past its queue_timeout_s (3 s): canceled' \
		"$E2E_TMP/run-silent/journal.jsonl"; then
	ok "a server that never answers: the job given up at its queue time-out and canceled"
else
	bad "a server that never answers: the job given up at its queue time-out" \
		"exit $rc after $secs s: $(tail -5 "$E2E_TMP/fl-silent.out"; cat "$E2E_TMP/fl-silent.log")"
fi
grep -q '"status": *"ok"' "$E2E_TMP/run-silent/journal.jsonl" && bad "... nothing journaled as data" ||
	ok "... nothing journaled as data"
# running, then silent: job_timeout_s from when it was seen running
run_fake running
if [ "$rc" != 124 ] && [ "$secs" -lt 20 ] &&
	grep -q 'LAVA job 1: no usable answer from the server for [0-9]* s, past its job_timeout_s (3 s): canceled' \
		"$E2E_TMP/run-running/journal.jsonl"; then
	ok "a server that stops answering a running job: given up at its job time-out"
else
	bad "a server that stops answering a running job" "exit $rc after $secs s: $(tail -5 "$E2E_TMP/fl-running.out")"
fi
# a 401 whose detail echoes the token: the error says so without it
run_fake echo401
if [ "$rc" = 1 ] && grep -q "HTTP 401: Invalid token: <token>" "$E2E_TMP/fl-echo401.out" &&
	! grep -rq secret-token-e2e "$E2E_TMP/fl-echo401.out" "$E2E_TMP/run-echo401"; then
	ok "a 401 that echoes the token: the error without it"
else
	bad "a 401 that echoes the token: the error without it" "exit $rc: $(tail -5 "$E2E_TMP/fl-echo401.out")"
fi
chmod 644 "$E2E_TMP/token"
expect "a token file others can read is refused" 1 "permissions 0644 are too open" \
	"$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run2"
finish
