// SPDX-License-Identifier: GPL-2.0-or-later
/* Strict number parsing (util/parse.c): whole numbers or IL_EPARSE, never 0 for junk. */
#include "testutil.h"

#include <stdint.h>

#include "util/parse.h"

static void test_util_parse__numbers(void **state)
{
	uint64_t u;
	int64_t i;
	double d;

	(void)state;
	assert_int_equal(il_parse_u64(" 42\n", (size_t)-1, &u), 0);
	assert_int_equal(u, 42);
	assert_int_equal(il_parse_u64("18446744073709551615", (size_t)-1, &u), 0);
	assert_int_equal(u, UINT64_MAX);
	assert_int_equal(il_parse_u64("18446744073709551616", (size_t)-1, &u), IL_EPARSE);
	assert_int_equal(il_parse_u64("", (size_t)-1, &u), IL_EPARSE);
	assert_int_equal(il_parse_u64("1 2", (size_t)-1, &u), IL_EPARSE);
	assert_int_equal(il_parse_u64("-1", (size_t)-1, &u), IL_EPARSE);
	assert_int_equal(il_parse_u64("12abc", 2, &u), 0);
	assert_int_equal(u, 12);
	assert_int_equal(il_parse_i64("-1", (size_t)-1, &i), 0);
	assert_int_equal(i, -1);
	assert_int_equal(il_parse_i64("-9223372036854775808", (size_t)-1, &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(il_parse_i64("9223372036854775808", (size_t)-1, &i), IL_EPARSE);
	assert_int_equal(il_parse_i64("- 1", (size_t)-1, &i), IL_EPARSE);
	assert_int_equal(il_parse_double("4.79", (size_t)-1, &d), 0);
	assert_int_equal(il_parse_double("nan", (size_t)-1, &d), IL_EPARSE);
	assert_int_equal(il_parse_double("1e999", (size_t)-1, &d), IL_EPARSE);
	assert_int_equal(il_parse_double("4.7x", (size_t)-1, &d), IL_EPARSE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_parse__numbers),
	};

	return cmocka_run_group_tests_name("util_parse", tests, NULL, NULL);
}
