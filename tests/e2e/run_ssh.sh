#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `idlelab run` against a real sshd on loopback to this machine: a small plan
# with periodic and pingpong (idlelab's own workloads, uploaded over SFTP),
# the journal, SIGINT and resume; and a host without idle states (fixture
# tree, local). This machine is tested for what it has: with idle states and
# two governors the plan compares them and the governor must come back after
# the run and after SIGINT; with no cpuidle driver (driver "none", as in many
# VMs) the plan has no governors, samples say "no idle states" and the
# governor assertions run against the lab host instead (tests/e2e-kernel/lab.sh).
. "$(dirname "$0")/lib.sh"
if [ ! -x /usr/sbin/sshd ] || ! command -v python3 >/dev/null; then
	skip "sshd or python3 missing (run make deps)"; finish; exit $?
fi
SRC=${IL_SRCDIR:-.}
WLD="--workloads-dir $SRC/workloads"
WL="$WLD --workload-bin $SRC/build/workloads"
C=/sys/devices/system/cpu/cpuidle
. "$(dirname "$0")/sshd.sh"
export IDLELAB_HOSTS=$HOSTS_DIR
if [ -w $C/current_governor ] && [ "$(wc -w < $C/available_governors)" -ge 2 ] &&
	ls -d /sys/devices/system/cpu/cpu*/cpuidle/state0 >/dev/null 2>&1; then
	orig=$(cat $C/current_governor)
	set -- $(cat $C/available_governors)
	g1=$1 g2=$2
	govs="\"governors\": [\"$g1\", \"$g2\"],"
	govs2="\"governors\": [\"$g2\", \"$g1\"],"
	nvar=2
else
	echo "note: this machine has no idle states to switch governors on (driver $(cat $C/current_driver 2>/dev/null || echo missing)): workloads only"
	orig="" govs="" govs2="" nvar=1
fi
total=$((nvar * 6)) okn=$((nvar * 4))
# the governor after a run: restored where the plan switched it; untouched (whatever the
# file says, or its absence) where the plan has no governors: one check in either world
gov0=$(cat $C/current_governor 2>/dev/null || echo "(no file)")
gov_restored() {
	if [ -n "$orig" ]; then
		[ "$(cat $C/current_governor)" = "$orig" ] && ok "$1: governor restored to $orig" ||
			bad "$1: governor restored to $orig" "now $(cat $C/current_governor)"
	else
		now=$(cat $C/current_governor 2>/dev/null || echo "(no file)")
		[ "$now" = "$gov0" ] && ok "$1: governor left as it was ($gov0)" ||
			bad "$1: governor left as it was ($gov0)" "now $now"
	fi
}
cat > "$E2E_TMP/plan.json" <<JSON
{"name": "e2e-ssh", "host": "lab1", $govs
 "workloads": [{"workload": "periodic", "params": {"hz": 500, "duration": 0.2}},
               {"workload": "pingpong", "params": {"pairs": 2, "duration": 0.3}}],
 "iterations": 2, "warmup": 1}
JSON
expect "run over ssh completes" 0 "run complete" "$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run" $WL
expect "show: all samples done" 0 "$total/$total samples done, complete, .*ok $okn" "$IDLELAB" show "$E2E_TMP/run" $WLD
n=$(grep -c '"type":"sample".*"status":"ok"' "$E2E_TMP/run/journal.jsonl")
[ "$n" = $okn ] && ok "journal has $okn ok samples" || bad "journal has $okn ok samples" "got $n"
if [ -n "$orig" ]; then
	grep '"status":"ok"' "$E2E_TMP/run/journal.jsonl" | head -1 | grep -q "\"governor_read\":\"$g1\".*\"idle\":{" &&
		ok "samples carry the governor read back and idle counters" ||
		bad "samples carry the governor read back and idle counters" "$(head -c 600 "$E2E_TMP/run/journal.jsonl")"
else
	grep '"status":"ok"' "$E2E_TMP/run/journal.jsonl" | head -1 | grep -q '"idle":null,"note":"no idle states on host' &&
		ok "samples say the host has no idle states" ||
		bad "samples say the host has no idle states" "$(head -c 600 "$E2E_TMP/run/journal.jsonl")"
fi
grep '"status":"ok"' "$E2E_TMP/run/journal.jsonl" | grep '"pingpong"' | grep -q '"usec_per_loop":[0-9]' &&
	ok "uploaded workloads ran on the host and reported scores" ||
	bad "uploaded workloads ran on the host and reported scores" "$(grep pingpong "$E2E_TMP/run/journal.jsonl" | head -c 600)"
