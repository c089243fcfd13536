#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# idlelab on this machine's real sysfs: snapshot, idle-stat over a real
# sleep, its governors compared by a run (where it has idle states; where it
# has none, that run is refused clearly), and (where the governor is
# writable) a real switch and restore.
. "$(dirname "$0")/lib.sh"
T=$E2E_TMP
G=/sys/devices/system/cpu/cpuidle/current_governor
# the kernel's own idle time over all CPUs (/proc/stat, USER_HZ jiffies): whether the machine was idle at all
# (make check builds the labs' kernels in the background; at times no CPU is idle while a test looks)
idle_jiffies() { awk '$1 == "cpu" { print $5 + $6; exit }' /proc/stat; }

expect "snapshot of this machine" 0 'host local' "$IDLELAB" snapshot
"$IDLELAB" snapshot --json -o "$T/s.json" && ok "snapshot --json of this machine" || bad "snapshot --json"
nstates=$(grep -c '"latency_us"' "$T/s.json")
SRC=${IL_SRCDIR:-.}
WL="--workloads-dir $SRC/workloads --workload-bin $SRC/build/workloads"
# up to three of this machine's governors, a short periodic wake-up pattern under each
govs=$(tr ' ' '\n' < /sys/devices/system/cpu/cpuidle/available_governors 2>/dev/null | grep . | head -n 3 | tr '\n' ' ')
cat > "$T/govs.json" <<JSON
{"name": "local-governors", "host": "local",
 "governors": [$(for g in ${govs:-menu}; do printf '"%s",' "$g"; done | sed 's/,$//')],
 "workloads": [{"workload": "periodic", "params": {"hz": 200, "duration": 0.3}}], "iterations": 2, "quiesce_s": 0}
JSON
# both worlds make the same checks (make check runs this script on this machine as it is and
# again with current_driver "none", tests/world.sh): what differs is what they say
if [ "$nstates" -eq 0 ]; then
	expect "idle-stat on a host without idle states says so" 0 'no idle states' "$IDLELAB" idle-stat -- sleep 0.2
	expect "a governor comparison on a host without idle states is refused clearly" 1 \
		"no idle states on host \\(cpuidle driver '$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)'\\)" \
		"$IDLELAB" run "$T/govs.json" --out "$T/govs" $WL -q
	[ ! -e "$T/govs/journal.jsonl" ] || ! grep -q '"type":"sample"' "$T/govs/journal.jsonl" &&
		ok "... and measures nothing" || bad "... and measures nothing" "$(head -c 600 "$T/govs/journal.jsonl")"
else
	j0=$(idle_jiffies)
	if "$IDLELAB" idle-stat --json -o "$T/d.json" -- sleep 0.5; then
		j1=$(idle_jiffies)
		idles=$(sed -n '/"total"/,/}/s/.*"idles": \([0-9]*\).*/\1/p' "$T/d.json" | head -n 1)
		interval=$(sed -n 's/.*"interval_s": \([0-9.]*\).*/\1/p' "$T/d.json" | head -n 1)
		if [ "${idles:-0}" -gt 0 ]; then ok "idle-stat: CPUs entered idle states during sleep ($idles idles over ${interval}s)"
		elif [ $((j1 - j0)) -lt 5 ]; then skip "idle-stat: no CPU was idle during the sleep (the kernel's idle time moved $((j1 - j0)) jiffies: another load kept every CPU busy)"
		else bad "idle-stat: no idle entries during a 0.5 s sleep" "$(cat "$T/d.json")"; fi
	else
		bad "idle-stat -- sleep 0.5"
	fi
	# this machine's own governors compared for real (haltpoll vs ladder vs menu on a haltpoll
	# guest): every sample ran under the governor it asked for, read back from the kernel, and
	# the governor this machine had before is the one it has after
	before=$(cat "$G")
	if "$IDLELAB" run "$T/govs.json" --out "$T/govs" $WL -q >"$T/govs.out" 2>&1; then
		miss=""
		for g in $govs; do
			n=$(grep '"type":"sample"' "$T/govs/journal.jsonl" | grep '"status":"ok"' | grep -c "\"governor_read\":\"$g\"")
			[ "$n" = 2 ] || miss="$miss $g:$n"
		done
		[ -z "$miss" ] && ok "this machine's governors compared ($govs): 2 ok samples each, each under its governor" ||
			bad "this machine's governors compared ($govs): 2 ok samples each" "ok samples per governor:$miss"
	else
		bad "this machine's governors compared ($govs): the run completes" "$(cat "$T/govs.out")"
	fi
	[ "$(cat "$G")" = "$before" ] && ok "after the comparison the governor is $before again" ||
		bad "after the comparison the governor is $before again" "now $(cat "$G")"
