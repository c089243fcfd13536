#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A plan on a LAVA lab, for real (`make e2e-lava`; not part of `make check`:
# the setup downloads ~260 MB of Debian packages into a root of its own).
# Debian 12's own lava-server and lava-dispatcher (2023.01) in a debootstrap
# root kept in the cache ($IDLELAB_CACHE/lava-root, made once), its services
# started by hand on 127.0.0.1 (tests/e2e-lava/lava-setup.sh), one QEMU
# device (arm64, TCG) booting idlelab's lab kernel, initramfs and device tree
# as LAVA deploys them. Then:
# - `idlelab lava jobdef` prints a job LAVA's own validation accepts;
# - `idlelab run` of a plan with two governors on the LAVA host: the jobs
#   complete in LAVA, each sample is in the journal with its job and device,
#   LAVA's own results list each sample, `compare` works on the run;
# - an injected infrastructure failure (the device's first job fails before
#   it deploys) is retried, never blamed: the first attempt of each sample is
#   infra_failed naming LAVA's Infrastructure error, the second is ok;
# - a run stopped while its job is queued is resumed by following the same
#   job, never submitting it twice; one canceled in LAVA stops the run as
#   interrupted and is submitted again on resume;
# - two boards: a block dealt out over two jobs on two devices at once;
# - a built kernel: idlelab's build deployed by the job, its release checked.
. "$(dirname "$0")/../e2e/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
kernel_lab_needs qemu-system-aarch64 dtc dropbearkey aarch64-linux-gnu-gcc debootstrap curl python3
[ "$(id -u)" = 0 ] || { skip "needs root (debootstrap, chroot, mount)"; finish; exit $?; }
ROOT=${IDLELAB_LAVA_ROOT:-$IDLELAB_CACHE/lava-root}
HERE=$SRC/tests/e2e-lava
trap '"$HERE/lava-stop.sh" "$ROOT" >/dev/null 2>&1; rm -rf "$E2E_TMP"' EXIT
t0=$(date +%s)
expect "lab build (the images LAVA deploys)" 0 "" "$IDLELAB" lab build
LAB=$IDLELAB_CACHE/lab/arm64-2cpu-512m
if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
	rm -rf "$ROOT"
	debootstrap --variant=minbase bookworm "$ROOT" http://deb.debian.org/debian > "$E2E_TMP/debootstrap.log" 2>&1 ||
		{ bad "debootstrap of the LAVA root" "$(tail -5 "$E2E_TMP/debootstrap.log")"; finish; exit $?; }
fi
t1=$(date +%s)
"$HERE/lava-setup.sh" "$ROOT" "$LAB" > "$E2E_TMP/setup.log" 2>&1 &&
	ok "LAVA 2023.01 set up and its device Idle/Good ($(($(date +%s) - t1)) s; root $(($t1 - t0)) s)" ||
	{ bad "LAVA set up" "$(tail -20 "$E2E_TMP/setup.log")"; finish; exit $?; }
URL=http://127.0.0.1:${LAVA_PORT:-8018}
TOKEN=$ROOT/root/idlelab-lava/api-token
ART=$ROOT/srv/idlelab-artifacts
mkdir -p "$ART"

export IDLELAB_HOSTS=$E2E_TMP/hosts
mkdir -p "$IDLELAB_HOSTS"
host() {	# host NAME [TEMPLATE]
	{
		printf '{"lava": {"url": "%s", "token_file": "%s", "device_type": "qemu", "poll_s": 1,\n' "$URL" "$TOKEN"
		printf '  "artifact_dir": "%s", "artifact_url": "file:///srv/idlelab-artifacts",\n' "$ART"
		[ -n "${2:-}" ] && printf '  "job_template": "%s",\n' "$2"
		printf '  "images": {"kernel": "%s/Image", "ramdisk": "%s/initramfs.cpio.gz", "dtb": "%s/labvm.dtb"}}}\n' \
			"$LAB" "$LAB" "$LAB"
	} > "$IDLELAB_HOSTS/$1.json"
}
host lava-qemu
cat > "$E2E_TMP/plan.json" <<'JSON'
{"name": "lava-e2e", "host": "lava-qemu", "governors": ["menu", "teo"], "reference": "menu",
 "workloads": [{"workload": "sleeper", "params": {"duration": 1}}], "iterations": 2, "warmup": 0,
 "order": "interleave", "retries": 1, "timeout_s": 60}
