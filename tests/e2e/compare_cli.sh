#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `idlelab compare`, `report` and `tested-by` from the command line: files
# of numbers (ministat style), a real run journal, every format, the HTML
# report loaded in headless Chromium (no script errors, a screenshot), and the
# Tested-by identity from git config (read with libgit2).
. "$(dirname "$0")/lib.sh"
SRC=${IL_SRCDIR:-.}
RUN=$E2E_TMP/run1
mkdir -p "$RUN"
cp "$SRC/tests/fixtures/journal/run1/journal.jsonl" "$RUN/"

printf '5.53\n5.51\n5.55\n5.54\n5.52\n5.53\n' > "$E2E_TMP/teo.txt"
printf '4.77\n4.81\n4.79\n4.80\n4.76\n4.78\n' > "$E2E_TMP/teo-6.txt"
printf '5.54\n5.52\n5.53\n5.55\n5.51\n5.54\n' > "$E2E_TMP/teo-5.txt"
expect "numbers: a 13% change is found" 0 "teo-6 +6 +4.785 .* -13.5% .*changed" \
	"$IDLELAB" compare "$E2E_TMP/teo.txt" "$E2E_TMP/teo-5.txt" "$E2E_TMP/teo-6.txt"
expect "numbers: the same within noise is shown so" 0 "teo-5 .* same" \
	"$IDLELAB" compare "$E2E_TMP/teo.txt" "$E2E_TMP/teo-5.txt"
printf '1\n2\n3\n' > "$E2E_TMP/a.txt"; printf '7\n8\n9\n' > "$E2E_TMP/b.txt"
expect "numbers: 3 vs 3 under the U test says how many are needed" 0 "b +3 .* unknown \\(n~4\\)" \
	"$IDLELAB" compare "$E2E_TMP/a.txt" "$E2E_TMP/b.txt" --test mwu
expect "numbers: Welch's t decides 3 vs 3 that far apart" 0 "b +3 .* changed" \
	"$IDLELAB" compare "$E2E_TMP/a.txt" "$E2E_TMP/b.txt"
printf '1\n2\nfast\n' > "$E2E_TMP/bad.txt"
expect "numbers: a bad line is named" 1 "bad.txt:3: 'fast' is not a finite number" \
	"$IDLELAB" compare "$E2E_TMP/a.txt" "$E2E_TMP/bad.txt"
expect "unknown reference is listed" 1 "reference 'nope' is not one of the variants \\(menu, menu-again, ladder, menu-nopoll\\)" \
	"$IDLELAB" compare "$RUN" --ref nope
# a traced run (tests/fixtures/views/trace-durations, invented numbers): teo-stop stops the tick before
# shallow states far more often (16.2% of the periods against 2.2%), and lower is better
expect "idle traces: the tick stopped before shallow states is a judged metric" 0 \
	"^periodic.idle.trace.tick_stopped_shallow_pct \\(%, lower is better\\)" \
	"$IDLELAB" compare "$SRC/tests/fixtures/views/trace-durations"
expect "... and teo-stop is worse on it" 0 "^  teo-stop +4 +16.182 .* worse" \
	"$IDLELAB" compare "$SRC/tests/fixtures/views/trace-durations" --metric tick_stopped_shallow_pct
expect "run: text report" 0 "Verdict: no key metric shown to differ beyond noise \\(8 key comparisons\\)" "$IDLELAB" compare "$RUN"
expect "run: --metric and --ref" 0 "ladder .* ref" "$IDLELAB" compare "$RUN" --metric usec_per_loop --ref ladder
expect "run: json" 0 '"schema": "idlelab-compare/2"' "$IDLELAB" compare "$RUN" --format json
expect "run: welch and the key family's Holm by default" 0 "key metrics \\[key\\]: p Holm-adjusted per variant \\(up to 2\\); secondary: BH" \
	"$IDLELAB" compare "$RUN"
expect "run: --test mwu" 0 "^Mann-Whitney U two-sided, alpha 0.05" "$IDLELAB" compare "$RUN" --test mwu
expect "run: --no-holm turns the adjustment off" 0 "p not adjusted for multiple comparisons" "$IDLELAB" compare "$RUN" --no-holm
# --max-cv: run1's pingpong.usec_per_loop scatters (ladder CV 122%), periodic.wakeup_lat_avg_us
# does not (at most 18.4%): the first is named and left out, the second compared
expect "--max-cv names what it leaves out" 0 "metrics left out, CV above 25% .*: pingpong.usec_per_loop \\(ladder" \
	"$IDLELAB" compare "$RUN" --metric usec_per_loop,wakeup_lat_avg_us --max-cv 25
