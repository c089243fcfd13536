#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The x86_64 lab host for real: built (its kernel through the kernel stage,
# Debian amd64 packages, an SSDT per idle table compiled by iasl), cached,
# booted; acpi_idle with POLL + C1..C3 on every CPU; ladder, menu and teo
# switchable and deciding differently (ladder never polls); then on the
# pseries-like table (POLL + one 10/100 us state) seed 002's question on 6.12,
# which has the thread's change (lab.sh says so of the mail itself): the
# example plan for 6.12 measures menu with and without that residency
# threshold in its polling override (examples/patches/menu.sh
# no-polling-threshold), the variant built
# incrementally, booted by a restart and verified, compared: without the
# threshold the too-deep entries must come back. The same kernels once more by
# kexec, through a host file that uses the instance like a real machine; the
# lab ends on its own kernel and its own table.
. "$(dirname "$0")/../e2e/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
kernel_lab_needs qemu-system-x86_64 iasl dropbearkey cpio git python3
L="--arch x86_64 --name t --source $SRC"
H=labvm-x86-t
t0=$(date +%s)
# make check starts this build at its beginning (tests/prebuild.sh), so that it fills the core the
# single-threaded tests leave idle: the same command into the same cache, so the step below is then cached
sh "$SRC/tests/prebuild.sh" wait lab-x86_64
pb=$?
if [ $pb != 3 ]; then
	[ $pb = 0 ] && ok "lab build --arch x86_64 (in the background since make check began)" ||
		bad "lab build --arch x86_64 (in the background)" "$(tail -n 20 "${TEST_LOGDIR:-$SRC/build/test-logs}/lab-x86_64.prebuild.log" 2>&1)"
	echo "  (waited $(( $(date +%s) - t0 )) s for it)"
fi
expect "lab build --arch x86_64" 0 "lab: done" "$IDLELAB" lab build --arch x86_64 --source "$SRC"
echo "  (x86_64 lab build: $(( $(date +%s) - t0 )) s)"
expect "lab build --arch x86_64 again is cached" 0 "lab: lab cached" "$IDLELAB" lab build --arch x86_64 --source "$SRC"
"$IDLELAB" lab down $L >/dev/null 2>&1
trap '"$IDLELAB" lab down $L >/dev/null 2>&1; rm -rf "$E2E_TMP"' EXIT
expect "lab up --arch x86_64 --name t" 0 "lab x86-t up: ssh on 127.0.0.1:[0-9]+ \\(host '$H'\\).*idle table default" \
	"$IDLELAB" lab up $L
expect "lab status names the host and the table" 0 "lab x86-t: running \\(x86_64, host $H\\).*idle table default" \
	"$IDLELAB" lab status $L
expect "--table is the x86_64 lab's" 1 "--table is for the x86_64 lab" "$IDLELAB" lab up --name a64 --table pseries
expect "an x86 name is not an arm64 lab" 1 "is the x86_64 lab's" "$IDLELAB" lab up --arch arm64 --name x86-t

"$IDLELAB" snapshot --host $H > "$E2E_TMP/snap.txt" 2>&1
cpus=$(grep -o 'online [0-9-]*' "$E2E_TMP/snap.txt" | sed 's/online 0-//; s/online 0/0/')
n=$(grep -cE '^ +[0-9]+ +[0-3] (POLL|C1|C2|C3) ' "$E2E_TMP/snap.txt")
grep -q "driver acpi_idle" "$E2E_TMP/snap.txt" && [ "$n" = $(( (cpus + 1) * 4 )) ] &&
	grep -qE '^ +0 +0 POLL +0 +0 .* poll$' "$E2E_TMP/snap.txt" && grep -qE '^ +0 +2 C2 +50 +100 ' "$E2E_TMP/snap.txt" &&
	ok "acpi_idle: POLL + C1 C2 C3 on every CPU, the table's latencies ($n state rows)" ||
	bad "acpi_idle: POLL + C1 C2 C3 on every CPU" "$(cat "$E2E_TMP/snap.txt")"
"$IDLELAB" governor list --host $H > "$E2E_TMP/govs.txt" 2>&1
[ "$(sed 's/ .*//' "$E2E_TMP/govs.txt" | tr '\n' ' ')" = "ladder menu teo " ] && ok "governors: ladder menu teo" ||
	bad "governors: ladder menu teo" "$(cat "$E2E_TMP/govs.txt")"
