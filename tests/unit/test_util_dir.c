// SPDX-License-Identifier: GPL-2.0-or-later
/* Directory listing (util/dir.c): the names of one kind of file, sorted. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "util/dir.h"

static void test_util_dir__names(void **state)
{
	struct il_strlist l = { 0 };
	struct il_err err = { 0 };
	char *dir = tu_tmpdir();

	(void)state;
	tu_write(dir, "/b.json", "{}");
	tu_write(dir, "/a.json", "{}");
	tu_write(dir, "/c.txt", "x");
	tu_write(dir, "/.json", "x");
	assert_int_equal(il_dir_names(&l, dir, ".json", &err), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "a");
	assert_string_equal(l.v[1], "b");
	il_strlist_release(&l);
	assert_int_equal(il_dir_names(&l, "/nonexistent-idlelab", ".json", &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "/nonexistent-idlelab"));
	tu_rmtree(dir);
	free(dir);
}

/* Appended after what the list holds: the new names sorted among themselves, the old ones kept first. */
static void test_util_dir__appends(void **state)
{
	struct il_strlist l = { 0 };
	struct il_err err = { 0 };
	char *dir = tu_tmpdir();

	(void)state;
	tu_write(dir, "/y.json", "{}");
	tu_write(dir, "/x.json", "{}");
	assert_int_equal(il_strlist_push(&l, "z"), 0);
	assert_int_equal(il_dir_names(&l, dir, ".json", &err), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0], "z");
	assert_string_equal(l.v[1], "x");
	assert_string_equal(l.v[2], "y");
	il_strlist_release(&l);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_dir__names),
		cmocka_unit_test(test_util_dir__appends),
	};

	return cmocka_run_group_tests_name("util_dir", tests, NULL, NULL);
}