fi
# an idle trace of this machine's kernel (tracefs) over idle-stat's window: reduced against the
# counters of the same window, and neither its tracefs instance nor a mount of its own left behind
expect "idle-stat --trace with --sysfs-root is a usage error" 2 "not with --sysfs-root" \
	"$IDLELAB" idle-stat --trace --sysfs-root "$T" -- true
if [ "$(id -u)" = 0 ] && grep -qw tracefs /proc/filesystems; then
	mounts=$(grep -c ' tracefs ' /proc/mounts)
	if "$IDLELAB" idle-stat --trace --json -o "$T/t.json" -- sleep 0.3 2> "$T/t.err"; then
		# either outcome of a real machine: a clean cross-check over every CPU, or CPUs whose idle entries
		# this kernel's tracing does not see (issue #44), named in a caveat and left out of the figures
		python3 - "$T/t.json" "$nstates" "$T/t.txt" <<'PY' && ok "idle-stat --trace: the trace of the window, checked against its counters" ||
import json, os, sys
j = json.load(open(sys.argv[1]))
t = j["trace"]
assert t["check"]["ok"] and t["window_s"] > 0.25 and t["tick_source"] in ("events", None), t
blind = [b["cpu"] for b in t["blind_cpus"]]
assert sorted(t["traced_cpus"]) == sorted(c["cpu"] for c in t["cpus"]), (t["traced_cpus"], t["cpus"])
assert not set(blind) & set(t["traced_cpus"]), t["traced_cpus"]
# tests/world.sh's blind1 world hides CPU 1's cpu_idle events: where its counters moved, it is named
w = os.environ.get("WORLD_BLIND_CPU")
moved = {c["cpu"]: c["idles"] + c["rejected"] for c in j.get("cpus", [])}
if w is not None and int(sys.argv[2]) and moved.get(int(w), 0) > 0:
    assert int(w) in blind, ("world blind1: cpu %s not named" % w, t["blind_cpus"], t["check"])
for b in t["blind_cpus"]:
    said = "tracing does not see CPU %d's idle entries (its counters moved %d, " % (b["cpu"], b["moved"])
    assert [c for c in t["caveats"] if c.startswith(said)], (said, t["caveats"])
    assert b["moved"] > 0 and 2 * b["traced"] < b["moved"], b
if int(sys.argv[2]) and t["traced_cpus"] and j["total"]["idles"]:
    assert 0 < t["entries"] <= j["total"]["idles"] + j["total"]["rejected"], (t["entries"], j["total"])
