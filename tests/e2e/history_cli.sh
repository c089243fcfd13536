#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `idlelab history`: three real runs of one plan on the local host (a fixture
# sysfs tree, so this machine is never reconfigured), indexed by --rebuild;
# the history in every format, its numbers the same as `compare --format json`
# of each run; a new run picked up without a rebuild; a corrupt journal
# skipped with its reason; files that are not a history refused; a real step
# (the workload's rate changed between runs of the plan) found as a change point.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
WLD="--workloads-dir $SRC/workloads"
WL="$WLD --workload-bin $SRC/build/workloads"
ROOT=$E2E_TMP/root
R=$E2E_TMP/reports
mkdir -p "$ROOT" "$R"
materialize "$FIX/labvm-arm64-before.txt" "$ROOT"
cat > "$E2E_TMP/plan.json" <<JSON
{"name": "nightly", "host": "local", "governors": ["menu", "teo"],
 "workloads": [{"workload": "periodic", "params": {"hz": 1000, "duration": 0.02}}],
 "iterations": 3, "min_sample_s": 0}
JSON
for r in r1 r2 r3; do
	"$IDLELAB" run "$E2E_TMP/plan.json" --host local --out "$R/$r" --sysfs-root "$ROOT" $WL -q >/dev/null 2>&1 ||
		bad "run $r" "$("$IDLELAB" show "$R/$r" $WLD 2>&1)"
done
expect "three runs made" 0 "r3: plan nightly, 6/6 samples done, complete" "$IDLELAB" runs --dir "$R" $WLD

expect "rebuild indexes the three runs" 0 "^history $R/history.sqlite: 3 runs indexed from $R, 0 skipped" \
	"$IDLELAB" history --rebuild --dir "$R"
[ "$(stat -c %a "$R/history.sqlite")" = 600 ] && ok "the index is private (mode 0600)" ||
	bad "the index is private (mode 0600)" "$(stat -c %a "$R/history.sqlite")"
expect "runs does not take the index for a run" 0 "r1: plan nightly" "$IDLELAB" runs --dir "$R" $WLD

# JSON: each point is compare's summary of that run and variant
"$IDLELAB" history nightly --dir "$R" --format json -o "$E2E_TMP/h.json" && ok "history --format json -o" ||
	bad "history --format json -o"
for r in r1 r2 r3; do "$IDLELAB" compare "$R/$r" --format json > "$E2E_TMP/c-$r.json"; done
python3 - "$E2E_TMP/h.json" "$E2E_TMP"/c-r1.json "$E2E_TMP"/c-r2.json "$E2E_TMP"/c-r3.json <<'PY' &&
import json, sys
h = json.load(open(sys.argv[1]))
assert h["schema"] == "idlelab-history/1" and h["plan"] == "nightly", h["schema"]
runs = [r["run"] for r in h["runs"]]
assert runs == ["r1", "r2", "r3"], runs
assert all(r["complete"] and r["hosts"] == ["local"] and r["kernels"][0]["name"] == "running" for r in h["runs"]), h["runs"]
assert [r["started"] for r in h["runs"]] == sorted(r["started"] for r in h["runs"])
checked = 0
for run, path in zip(runs, sys.argv[2:]):
    c = json.load(open(path))
    for m in c["metrics"]:
        hm = [x for x in h["metrics"] if x["key"] == m["key"]]
        assert hm, m["key"]
        assert hm[0]["unit"] == m["unit"] and hm[0]["better"] == m["better"] and hm[0]["idle"] == m["idle"]
        for v in m["variants"]:
            if not v["n"]:
                continue
            hv = [x for x in hm[0]["variants"] if x["variant"] == v["variant"]][0]
            p = [x for x in hv["points"] if x["run"] == run][0]
            for k in ("n", "mean", "median", "stdev", "min", "max"):
                assert p[k] == v[k], (run, m["key"], v["variant"], k, p[k], v[k])
            checked += 1
assert checked >= 30, checked
# change_pct: of the mean against the variant's previous run
for m in h["metrics"]:
    for v in m["variants"]:
        pts = v["points"]
        assert pts[0]["change_pct"] is None
        for a, b in zip(pts, pts[1:]):
            if a["mean"]:
                assert abs(b["change_pct"] - (b["mean"] - a["mean"]) / abs(a["mean"]) * 100) < 1e-6

PY
	ok "json: every point is compare's n, mean, median, stdev, min, max of that run" ||
	bad "json: every point is compare's n, mean, median, stdev, min, max of that run"

