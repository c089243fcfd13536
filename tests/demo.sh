#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `make demo`: the main job on the built-in lab host. Builds the lab (an
# arm64 6.12 kernel with psci_idle and ladder/menu/teo, by idlelab's kernel
# stage; cached after the first time), boots it, runs examples/governors.json
# (ladder vs menu vs teo, menu twice for an A/A calibration, three wakeup
# patterns, in balanced rounds), prints the key-metric verdicts (tested-by) and writes
# every report format. The lab is stopped at the end, also on failure or Ctrl-C.
# LAB=x86_64 (`make demo LAB=x86_64`) does the same on the x86_64 lab host:
# acpi_idle with POLL + three halt states from idlelab's SSDT (docs/lab.md).
set -eu
IDLELAB=${IDLELAB:-./idlelab}
case ${LAB:-arm64} in
arm64 | aarch64) arch=arm64 host=labvm ;;
x86_64 | x86 | amd64) arch=x86_64 host=labvm-x86 ;;
*) echo "demo: LAB=$LAB: arm64 (default) or x86_64" >&2; exit 2 ;;
esac
trap '"$IDLELAB" lab down --arch $arch >/dev/null 2>&1 || true' EXIT INT TERM
"$IDLELAB" lab status --arch $arch | grep -q ': running' || "$IDLELAB" lab up --arch $arch
"$IDLELAB" snapshot --host $host
echo
run=$("$IDLELAB" run examples/governors.json --host $host)
echo
# the verdict as a linux-pm reply would carry it: each workload's key metrics (its declared
# decision family), every secondary difference marked exploratory, the verdict sentence; the
# same decision code as the reports below (on the lab: evidence, not a Tested-by)
"$IDLELAB" tested-by "$run"
echo
"$IDLELAB" report "$run"
echo "HTML report: $run/report.html"