open(sys.argv[3], "w").write(" ".join(map(str, blind)))
PY
			bad "idle-stat --trace: the trace of the window" "$(head -c 1500 "$T/t.json")"
		if [ -s "$T/t.txt" ]; then
			"$IDLELAB" idle-stat --trace -- sleep 0.3 > "$T/t.out" 2>&1
			# a second window: on a real machine its CPUs may be seen this time, but never named twice
			n=$(grep -c "^caveat: tracing does not see CPU [0-9]*'s idle entries" "$T/t.out")
			u=$(grep "^caveat: tracing does not see CPU" "$T/t.out" | sed 's/ (.*//' | sort -u | wc -l)
			{ { [ "$n" -ge 1 ] && [ "$u" = "$n" ] && grep -q "^the trace's figures cover CPU" "$T/t.out"; } ||
				{ [ "$n" = 0 ] && [ -z "${WORLD_BLIND_CPU:-}" ] && grep -q "^the trace agrees" "$T/t.out"; }; } &&
				ok "idle-stat --trace names the CPUs its tracing does not see ($(cat "$T/t.txt")), once each" ||
				bad "idle-stat --trace names the CPUs its tracing does not see" "$(cat "$T/t.out")"
		fi
	elif grep -q "^idlelab: error: idle trace: " "$T/t.err"; then
		skip "no idle trace here: $(cat "$T/t.err")"
	else
		bad "idle-stat --trace" "$(cat "$T/t.err")"
	fi
	# a traced run that keeps its raw traces (keep_trace): each sample's frame and snapshot pair in
	# samples/, named in the record, and reduced again offline by `idlelab diff --trace` into
	# exactly the idle.trace the run recorded
	if [ "$nstates" -gt 0 ]; then
		cat > "$T/traced.json" <<JSON
{"name": "local-traced", "host": "local", "governors": ["$(cat "$G")"], "trace": "idle", "keep_trace": true,
 "workloads": [{"workload": "periodic", "params": {"hz": 200, "duration": 0.3}}], "iterations": 2, "quiesce_s": 0}
JSON
		if "$IDLELAB" run "$T/traced.json" --out "$T/traced" $WL -q > "$T/traced.out" 2>&1; then
			python3 - "$T/traced" "$IDLELAB" > "$T/traced.chk" 2>&1 <<'PY'
import json, os, subprocess, sys
run, idlelab = sys.argv[1:3]
recs = [json.loads(l) for l in open(os.path.join(run, "journal.jsonl"))]
ok = [r for r in recs if r["type"] == "sample" and r["status"] == "ok"]
assert len(ok) == 2, [r.get("reason") for r in recs if r["type"] == "sample"]
for r in ok:
    f = r["trace_files"]
    assert f["frame"] == "samples/%d-%d.trace" % (r["seq"], r["attempt"]), f
    paths = [os.path.join(run, f[k]) for k in ("before", "after", "frame")]
    assert all(os.path.getsize(p) > 0 for p in paths), paths
    out = subprocess.run([idlelab, "diff", paths[0], paths[1], "--trace", paths[2], "--json"],
                         capture_output=True, text=True, check=True).stdout
    again = json.loads(out)["trace"]
    # the same object, numbers as the journal writes them (10 significant digits)
    def same(a, b):
        if isinstance(a, float) or isinstance(b, float):
            return a is not None and b is not None and abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1)
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        return a == b
    assert same(again, r["idle"]["trace"]), (again, r["idle"]["trace"])
print("all good")
PY
			grep -q "all good" "$T/traced.chk" &&
				ok "keep_trace: each traced sample's frame and snapshots kept, reduced offline by diff --trace into the run's idle.trace" ||
				bad "keep_trace: frames kept and reduced offline as the run did" "$(tail -c 1500 "$T/traced.chk")"
		else
			bad "a traced run with keep_trace" "$(cat "$T/traced.out")"
		fi
	fi
	left=$(ls -d /sys/kernel/tracing/instances/idlelab-* /sys/kernel/debug/tracing/instances/idlelab-* 2>/dev/null)
	[ -z "$left" ] && [ "$(grep -c ' tracefs ' /proc/mounts)" = "$mounts" ] &&
		ok "idle-stat --trace leaves no tracefs instance or mount behind" ||
		bad "idle-stat --trace leaves no tracefs instance or mount behind" "$left; $(grep ' tracefs ' /proc/mounts)"
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