JSON

# the job, as it would be submitted, validated by LAVA itself
expect "lava jobdef prints the job" 0 "^device_type: qemu" "$IDLELAB" lava jobdef "$E2E_TMP/plan.json"
"$IDLELAB" lava jobdef "$E2E_TMP/plan.json" > "$E2E_TMP/job.yaml" 2>&1
python3 -c 'import json,sys; print(json.dumps({"definition": open(sys.argv[1]).read()}))' "$E2E_TMP/job.yaml" > "$E2E_TMP/body"
printf 'Authorization: Token %s\n' "$(cat "$TOKEN")" > "$E2E_TMP/hdr" && chmod 600 "$E2E_TMP/hdr"
api() { curl -sS -m 60 -H @"$E2E_TMP/hdr" "$@"; }
api -H 'Content-Type: application/json' -X POST --data-binary @"$E2E_TMP/body" "$URL/api/v0.2/jobs/validate/" \
	> "$E2E_TMP/valid.json"
grep -q '"Job valid."' "$E2E_TMP/valid.json" && ok "LAVA validates the generated job" ||
	bad "LAVA validates the generated job" "$(cat "$E2E_TMP/valid.json")"

# the plan, for real
t2=$(date +%s)
"$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run" > "$E2E_TMP/run.log" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "run on the LAVA host: exit 0 ($(($(date +%s) - t2)) s)" || bad "run on the LAVA host" "exit $rc: $(tail -20 "$E2E_TMP/run.log")"
check_journal() {	# check_journal RUN WANT_ATTEMPTS WHAT
	python3 - "$1/journal.jsonl" "$2" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
jobs = [r for r in recs if r["type"] == "lava-job"]
samples = [r for r in recs if r["type"] == "sample"]
final = [r for r in samples if r["final"]]
assert len(final) == 4 and all(r["status"] == "ok" for r in final), [(r["seq"], r["status"], r.get("reason")) for r in samples]
assert all(r["lava_job"] and r["device"] for r in final), final[0]
assert all(r["idle"] and r["metrics"] for r in final), final[0]
assert {r["governor_read"] for r in final} == {"menu", "teo"}, final
assert max(r["attempt"] for r in final) == int(sys.argv[2]), [(r["seq"], r["attempt"]) for r in samples]
hosts = [r for r in recs if r["type"] == "host"]
assert hosts and hosts[0]["fingerprint"]["kernel"]["arch"] == "aarch64", hosts
print(len(jobs), " ".join(str(j["job"]) for j in jobs))
PY
}
jobs=$(check_journal "$E2E_TMP/run" 1) && ok "journal: 4 samples ok with job, device and idle counters (LAVA job(s) $jobs)" ||
	bad "journal: 4 samples ok" "$jobs"
