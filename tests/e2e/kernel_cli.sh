#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel commands on the tiny kernel-like tree (fast): series show,
# kernel prepare / build / list, clear errors; and `idlelab run` refusing
# built kernels it cannot boot yet.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "${IL_SRCDIR:-.}" && pwd)
FXS=$SRC/tests/fixtures
tar -czf "$E2E_TMP/tiny.tar.gz" -C "$FXS" tinykernel
expect "series show (text)" 0 "Reviewed-by: Rev Iewer <rev@example.org>" "$IDLELAB" series show "$FXS/series/thread.mbox"
expect "series show --version 1 --json" 0 '"version": 1' "$IDLELAB" series show "$FXS/series/thread.mbox" --version 1 --json
expect "series show: quoted-printable decoded" 0 "Rafaël Wysocki" "$IDLELAB" series show "$FXS/series/qp.mbox"
expect "series show: not an mbox" 1 "not an mbox" "$IDLELAB" series show "$FXS/series/gen.sh"
# a subject with terminal escape sequences: shown with '?' for the control bytes, never raw
printf 'From a\nFrom: x <x@example.org>\nSubject: [PATCH] evil \033]0;title\007 \033[31mred\n\nbody\n---\n' > "$E2E_TMP/esc.mbox"
"$IDLELAB" series show "$E2E_TMP/esc.mbox" > "$E2E_TMP/esc.out" 2>&1
grep -q "evil ?]0;title? ?\[31mred" "$E2E_TMP/esc.out" && ! grep -q "$(printf '\033')" "$E2E_TMP/esc.out" &&
	ok "series show: control bytes of a subject are not echoed" ||
	bad "series show: control bytes of a subject are not echoed" "$(od -c "$E2E_TMP/esc.out" | head)"
cat > "$E2E_TMP/plan.json" <<JSON
{"name": "tiny", "build": {"arch": "tiny", "config": "defconfig", "targets": ["Image"]},
 "kernels": [{"name": "m", "tarball": "$E2E_TMP/tiny.tar.gz"},
             {"name": "m-%d", "base": "m", "series": {"mbox": "$FXS/series/thread.mbox"}, "patches": "1-2"}]}
JSON
C="--cache $E2E_TMP/cache"
expect "kernel prepare" 0 "m-2 +commit [0-9a-f]{12} tree [0-9a-f]{12}  cpuidle: teo: Annotate" "$IDLELAB" kernel prepare "$E2E_TMP/plan.json" $C
expect "kernel build" 0 "m-2 +6.1.0-il[0-9a-f]{8} " "$IDLELAB" kernel build "$E2E_TMP/plan.json" $C
# progress on stderr (not a terminal: plain lines): files compiled of an estimate, then a last line
expect "kernel build: compile progress" 0 "^kernel m: compiling: 3 of ~[0-9]+ files, [0-9]+s$" \
	"$IDLELAB" kernel build "$E2E_TMP/plan.json" --cache "$E2E_TMP/cache-p" --variant m
"$IDLELAB" kernel build "$E2E_TMP/plan.json" --cache "$E2E_TMP/cache-q" --variant m -q > "$E2E_TMP/q.out" 2> "$E2E_TMP/q.err"
[ $? = 0 ] && [ ! -s "$E2E_TMP/q.err" ] && grep -q "^m " "$E2E_TMP/q.out" && ok "kernel build -q: no progress" ||
	bad "kernel build -q: no progress" "$(cat "$E2E_TMP/q.err")"
expect "kernel build again: cached" 0 "m-1 .*\\(cached\\)" "$IDLELAB" kernel build "$E2E_TMP/plan.json" $C --variant m-1
expect "kernel list" 0 "m-1 +6.1.0-il" "$IDLELAB" kernel list $C
sed 's/"patches": "1-2"/"patches": "7"/' "$E2E_TMP/plan.json" > "$E2E_TMP/bad.json"
expect "bad patch selection named" 1 "kernels\\[1\\]: patches: 7 is not in 1-3" "$IDLELAB" kernel prepare "$E2E_TMP/bad.json" $C
sed "s|thread.mbox|bad.mbox|" "$E2E_TMP/plan.json" | sed 's/"patches": "1-2"/"patches": "1"/' > "$E2E_TMP/bad2.json"
expect "a patch that does not apply is named" 1 "patch 1/1 'cpuidle: menu: Return the next state' does not apply" \
	"$IDLELAB" kernel prepare "$E2E_TMP/bad2.json" $C
cat > "$E2E_TMP/run.json" <<JSON
{"name": "r", "host": "local", "workloads": [{"workload": "pingpong", "params": {"loops": 10}}], "iterations": 2,
 "kernels": [{"name": "m", "tarball": "$E2E_TMP/tiny.tar.gz", "arch": "tiny", "targets": ["Image"]}]}
JSON
expect "run: a kernel this host cannot boot is an infra failure, not a result" 0 "run complete" \
	env IDLELAB_CACHE="$E2E_TMP/cache" "$IDLELAB" run "$E2E_TMP/run.json" --out "$E2E_TMP/r" --workloads-dir "$SRC/workloads"
grep -q '"status":"infra_failed","reason":"host .local. cannot boot built kernels: it has no' "$E2E_TMP/r/journal.jsonl" &&
	ok "run: the reason is journalled" || bad "run: the reason is journalled" "$(tail -c 600 "$E2E_TMP/r/journal.jsonl")"
finish