expect "governor set teo" 0 "" "$IDLELAB" governor set teo --host $H
expect "governor reads back teo" 0 "^teo$" "$IDLELAB" governor get --host $H
expect "governor set menu" 0 "" "$IDLELAB" governor set menu --host $H

cat > "$E2E_TMP/govs.json" <<JSON
{"name": "x86-governors", "host": "$H", "governors": ["menu", "teo", "ladder"],
 "workloads": [{"workload": "sleeper", "params": {"duration": 1, "mix": "50:300,50:2400"}}],
 "iterations": 4, "warmup": 1, "quiesce_s": 0.2, "trace": "idle"}
JSON
expect "governors run on the x86 lab, traced" 0 "run complete" "$IDLELAB" run "$E2E_TMP/govs.json" --out "$E2E_TMP/govs"
# the same governors in the other order a plan may take (issue #41: a clean cross-check with both), shorter
sed 's/"iterations": 4, "warmup": 1,/"iterations": 2, "warmup": 0, "order": "interleave",/' "$E2E_TMP/govs.json" > "$E2E_TMP/govs2.json"
expect "... and in order interleave, traced" 0 "run complete" "$IDLELAB" run "$E2E_TMP/govs2.json" --out "$E2E_TMP/govs2"
# every sample's trace against its own counters: per CPU and state, the idle exits and the misses
# the trace has inside the window, and with the snapshots' edges, bound what the counters counted
python3 - "$E2E_TMP/govs/journal.jsonl" 15 "$E2E_TMP/govs2/journal.jsonl" 6 <<'PY' && ok "traces (both orders): entries and misses per state agree with the counters; tick decisions and HZ known" ||
import json, sys
for journal, want in zip(sys.argv[1::2], sys.argv[2::2]):
    recs = [json.loads(l) for l in open(journal)]
    s = [r for r in recs if r.get("type") == "sample" and r.get("status") in ("ok", "warmup")]
    assert len(s) == int(want), (journal, len(s))
    for r in s:
        t = r["idle"]["trace"]
        assert t["check"]["ok"] and not t["check"]["mismatches"] and not t["check"].get("notes"), t["check"]
        assert t["tick_source"] == "events" and t["hz"] and t["tick_period_us"] == 1e6 / t["hz"], t
        st = {e["key"]: e for e in t["states"]}
        assert 100 < sum(e["entries"] for e in st.values()) <= t["entries"], t["entries"]
        assert all(sum(e["hist"]) <= e["entries"] + 2 * len(t["cpus"]) for e in st.values()), st
        assert t["tick_stopped_shallow_pct"] is not None
        tot = r["idle"]["total"]
        # the trace's window is the counters' less the snapshots' own reads: close, never more
        assert t["entries"] <= tot["idles"] + tot.get("rejected", 0), (t["entries"], tot)
    print("  traced:", len(s), "samples of", journal, "; e.g.", {k: (e["entries"], e["aboves"], e["belows"]) for k, e in st.items()})
PY
	bad "traces agree with the counters" "$(grep -h '"type":"sample"' "$E2E_TMP/govs/journal.jsonl" "$E2E_TMP/govs2/journal.jsonl" | head -2 | cut -c1-3000)"
"$IDLELAB" compare "$E2E_TMP/govs" --metric idle.trace.tick_stopped_shallow_pct --format json > "$E2E_TMP/tick.json" 2>&1
python3 - "$E2E_TMP/tick.json" <<'PY' && ok "compare judges the tick-stopped share in shallow states per governor" ||
import json, sys
c = json.load(open(sys.argv[1]))
txt = json.dumps(c)
assert "idle.trace.tick_stopped_shallow_pct" in txt and "teo" in txt and "ladder" in txt, txt[:2000]
PY
	bad "compare judges the tick-stopped share" "$(head -c 2000 "$E2E_TMP/tick.json")"
"$IDLELAB" report "$E2E_TMP/govs" --format html > /dev/null 2>&1
n=$(grep -o '<figure class=trace data-state="[^"]*"' "$E2E_TMP/govs/report.html" | sort -u | wc -l)
[ "$n" -ge 4 ] && ok "the HTML report plots the duration histograms of POLL, C1, C2, C3 ($n plots)" ||
	bad "the HTML report plots the duration histograms" "$n plots"
