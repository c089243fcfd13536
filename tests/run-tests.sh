#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run test programs and e2e scripts; print one line per program and, last,
# "N passed, N failed, N skipped" over all test cases.
#   run-tests.sh MODE[@WORLD]:PATH...    MODE: unit | asan | valgrind | e2e; or wait:NAME (tests/prebuild.sh)
# @WORLD runs the program in that cpuidle world (tests/world.sh: none, ...)
# instead of this machine as it is; a world that cannot be made here is a skip.
# cmocka programs count their cases; an e2e script counts its own
# "N passed, N failed, N skipped" line if it prints one, else 1 (exit 0 pass,
# 77 skip, other fail). Skips always show their reason ("skipped: ...").
# Each e2e script has a time budget in tests/budget (one table): its line
# shows its time beside the budget, a script over its budget (or without
# one) is a failure in the closing count, and the slowest ten are listed
# before it. A budget is a summary's judgment, never a timeout: the script
# runs to its end.
set -u
passed=0 failed=0 skipped=0
logdir=${TEST_LOGDIR:-build/test-logs}
mkdir -p "$logdir"
failed_names=""
budgets=${RUN_TESTS_BUDGET:-$(dirname "$0")/budget}
times="$logdir/times.$$"
: > "$times"
over=""
over_names=""

budget_of() { awk -v n="$1" '$1 == n { print $2; exit }' "$budgets" 2>/dev/null; }

num() { sed -n "s/.*$1 *\] *\([0-9][0-9]*\) test.*/\1/p" "$2" | tail -n 1; }

for spec in "$@"; do
	mode=${spec%%:*}
	prog=${spec#*:}
	# wait:NAME: a build tests/prebuild.sh started, before the tests that need it (its wait is no test's time)
	if [ "$mode" = wait ]; then
		t0=$(date +%s)
		"$(dirname "$0")/prebuild.sh" wait "$prog" > "$logdir/prebuild_$prog.log" 2>&1
		rc=$?
		if [ $rc = 0 ]; then
			echo "     prebuild $prog ready (waited $(($(date +%s) - t0)) s)"
		elif [ $rc != 3 ]; then
			echo "FAIL prebuild $prog (exit $rc) — log: $logdir/$prog.prebuild.log"
			sed 's/^/    /' "$logdir/prebuild_$prog.log"
			failed=$((failed + 1))
			failed_names="$failed_names prebuild:$prog"
		fi
		continue
	fi
	name="$mode:$(basename "$prog")"
	log="$logdir/$(echo "$name" | tr ':/@' '___').log"
	world=real
	case $mode in *@*) world=${mode#*@} mode=${mode%%@*} ;; esac
	w="$(dirname "$0")/world.sh $world"
	t0=$(date +%s)
	case $mode in
	unit|asan) $w "$prog" >"$log" 2>&1; rc=$? ;;
	valgrind) $w env IL_TEST_OOM_STRIDE=7 valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
			--error-exitcode=99 "$prog" >"$log" 2>&1; rc=$? ;;
	e2e) $w sh "$prog" >"$log" 2>&1; rc=$? ;;
	*) echo "run-tests: unknown mode '$mode'" >&2; exit 2 ;;
	esac
	# the world could not be made: one skip, with world.sh's reason
	if [ $rc -eq 77 ] && [ "$world" != real ] && grep -q '^world.sh: ' "$log"; then
		why=$(sed -n 's/^world.sh: /skipped: /p' "$log")
		echo "$why" >> "$log"
	fi
	p=$(num PASSED "$log"); f=$(num FAILED "$log"); s=$(num SKIPPED "$log")
	if [ -z "$p$f$s" ]; then
		own=$(grep -E '^[a-z0-9-]*:? ?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
		if [ -n "$own" ]; then
			p=$(echo "$own" | sed 's/.*\b\([0-9][0-9]*\) passed.*/\1/')
			f=$(echo "$own" | sed 's/.* \([0-9][0-9]*\) failed.*/\1/')
			s=$(echo "$own" | sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p')
		elif [ $rc -eq 0 ]; then p=1
		elif [ $rc -eq 77 ]; then s=1
		else f=1
		fi
	fi
	p=${p:-0}; f=${f:-0}; s=${s:-0}
	secs=$(($(date +%s) - t0))
	total_s=$((${total_s:-0} + secs))
	# a crash, a leak or a sanitizer report fails the program even if cases passed
	if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	tb=""
	if [ "$mode" = e2e ]; then
		b=$(budget_of "$name")
		tb="; budget ${b:-none}"
		echo "$secs ${b:--} $name" >> "$times"
		if [ -z "$b" ]; then
			over="$over
  $name: no budget in tests/budget (add one: 1.5 x its time in CI, at least 60 s)"
			over_names="$over_names $name (no budget)"
		elif [ "$secs" -gt "$b" ]; then
			over="$over
  $name: ${secs} s, over its budget of $b s"
			over_names="$over_names $name (over budget)"
		fi
	fi
	if [ "$f" -gt 0 ]; then
		echo "FAIL $name ($p passed, $f failed; exit $rc; ${secs} s$tb) — log: $log"
		tail -n 30 "$log" | sed 's/^/    /'
		failed_names="$failed_names $name"
	else
		if [ "$s" -gt 0 ]; then echo "ok   $name ($p passed, $s skipped; ${secs} s$tb)"; else echo "ok   $name ($p passed; ${secs} s$tb)"; fi
	fi
	grep -h '^skipped: ' "$log" | sort -u | sed 's/^/     /'
done
if [ -s "$times" ]; then
	echo "run-tests: the slowest e2e scripts (seconds, budget):"
	# sed reads to the end (head would close the pipe early: SIGPIPE under a caller's pipefail)
	sort -rn "$times" | sed '11,$d' | awk '{ printf "  %6d %6s  %s\n", $1, $2, $3 }'
fi
rm -f "$times"
if [ -n "$over" ]; then
	echo "run-tests: over budget (tests/budget):$over"
	failed=$((failed + $(echo "$over" | grep -c .)))
	failed_names="$failed_names$over_names"
fi
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "run-tests: ${total_s:-0} s in all"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
