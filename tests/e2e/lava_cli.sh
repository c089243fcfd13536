#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# idlelab's LAVA side without a LAVA server (tests/e2e-lava has the real one):
# `lava template`, `lava jobdef` (jobs dealt out over boards, images as URLs
# or published by hash, a host's own template, errors that name the file),
# `host show` of a LAVA host, and a run against a server that is not there:
# a clear error naming the URL, nothing journaled as data, the token in no
# output.
. "$(dirname "$0")/lib.sh"
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
chmod 644 "$E2E_TMP/token"
expect "a token file others can read is refused" 1 "permissions 0644 are too open" \
	"$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run2"
finish
