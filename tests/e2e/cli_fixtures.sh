#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The idlelab CLI end to end on captured sysfs trees: exit codes, help,
# snapshot/diff/governor/idle-stat output and error messages.
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP

expect "version" 0 '^idlelab [0-9]+\.[0-9]+' "$IDLELAB" --version
expect "global help lists commands" 0 'snapshot .*idle-stat|idle-stat' "$IDLELAB" --help
expect "help for a command" 0 'usage: idlelab snapshot' "$IDLELAB" help snapshot
expect "no command is a usage error" 2 'usage:' "$IDLELAB"
expect "unknown command exits 2" 2 "'frobnicate' is not a command" "$IDLELAB" frobnicate
# decimal options: one kind, the whole argument a number (a percentage may end in %), else a usage error
expect "bisect --alpha 0.05abc is a usage error" 2 "option '--alpha' expects a number, got '0.05abc'" \
	"$IDLELAB" bisect plan.json --good a --bad b --alpha 0.05abc
expect "compare --alpha 0.05abc is a usage error" 2 "option '--alpha' expects a number, got '0.05abc'" \
	"$IDLELAB" compare a b --alpha 0.05abc
expect "compare --min-change 5%% x is a usage error" 2 "option '--min-change' expects a number \(a percentage" \
	"$IDLELAB" compare a b --min-change 5%x
expect "audit --window 5s is a usage error" 2 "option '--window' expects a number, got '5s'" "$IDLELAB" audit x --window 5s
expect "tested-by --k nan is a usage error" 2 "option '--k' expects a number, got 'nan'" "$IDLELAB" tested-by x --k nan
expect "unknown option exits 2" 2 "unknown option '--bogus'" "$IDLELAB" snapshot --bogus
expect "missing option value exits 2" 2 "requires a value" "$IDLELAB" snapshot --sysfs-root

materialize "$FIX/labvm-arm64-before.txt" "$T/labvm"
expect "snapshot table on the lab capture" 0 'driver psci_idle +governor menu' "$IDLELAB" snapshot --sysfs-root "$T/labvm"
expect "snapshot shows ret-deep counters" 0 '1 +2 ret-deep +500 +2000 +0 +112 +2661874 +12 +0 +0' \
	"$IDLELAB" snapshot --sysfs-root "$T/labvm"
"$IDLELAB" snapshot --sysfs-root "$T/labvm" --json -o "$T/a.json" && ok "snapshot --json -o" || bad "snapshot --json -o"
expect "snapshot JSON has the schema keys" 0 '"residency_us": 2000' cat "$T/a.json"
"$IDLELAB" snapshot --sysfs-root "$T/labvm" --dump > "$T/a.dump" && ok "snapshot --dump" || bad "snapshot --dump"
expect "dump round-trips through diff" 0 'idles' "$IDLELAB" diff "$T/a.dump" "$T/a.json"

expect "diff of the real capture: totals" 0 'all CPUs +842 +695\.9 +102 +85 +187 +0\.2221 +1291342 +0' \
	"$IDLELAB" diff "$FIX/labvm-arm64-before.txt" "$FIX/labvm-arm64-after.txt"
expect "diff --json totals" 0 '"idle_miss": 187' "$IDLELAB" diff --json "$FIX/labvm-arm64-before.txt" "$FIX/labvm-arm64-after.txt"
expect "diff --by cluster (big.LITTLE)" 0 'cluster big \(id 1, capacity 1024, cpus 4-5\)' \
	"$IDLELAB" diff --by cluster "$FIX/arm64-biglittle-before.txt" "$FIX/arm64-biglittle-after.txt"
expect "diff --by cpu" 0 '^5 ' "$IDLELAB" diff --by cpu "$FIX/arm64-biglittle-before.txt" "$FIX/arm64-biglittle-after.txt"
expect "diff shows energy" 0 'energy 1\.529 J, mean 0\.153 W' "$IDLELAB" diff "$FIX/x86-intel-idle-before.txt" "$FIX/x86-intel-idle-after.txt"
expect "diff names every energy zone and why it is not counted" 0 'intel-rapl:1 +psys +15000000 uJ  not counted: psys is the whole platform' \
	"$IDLELAB" diff "$FIX/x86-intel-idle-before.txt" "$FIX/x86-intel-idle-after.txt"
expect "diff flags poll rows" 0 'POLL .* poll$' \
	"$IDLELAB" diff "$FIX/x86-haltpoll-2vcpu-before.txt" "$FIX/x86-haltpoll-2vcpu-after.txt"
expect "diff shows poll time apart from sleep" 0 'poll states: entries 150, below 50, spinning 2200 us; sleeping 850000 us' \
	"$IDLELAB" diff "$FIX/x86-haltpoll-2vcpu-before.txt" "$FIX/x86-haltpoll-2vcpu-after.txt"
expect "diff gives the clock" 0 'interval 1\.000 s \(monotonic clock\)  suspended 0\.000 s' \
	"$IDLELAB" diff "$FIX/x86-haltpoll-2vcpu-before.txt" "$FIX/x86-haltpoll-2vcpu-after.txt"