last=${jobs##* }
api "$URL/api/v0.2/jobs/$last/" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["state"] == "Finished" and d["health"] == "Complete", d' &&
	ok "LAVA: job $last Finished/Complete" || bad "LAVA: job $last Finished/Complete"
api "$URL/api/v0.2/jobs/$last/tests/?limit=200" | python3 -c '
import json, sys
names = [t["name"] for t in json.load(sys.stdin)["results"] if t["result"] == "pass"]
assert sum(1 for n in names if n.startswith("s")) >= 2 and any("menu-sleeper" in n for n in names), names' &&
	ok "LAVA's own results list the samples" || bad "LAVA's own results list the samples"
expect "compare on the LAVA run" 0 "teo" "$IDLELAB" compare "$E2E_TMP/run"

# an infrastructure failure before the deploy: retried, not blamed
"$IDLELAB" lava template > "$E2E_TMP/flaky.yaml"
python3 - "$E2E_TMP/flaky.yaml" <<'PY'
import sys
t = open(sys.argv[1]).read()
t = t.replace("actions:\n", "actions:\n- command:\n    name: inject_infra\n", 1)
open(sys.argv[1], "w").write(t)
PY
host lava-flaky "$E2E_TMP/flaky.yaml"
sed 's/"lava-qemu"/"lava-flaky"/; s/"lava-e2e"/"lava-e2e-infra"/' "$E2E_TMP/plan.json" > "$E2E_TMP/plan-infra.json"
echo 1 > "$ROOT/run/idlelab-lava/inject-infra"
"$IDLELAB" run "$E2E_TMP/plan-infra.json" --out "$E2E_TMP/run-infra" > "$E2E_TMP/run-infra.log" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "run with an infrastructure failure: exit 0" || bad "run with an infrastructure failure" "exit $rc: $(tail -20 "$E2E_TMP/run-infra.log")"
check_journal "$E2E_TMP/run-infra" 2 >/dev/null && ok "each sample's second attempt ok" || bad "each sample's second attempt ok" "$(check_journal "$E2E_TMP/run-infra" 2 2>&1 | tail -3)"
python3 - "$E2E_TMP/run-infra/journal.jsonl" <<'PY' && ok "the first attempts: infra_failed, not final, naming LAVA's Infrastructure error" || bad "the first attempts were infrastructure failures"
import json, sys
first = [json.loads(l) for l in open(sys.argv[1])]
first = [r for r in first if r["type"] == "sample" and r["attempt"] == 1]
assert len(first) == 4, first
assert all(r["status"] == "infra_failed" and not r["final"] and "Incomplete (Infrastructure)" in r["reason"] for r in first), first
PY
"$HERE/lava-setup.sh" "$ROOT" "$LAB" > "$E2E_TMP/setup2.log" 2>&1 # the injected failure left the device's health Unknown

# stopped while its job is in LAVA's hands, then resumed: the same job is followed, not a second one submitted
sed 's/"lava-e2e"/"lava-e2e-resume"/' "$E2E_TMP/plan.json" > "$E2E_TMP/plan-resume.json"
"$IDLELAB" run "$E2E_TMP/plan-resume.json" --out "$E2E_TMP/run-resume" > "$E2E_TMP/run-resume.log" 2>&1 &
pid=$!
i=0
while ! grep -q '"lava-job"' "$E2E_TMP/run-resume/journal.jsonl" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
"$IDLELAB" run --resume "$E2E_TMP/run-resume" > "$E2E_TMP/resume.log" 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q "following it again" "$E2E_TMP/resume.log" && ok "resume follows the job in flight" ||
	bad "resume follows the job in flight" "exit $rc: $(tail -10 "$E2E_TMP/resume.log")"
n=$(grep -c '"lava-job"' "$E2E_TMP/run-resume/journal.jsonl")
[ "$n" = 1 ] && ok "one job submitted for the resumed run" || bad "one job submitted for the resumed run" "$n lava-job records"
check_journal "$E2E_TMP/run-resume" 1 >/dev/null && ok "the resumed run's samples are all ok" || bad "the resumed run's samples are all ok"
# canceled in LAVA while it runs: the run stops as interrupted (exit 130), resume submits the samples again
sed 's/"lava-e2e"/"lava-e2e-cancel"/' "$E2E_TMP/plan.json" > "$E2E_TMP/plan-cancel.json"
"$IDLELAB" run "$E2E_TMP/plan-cancel.json" --out "$E2E_TMP/run-cancel" > "$E2E_TMP/run-cancel.log" 2>&1 &
pid=$!
i=0
while ! grep -q '"lava-job"' "$E2E_TMP/run-cancel/journal.jsonl" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
job=$(python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1]) if "lava-job" in l][0]["job"])' "$E2E_TMP/run-cancel/journal.jsonl")
api "$URL/api/v0.2/jobs/$job/cancel/" > /dev/null
wait "$pid"
rc=$?
[ "$rc" = 130 ] && grep -q "LAVA job $job was canceled" "$E2E_TMP/run-cancel.log" && ok "a job canceled in LAVA: the run stops, exit 130" ||
	bad "a job canceled in LAVA: the run stops, exit 130" "exit $rc: $(tail -5 "$E2E_TMP/run-cancel.log")"
