// SPDX-License-Identifier: GPL-2.0-or-later
/* The dump parser (idle/snapshotparse.c): what it models, what it ignores, its errors, cut captures. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "idle/snapshot.h"

static void test_idle_snapshotparse__values_may_contain_colons_and_root_prefix(void **state)
{
	static const char dump[] =
		"/tmp/fx/sys/devices/system/cpu/cpu0/cpuidle/state0/name:WFI\n"
		"/tmp/fx/sys/devices/system/cpu/cpu0/cpuidle/state0/desc:a:b:c\n"
		"/tmp/fx/sys/devices/system/cpu/cpu0/cpuidle/state0/usage:5\n"
		"/tmp/fx/sys/devices/system/cpu/cpu0/cpuidle/state0/time:7\n"
		"/tmp/fx/sys/devices/system/cpu/cpu0/cpuidle/state0/s2idle/usage:99\n"
		"/tmp/fx/sys/devices/system/cpu/cpu0/topology/cluster_cpus:f\n"
		/* timer_list's other lines and hwmon's other files are not modelled */
		"/tmp/fx/proc/timer_list:Timer List Version: v0.9\n"
		"/tmp/fx/proc/timer_list:now at 5000 nsecs\n"
		"/tmp/fx/proc/timer_list:  .offset:     0 nsecs\n"
		"/tmp/fx/sys/class/hwmon/hwmon2/temp1_input:45000\n"
		"/tmp/fx/sys/class/hwmon/hwmon2/power1_input:3000000\n";
	struct il_err err = { 0 };
	struct il_snapshot s;

	(void)state;
	assert_int_equal(il_snapshot_parse(&s, dump, strlen(dump), "t", &err), 0);
	assert_string_equal(s.cpus[0].states[0].desc, "a:b:c");
	assert_int_equal(s.cpus[0].states[0].cnt[IL_C_USAGE].v, 5);
	assert_true(s.has_mono && s.mono_ns == 5000);
	assert_int_equal(s.nhwmon, 0);
	il_snapshot_release(&s);
}

struct bad_case {
	const char *dump;
	const char *expect; /* substring of the error */
};

static void test_idle_snapshotparse__bad_input_clear_errors(void **state)
{
	static const struct bad_case cases[] = {
		{ "/sys/devices/system/cpu/cpu0/cpuidle/state0/usage:12", "no final newline" },
		{ "/sys/devices/system/cpu/cpu0/cpuidle/state0/name:WFI\n"
		  "/sys/devices/system/cpu/cpu0/cpuidle/state0/usage:x12\n",
		  "line 2: '/sys/devices/system/cpu/cpu0/cpuidle/state0/usage': expected an unsigned integer, got 'x12'" },
		{ "/sys/devices/system/cpu/cpu0/cpuidle/state0/usage:-1\n", "expected an unsigned integer" },
		{ "/sys/devices/system/cpu/cpu0/cpuidle/state0/usage:99999999999999999999999\n", "expected an unsigned integer" },
		{ "Binary file matches\n", "line 1: expected 'path:value'" },
		{ "/sys/devices/system/cpu/online\n", "expected 'path:value'" },
		{ "/sys/devices/system/cpu/online:0-\n", "invalid CPU list" },
		{ "/sys/devices/system/cpu/cpu0/cpuidle/state0/name:A\n"
		  "/sys/devices/system/cpu/cpu0/cpuidle/state0/name:B\n",
		  "appears twice" },
		{ "/sys/devices/system/cpu/cpu0/cpuidle/state0/name:WFI\n"
		  "/sys/devices/system/cpu/cpu0/cpuidle/state0/time:1\n",
		  "cpu0 state0 has no 'usage'" },
		{ "/sys/devices/system/cpu/cpu0/cpuidle/state0/name:WFI\n"
		  "/sys/devices/system/cpu/cpu0/cpuidle/state0/usage:1\n"
		  "/sys/devices/system/cpu/cpu0/cpuidle/state0/time:1\n"
		  "/sys/devices/system/cpu/cpu0/cpuidle/state2/usage:1\n",
		  "cpu0 state1 has no 'name'" },
		{ "/proc/uptime:abc 1\n", "expected seconds" },
		{ "/proc/timer_list:now at 12x nsecs\n", "expected 'now at N nsecs'" },
		{ "/proc/timer_list:now at 12\n", "expected 'now at N nsecs'" },
		{ "/proc/timer_list:now at 1 nsecs\n/proc/timer_list:now at 2 nsecs\n", "'now at' appears twice" },
		{ "/sys/power/suspend_stats/success:many\n", "expected an unsigned integer" },
		{ "/sys/class/hwmon/hwmon0/energy1_input:-5\n", "expected an unsigned integer" },
		{ "/sys/class/hwmon/hwmon0/energy1_label:A\n/sys/class/hwmon/hwmon0/energy1_label:B\n", "appears twice" },
		{ "/sys/devices/system/cpu/cpu0/cpuidle/state99/usage:1\n", "state index out of range" },
		{ "/sys/devices/system/cpu/cpu0/topology/cluster_id:one\n", "expected an integer" },
	};
	static const char nul[] = "/sys/devices/system/cpu/cpu0/cpuidle/state0/name:W\0FI\n";

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct il_err err = { 0 };
		struct il_snapshot s;
		int r = il_snapshot_parse(&s, cases[i].dump, strlen(cases[i].dump), "bad.txt", &err);

		if (r != IL_EPARSE || !strstr(err.msg, cases[i].expect) || !strstr(err.msg, "bad.txt"))
			fail_msg("case %zu: r=%d msg='%s', wanted '%s'", i, r, err.msg, cases[i].expect);
	}
	{
		struct il_err err = { 0 };
		struct il_snapshot s;

		assert_int_equal(il_snapshot_parse(&s, nul, sizeof(nul) - 1, "bad.txt", &err), IL_EPARSE);
		assert_non_null(strstr(err.msg, "NUL byte"));
	}
}

static void test_idle_snapshotparse__truncated_capture(void **state)
{
	struct il_err err = { 0 };
	struct il_snapshot s;
	size_t len;
	char *text = tu_read(tu_fixture("labvm-arm64-after.txt"), &len);

	(void)state;
	/* every cut point of a real capture is either an error or a complete parse, never a crash */
	for (size_t cut = 0; cut < len; cut += 7) {
		int r = il_snapshot_parse(&s, text, cut, "cut", &err);

		if (!r)
			il_snapshot_release(&s);
		else
			assert_int_equal(r, IL_EPARSE);
	}
	/* cut in the middle of cpu1's state table (after a full line): a clear error */
	{
		const char *p = strstr(text, "/sys/devices/system/cpu/cpu1/cpuidle/state2/usage");

		assert_non_null(p);
		assert_int_equal(il_snapshot_parse(&s, text, (size_t)(p - text), "cut", &err), IL_EPARSE);
		assert_non_null(strstr(err.msg, "cpu1 state"));
	}
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_snapshotparse__values_may_contain_colons_and_root_prefix),
		cmocka_unit_test(test_idle_snapshotparse__bad_input_clear_errors),
		cmocka_unit_test(test_idle_snapshotparse__truncated_capture),
	};

	return cmocka_run_group_tests_name("idle_snapshotparse", tests, NULL, NULL);
}
