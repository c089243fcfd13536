// SPDX-License-Identifier: GPL-2.0-or-later
/* Lists of owned strings (util/strlist.c): split, pushed, tested, joined, sorted. */
#include "testutil.h"

#include <string.h>

#include "util/strlist.h"

static void test_util_strlist__split_on_blanks(void **state)
{
	struct il_strlist l = { 0 };
	struct il_buf b = IL_BUF_INIT;

	(void)state;
	assert_int_equal(il_strlist_split(&l, "  menu\tteo\n ladder "), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0], "menu");
	assert_string_equal(l.v[2], "ladder");
	/* appended, not replaced */
	assert_int_equal(il_strlist_split(&l, "haltpoll"), 0);
	assert_int_equal(il_strlist_split(&l, " \t\n"), 0);
	assert_int_equal(l.n, 4);
	assert_int_equal(il_strlist_join(&l, &b), 0);
	assert_string_equal(il_buf_str(&b), "menu teo ladder haltpoll");
	il_strlist_release(&l);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
	il_buf_release(&b);
}

static void test_util_strlist__split_on_separator(void **state)
{
	struct il_strlist l = { 0 };

	(void)state;
	assert_int_equal(il_strlist_split_on(&l, ",a,b,,c,", ','), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0], "a");
	assert_string_equal(l.v[1], "b");
	assert_string_equal(l.v[2], "c");
	assert_int_equal(il_strlist_split_on(&l, "", ','), 0);
	assert_int_equal(l.n, 3);
	il_strlist_release(&l);
}

static void test_util_strlist__push_has_sort(void **state)
{
	struct il_strlist l = { 0 };
	char word[] = "teo";

	(void)state;
	assert_int_equal(il_strlist_push(&l, word), 0);
	assert_int_equal(il_strlist_push(&l, "menu"), 0);
	assert_int_equal(il_strlist_push(&l, "ladder"), 0);
	/* a copy: the caller's string may change */
	word[0] = 'x';
	assert_true(il_strlist_has(&l, "teo"));
	assert_false(il_strlist_has(&l, "xeo"));
	assert_false(il_strlist_has(&l, "te"));
	il_strlist_sort(&l);
	assert_string_equal(l.v[0], "ladder");
	assert_string_equal(l.v[1], "menu");
	assert_string_equal(l.v[2], "teo");
	il_strlist_release(&l);
	assert_false(il_strlist_has(&l, "teo"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_strlist__split_on_blanks),
		cmocka_unit_test(test_util_strlist__split_on_separator),
		cmocka_unit_test(test_util_strlist__push_has_sort),
	};

	return cmocka_run_group_tests_name("util_strlist", tests, NULL, NULL);
}