"$IDLELAB" history nightly --dir "$R" --format csv > "$E2E_TMP/h.csv"
python3 - "$E2E_TMP/h.csv" "$E2E_TMP/h.json" <<'PY' && ok "csv: RFC 4180, one row per point, the json's numbers" ||
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h = json.load(open(sys.argv[2]))
assert rows[0][:3] == ["plan", "key", "workload"] and all(len(r) == len(rows[0]) for r in rows), "ragged"
assert len(rows) - 1 == sum(len(v["points"]) for m in h["metrics"] for v in m["variants"]), len(rows)
col = {k: i for i, k in enumerate(rows[0])}
for r in rows[1:]:
    m = [x for x in h["metrics"] if x["key"] == r[col["key"]]][0]
    p = [x for v in m["variants"] if v["variant"] == r[col["variant"]] for x in v["points"] if x["run"] == r[col["run"]]][0]
    assert abs(float(r[col["mean"]]) - p["mean"]) <= 1e-9 * max(1, abs(p["mean"])), (r, p)
PY
	bad "csv: RFC 4180, one row per point, the json's numbers"

expect "text: a block per metric, a row per run" 0 "^periodic.wakeup_lat_avg_us \\(us, lower is better\\)" \
	"$IDLELAB" history nightly --dir "$R"
out=$("$IDLELAB" history nightly --dir "$R" --metric wakeup_lat_avg_us)
printf '%s\n' "$out" | grep -Eq '^      teo +running.* [0-9.]+ ± [0-9.]+ +[+-][0-9]+\.[0-9]%$' &&
	ok "text: per variant kernel, mean ± stdev and the change since the previous run" ||
	bad "text: per variant kernel, mean ± stdev and the change since the previous run" "$out"
[ "$(printf '%s\n' "$out" | grep -c '^  20[0-9-]* [0-9:]*  r[123]$')" = 3 ] && ok "text: --metric: one block, three runs" ||
	bad "text: --metric: one block, three runs" "$out"
wide=$("$IDLELAB" history nightly --dir "$R" | LC_ALL=C.UTF-8 awk 'length($0) > 100')
[ -z "$wide" ] && ok "text: at most 100 columns" || bad "text: at most 100 columns" "$wide"
"$IDLELAB" history nightly --dir "$R" --format html -o "$E2E_TMP/h.html"
[ "$(grep -o '<polyline' "$E2E_TMP/h.html" | wc -l)" -ge 10 ] && ok "html: a line plot per metric" ||
	bad "html: a line plot per metric"
grep -qE 'src="?https?:|href="?https?:' "$E2E_TMP/h.html" && bad "html: self-contained" "refers to the network" ||
	ok "html: self-contained (no network references)"
browser_dom "$E2E_TMP/h.html" "html: loads in a browser"

# a new run is indexed by the next `history PLAN`, without a rebuild; a broken journal is said and skipped
"$IDLELAB" run "$E2E_TMP/plan.json" --host local --out "$R/r4" --sysfs-root "$ROOT" $WL -q >/dev/null 2>&1
mkdir -p "$R/broken"
printf '{"type":"run-start"}\nnot json\n' > "$R/broken/journal.jsonl"
expect "history PLAN adds new runs first, says what it skipped" 0 "skipped broken: .*broken/journal.jsonl:" \
	"$IDLELAB" history nightly --dir "$R" --metric wakeups
[ "$("$IDLELAB" history nightly --dir "$R" --format json 2>/dev/null | grep -c '"run": "r4"')" -ge 1 ] &&
	ok "the new run is in the history" || bad "the new run is in the history"
expect "rebuild lists the skipped run with its reason, goes on" 0 "4 runs indexed from .*, 1 skipped" \
	"$IDLELAB" history --rebuild --dir "$R"
expect "--db elsewhere" 0 "4 runs indexed" "$IDLELAB" history --rebuild --dir "$R" --db "$E2E_TMP/other.sqlite"

# a step: the same plan at 1000 Hz for five runs, then at 250 Hz: its wakeups fall by 75% from s06 on
S=$E2E_TMP/step
mkdir -p "$S"
for i in 01 02 03 04 05 06 07 08 09 10; do
	hz=1000; [ "${i#0}" -gt 5 ] && hz=250
	cat > "$E2E_TMP/step.json" <<JSON
{"name": "nightly", "host": "local", "governors": ["menu"],
 "workloads": [{"workload": "periodic", "params": {"hz": $hz, "duration": 0.02}}],
 "iterations": 2, "min_sample_s": 0}