"$IDLELAB" run --resume "$E2E_TMP/run-cancel" > "$E2E_TMP/resume-cancel.log" 2>&1 && check_journal "$E2E_TMP/run-cancel" 2 >/dev/null &&
	ok "... resumed: the samples submitted again, all ok" || bad "... resumed" "$(tail -5 "$E2E_TMP/resume-cancel.log")"

# two boards: a block dealt out over two jobs at once, one probe record per device that ran one
LAVA_DEVICES="qemu-aarch64-01 qemu-aarch64-02" "$HERE/lava-setup.sh" "$ROOT" "$LAB" > "$E2E_TMP/setup3.log" 2>&1 ||
	bad "a second device" "$(tail -5 "$E2E_TMP/setup3.log")"
sed 's/"device_type": "qemu",/"device_type": "qemu", "boards": 2,/' "$IDLELAB_HOSTS/lava-qemu.json" > "$IDLELAB_HOSTS/lava-two.json"
sed 's/"lava-qemu"/"lava-two"/; s/"lava-e2e"/"lava-e2e-boards"/' "$E2E_TMP/plan.json" > "$E2E_TMP/plan-boards.json"
t3=$(date +%s)
"$IDLELAB" run "$E2E_TMP/plan-boards.json" --out "$E2E_TMP/run-boards" > "$E2E_TMP/run-boards.log" 2>&1
rc=$?
n=$(grep -c '"lava-job"' "$E2E_TMP/run-boards/journal.jsonl")
[ "$rc" = 0 ] && [ "$n" = 2 ] && check_journal "$E2E_TMP/run-boards" 1 >/dev/null &&
	ok "boards 2: two jobs, the four samples ok ($(($(date +%s) - t3)) s; devices $(python3 -c 'import json,sys; print(" ".join(sorted({json.loads(l)["device"] for l in open(sys.argv[1]) if "\"sample\"" in l})))' "$E2E_TMP/run-boards/journal.jsonl"))" ||
	bad "boards 2" "exit $rc, $n jobs: $(tail -5 "$E2E_TMP/run-boards.log")"
"$HERE/lava-setup.sh" "$ROOT" "$LAB" > /dev/null 2>&1 # back to one device (a 2-core machine)
# a built kernel: the plan's kernel built by idlelab (cached: the lab's own tree and config),
# published under its hash, deployed by the job with the lab's ramdisk and device tree, and
# checked per sample to be the kernel that ran
cat > "$E2E_TMP/plan-built.json" <<JSON
{"name": "lava-e2e-built", "host": "lava-qemu", "governors": ["menu", "teo"], "reference": "menu",
 "workloads": [{"workload": "sleeper", "params": {"duration": 1}}], "iterations": 1, "warmup": 0,
 "order": "interleave", "retries": 1, "timeout_s": 60,
 "build": {"arch": "arm64", "cross_compile": "aarch64-linux-gnu-", "config": "allnoconfig",
  "config_fragments": ["$SRC/hosts/labvm/kernel.config"], "targets": ["Image"]},
 "kernels": [{"name": "labvm-6.1", "tarball": "$TARBALL"}]}
JSON
t4=$(date +%s)
"$IDLELAB" run "$E2E_TMP/plan-built.json" --out "$E2E_TMP/run-built" > "$E2E_TMP/run-built.log" 2>&1
rc=$?
python3 - "$E2E_TMP/run-built/journal.jsonl" <<'PY' && [ "$rc" = 0 ] && ok "a built kernel deployed by LAVA: its samples ok, its release checked ($(($(date +%s) - t4)) s)" || bad "a built kernel deployed by LAVA" "exit $rc: $(tail -5 "$E2E_TMP/run-built.log")"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
s = [r for r in recs if r["type"] == "sample" and r["final"]]
assert len(s) == 2 and all(r["status"] == "ok" and r["kernel"] == "labvm-6.1" and "-il" in r["kernel_release"] for r in s), s
assert [r["kernel"] for r in recs if r["type"] == "lava-job"] == ["labvm-6.1"], recs
PY

echo "e2e-lava: setup $(($(date +%s) - t0)) s in all"
finish
