#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The built-in lab host for real: build it (the kernel via the kernel stage
# from its default tree, Debian's linux-source-6.12; Debian arm64 packages;
# the DT with idle states), a cached second build, boot an instance, psci_idle with 3 states on every
# CPU over SSH (pinned host key, strict checking), a governor round trip, a
# small run whose comparison must find ladder's extra aboves significant and
# the A/A pair (menu twice) noise, a crashed QEMU reported, and down.
. "$(dirname "$0")/../e2e/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
for t in qemu-system-aarch64 dtc dropbearkey aarch64-linux-gnu-gcc cpio; do
	command -v $t >/dev/null || { skip "$t missing (make deps installs the lab's tools)"; finish; exit $?; }
done
[ -f $TARBALL ] || { skip "linux-source-$KVER missing (make deps)"; finish; exit $?; }
dpkg --print-foreign-architectures | grep -qx arm64 || { skip "dpkg has no arm64 architecture (make deps adds it)"; finish; exit $?; }
export IDLELAB_CACHE=${E2E_KERNEL_CACHE:-$SRC/build/e2e-kernel-cache}
L="--name e2e --source $SRC"
cd "$SRC"
t0=$(date +%s)
expect "lab build" 0 "lab: done" "$IDLELAB" lab build --source "$SRC"
echo "  (first lab build: $(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
expect "lab build again is cached" 0 "lab: lab cached" "$IDLELAB" lab build --source "$SRC"
[ $(( $(date +%s) - t0 )) -le 20 ] && ok "cached lab build takes seconds" || bad "cached lab build takes seconds" "$(( $(date +%s) - t0 )) s"
"$IDLELAB" lab down $L >/dev/null 2>&1
expect "lab up" 0 "lab e2e up: ssh on 127.0.0.1:[0-9]+" "$IDLELAB" lab up $L
expect "lab status names the lab's own tree and its release" 0 \
	"lab e2e: running .*, kernel $KVER\\.[0-9]+-il[0-9a-f]{8} from Debian linux-source-$KVER " "$IDLELAB" lab status $L
expect "try --dry-run without --repo takes the lab's tree" 1 "patch .* does not apply|has no diff|no patches|not apply" \
	"$IDLELAB" try "$SRC/tests/fixtures/series/plain.mbox" --host labvm-e2e --dry-run
# seed 003's series as posted (plain diffs, an in-body From) on the lab's own tree, before anything is
# built: 2/2 (teo.c, rewritten after 6.12) named with its file, the base's release said; 1/2 applies
# (its menu.c hunk 6 lines off, as git am finds it) and --patches 1 plans it
expect "seed 003 on the lab's tree: 2/2 named with its file and the base's release" 1 \
	"patch 2/2 'cpuidle: governors: teo: Rearrange stopped tick handling' does not apply on base [0-9a-f]{12} \\($KVER\\.[0-9]+\\) \\+ 1/2: drivers/cpuidle/governors/teo.c: hunk at line [0-9]+ did not apply" \
	"$IDLELAB" try "$SRC/tests/fixtures/series/seed003.mbox" --host labvm-e2e --dry-run
expect "seed 003 --patches 1 on the lab's tree: base, patch-1 and the A/A base planned" 0 \
	"would build: base \\([0-9a-f]{12}\\), patch-1 \\(\\+ 'cpuidle: governors: menu: Refine stopped tick handling'\\); base-aa" \
	"$IDLELAB" try "$SRC/tests/fixtures/series/seed003.mbox" --host labvm-e2e --dry-run --patches 1
# seed 002's patch as lore serves it: 6.12.118 carries it from the stable series, its comment reworded
expect "seed 002 on the lab's tree: a later form of it is in the base, in seconds" 1 \
	"patch 1/1 'cpuidle: menu: Use residency threshold in polling state override decisions' does not apply on base [0-9a-f]{12} \\($KVER\\.[0-9]+\\): the lines it adds are already in the base \\(a later form of it\\?\\)" \
	"$IDLELAB" try "$SRC/tests/fixtures/series/seed002.mbox" --host labvm-e2e --dry-run
expect "--tree that is nothing is refused, naming what it expected" 1 "--tree /nonexistent: expected a Debian linux-source version" \
	"$IDLELAB" lab build --tree /nonexistent
"$IDLELAB" snapshot --host labvm-e2e > "$E2E_TMP/snap.txt" 2>&1
n=$(grep -cE '^ +[0-9]+ +[0-2] (WFI|ret-shallow|ret-deep) ' "$E2E_TMP/snap.txt")
cpus=$(grep -o 'online [0-9-]*' "$E2E_TMP/snap.txt" | sed 's/online 0-//; s/online 0/0/')
grep -q "driver psci_idle" "$E2E_TMP/snap.txt" && [ "$n" = $(( (cpus + 1) * 3 )) ] &&
	ok "psci_idle with 3 states on every CPU ($n state rows)" || bad "psci_idle with 3 states on every CPU" "$(cat "$E2E_TMP/snap.txt")"
