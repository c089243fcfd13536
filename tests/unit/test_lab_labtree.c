// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lab/labtree: what --tree SPEC names (a Debian linux-source version, a
 * tarball, a git repository DIR[@REV]), the default tree, and the errors that
 * name what was expected or what is missing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/labtree.h"
#include "testutil.h"
#include "util/str.h"

static void test_labtree__debian_versions_and_the_default(void **state)
{
	struct il_lab_tree t;
	struct il_err err = { 0 };

	(void)state;
	/* the default is 6.12, Debian 12's current linux-source */
	assert_int_equal(il_lab_tree_parse(&t, NULL, &err), 0);
	assert_int_equal(t.kind, IL_LAB_TREE_DEBIAN);
	assert_string_equal(t.spec, "6.12");
	assert_string_equal(t.path, "/usr/src/linux-source-6.12.tar.xz");
	assert_string_equal(t.tag, "6.12");
	assert_string_equal(t.origin, "Debian linux-source-6.12 (/usr/src/linux-source-6.12.tar.xz)");
	il_lab_tree_release(&t);
	assert_true(il_lab_tree_is_default(NULL) && il_lab_tree_is_default("") && il_lab_tree_is_default("6.12"));
	assert_false(il_lab_tree_is_default("6.1"));
	/* 6.1 stays selectable */
	assert_int_equal(il_lab_tree_parse(&t, "6.1", &err), 0);
	assert_int_equal(t.kind, IL_LAB_TREE_DEBIAN);
	assert_string_equal(t.path, "/usr/src/linux-source-6.1.tar.xz");
	assert_string_equal(t.tag, "6.1");
	il_lab_tree_release(&t);
	/* a version whose package is missing parses; the check names the package */
	assert_int_equal(il_lab_tree_parse(&t, "5.99", &err), 0);
	assert_int_equal(il_lab_tree_check(&t, &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "apt-get install linux-source-5.99"));
	il_lab_tree_release(&t);
}

static void test_labtree__tarballs_and_repositories(void **state)
{
	char *dir = tu_tmpdir(), spec[4200], *tb = NULL;
	struct il_lab_tree t;
	struct il_err err = { 0 };
	FILE *f;

	(void)state;
	tb = il_str_dup_printf("%s/linux-6.13-rc1.tar.gz", dir);
	assert_non_null(f = fopen(tb, "w"));
	fclose(f);
	assert_int_equal(il_lab_tree_parse(&t, tb, &err), 0);
	assert_int_equal(t.kind, IL_LAB_TREE_TARBALL);
	assert_string_equal(t.tag, "linux-6.13-rc1");
	assert_non_null(strstr(t.origin, "the tarball "));
	assert_int_equal(il_lab_tree_check(&t, &err), 0);
	il_lab_tree_release(&t);
	/* a directory, with and without @REV: tags differ, so two revisions get two lab directories */
	assert_int_equal(il_lab_tree_parse(&t, dir, &err), 0);
	assert_int_equal(t.kind, IL_LAB_TREE_REPO);
	assert_null(t.rev);
	assert_int_equal(strncmp(t.tag, "tree-", 5), 0);
	assert_non_null(strstr(t.origin, " at HEAD"));
	snprintf(spec, sizeof(spec), "%s", t.tag);
	il_lab_tree_release(&t);
	{
		char at[4200];

		snprintf(at, sizeof(at), "%s@v6.13", dir);
		assert_int_equal(il_lab_tree_parse(&t, at, &err), 0);
	}
	assert_int_equal(t.kind, IL_LAB_TREE_REPO);
	assert_string_equal(t.rev, "v6.13");
	assert_string_not_equal(t.tag, spec);
	assert_non_null(strstr(t.origin, " at v6.13"));
	il_lab_tree_release(&t);
	/* nothing of the three: the error says what was expected */
	assert_int_equal(il_lab_tree_parse(&t, "/nonexistent/linux", &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "--tree /nonexistent/linux: expected a Debian linux-source version (6.1, 6.12), "
					"a kernel tarball, or a git repository DIR[@REV]"));
	unlink(tb);
	free(tb);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labtree__debian_versions_and_the_default),
		cmocka_unit_test(test_labtree__tarballs_and_repositories),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
