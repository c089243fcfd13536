// SPDX-License-Identifier: GPL-2.0-or-later
/* CPU sets (idle/cpuset.c): the kernel's CPU list syntax parsed, tested and formatted back. */
#include "testutil.h"

#include <string.h>

#include "idle/cpuset.h"
#include "util/buf.h"

static void test_idle_cpuset__parse_has_format(void **state)
{
	struct il_cpuset s;
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_cpuset_parse(&s, "8,0-3,2,5-6\n", &err), 0);
	assert_int_equal(s.n, 7);
	assert_true(il_cpuset_has(&s, 5));
	assert_false(il_cpuset_has(&s, 4));
	assert_int_equal(il_cpuset_format(&s, &b), 0);
	assert_string_equal(il_buf_str(&b), "0-3,5-6,8");
	il_cpuset_release(&s);
	assert_int_equal(il_cpuset_parse(&s, "", &err), 0);
	assert_int_equal(s.n, 0);
	static const char *const bad[] = { "3-1", "a", "1,,2", "0-", "-1", "70000", "1-2-3" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (il_cpuset_parse(&s, bad[i], &err) != IL_EPARSE)
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err.msg, bad[i]));
	}
	il_buf_release(&b);
}

/* Built in increasing order: a CPU not above the last is ignored (a repeat is harmless). */
static void test_idle_cpuset__append(void **state)
{
	struct il_cpuset s = { 0 };
	struct il_buf b = IL_BUF_INIT;

	(void)state;
	assert_int_equal(il_cpuset_append(&s, 0), 0);
	assert_int_equal(il_cpuset_append(&s, 2), 0);
	assert_int_equal(il_cpuset_append(&s, 2), 0);
	assert_int_equal(il_cpuset_append(&s, 1), 0);
	assert_int_equal(il_cpuset_append(&s, 3), 0);
	assert_int_equal(s.n, 3);
	assert_true(il_cpuset_has(&s, 3));
	assert_false(il_cpuset_has(&s, 1));
	assert_int_equal(il_cpuset_format(&s, &b), 0);
	assert_string_equal(il_buf_str(&b), "0,2-3");
	il_cpuset_release(&s);
	assert_null(s.cpu);
	il_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_cpuset__parse_has_format),
		cmocka_unit_test(test_idle_cpuset__append),
	};

	return cmocka_run_group_tests_name("idle_cpuset", tests, NULL, NULL);
}
