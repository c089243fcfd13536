#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Benchmark: orchestration overhead per sample of `idlelab run` over loopback
# SSH, for a workload that takes no time (`echo`): governor switch, quiesce
# off, pre-snapshot, workload, post-snapshot, parse, diff, journal append +
# fsync, output files. Everything measured is overhead. Target: < 100 ms/sample.
IL_SRCDIR=${IL_SRCDIR:-.}
. "$IL_SRCDIR/tests/e2e/lib.sh"
. "$IL_SRCDIR/tests/e2e/sshd.sh"
IDLELAB=${IDLELAB:-./idlelab}
N=25
mkdir -p "$E2E_TMP/wl"
cat > "$E2E_TMP/wl/noop.json" <<'JSON'
{"description": "no work: prints a constant score", "argv": ["echo", "score: 1"], "parser": "idlelab-kv",
 "metrics": {"score": {"unit": "1", "better": "higher"}}}
JSON
C=/sys/devices/system/cpu/cpuidle
govs=
# governors only where this host has idle states to govern (driver "none": workload-only samples)
if [ -w $C/current_governor ] && [ "$(wc -w < $C/available_governors)" -ge 2 ] &&
	ls -d /sys/devices/system/cpu/cpu*/cpuidle/state0 >/dev/null 2>&1; then
	set -- $(cat $C/available_governors)
	govs="\"governors\": [\"$1\", \"$2\"],"
fi
cat > "$E2E_TMP/plan.json" <<JSON
{"name": "bench", "host": "lab1", $govs "workloads": ["noop"], "iterations": $N, "quiesce_s": 0}
JSON
# what one remote exec on an open connection costs on this host before idlelab does
# anything (channel + the user's login shell, which sshd always runs): OpenSSH
# connection sharing, like idlelab's one connection per host
$SSH_CMD -o ControlMaster=yes -o ControlPath="$E2E_TMP/cm" -o ControlPersist=60 true
b0=$(date +%s.%N)
for _ in 1 2 3 4 5 6 7 8 9 10; do $SSH_CMD -o ControlPath="$E2E_TMP/cm" true; done
b1=$(date +%s.%N)
$SSH_CMD -o ControlPath="$E2E_TMP/cm" -O exit 2>/dev/null
t0=$(date +%s.%N)
IDLELAB_HOSTS=$HOSTS_DIR "$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run" --workloads-dir "$E2E_TMP/wl" -q \
	>/dev/null || { echo "bench run: idlelab run failed"; exit 1; }
t1=$(date +%s.%N)
python3 - "$E2E_TMP/run/journal.jsonl" "$t0" "$t1" "$b0" "$b1" <<'PY'
import json, statistics, sys
el = [r["elapsed_s"] for r in map(json.loads, open(sys.argv[1])) if r["type"] == "sample"]
wall = float(sys.argv[3]) - float(sys.argv[2])
med = statistics.median(el) * 1e3
print("bench run: %d samples of a 0-second workload over loopback SSH" % len(el))
print("  per sample (one remote exec + parse + diff + fsync'd journal): median %.1f ms, mean %.1f ms, max %.1f ms"
      % (med, statistics.mean(el) * 1e3, max(el) * 1e3))
print("  whole run incl. connect, probe, save/restore: %.2f s (%.1f ms/sample)" % (wall, wall / len(el) * 1e3))
base = (float(sys.argv[5]) - float(sys.argv[4])) / 10 * 1e3
print("  baseline: one 'true' on the open connection (channel + the user's login shell): %.1f ms" % base)
print("  idlelab's own share (median minus baseline): %.1f ms" % (med - base))
print("  target < 100 ms/sample: %s" % ("met" if med < 100 else
      "MISSED here; the login shell of this host alone takes %.0f ms per exec (see ~/.bashrc)" % base))
PY
