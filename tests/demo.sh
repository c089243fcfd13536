#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `make demo`: the main job on the built-in lab host. Builds the lab (an
# arm64 6.1 kernel with psci_idle and ladder/menu/teo, by idlelab's kernel
# stage; cached after the first time), boots it, runs examples/governors.json
# (ladder vs menu vs teo, menu twice for an A/A calibration, three wakeup
# patterns, interleaved), prints the mailing-list comparison and writes every
# report format. The lab is stopped at the end, also on failure or Ctrl-C.
set -eu
IDLELAB=${IDLELAB:-./idlelab}
trap '"$IDLELAB" lab down >/dev/null 2>&1 || true' EXIT INT TERM
"$IDLELAB" lab status | grep -q ': running' || "$IDLELAB" lab up
"$IDLELAB" snapshot --host labvm
echo
run=$("$IDLELAB" run examples/governors.json)
echo
# the metrics a governor is judged on; --max-cv leaves out (and names) any whose samples scatter
# by more than a quarter of their mean on this run: the demo prints clean contrasts or nothing
"$IDLELAB" compare "$run" --metric usec_per_loop,wakeup_lat_avg_us,oversleep_avg_us,idle.miss_pct,idle.too_deep_pct,idle.too_shallow_pct \
	--max-cv 25
echo
"$IDLELAB" report "$run"
echo "HTML report: $run/report.html"
