#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Crash safety: kill `idlelab run` (and then each resume) with SIGKILL at 50
# random instants, a third of them in the first 12 ms (the run directory and
# its run-start record being made), resume each time; the final journal must
# hold exactly the planned samples, none twice, every line parseable, compare
# and report must read it, and the host (a fixture tree here, so this machine
# is never left half-configured) restored. A fixture tree's clocks stand
# still, so the plans ask for no minimum sample length (min_sample_s 0).
. "$(dirname "$0")/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
WLD="--workloads-dir $SRC/workloads"
WL="$WLD --workload-bin $SRC/build/workloads"
ROOT=$E2E_TMP/root
mkdir -p "$ROOT"
materialize "$FIX/labvm-arm64-before.txt" "$ROOT"
cat > "$E2E_TMP/plan.json" <<JSON
{"name": "crash", "host": "local", "governors": ["menu", "teo", {"label": "teo-nodeep", "governor": "teo", "disable": ["ret-deep"]}],
 "workloads": [{"workload": "periodic", "params": {"hz": 1000, "duration": 0.04}},
               {"workload": "sleeper", "params": {"duration": 0.04, "mix": "50:50,50:2000"}}],
 "iterations": 8, "min_sample_s": 0}
JSON
RUN=$E2E_TMP/run
seed=${E2E_SEED:-$$}
echo "kill points from seed $seed"
kills=0
delays=$(python3 -c "
import random
random.seed($seed)
# the first milliseconds (directory creation, run-start record) as often as the rest
print(' '.join('%.4f' % (random.uniform(0, 0.012) if i % 3 == 0 else random.uniform(0.012, 0.3)) for i in range(50)))")
for delay in $delays; do
	if [ -d "$RUN" ]; then
		"$IDLELAB" run --resume "$RUN" --sysfs-root "$ROOT" $WL -q > /dev/null 2>&1 &
	else
		"$IDLELAB" run "$E2E_TMP/plan.json" --out "$RUN" --sysfs-root "$ROOT" $WL -q > /dev/null 2>&1 &
	fi
	pid=$!
	sleep "$delay"
	kill -KILL $pid 2>/dev/null && kills=$((kills + 1))
	wait $pid 2>/dev/null
done
echo "$kills of 50 runs killed mid-way"
expect "final resume completes" 0 "run complete" "$IDLELAB" run --resume "$RUN" --sysfs-root "$ROOT" $WL
expect "show: 48 of 48, complete" 0 "48/48 samples done, complete, ok 48" "$IDLELAB" show "$RUN" $WLD
out=$(python3 - "$RUN/journal.jsonl" <<'PY'
import json, sys
seqs = []
for n, line in enumerate(open(sys.argv[1]), 1):
    rec = json.loads(line)
    if rec["type"] == "sample" and rec["final"]:
        seqs.append(rec["seq"])
missing = sorted(set(range(48)) - set(seqs))
dups = sorted({s for s in seqs if seqs.count(s) > 1})
print("final=%d missing=%s dups=%s" % (len(seqs), missing, dups))
PY
)
[ "$out" = "final=48 missing=[] dups=[]" ] && ok "journal: exactly the planned samples, all parseable ($out)" ||
	bad "journal: exactly the planned samples, all parseable" "$out"
expect "compare reads the journal" 0 "48 samples counted" "$IDLELAB" compare "$RUN"
expect "report writes every format" 0 "report.html" "$IDLELAB" report "$RUN"
gov=$(cat "$ROOT/sys/devices/system/cpu/cpuidle/current_governor")
dis=$(cat "$ROOT"/sys/devices/system/cpu/cpu*/cpuidle/state2/disable | tr -d '\n')
[ "$gov" = menu ] && [ "$dis" = 00 ] && ok "host restored after the last resume" ||
	bad "host restored after the last resume" "governor $gov, state2 disable $dis"
# a relative --sysfs-root is the same tree (it made every sample invalid before)
cat > "$E2E_TMP/rel.json" <<JSON
{"name": "rel", "host": "local", "governors": ["teo"],
 "workloads": [{"workload": "periodic", "params": {"hz": 1000, "duration": 0.02}}], "iterations": 2, "min_sample_s": 0}
JSON
(cd "$E2E_TMP" && "$IDLELAB" run rel.json --out rel-run --sysfs-root root $WL -q) >/dev/null 2>&1
expect "relative --sysfs-root: samples ok" 0 "2/2 samples done, complete, ok 2" "$IDLELAB" show "$E2E_TMP/rel-run" $WLD
expect "a missing --sysfs-root is named" 1 "sysfs root 'nonexistent-root'" \
	"$IDLELAB" run "$E2E_TMP/rel.json" --out "$E2E_TMP/rel-run2" --sysfs-root nonexistent-root $WL
# plan cpus that the host does not have online are refused before anything is written
sed 's/"iterations": 2/"iterations": 2, "cpus": "0,7"/' "$E2E_TMP/rel.json" > "$E2E_TMP/cpus.json"
expect "plan cpus not online: refused" 1 "plan: cpus: CPU 7 is not online on host 'local' \\(online: 0-1\\)" \
	"$IDLELAB" run "$E2E_TMP/cpus.json" --out "$E2E_TMP/cpus-run" --sysfs-root "$ROOT" $WL
sed 's/"iterations": 2/"iterations": 2, "idle_cpus": "1,7"/' "$E2E_TMP/rel.json" > "$E2E_TMP/idle-cpus.json"
expect "plan idle_cpus not online: refused" 1 "plan: idle_cpus: CPU 7 is not online on host 'local' \\(online: 0-1\\)" \
	"$IDLELAB" run "$E2E_TMP/idle-cpus.json" --out "$E2E_TMP/idle-cpus-run" --sysfs-root "$ROOT" $WL
finish
