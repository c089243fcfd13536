// SPDX-License-Identifier: GPL-2.0-or-later
/* Search paths (util/search.c) and the named-config loader through one (util/jsonfile.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "util/jsonfile.h"
#include "util/search.h"
#include "util/str.h"

static void test_util_search__split_skips_empty(void **state)
{
	struct il_strlist l = { 0 };

	(void)state;
	assert_int_equal(il_search_split(&l, "a::b:"), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "a");
	assert_string_equal(l.v[1], "b");
	il_strlist_release(&l);
	assert_int_equal(il_search_split(&l, NULL), 0);
	assert_int_equal(l.n, 0);
}

static void test_util_search__first_directory_wins(void **state)
{
	char *d = tu_tmpdir(), *sp, *found;
	struct il_strlist names = { 0 };
	struct il_err err = { 0 };
	json_t *j;

	(void)state;
	tu_write(d, "/user/fio.json", "{\"from\": \"user\"}");
	tu_write(d, "/sys/fio.json", "{\"from\": \"sys\"}");
	tu_write(d, "/sys/sleeper.json", "{\"from\": \"sys\"}");
	tu_write(d, "/sys/README.md", "not a definition");
	assert_non_null(sp = il_str_dup_printf("%s/missing:%s/user:%s/sys", d, d, d));
	assert_int_equal(il_search_find(&found, sp, "fio.json"), 0);
	assert_non_null(found);
	assert_non_null(strstr(found, "/user/fio.json"));
	free(found);
	assert_int_equal(il_search_find(&found, sp, "none.json"), 0);
	assert_null(found);
	/* each name once, sorted; a missing directory among others is no error */
	assert_int_equal(il_search_names(&names, sp, ".json", &err), 0);
	assert_int_equal(names.n, 2);
	assert_string_equal(names.v[0], "fio");
	assert_string_equal(names.v[1], "sleeper");
	il_strlist_release(&names);
	/* the loader takes the user's file and names it */
	assert_int_equal(il_json_load_named(sp, "fio", "workload", "definition", &j, &found, &err), 0);
	assert_string_equal(json_string_value(json_object_get(j, "from")), "user");
	assert_non_null(strstr(found, "/user/fio.json"));
	json_decref(j);
	free(found);
	assert_int_equal(il_json_load_named(sp, "sleeper", "workload", "definition", &j, &found, &err), 0);
	assert_string_equal(json_string_value(json_object_get(j, "from")), "sys");
	json_decref(j);
	free(found);
	/* not found anywhere: the message names the search path */
	assert_int_equal(il_json_load_named(sp, "nope", "workload", "definition", &j, &found, &err), IL_ENOTFOUND);
	assert_null(found);
	assert_non_null(strstr(err.msg, "workload 'nope': no definition 'nope.json' in '"));
	free(sp);
	tu_rmtree(d);
	free(d);
}

static void test_util_search__no_directory_opens(void **state)
{
	struct il_strlist names = { 0 };
	struct il_err err = { 0 };
	json_t *j;
	char *path;

	(void)state;
	assert_int_equal(il_search_names(&names, "/nonexistent/a:/nonexistent/b", ".json", &err), IL_ENOTFOUND);
	assert_string_equal(err.msg, "cannot open directory '/nonexistent/a'");
	/* a plain directory keeps its old message */
	assert_int_equal(il_json_load_named("/nonexistent/a", "x", "host", "inventory file", &j, &path, &err), IL_ENOTFOUND);
	assert_string_equal(err.msg, "host 'x': no inventory file '/nonexistent/a/x.json' (see 'idlelab host list')");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_search__split_skips_empty),
		cmocka_unit_test(test_util_search__first_directory_wins),
		cmocka_unit_test(test_util_search__no_directory_opens),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