expect "governors: ladder menu teo" 0 "teo" "$IDLELAB" governor list --host labvm-e2e
expect "governor set teo" 0 "" "$IDLELAB" governor set teo --host labvm-e2e
expect "governor reads back teo" 0 "^teo$" "$IDLELAB" governor get --host labvm-e2e
expect "governor set menu" 0 "" "$IDLELAB" governor set menu --host labvm-e2e
cat > "$E2E_TMP/plan.json" <<JSON
{"name": "lab-e2e", "host": "labvm-e2e", "governors": ["menu", "ladder", {"label": "menu-again", "governor": "menu"}],
 "workloads": [{"workload": "sleeper", "params": {"duration": 1, "mix": "50:300,50:2400"}}],
 "iterations": 6, "warmup": 1, "quiesce_s": 0.2}
JSON
expect "a run on the lab" 0 "run complete" "$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run"
expect "compare: ladder's aboves significantly worse" 0 "^  ladder +6 .* worse$" \
	"$IDLELAB" compare "$E2E_TMP/run" --alpha 0.01 --metric idle.aboves
"$IDLELAB" compare "$E2E_TMP/run" --alpha 0.01 --metric idle.aboves,idle.miss_ratio --format json > "$E2E_TMP/c.json"
python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))
v = [x['verdict'] for m in c['metrics'] for x in m['variants'] if x['variant'] == 'menu-again']
assert v and all(x in ('same', 'unknown') for x in v), v
" "$E2E_TMP/c.json" && ok "compare: the A/A pair is not a finding (same or unknown)" ||
	bad "compare: the A/A pair is not a finding (same or unknown)" "$(head -c 600 "$E2E_TMP/c.json")"
expect "reports carry the lab caveat" 0 "every idle state is WFI underneath" "$IDLELAB" tested-by "$E2E_TMP/run" --as "T <t@example.org>"
expect "the lab kernel's tick is known (its /proc/config.gz)" 0 "^Tick: HZ=[0-9]+, NO_HZ_IDLE \\(from /proc/config.gz\\)" \
	"$IDLELAB" tested-by "$E2E_TMP/run" --as "T <t@example.org>"
# SIGINT in the middle of a governor comparison: exit 130, the lab's governor is
# menu again (what it was before the run), and resume finishes the run
cat > "$E2E_TMP/int.json" <<JSON
{"name": "lab-int", "host": "labvm-e2e", "governors": ["teo", "ladder"],
 "workloads": [{"workload": "sleeper", "params": {"duration": 1, "mix": "50:300"}}], "iterations": 3, "quiesce_s": 0}
JSON
"$IDLELAB" run "$E2E_TMP/int.json" --out "$E2E_TMP/int" -q >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '"type":"sample"' "$E2E_TMP/int/journal.jsonl" 2>/dev/null && break; sleep 0.2; done
kill -INT $pid
wait $pid
rc=$?
[ $rc = 130 ] && ok "lab SIGINT: exit 130" || bad "lab SIGINT: exit 130" "exit $rc"
expect "lab SIGINT: the governor is restored" 0 "^menu$" "$IDLELAB" governor get --host labvm-e2e
expect "lab SIGINT: resume completes" 0 "run complete" "$IDLELAB" run --resume "$E2E_TMP/int"
expect "lab SIGINT: the governor is restored after the resume" 0 "^menu$" "$IDLELAB" governor get --host labvm-e2e
# a second checkout sharing the lab cache: its own workloads are built for the lab's
# architecture on demand, no manual step
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
	git clone -q "$SRC" "$E2E_TMP/clone"
	cat > "$E2E_TMP/clone-plan.json" <<JSON
{"name": "clone", "host": "labvm-e2e", "governors": ["menu", "teo"],
 "workloads": [{"workload": "sleeper", "params": {"duration": 0.5, "mix": "50:300"}},
               {"workload": "pingpong", "params": {"pairs": 1, "loops": 500}}], "iterations": 1, "quiesce_s": 0}
JSON
	(cd "$E2E_TMP/clone" && "$IDLELAB" run "$E2E_TMP/clone-plan.json" --out "$E2E_TMP/clone-run") > "$E2E_TMP/clone.log" 2>&1
	grep -q "run complete" "$E2E_TMP/clone.log" && [ -x "$E2E_TMP/clone/build/workloads/aarch64/sleeper" ] &&
		grep -q "building idlelab's own workloads for aarch64" "$E2E_TMP/clone.log" &&
		ok "a second checkout runs own workloads on the lab (built on demand)" ||
		bad "a second checkout runs own workloads on the lab (built on demand)" "$(tail -n 15 "$E2E_TMP/clone.log")"
else
	skip "not a git checkout: no second clone to try"
fi
# a QEMU that dies is reported, not mistaken for a running lab
pid=$("$IDLELAB" lab status $L --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])')
kill -9 "$pid"
# gone once init has reaped it (a zombie's cmdline is empty, which lab status counts as crashed too)
for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
expect "a crashed QEMU is reported" 1 "lab e2e: crashed" "$IDLELAB" lab status $L
expect "a refused connection to the crashed instance says QEMU exited" 1 \
	"cannot connect.*lab instance 'e2e' is not running: its QEMU exited \\(console's last lines" \
	"$IDLELAB" snapshot --host labvm-e2e
expect "lab down after a crash" 0 "" "$IDLELAB" lab down $L
expect "lab status: stopped" 0 "lab e2e: stopped" "$IDLELAB" lab status $L
expect "an unknown lab instance is named" 1 "lab host 'nope' is not running" "$IDLELAB" snapshot --host labvm-nope
finish
