// SPDX-License-Identifier: GPL-2.0-or-later
/* The clocks (util/clock.c): the monotonic seconds and the wall clock's ISO 8601 UTC form. */
#include "testutil.h"

#include <string.h>
#include <time.h>

#include "util/clock.h"

static void test_util_clock__iso_now(void **state)
{
	char out[32], cut[12];
	struct tm tm = { 0 };
	const char *end;

	(void)state;
	il_clock_iso_now(out, sizeof(out));
	/* YYYY-MM-DDTHH:MM:SS.mmmZ */
	assert_int_equal(strlen(out), 24);
	end = strptime(out, "%Y-%m-%dT%H:%M:%S", &tm);
	assert_non_null(end);
	assert_true(end[0] == '.' && strspn(end + 1, "0123456789") == 3 && !strcmp(end + 4, "Z"));
	assert_true(tm.tm_year + 1900 >= 2024);
	/* cut to the buffer, always terminated */
	il_clock_iso_now(cut, sizeof(cut));
	assert_int_equal(strlen(cut), sizeof(cut) - 1);
	assert_memory_equal(cut, out, 4);
}

static void test_util_clock__mono_goes_forward(void **state)
{
	double a = il_clock_mono_s(), b;
	struct timespec ns = { 0, 2000000 };

	(void)state;
	nanosleep(&ns, NULL);
	b = il_clock_mono_s();
	assert_true(b - a >= 0.002);
	assert_true(b - a < 5.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_clock__iso_now),
		cmocka_unit_test(test_util_clock__mono_goes_forward),
	};

	return cmocka_run_group_tests_name("util_clock", tests, NULL, NULL);
}
