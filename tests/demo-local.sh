#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `make demo` until the built-in QEMU lab host lands: the main job on this
# machine. Shows the idle state table, runs a small plan (every available
# governor x pingpong and periodic, interleaved, 5 iterations) with
# `idlelab run`, then compares the governors and writes every report format.
# The host's governor is restored by the run itself.
set -eu
IDLELAB=${IDLELAB:-./idlelab}
C=/sys/devices/system/cpu/cpuidle
"$IDLELAB" snapshot
echo
govs=""
if [ -w "$C/current_governor" ] && [ -r "$C/available_governors" ]; then
	for g in $(cat "$C/available_governors"); do govs="$govs${govs:+, }\"$g\""; done
else
	echo "note: $C/current_governor is not writable here (run as root to compare governors);"
	echo "      measuring the current governor only"
fi
gline=""
[ -n "$govs" ] && gline="\"governors\": [$govs],"
mkdir -p reports
plan=reports/demo-plan.json
cat > "$plan" <<JSON
{"name": "demo", "host": "local", $gline
 "workloads": [{"workload": "pingpong", "params": {"pairs": 2, "loops": 20000}},
               {"workload": "periodic", "params": {"hz": 250, "duration": 0.5}}],
 "iterations": 5, "warmup": 1, "quiesce_s": 0.2}
JSON
run=$("$IDLELAB" run "$plan")
echo
"$IDLELAB" compare "$run" --metric usec_per_loop,wakeup_lat_avg_us,wakeup_lat_p99_us,idle.idles,idle.miss_ratio
echo
"$IDLELAB" report "$run"
