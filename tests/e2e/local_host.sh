#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# idlelab on this machine's real sysfs: snapshot, idle-stat over a real
# sleep, and (where the governor is writable) a real switch and restore.
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
G=/sys/devices/system/cpu/cpuidle/current_governor

expect "snapshot of this machine" 0 'host local' "$IDLELAB" snapshot
"$IDLELAB" snapshot --json -o "$T/s.json" && ok "snapshot --json of this machine" || bad "snapshot --json"
nstates=$(grep -c '"latency_us"' "$T/s.json")
if [ "$nstates" -eq 0 ]; then
	expect "idle-stat on a host without idle states says so" 0 'no idle states' "$IDLELAB" idle-stat -- sleep 0.2
	skip "this machine has no cpuidle states: no real counters to check"
else
	"$IDLELAB" idle-stat --json -o "$T/d.json" -- sleep 0.5 && ok "idle-stat -- sleep 0.5" || bad "idle-stat"
	idles=$(sed -n '/"total"/,/}/s/.*"idles": \([0-9]*\).*/\1/p' "$T/d.json" | head -n 1)
	interval=$(sed -n 's/.*"interval_s": \([0-9.]*\).*/\1/p' "$T/d.json" | head -n 1)
	if [ "${idles:-0}" -gt 0 ]; then ok "CPUs entered idle states during sleep ($idles idles over ${interval}s)"
	else bad "no idle entries during a 0.5 s sleep" "$(cat "$T/d.json")"; fi
fi
if [ -w "$G" ] && [ "$(id -u)" = 0 ]; then
	orig=$(cat "$G")
	other=$(tr ' ' '\n' < /sys/devices/system/cpu/cpuidle/available_governors | grep -v "^$orig\$" | grep . | head -n 1)
	if [ -n "$other" ]; then
		expect "real governor switch to $other" 0 "^$other\$" "$IDLELAB" governor set "$other"
		[ "$(cat "$G")" = "$other" ] && ok "kernel reports $other" || bad "kernel reports $(cat $G)"
		"$IDLELAB" governor set "$orig" >/dev/null
		expect "idle-stat --governor $other" 0 "governor $other" "$IDLELAB" idle-stat --governor "$other" -- sleep 0.2
		[ "$(cat "$G")" = "$orig" ] && ok "governor restored to $orig" || bad "governor left at $(cat $G)"
	else
		skip "only one cpuidle governor available here"
	fi
else
	skip "$G not writable here (not root or no cpuidle): no real governor switch"
fi
finish