"$IDLELAB" compare "$RUN" --metric usec_per_loop,wakeup_lat_avg_us --max-cv 25 --format json > "$E2E_TMP/maxcv.json"
python3 - "$E2E_TMP/maxcv.json" <<'PY' && ok "--max-cv: json lists the dropped metric, compares the rest" ||
import json, sys
c = json.load(open(sys.argv[1]))
assert [m["key"] for m in c["metrics"]] == ["periodic.wakeup_lat_avg_us"], c["metrics"]
d = c["dropped"]
assert len(d) == 1 and d[0]["key"] == "pingpong.usec_per_loop" and d[0]["variant"] == "ladder", d
assert abs(d[0]["cv"] - 1.222) < 0.001 and c["max_cv_pct"] == 25, d
PY
	bad "--max-cv: json lists the dropped metric, compares the rest" "$(head -c 1500 "$E2E_TMP/maxcv.json")"
expect "--max-cv leaving nothing is an error" 1 "every selected metric has a CV above 25%" \
	"$IDLELAB" compare "$RUN" --metric usec_per_loop --max-cv 25
expect "--max-cv 0 is refused" 2 "--max-cv: expected a percentage above 0, got 0" \
	"$IDLELAB" compare "$RUN" --max-cv 0
expect "run: --holm and --no-holm together are refused" 2 "contradict" "$IDLELAB" compare "$RUN" --holm --no-holm
# run1's A/A pair differs on the secondary periodic.idle.idles (raw p 0.013 of ~60): chance, so
# exploratory, never "host not quiet" (a noisy pair on a key metric is: test_report.c)
"$IDLELAB" compare "$RUN" > "$E2E_TMP/aa.txt" 2>&1
! grep -q "host not quiet" "$E2E_TMP/aa.txt" && grep -q "secondary metrics (exploratory, BH q-values): 2 of 56" "$E2E_TMP/aa.txt" &&
	ok "run: the A/A pair's chance difference on a secondary metric is exploratory, no warning" ||
	bad "run: the A/A pair's chance difference on a secondary metric is exploratory, no warning" "$(head -5 "$E2E_TMP/aa.txt")"
expect "report writes every format" 0 "report.html" "$IDLELAB" report "$RUN"
for f in txt md csv json html; do
	cmp -s "$RUN/report.$f" "$SRC/tests/fixtures/journal/run1/report.$f" && ok "report.$f regenerated from the journal alone" ||
		bad "report.$f regenerated from the journal alone" "differs from the golden file"
done
python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$RUN/report.json" && ok "report.json parses" || bad "report.json parses"
python3 -c "
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
assert rows[0][0] == 'kind' and all(len(r) == len(rows[0]) for r in rows), 'ragged'
print(len(rows))" "$RUN/report.csv" >/dev/null && ok "report.csv is rectangular RFC 4180" || bad "report.csv is rectangular RFC 4180"

# Tested-by: a run of two built kernels on an SSH host gets the trailer, once, at the end;
# the identity comes from git config through libgit2
PATCHED=$E2E_TMP/patched
mkdir -p "$PATCHED"
cp "$SRC/tests/fixtures/journal/patched/journal.jsonl" "$PATCHED/"
mkdir -p "$E2E_TMP/home"
printf '[user]\n\tname = Pat Tester\n\temail = pat@example.org\n' > "$E2E_TMP/home/.gitconfig"
expect "tested-by from git config" 0 "^Tested-by: Pat Tester <pat@example.org>" \
	env HOME="$E2E_TMP/home" XDG_CONFIG_HOME="$E2E_TMP/home/.config" "$IDLELAB" tested-by "$PATCHED"
out=$("$IDLELAB" tested-by "$PATCHED" --as "A B <a@b.org>")
[ "$(printf '%s\n' "$out" | grep -c '^Tested-by: ')" = 1 ] && [ "$(printf '%s\n' "$out" | tail -n 1)" = "Tested-by: A B <a@b.org>" ] &&
	ok "tested-by: the trailer once, as the last line" || bad "tested-by: the trailer once, as the last line" "$out"
[ "$(printf '%s\n' "$out" | wc -l)" -le 60 ] && ok "tested-by: at most 60 lines by default" ||
	bad "tested-by: at most 60 lines by default" "$(printf '%s\n' "$out" | wc -l) lines"
[ "$("$IDLELAB" tested-by "$PATCHED" --as "A B <a@b.org>" --full | wc -l)" -gt 60 ] && ok "tested-by --full: everything" ||
	bad "tested-by --full: everything"
expect "tested-by discloses the environment" 0 "^Tick: HZ=250, NO_HZ_FULL" "$IDLELAB" tested-by "$PATCHED" --as "A B <a@b.org>"
mkdir -p "$E2E_TMP/empty"
expect "tested-by without identity says what to do" 1 "give --as" \
	env HOME="$E2E_TMP/empty" XDG_CONFIG_HOME="$E2E_TMP/empty/.config" GIT_CONFIG_NOSYSTEM=1 "$IDLELAB" tested-by "$PATCHED"