gov_restored "after the run"
[ -s "$E2E_TMP/run/host-lab1.json" ] && [ -s "$E2E_TMP/run/plan.json" ] && ok "fingerprint and plan copied" ||
	bad "fingerprint and plan copied"
expect "runs lists it" 0 "e2e-ssh, $total/$total" "$IDLELAB" runs --dir "$E2E_TMP" $WLD
# SIGINT in the middle: exit 130, journal says interrupted, host restored, resume completes
cat > "$E2E_TMP/long.json" <<JSON
{"name": "e2e-int", "host": "lab1", $govs2
 "workloads": [{"workload": "periodic", "params": {"hz": 100, "duration": 0.5}}], "iterations": 6}
JSON
"$IDLELAB" run "$E2E_TMP/long.json" --out "$E2E_TMP/int" $WL -q > /dev/null 2>&1 &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] && ok "SIGINT: exit 130" || bad "SIGINT: exit 130" "exit $rc"
grep -q '"type":"interrupted"' "$E2E_TMP/int/journal.jsonl" && grep -q '"type":"restored","host":"lab1","ok":true' \
	"$E2E_TMP/int/journal.jsonl" && ok "SIGINT: journal records the interruption and the restore" ||
	bad "SIGINT: journal records the interruption and the restore" "$(cat "$E2E_TMP/int/journal.jsonl" | cut -c1-200)"
gov_restored "SIGINT"
expect "resume after SIGINT completes" 0 "run complete" "$IDLELAB" run --resume "$E2E_TMP/int" $WL
expect "resumed run has all $((nvar * 6)) samples" 0 "$((nvar * 6))/$((nvar * 6)) samples done, complete" "$IDLELAB" show "$E2E_TMP/int" $WLD

# a host without idle states: workload metrics only, with a clear note
mkdir -p "$E2E_TMP/noidle"
materialize "$FIX/x86-vm-no-idle-states.txt" "$E2E_TMP/noidle"
cat > "$E2E_TMP/noidle.json" <<JSON
{"name": "noidle", "host": "local", "workloads": [{"workload": "pingpong", "params": {"pairs": 1, "loops": 100}}],
 "iterations": 2}
JSON
expect "no idle states: the run completes" 0 "run complete" \
	"$IDLELAB" run "$E2E_TMP/noidle.json" --out "$E2E_TMP/noidle-run" --sysfs-root "$E2E_TMP/noidle" $WL
grep -q '"status":"ok".*"idle":null,"note":"no idle states on host' "$E2E_TMP/noidle-run/journal.jsonl" &&
	ok "no idle states: samples say so" || bad "no idle states: samples say so" "$(head -c 900 "$E2E_TMP/noidle-run/journal.jsonl")"
cat > "$E2E_TMP/noidle-gov.json" <<JSON
{"name": "noidle", "host": "local", "governors": ["menu"], "workloads": ["pingpong"]}
JSON
expect "no idle states: switching governors is refused clearly" 1 "no idle states on host" \
	"$IDLELAB" run "$E2E_TMP/noidle-gov.json" --out "$E2E_TMP/noidle-gov" --sysfs-root "$E2E_TMP/noidle" $WL
expect "plan errors name the JSON path" 1 "workloads\\[0\\]\\.params\\.hz: expected number" \
	sh -c "printf '{\"name\":\"x\",\"host\":\"local\",\"workloads\":[{\"workload\":\"periodic\",\"params\":{\"hz\":\"fast\"}}]}' > $E2E_TMP/bad.json && $IDLELAB run $E2E_TMP/bad.json $WL"
# pingpong -c pins the sides (the demo's cross-CPU pair): a pinned run says how many CPUs it used,
# a CPU that does not exist is refused by sched_setaffinity and named, a bad list is a usage error
PP="$SRC/build/workloads/$(uname -m)/pingpong"
expect "pingpong -c pins both sides" 0 "pinned_cpus: 2" "$PP" -p 1 -n 200 -c 0,0
expect "pingpong -c to a missing CPU is named" 1 "cannot pin to CPU 1023" "$PP" -p 1 -n 10 -c 0,1023
expect "pingpong -c with a bad list is a usage error" 2 "-c: expected an integer in \\[0, 1023\\], got 'x'" "$PP" -c 0,x
finish