expect "a symmetric 2-vCPU guest has no clusters" 0 '^no clusters: ' \
	"$IDLELAB" diff --by cluster "$FIX/x86-haltpoll-2vcpu-before.txt" "$FIX/x86-haltpoll-2vcpu-after.txt"
expect "the uptime clock is a caveat" 0 '^caveat: coarse clock' "$IDLELAB" diff "$FIX/labvm-arm64-before.txt" "$FIX/labvm-arm64-after.txt"
expect "diff --json carries the clock and the zones' why" 0 '"why": "duplicate of intel-rapl:0' \
	"$IDLELAB" diff --json "$FIX/x86-intel-idle-before.txt" "$FIX/x86-intel-idle-after.txt"
expect "diff across a reboot fails" 1 "boot_id changed" "$IDLELAB" diff "$FIX/labvm-arm64-before.txt" "$FIX/kvm-haltpoll.txt"
expect "diff with a bad --by" 2 "expected state, cpu or cluster" "$IDLELAB" diff --by socket a b
expect "diff of a missing file" 1 "cannot open '$T/nope.json'" "$IDLELAB" diff "$T/nope.json" "$T/a.json"
printf '/sys/devices/system/cpu/cpu0/cpuidle/state0/usage:12' > "$T/trunc.txt"
expect "truncated dump is a clear error" 1 "trunc.txt line 1: no final newline" "$IDLELAB" diff "$T/trunc.txt" "$T/a.json"
expect "no idle states: said so" 0 'no idle states on this host' "$IDLELAB" diff "$FIX/x86-vm-no-idle-states.txt" "$FIX/x86-vm-no-idle-states.txt"

expect "governor list marks the current one" 0 'menu \*' "$IDLELAB" governor list --sysfs-root "$T/labvm"
expect "governor set teo" 0 '^teo$' "$IDLELAB" governor set teo --sysfs-root "$T/labvm"
expect "governor get reads it back" 0 '^teo$' "$IDLELAB" governor get --sysfs-root "$T/labvm"
expect "governor set unknown lists available" 1 "governor 'bogus' not in available_governors \(ladder menu teo\)" \
	"$IDLELAB" governor set bogus --sysfs-root "$T/labvm"
expect "governor set with shell metacharacters is refused" 1 "not in available_governors" \
	"$IDLELAB" governor set 'teo; touch /tmp/x' --sysfs-root "$T/labvm"
expect "disable a state by name" 0 "state 'ret-deep' disabled on 2 CPUs" \
	"$IDLELAB" governor disable ret-deep --sysfs-root "$T/labvm"
expect "disable reads back in the snapshot" 0 '0 +2 ret-deep +500 +2000 +1 ' "$IDLELAB" snapshot --sysfs-root "$T/labvm"
expect "enable on one CPU" 0 "enabled on 1 CPU$" "$IDLELAB" governor enable 2 --cpus 1 --sysfs-root "$T/labvm"
expect "unknown state is refused" 1 "no CPU has an idle state 'C6'" "$IDLELAB" governor disable C6 --sysfs-root "$T/labvm"
expect "bad --cpus is a usage error" 2 "invalid CPU list" "$IDLELAB" governor disable 1 --cpus 1-x --sysfs-root "$T/labvm"

materialize "$FIX/old-kernel-4.14-before.txt" "$T/old"
expect "read-only governor on 4.14" 1 "not writable|no cpuidle framework" "$IDLELAB" governor set menu --sysfs-root "$T/old"
expect "idle-stat runs the command and passes its exit code" 3 "host local" \
	"$IDLELAB" idle-stat --sysfs-root "$T/labvm" -- sh -c 'exit 3'
expect "idle-stat of a missing program" 1 "cannot run 'idlelab-no-such-tool'" \
	"$IDLELAB" idle-stat --sysfs-root "$T/labvm" -- idlelab-no-such-tool
expect "idle-stat --governor restores the governor" 0 '' \
	"$IDLELAB" idle-stat --sysfs-root "$T/labvm" --governor ladder -- true
expect "... which is teo again" 0 '^teo$' "$IDLELAB" governor get --sysfs-root "$T/labvm"
expect "idle-stat --governor bogus fails before running" 1 "governor 'bogus' not in available" \
	"$IDLELAB" idle-stat --sysfs-root "$T/labvm" --governor bogus -- true
# SIGTERM while the command runs: the command ends, the governor is restored
"$IDLELAB" idle-stat --sysfs-root "$T/labvm" --governor ladder -- sleep 10 > "$T/term.out" 2>&1 &
pid=$!
for _ in $(seq 50); do [ "$(cat "$T/labvm/sys/devices/system/cpu/cpuidle/current_governor")" = ladder ] && break; sleep 0.1; done
sleep 0.3
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 143 ] && ok "idle-stat killed with SIGTERM exits 143" || bad "idle-stat after SIGTERM exited $rc" "$(cat "$T/term.out")"
expect "... and put the governor back" 0 '^teo$' "$IDLELAB" governor get --sysfs-root "$T/labvm"
finish