"$IDLELAB" report "$E2E_TMP/govs" --view states > /dev/null 2>&1
python3 - "$E2E_TMP/govs/view-states.json" <<'PY' && ok "decisions differ: ladder never polls, menu does; C3 shares differ" ||
import json, sys
t = json.load(open(sys.argv[1]))["tables"][0]
col = [c["name"] for c in t["columns"]]
row = {r[col.index("gov")]: r for r in t["rows"]}
poll = {g: row[g][col.index("POLL %")] for g in row}
c3 = {g: row[g][col.index("C3 %")] for g in row}
assert poll["ladder"] == 0 and poll["menu"] > 0, poll
assert max(c3.values()) - min(c3.values()) > 5, c3
print("  POLL %", poll, "C3 %", c3)
PY
	bad "decisions differ: ladder never polls, menu does; C3 shares differ" "$(head -c 3000 "$E2E_TMP/govs/view-states.json")"
grep -q "every idle state is HLT underneath" "$E2E_TMP/govs/view-states.txt" &&
	ok "reports say the x86 lab's caveat" || bad "reports say the x86 lab's caveat" "$(head -8 "$E2E_TMP/govs/view-states.txt")"

# cyclictest without --laptop holds /dev/cpu_dma_latency at 0: menu and teo then return state 0 (POLL)
# whatever they would choose, so a governor comparison under it compares nothing: every sample and the
# Tested-by say so, and the trace has the PM QoS request that did it
cat > "$E2E_TMP/held.json" <<JSON
{"name": "x86-held", "host": "$H", "governors": ["menu", "teo"],
 "workloads": [{"workload": "cyclictest", "params": {"duration": 2, "hold_dma_latency": true}}],
 "iterations": 2, "quiesce_s": 0.2, "trace": "idle"}
JSON
expect "cyclictest without --laptop runs on the lab, traced" 0 "run complete" "$IDLELAB" run "$E2E_TMP/held.json" --out "$E2E_TMP/held"
python3 - "$E2E_TMP/held/journal.jsonl" <<'PY' && ok "cyclictest's samples: governor bypassed (PM QoS scan), the trace saw the limit go to 0" ||
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if '"type":"sample"' in l]
s = [r for r in s if r["status"] == "ok"]
assert len(s) == 4, len(s)
for r in s:
    assert r["idle"]["governor_bypass"]["cpu_latency_us"] == 0, r["idle"].get("governor_bypass")
    assert r["idle"]["trace"]["cpu_latency_min_us"] == 0 and r["idle"]["trace"]["qos_updates"] >= 1, r["idle"]["trace"]
PY
	bad "cyclictest's samples: governor bypassed" "$(grep '"type":"sample"' "$E2E_TMP/held/journal.jsonl" | head -1 | cut -c1-2000)"
expect "the Tested-by says the governor was bypassed" 0 "the governor was bypassed in 4 counted samples" \
	sh -c '"$1" tested-by "$2" | tr -s "\n " "  "' sh "$IDLELAB" "$E2E_TMP/held"

# a deliberate regression: menu forced to stop the tick at every entry (examples/patches/menu.sh
# force-stop-tick), built as a variant of the lab's kernel, booted, traced: the share of entries
# into shallow states with the tick stopped must come out worse (and no state here is as deep as
# a tick at HZ=250, so every entry counts)
expect "the forced stop-tick patch is written" 0 "" sh "$SRC/examples/patches/menu.sh" force-stop-tick "$E2E_TMP/stoptick.mbox" "$TARBALL"
python3 - "$SRC/examples/plans/x86-polling-threshold-6.12.json" "$E2E_TMP/stoptick.json" "$H" "$E2E_TMP/stoptick.mbox" "$SRC" <<'PY'
import json, os, sys
p = json.load(open(sys.argv[1]))
d = os.path.dirname(sys.argv[1])
p.update(name="x86-stop-tick", host=sys.argv[3], iterations=5, trace="idle")
p["kernels"][1] = {"name": "stoptick-%d", "base": p["kernels"][0]["name"], "series": {"mbox": sys.argv[4]}}
p["build"]["config_fragments"] = [os.path.normpath(os.path.join(d, f)) for f in p["build"]["config_fragments"]]
json.dump(p, open(sys.argv[2], "w"))
PY
expect "the forced stop-tick variant runs, traced" 0 "run complete" "$IDLELAB" run "$E2E_TMP/stoptick.json" --out "$E2E_TMP/stoptick"
"$IDLELAB" compare "$E2E_TMP/stoptick" --metric idle.trace.tick_stopped_shallow_pct --format json > "$E2E_TMP/st.json"
want_verdicts "compare: forcing the tick off in menu is worse on tick-stopped shallow entries" "$E2E_TMP/st.json" \
	pingpong.idle.trace.tick_stopped_shallow_pct menu@stoptick-1 worse

