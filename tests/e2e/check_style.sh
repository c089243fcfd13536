#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-style (tests/check-style.py, issue #43): first on a small tree that breaks each
# rule once (tests/fixtures/style, compiled here so the object rules have objects), so that a
# checker that stopped seeing a rule fails here; then on idlelab's own tree, which must be clean.
. "$(dirname "$0")/lib.sh"
SRC=${IL_SRCDIR:-.}
SRC=$(cd "$SRC" && pwd)
CHECK="$SRC/tests/check-style.py"
T=$E2E_TMP/tree
cp -R "$SRC/tests/fixtures/style" "$T"
# a pair over 700 lines, made here rather than kept as a 700-line fixture
{ printf '// SPDX-License-Identifier: GPL-2.0-or-later\n/* Too long a pair. */\nint il_big_n(void);\n'
  i=0; while [ $i -lt 700 ]; do printf '/* line %d */\n' $i; i=$((i + 1)); done
  printf 'int il_big_n(void)\n{\n\treturn 0;\n}\n'; } >"$T/src/idle/big.c"
cd "$T" || exit 1
for c in $(find src -name '*.c'); do
	mkdir -p "obj/$(dirname "$c")"
	cc -std=c11 -Wno-implicit-function-declaration -Isrc -c "$c" -o "obj/${c%.c}.o" 2>"$E2E_TMP/cc.err" ||
		bad "fixture $c compiles" "$(cat "$E2E_TMP/cc.err")"
done
out=$(python3 "$CHECK" --objdir obj 2>&1); rc=$?
[ $rc = 1 ] && ok "a tree with findings: exit status 1" || bad "a tree with findings: exit status 1, not $rc" "$out"
has() { # RULE PATTERN WHAT
	printf '%s\n' "$out" | grep -Eq "$2" && ok "$3" || bad "$3 (no line like: $2)" "$out"
}
has header '^src/util/bad\.c:2: header: ' "header: a file with no comment saying what it owns"
has pair '^src/idle/big\.c:1: pair: src/idle/big\.c/\.h: 70[0-9] lines' "pair: a .c/.h pair over 700 lines"
has function '^src/util/bad\.c:[0-9]+: function: il_bad_long: 20[0-9] lines' "function: a function over 200 lines"
has prefix 'prefix: helper_unprefixed is exported without its file' "prefix: an exported name without its file's prefix"
has oom '^src/util/bad\.c:16: oom: ' "oom: a hand-written out of memory"
has print '^src/util/bad\.c:16: print: library code prints \(printf\)' "print: library code printing"
has exit '^src/util/bad\.c:17: exit: library code exits \(exit\)' "exit: library code exiting"
has unchecked '^src/util/bad\.c:15: unchecked: il_bad_push' "unchecked: an IL_MUST_CHECK result dropped"
has floor '^src/util/bad\.c:3: include: util/ includes idle/up\.h, a higher floor' "include: a lower floor including a higher one"
has headers 'include: headers include each other: idle/down\.h -> idle/up\.h' "include: headers including each other"
has files 'include: files use each other \(a circle\): idle/down\.c, idle/up\.c' "include: files using each other's symbols"
has stale '^tests/style-allow:3: allow: prefix src/util/good\.c il_gone matches nothing' "allow: an exception that matches nothing is itself a finding"
has reason '^tests/style-allow:4: allow: expected `RULE PATH NAME -- reason`' "allow: an exception without a reason"
printf '%s\n' "$out" | grep -Eq '^src/util/(good|goodrun|proc)\.c' &&
	bad "the clean files (the family prefix, a used result, a word in a comment, an allowed _exit) have no finding" "$out" ||
	ok "the clean files (the family prefix, a used result, a word in a comment, an allowed _exit) have no finding"
# idlelab itself
OBJ=${IL_BUILD:-$SRC/build/release}
cd "$SRC" || exit 1
if [ -d "$OBJ/src" ]; then
	expect "idlelab's own tree passes make check-style" 0 "" python3 "$CHECK" --objdir "$OBJ"
else
	bad "idlelab's objects in $OBJ/src (build first)"
fi
finish
