#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Booting built kernels by a host's `boot` section, on a lab instance used as
# an ordinary kexec host: a kernel that does not boot (a patch carried here
# panics in kernel_init) -> the host does not come back within boot.timeout_s
# -> the power-cycle hook is an HTTP request to a PDU stand-in on 127.0.0.1,
# which records it and restarts the instance -> the host is back but on its
# own kernel -> an infra failure for that kernel, and the run goes on: the
# lab's base kernel is kexec'd, verified by release and /proc/version,
# measured; then the host goes back to its own kernel with its governor.
. "$(dirname "$0")/../e2e/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
kernel_lab_needs qemu-system-aarch64 dtc dropbearkey aarch64-linux-gnu-gcc git python3
lab_fresh b
own=$("$IDLELAB" lab ssh --name b -- uname -r 2>/dev/null)
gov0=$("$IDLELAB" lab ssh --name b -- cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null)
labdir=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["lab_dir"])' "$IDLELAB_CACHE/lab/run/b/state.json")

# the PDU: records the request, then "power-cycles" the instance (lab up brings it back on its own kernel)
python3 "$SRC/tests/e2e/pdu.py" "$E2E_TMP/pdu.port" "$E2E_TMP/pdu.log" sh -c \
	"\"$IDLELAB\" lab down --name b; exec \"$IDLELAB\" lab up --name b --source \"$SRC\"" &
pdu=$!
trap 'kill $pdu 2>/dev/null; "$IDLELAB" lab down --name b >/dev/null 2>&1; rm -rf "$E2E_TMP"' EXIT
i=0; while [ ! -s "$E2E_TMP/pdu.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$E2E_TMP/pdu.port")

mkdir -p "$E2E_TMP/hosts"
cat > "$E2E_TMP/hosts/kx.json" <<JSON
{"description": "lab instance b, booted like a real machine: kexec, PDU over HTTP",
 "labvm": "b",
 "boot": {"method": "kexec", "initrd": "$labdir/initramfs.cpio.gz", "timeout_s": 25},
 "power_cycle": {"url": "http://127.0.0.1:$port/outlets/3/cycle", "method": "POST",
                 "headers": ["Content-Type: application/json", "X-Outlet-Token: e2e"],
                 "body": "{\"outlet\": 3, \"action\": \"cycle\"}", "wait_s": 90}}
JSON
expect "host show: the boot section" 0 '"method": "kexec"' env IDLELAB_HOSTS="$E2E_TMP/hosts" "$IDLELAB" host show kx --json

# the kernel that does not boot
kernel_patch "$E2E_TMP/panic.mbox" init/main.c 'init: Panic before init (test)' \
	'{ print } /^\tdo_sysctl_args\(\);$/ && !d { print "\tpanic(\"idlelab test: this kernel does not boot\");"; d = 1 }' \
	"this kernel does not boot"

cat > "$E2E_TMP/plan.json" <<JSON
{"name": "boot-e2e", "host": "kx",
$(lab_build_json)
 "kernels": [{"name": "labvm-$KVER", "tarball": "$TARBALL"},
             {"name": "panics-%d", "base": "labvm-$KVER", "series": {"mbox": "$E2E_TMP/panic.mbox"}}],
 "governors": ["menu", "teo"],
 "workloads": [{"workload": "sleeper", "params": {"duration": 1, "mix": "50:300"}}],
 "iterations": 2, "quiesce_s": 0.2}
JSON
expect "run: the failing kernel is an infra failure, the run goes on" 0 "run complete" \
	env IDLELAB_HOSTS="$E2E_TMP/hosts" "$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run"
J="$E2E_TMP/run/journal.jsonl"
python3 - "$J" "$E2E_TMP/pdu.log" "$own" "labvm-$KVER" <<'PY' && ok "journal: failed boot with power cycle, kexec boot verified, own kernel back" ||
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
boots = [r for r in recs if r["type"] == "boot"]
assert len(boots) == 3, [(b["kernel"], b["ok"]) for b in boots]
good, fail, back = boots
steps = lambda b: [s["step"] for s in b["steps"]]
assert fail["kernel"] == "panics-1" and not fail["ok"] and fail["method"] == "kexec", fail
for s in ("upload", "trigger", "not-up", "power-cycle", "up-after-power-cycle", "failed"):
    assert s in steps(fail), (s, steps(fail))
assert "power-cycled (POST http://127.0.0.1:" in fail["error"] or "runs '" in fail["error"], fail["error"]
assert good["kernel"] == sys.argv[4] and good["ok"] and "verified" in steps(good), good
v = [s for s in good["steps"] if s["step"] == "verified"][0]["detail"]
assert v.startswith("Linux version " + good["release"] + " (idlelab@idlelab)") and "build's /proc/version" in v, v
assert back["kernel"] is None and back["ok"] and back["release"] == sys.argv[3], back
samples = [r for r in recs if r["type"] == "sample" and r.get("final")]
bad = [r for r in samples if r["kernel"] == "panics-1"]
okk = [r for r in samples if r["kernel"] == sys.argv[4]]
assert len(bad) == 4 and all(r["status"] == "infra_failed" for r in bad), [(r["status"], r.get("reason")) for r in bad]
assert len(okk) == 4 and all(r["status"] == "ok" and r["kernel_release"] == good["release"] for r in okk), okk
reqs = [json.loads(l) for l in open(sys.argv[2])]
assert len(reqs) == 1, reqs
q = reqs[0]
assert q["method"] == "POST" and q["path"] == "/outlets/3/cycle", q
assert q["headers"].get("X-Outlet-Token") == "e2e" and json.loads(q["body"]) == {"outlet": 3, "action": "cycle"}, q
PY
	bad "journal: failed boot with power cycle, kexec boot verified, own kernel back" "$(grep '"type":"boot"' "$J" | cut -c1-1500; cat "$E2E_TMP/pdu.log")"
now=$("$IDLELAB" lab ssh --name b -- uname -r 2>/dev/null)
gov=$("$IDLELAB" lab ssh --name b -- cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null)
[ -n "$own" ] && [ "$now" = "$own" ] && [ "$gov" = "$gov0" ] && ok "the host is back on its own kernel ($own) and governor ($gov0)" ||
	bad "the host is back on its own kernel and governor" "$own -> $now, $gov0 -> $gov"
finish