# seed 002's question on the pseries-like table, by the example plan
"$IDLELAB" lab down $L >/dev/null 2>&1
expect "lab up --table pseries" 0 "idle table pseries" "$IDLELAB" lab up $L --table pseries
expect "pseries table: POLL + one 10/100 us state" 0 "^ +0 +1 C1 +10 +100 " "$IDLELAB" snapshot --host $H
own=$("$IDLELAB" lab ssh $L -- uname -r 2>/dev/null)
expect "the example's patch is written" 0 "" sh "$SRC/examples/patches/menu.sh" no-polling-threshold "$E2E_TMP/threshold.mbox" "$TARBALL"
python3 - "$SRC/examples/plans/x86-polling-threshold-6.12.json" "$E2E_TMP/plan.json" "$H" "$E2E_TMP/threshold.mbox" "$SRC" <<'PY'
import json, os, sys
p = json.load(open(sys.argv[1]))
p["host"] = sys.argv[3]
p["iterations"] = 5
p["kernels"][1]["series"]["mbox"] = sys.argv[4]
d = os.path.dirname(sys.argv[1])
p["build"]["config_fragments"] = [os.path.normpath(os.path.join(d, f)) for f in p["build"]["config_fragments"]]
json.dump(p, open(sys.argv[2], "w"))
PY
expect "the example plan runs: two kernels built, booted, measured" 0 "run complete" \
	"$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run"
n=$(grep -c '"type":"boot".*"ok":true' "$E2E_TMP/run/journal.jsonl")
[ "$n" = 3 ] && ok "3 verified boots journalled (2 kernels, then the lab's own)" ||
	bad "3 verified boots journalled" "$(grep '"type":"boot"' "$E2E_TMP/run/journal.jsonl" | cut -c1-300)"
"$IDLELAB" compare "$E2E_TMP/run" --metric idle.too_deep_pct,idle.aboves --format json > "$E2E_TMP/c.json"
want_verdicts "compare: without the residency threshold menu's too-deep entries come back" "$E2E_TMP/c.json" \
	pingpong.idle.too_deep_pct menu@nothreshold-1 worse pingpong.idle.aboves menu@nothreshold-1 worse
now=$("$IDLELAB" lab ssh $L -- uname -r 2>/dev/null)
[ -n "$own" ] && [ "$now" = "$own" ] && ok "the lab is back on its own kernel ($own)" || bad "the lab is back on its own kernel" "$own -> $now"
expect "the restarts kept the pseries table" 0 "idle table pseries" "$IDLELAB" lab status $L

# the same kernels by kexec: the instance used as an ordinary host
labdir=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["lab_dir"])' "$IDLELAB_CACHE/lab/run/x86-t/state.json")
mkdir -p "$E2E_TMP/hosts"
cat > "$E2E_TMP/hosts/kx.json" <<JSON
{"description": "x86_64 lab instance x86-t, booted by kexec like a real machine",
 "labvm": "x86-t", "boot": {"method": "kexec", "initrd": "$labdir/initramfs.cpio.gz", "timeout_s": 60}}
JSON
python3 - "$E2E_TMP/plan.json" "$E2E_TMP/kplan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.update(host="kx", iterations=1, warmup=0)
json.dump(p, open(sys.argv[2], "w"))
PY
expect "kexec: both kernels booted and measured" 0 "run complete" \
	env IDLELAB_HOSTS="$E2E_TMP/hosts" "$IDLELAB" run "$E2E_TMP/kplan.json" --out "$E2E_TMP/krun"
python3 - "$E2E_TMP/krun/journal.jsonl" <<'PY' && ok "journal: kexec boots verified by release" ||
import json, sys
boots = [json.loads(l) for l in open(sys.argv[1]) if '"type":"boot"' in l]
ok = [b for b in boots if b.get("ok")]
kb = [b for b in ok if b.get("kernel") in ("labvm-x86-6.12", "nothreshold-1")]
assert len(ok) == 3 and len(kb) == 2 and all(b.get("method") == "kexec" for b in kb), boots
PY
	bad "journal: kexec boots verified by release" "$(grep '"type":"boot"' "$E2E_TMP/krun/journal.jsonl" | cut -c1-400)"
now=$("$IDLELAB" lab ssh $L -- uname -r 2>/dev/null)
[ "$now" = "$own" ] && ok "after kexec the lab is back on its own kernel" || bad "after kexec the lab is back on its own kernel" "$own -> $now"
expect "lab down" 0 "" "$IDLELAB" lab down $L
finish
