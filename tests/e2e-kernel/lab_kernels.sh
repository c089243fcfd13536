#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Kernel variants measured end to end on the lab host: a plan with three
# kernels — the lab's base, the same base under another name, and the base
# plus a patch (carried here) that makes menu always pick the deepest state —
# built (the patched one incrementally), booted in blocks on the lab, each
# boot verified by its release, measured; compare must call the patched
# kernel's aboves significantly worse and the two identical kernels noise. The
# lab goes back to its own kernel afterwards.
. "$(dirname "$0")/../e2e/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
kernel_lab_needs qemu-system-aarch64 dtc dropbearkey aarch64-linux-gnu-gcc git
lab_fresh k
own=$("$IDLELAB" lab ssh --name k -- uname -r 2>/dev/null)
kernel_patch "$E2E_TMP/deep.mbox" drivers/cpuidle/governors/menu.c 'cpuidle: menu: Always pick the deepest state (test)' \
	'{ print } /^static int menu_select\(/ { f = 1 } f && /^\{$/ { print "\treturn drv->state_count - 1;"; f = 0 }' \
	"return drv->state_count - 1;"
cat > "$E2E_TMP/plan.json" <<JSON
{"name": "kernels-e2e", "host": "labvm-k",
$(lab_build_json)
 "kernels": [{"name": "labvm-$KVER", "tarball": "$TARBALL"},
             {"name": "same", "tarball": "$TARBALL"},
             {"name": "deep-%d", "base": "labvm-$KVER", "series": {"mbox": "$E2E_TMP/deep.mbox"}}],
 "governors": ["menu"],
 "workloads": [{"workload": "sleeper", "params": {"duration": 1, "mix": "50:300,50:2400"}}],
 "iterations": 6, "warmup": 1, "quiesce_s": 0.2, "reference": "menu"}
JSON
expect "run three kernels on the lab" 0 "run complete" "$IDLELAB" run "$E2E_TMP/plan.json" --out "$E2E_TMP/run"
n=$(grep -c '"type":"boot".*"ok":true' "$E2E_TMP/run/journal.jsonl")
[ "$n" = 4 ] && ok "4 verified boots journalled (3 kernels, then the lab's own)" || bad "4 verified boots journalled" "$(grep '"type":"boot"' "$E2E_TMP/run/journal.jsonl" | cut -c1-300)"
expect "every sample counted" 0 "21/21 samples done, complete, warmup 3, ok 18" "$IDLELAB" show "$E2E_TMP/run"
# --metric: the two are the decision family, Holm per variant over 2 (docs/report.md); the
# identical kernel is never better or worse: shown the same, or unknown
"$IDLELAB" compare "$E2E_TMP/run" --ref menu@labvm-$KVER --metric idle.aboves,idle.miss_ratio --format json > "$E2E_TMP/c.json"
want_verdicts "compare: the deepest-state patch is worse, the identical kernel is not" "$E2E_TMP/c.json" \
	sleeper.idle.aboves menu@deep-1 worse sleeper.idle.aboves menu@same "same|unknown"
expect "tested-by names the kernels, each with the release it booted" 0 "deep-1 \\($KVER\\.[0-9]+-il[0-9a-f]{8}, commit [0-9a-f]{12}:" \
	sh -c '"$1" tested-by "$2" --as "T <t@example.org>" | tr -s "\n " "  "' sh "$IDLELAB" "$E2E_TMP/run"
# a patched kernel, but measured on the emulated lab: evidence, never a trailer unless forced
"$IDLELAB" tested-by "$E2E_TMP/run" --ref menu@labvm-$KVER > "$E2E_TMP/tb.txt" 2>&1
grep -q '^Evidence, not a Tested-by:' "$E2E_TMP/tb.txt" && grep -q "emulated lab VM" "$E2E_TMP/tb.txt" &&
	! grep -q '^Tested-by:' "$E2E_TMP/tb.txt" && ok "tested-by on the lab: evidence, no trailer" ||
	bad "tested-by on the lab: evidence, no trailer" "$(cat "$E2E_TMP/tb.txt")"
"$IDLELAB" tested-by "$E2E_TMP/run" --ref menu@labvm-$KVER --force --as "T <t@example.org>" > "$E2E_TMP/tbf.txt" 2>&1
# "Forced" heads the block, after the warnings a noisy A/A pair adds ("host not quiet" comes first)
sed -n '/^Platform: /q; /^Forced (--force)/p' "$E2E_TMP/tbf.txt" | grep -q . &&
	[ "$(tail -1 "$E2E_TMP/tbf.txt")" = "Tested-by: T <t@example.org>" ] && [ "$(grep -c '^Tested-by:' "$E2E_TMP/tbf.txt")" = 1 ] &&
	ok "tested-by --force on the lab: says so, the trailer once at the end" ||
	bad "tested-by --force on the lab: says so, the trailer once at the end" "$(cat "$E2E_TMP/tbf.txt")"
# IDLELAB_E2E_KEEP=DIR keeps this run and its Tested-by evidence (the evidence quoted in a note)
[ -n "${IDLELAB_E2E_KEEP:-}" ] && cp -r "$E2E_TMP/run" "$E2E_TMP/tb.txt" "$IDLELAB_E2E_KEEP/"
now=$("$IDLELAB" lab ssh --name k -- uname -r 2>/dev/null)
[ -n "$own" ] && [ "$now" = "$own" ] && ok "the lab is back on its own kernel ($own)" || bad "the lab is back on its own kernel" "$own -> $now"
"$IDLELAB" lab down --name k >/dev/null 2>&1
finish
