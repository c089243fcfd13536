#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The table views from the command line (`compare --view`, `report --view`)
# on the fixture runs of tests/fixtures/views, and the cyclictest
# definition's parser on captured outputs (`workload parse`).
. "$(dirname "$0")/lib.sh"
SRC=${IL_SRCDIR:-.}
V=$SRC/tests/fixtures/views

expect "iterations: the matrix parameter is the first column" 0 "^/dev/nvme0n1 teo-1 +1 11326 +10 " \
	"$IDLELAB" compare "$V/fio-matrix" --view iterations
expect "states: the patched teo is better, POLL usage beside it" 0 "pingpong teo-p6 4 +4.770 +-13.7 better +18.0" \
	"$IDLELAB" compare "$V/pingpong-states" --view states --no-holm
expect "clusters: a host without clusters says so" 0 "no clusters: the samples' idle JSON lists none" \
	"$IDLELAB" compare "$V/pingpong-states" --view clusters
expect "misses: Below is the kernel's (seed 002: 20,145), snooze's part beside it" 0 "pgbench baseline 4 12735820 11401520 +20145 +20145 +89.52 +0.16 +89.68" \
	"$IDLELAB" compare "$V/pgbench-misses" --view misses
expect "misses: the patched Below is the seed's 702,395" 0 "pgbench patched +4 13918442 +1598210 +702395 +702395 +11.48 +5.05 +16.53" \
	"$IDLELAB" compare "$V/pgbench-misses" --view misses
# a version 2 journal (poll belows kept apart as poll_timeouts) reads as the kernel counts
mkdir "$E2E_TMP/v2" && cp "$SRC/tests/fuzz/corpus/journal/pgbench-misses-v2.jsonl" "$E2E_TMP/v2/journal.jsonl"
expect "misses: a version 2 journal's poll_timeouts are back in below" 0 "pgbench baseline 4 12735820 11401520 +20145 +20145 +89.52 +0.16 +89.68" \
	"$IDLELAB" compare "$E2E_TMP/v2" --view misses
# the seed's cyclictest ran without --laptop: /dev/cpu_dma_latency held at 0, the governor bypassed
expect "compare warns that the governor was bypassed" 0 "^WARNING: governor bypassed in 4 of 4 samples of before, 4 of 4 samples of after" \
	"$IDLELAB" compare "$V/cyclictest-latency"
expect "... and marks its idle metrics bypassed, not better or worse" 0 "^  after .* +0.0% .* bypassed$" \
	"$IDLELAB" compare "$V/cyclictest-latency"
expect "tested-by says the governor was bypassed and gives no trailer" 0 "the governor was bypassed in 8 counted samples" \
	"$IDLELAB" tested-by "$V/cyclictest-latency"
expect "latency: per-thread maximum with change" 0 "cyclictest +2 +9.394 +5.363 +-42.9" \
	"$IDLELAB" compare "$V/cyclictest-latency" --view latency
# idle traces (trace-durations: invented numbers): teo-stop's cpu-sleep periods run past the 4 ms tick
expect "durations: per state and bucket, periods and their share" 0 "^periodic teo-stop cpu-sleep +4-8ms +1218 +9.5$" \
	"$IDLELAB" compare "$V/trace-durations" --view durations
expect "durations: the tick decisions per state" 0 "^periodic teo-stop cpu-sleep +yes +5120 +7542 +126 +40.4$" \
	"$IDLELAB" compare "$V/trace-durations" --view durations
expect "durations as csv" 0 "^durations,periodic,teo-stop,cpu-sleep,4-8ms,1218,9.52" \
	"$IDLELAB" compare "$V/trace-durations" --view durations --format csv
expect "durations: a run without traces says so" 0 "no traced samples: no counted sample of this run has an idle trace" \
	"$IDLELAB" compare "$V/pgbench-misses" --view durations
expect "a view in Markdown" 0 "^\\| pgbench \\| tps \\| patched \\| 4 \\| 536982 \\| \\+8.4 \\| better \\|" \
	"$IDLELAB" compare "$V/pgbench-misses" --view misses --format md --no-holm
expect "an unknown view lists the views" 2 "unknown view 'pixel' \\(iterations, states, clusters, misses, latency or durations\\)" \
	"$IDLELAB" compare "$V/pgbench-misses" --view pixel
expect "html has no views" 1 "the html format has no table views \\(text, md, csv or json\\)" \
	"$IDLELAB" compare "$V/pgbench-misses" --view misses --format html

# report --view writes view-NAME.* beside the reports, equal to the golden files
RUN=$E2E_TMP/pixel6
mkdir -p "$RUN"
cp "$V/pixel6-clusters/journal.jsonl" "$RUN/"
expect "report --view writes four files" 0 "view-clusters.json" "$IDLELAB" report "$RUN" --view clusters
for f in txt md csv json; do
	cmp -s "$RUN/view-clusters.$f" "$V/pixel6-clusters/view-clusters.$f" && ok "view-clusters.$f from the journal alone" ||
		bad "view-clusters.$f from the journal alone" "differs from the golden file"
done
[ ! -e "$RUN/report.txt" ] && [ ! -e "$RUN/view-clusters.html" ] && ok "report --view writes only the view" ||
	bad "report --view writes only the view"
python3 -c "
import csv, json, sys
j = json.load(open(sys.argv[1]))
assert j['schema'] == 'idlelab-view/1' and [t['name'] for t in j['tables']] == ['residency', 'misses'], j
rows = list(csv.reader(open(sys.argv[2], newline='')))
assert rows[0][:5] == ['table', 'test', 'gov', 'cluster', 'state'], rows[0]
assert any(r[0] == 'misses' and r[3] == 'little' for r in rows), rows
" "$RUN/view-clusters.json" "$RUN/view-clusters.csv" && ok "view json and csv parse, the same tables" ||
	bad "view json and csv parse, the same tables"

# cyclictest's output of the shipped definition: every thread's maximum, in microseconds
expect "cyclictest --nsecs: per-thread maximum in us" 0 "lat_max_t1_us +449.609 us" \
	"$IDLELAB" workload parse cyclictest "$SRC/tests/fixtures/workloads/cyclictest-ns.txt" --workloads-dir "$SRC/workloads"
expect "microsecond output is refused, not read 1000 times off" 1 "without --nsecs .*--parser cyclictest" \
	"$IDLELAB" workload parse cyclictest "$SRC/tests/fixtures/workloads/cyclictest.txt" --workloads-dir "$SRC/workloads"
finish
