#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `make demo` until the built-in QEMU lab host lands: the main job on this
# machine. Shows the idle state table, then runs the same wakeup pattern
# (400 sleeps of 2 ms) under every available governor with idle-stat, and
# restores the original governor (idle-stat does that itself).
set -eu
IDLELAB=${IDLELAB:-./idlelab}
G=/sys/devices/system/cpu/cpuidle/current_governor
"$IDLELAB" snapshot
echo
pattern='i=0; while [ $i -lt 400 ]; do sleep 0.002; i=$((i+1)); done'
if [ -w "$G" ]; then
	govs=$("$IDLELAB" governor list | sed 's/ \*$//')
else
	govs=$("$IDLELAB" governor get 2>/dev/null || echo "")
	echo "note: $G is not writable here (run as root to compare governors); using the current one"
fi
if [ -z "$govs" ]; then
	"$IDLELAB" idle-stat -- sh -c "$pattern"
	exit 0
fi
for g in $govs; do
	echo "=== governor $g: 400 x sleep 2 ms"
	if [ -w "$G" ]; then
		"$IDLELAB" idle-stat --governor "$g" -- sh -c "$pattern"
	else
		"$IDLELAB" idle-stat -- sh -c "$pattern"
	fi
	echo
done