expect "tested-by --as" 0 "Governors: menu@v6.18-rc4 \\[reference\\]" "$IDLELAB" tested-by "$PATCHED" --as "A B <a@b.org>"
# the host's own kernel only: evidence, not a Tested-by (and no identity needed for that)
expect "tested-by: no kernel under test, no trailer" 0 "^  - no kernel under test" \
	env HOME="$E2E_TMP/empty" XDG_CONFIG_HOME="$E2E_TMP/empty/.config" GIT_CONFIG_NOSYSTEM=1 "$IDLELAB" tested-by "$RUN"
"$IDLELAB" tested-by "$RUN" --as "A B <a@b.org>" | grep -q '^Tested-by: ' && bad "tested-by: evidence has no trailer line" ||
	ok "tested-by: evidence has no trailer line"
"$IDLELAB" tested-by "$RUN" --as "A B <a@b.org>" > "$E2E_TMP/tb1.txt" 2>&1
grep -q "^Key metrics (the decision family" "$E2E_TMP/tb1.txt" && ! grep -q "host not quiet" "$E2E_TMP/tb1.txt" &&
	grep -q "^Secondary metrics that differ (exploratory" "$E2E_TMP/tb1.txt" &&
	ok "tested-by: the decision family first, chance on a secondary metric no warning" ||
	bad "tested-by: the decision family first, chance on a secondary metric no warning" "$(cat "$E2E_TMP/tb1.txt")"
# the emulated lab, by the host record's kind: evidence; --force gives the trailer and says why it would not
LAB=$E2E_TMP/lab
mkdir -p "$LAB"
sed 's/"kind":"ssh"/"kind":"lab"/' "$PATCHED/journal.jsonl" > "$LAB/journal.jsonl"
expect "tested-by: the lab is evidence" 0 "^  - host kvm7 is idlelab's emulated lab VM" "$IDLELAB" tested-by "$LAB" --as "A B <a@b.org>"
expect "tested-by --force says it was forced" 0 "^Forced \\(--force\\): a Tested-by, although otherwise this is evidence" \
	"$IDLELAB" tested-by "$LAB" --as "A B <a@b.org>" --force
[ "$("$IDLELAB" tested-by "$LAB" --as "A B <a@b.org>" --force | tail -n 1)" = "Tested-by: A B <a@b.org>" ] &&
	ok "tested-by --force: the trailer at the end" || bad "tested-by --force: the trailer at the end"

# the HTML report in a real browser
if browser_dom "$RUN/report.html" "html: loads and its script ran without errors"; then
	grep -q '<svg' "$E2E_TMP/dom.html" && ok "html: has inline SVG plots" || bad "html: has inline SVG plots"
	"$bd_chrome" --headless --no-sandbox --disable-gpu --window-size=1100,1400 --screenshot="$E2E_TMP/report.png" \
		"file://$RUN/report.html" >/dev/null 2>&1
	[ "$(wc -c < "$E2E_TMP/report.png" 2>/dev/null || echo 0)" -gt 20000 ] && ok "html: screenshot produced" ||
		bad "html: screenshot produced"
	grep -qE 'src="?https?:|href="?https?:' "$RUN/report.html" && bad "html: self-contained" "refers to the network" ||
		ok "html: self-contained (no network references)"
fi
# an error quoting a file's bytes never sends its escape sequences to the terminal
printf '1\n2\n\033[2J\n' > "$E2E_TMP/esc.txt"
"$IDLELAB" compare "$E2E_TMP/esc.txt" "$E2E_TMP/esc.txt" > "$E2E_TMP/esc.out" 2>&1
[ $? = 1 ] && grep -q "esc.txt:3" "$E2E_TMP/esc.out" && ! grep -q "$(printf '\033')" "$E2E_TMP/esc.out" &&
	ok "errors quoting files have no control bytes" || bad "errors quoting files have no control bytes" "$(od -c "$E2E_TMP/esc.out" | head)"
# a journal two runs wrote: a second final record of a sample, another parameter set under one label
cp -r "$RUN" "$E2E_TMP/dup"
grep '"type":"sample".*"final":true' "$RUN/journal.jsonl" | head -n 1 >> "$E2E_TMP/dup/journal.jsonl"
n=$(wc -l < "$E2E_TMP/dup/journal.jsonl")
expect "compare refuses a duplicated final sample, naming both lines" 1 \
	"journal.jsonl:$n: sample [0-9]+ has a second final record \\(the first is at line [0-9]+\\)" "$IDLELAB" compare "$E2E_TMP/dup"
cp -r "$RUN" "$E2E_TMP/mixed"
python3 - "$E2E_TMP/mixed/journal.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
for i, l in enumerate(lines):
    r = json.loads(l)
    if r["type"] == "sample" and r.get("final") and r["workload"] == "periodic":
        r["params"]["hz"] = 12345
        lines[i] = json.dumps(r, separators=(",", ":"))
        print(i + 1)
        break
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
expect "compare refuses two parameter sets under one label" 1 \
	"workload 'periodic' ran with params .*12345.*samples of two parameter sets under one label" "$IDLELAB" compare "$E2E_TMP/mixed"
finish