JSON
	"$IDLELAB" run "$E2E_TMP/step.json" --host local --out "$S/s$i" --sysfs-root "$ROOT" $WL -q >/dev/null 2>&1 ||
		bad "step run s$i" "$("$IDLELAB" show "$S/s$i" $WLD 2>&1)"
done
out=$("$IDLELAB" history nightly --dir "$S" --metric wakeups)
printf '%s\n' "$out" | grep -Eq '^  worse: change point: menu since s06 \(running/[^)]*\): 20 -> 5 count \(-75\.0%, p=0\.0[0-4][0-9]*\)$' &&
	ok "text: a step is a change point at its run, worse (fewer wakeups)" ||
	bad "text: a step is a change point at its run, worse (fewer wakeups)" "$out"
wide=$("$IDLELAB" history nightly --dir "$S" | LC_ALL=C.UTF-8 awk 'length($0) > 100')
[ -z "$wide" ] && ok "text with change points: at most 100 columns" || bad "text with change points: at most 100 columns" "$wide"
"$IDLELAB" history nightly --dir "$S" --format json > "$E2E_TMP/step.json.out"
python3 - "$E2E_TMP/step.json.out" <<'PY' && ok "json: the change point's runs, commits, levels, p and worse" ||
import json, sys
h = json.load(open(sys.argv[1]))
m = [x for x in h["metrics"] if x["key"] == "periodic.wakeups"][0]
assert all("changes" in v for x in h["metrics"] for v in x["variants"])
c = m["variants"][0]["changes"]
assert len(c) == 1, c
c = c[0]
assert (c["run"], c["since_run"], c["commit"], c["since_commit"]) == ("s06", "s05", None, None), c
assert (c["before"], c["after"], c["change_pct"], c["worse"]) == (20, 5, -75, True), c
assert 0 < c["p"] < 0.05, c
PY
	bad "json: the change point's runs, commits, levels, p and worse"
expect "--window 4: the last four runs are one level" 0 "^periodic.wakeups" \
	"$IDLELAB" history nightly --dir "$S" --metric wakeups --window 4
"$IDLELAB" history nightly --dir "$S" --metric wakeups --window 4 | grep -q "change point" &&
	bad "--window 4: no change point within the last four runs" || ok "--window 4: no change point within the last four runs"
"$IDLELAB" history nightly --dir "$S" --metric wakeups --format html -o "$E2E_TMP/step.html"
grep -q 'stroke-dasharray="5 3"><title>worse: change point: menu since s06' "$E2E_TMP/step.html" &&
	grep -q '<li class=worse>worse: change point: menu since s06' "$E2E_TMP/step.html" &&
	ok "html: a dashed line at the change point's run, and its line under the plot" ||
	bad "html: a dashed line at the change point's run, and its line under the plot"
expect "--window -1 is a usage error" 2 "--window: expected a number of runs" "$IDLELAB" history nightly --dir "$S" --window -1

expect "an unknown plan names the known ones" 1 "no run of plan 'nope' in history .*\\(plans: nightly\\)" \
	"$IDLELAB" history nope --dir "$R"
expect "--host: only runs on that host" 1 "no run of plan 'nightly' on host 'elsewhere'" \
	"$IDLELAB" history nightly --dir "$R" --host elsewhere
expect "--host local" 0 "r4" "$IDLELAB" history nightly --dir "$R" --host local
printf 'not a database, just text long enough to have a header of its own\n' > "$E2E_TMP/notes.txt"
expect "a file that is not SQLite is refused" 1 "notes.txt' is not an SQLite database \\(not an idlelab history\\): refused" \
	"$IDLELAB" history nightly --dir "$R" --db "$E2E_TMP/notes.txt"
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('create table t (x)'); c.commit()" "$E2E_TMP/o.db"
expect "another SQLite database is refused" 1 "o.db' is an SQLite database but not an idlelab history" \
	"$IDLELAB" history nightly --dir "$R" --db "$E2E_TMP/o.db"
expect "--format md is a usage error" 2 "--format: expected text, csv, json or html" "$IDLELAB" history nightly --dir "$R" --format md
expect "no plan is a usage error" 2 "expected one plan name" "$IDLELAB" history --dir "$R"
expect "a missing runs directory is named" 1 "no runs directory '$E2E_TMP/none'" "$IDLELAB" history nightly --dir "$E2E_TMP/none"
expect "help history" 0 "idlelab history --rebuild" "$IDLELAB" help history
finish
