#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The test runner itself (tests/run-tests.sh, issue #40): each e2e script's time
# beside its budget (tests/budget, here a budget file of the test's own through
# RUN_TESTS_BUDGET), the slowest ones listed, and a script over its budget or
# without one a failure in the closing count, though its own checks passed;
# wait:NAME for a build tests/prebuild.sh never started is no test and no failure.
. "$(dirname "$0")/lib.sh"
RT="$(cd "$(dirname "$0")/.." && pwd)/run-tests.sh"
T=$E2E_TMP
mkdir -p "$T/s"
printf '#!/bin/sh\necho "2 passed, 0 failed"\n' > "$T/s/quick.sh"
printf '#!/bin/sh\nsleep 2\necho "1 passed, 0 failed"\n' > "$T/s/slow.sh"
printf '#!/bin/sh\necho "1 passed, 0 failed"\n' > "$T/s/nobudget.sh"
printf '# name budget\ne2e:quick.sh 60\ne2e:slow.sh 1\n' > "$T/budget"
TEST_LOGDIR="$T/logs" RUN_TESTS_BUDGET="$T/budget" sh "$RT" e2e:"$T/s/quick.sh" e2e:"$T/s/slow.sh" \
	e2e:"$T/s/nobudget.sh" wait:lab-nothing > "$T/out" 2>&1
rc=$?
[ $rc != 0 ] && tail -n 1 "$T/out" | grep -qx "4 passed, 2 failed, 0 skipped" &&
	ok "scripts whose checks passed but that are over or without a budget fail the count" ||
	bad "scripts whose checks passed but that are over or without a budget fail the count" "exit $rc: $(cat "$T/out")"
grep -q "^ok   e2e:quick.sh (2 passed; [0-9]* s; budget 60)$" "$T/out" &&
	grep -q "^  e2e:slow.sh: [0-9]* s, over its budget of 1 s$" "$T/out" &&
	grep -q "^  e2e:nobudget.sh: no budget in tests/budget" "$T/out" &&
	grep -qx "failed: e2e:slow.sh (over budget) e2e:nobudget.sh (no budget)" "$T/out" &&
	ok "each script's time beside its budget; what is over said by name" ||
	bad "each script's time beside its budget; what is over said by name" "$(cat "$T/out")"
sed -n '/the slowest e2e scripts/,/^run-tests: over/p' "$T/out" | sed -n 2p | grep -q "^ *[2-9] *1  e2e:slow.sh$" &&
	ok "the slowest scripts listed first" || bad "the slowest scripts listed first" "$(cat "$T/out")"
! grep -q "lab-nothing" "$T/out" && ok "wait: for a build never started is nothing" ||
	bad "wait: for a build never started is nothing" "$(cat "$T/out")"
# within budget: a clean count
printf 'e2e:quick.sh 60\n' > "$T/budget"
TEST_LOGDIR="$T/logs" RUN_TESTS_BUDGET="$T/budget" sh "$RT" e2e:"$T/s/quick.sh" > "$T/out2" 2>&1 &&
	tail -n 1 "$T/out2" | grep -qx "2 passed, 0 failed, 0 skipped" && ! grep -q "over budget" "$T/out2" &&
	ok "within its budget: a clean count" || bad "within its budget: a clean count" "$(cat "$T/out2")"
finish
