// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What root may trust (util/trust.c): a file and every directory above it
 * root's or this user's and writable by no one else; a root-owned sticky
 * directory passed over for an entry root or the user owns; a symbolic link
 * judged by its target; a directory not made yet by its nearest ancestor.
 * The cases that need another owner run as root (chown), as idlelab does.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"
#include "util/trust.h"

static void put(const char *dir, const char *name, char *path, size_t n)
{
	FILE *f;

	snprintf(path, n, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{}\n", f);
	fclose(f);
	chmod(path, 0644);
}

static void test_trust__modes_and_parents(void **state)
{
	char *dir = tu_tmpdir(), sub[600], f[700], g[700], link[700], why[4200];

	(void)state;
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	put(sub, "ok.json", f, sizeof(f));
	assert_int_equal(il_trust_path(f, why, sizeof(why)), 0);
	/* the file writable by others, then by its group */
	chmod(f, 0666);
	assert_int_equal(il_trust_path(f, why, sizeof(why)), IL_EPERM);
	assert_non_null(strstr(why, "ok.json: writable by others (mode 0666)"));
	chmod(f, 0664);
	assert_int_equal(il_trust_path(f, why, sizeof(why)), IL_EPERM);
	assert_non_null(strstr(why, "writable by its group (mode 0664)"));
	chmod(f, 0644);
	/* a directory above it writable by others (not sticky): whoever can write there can swap the file */
	chmod(sub, 0777);
	assert_int_equal(il_trust_path(f, why, sizeof(why)), IL_EPERM);
	assert_non_null(strstr(why, "/sub: writable by others (mode 0777)"));
	/* sticky and ours: a rename of our file by another user is impossible, but the directory is not root's */
	chmod(sub, 01777);
	if (geteuid() == 0) {
		/* root's sticky directory (as /tmp): passed over for the entry root owns */
		assert_int_equal(il_trust_path(f, why, sizeof(why)), 0);
		/* ... not for one another user owns */
		assert_int_equal(chown(f, 1234, 1234), 0);
		assert_int_equal(il_trust_path(f, why, sizeof(why)), IL_EPERM);
		assert_non_null(strstr(why, "ok.json: owned by uid 1234 (not root or this user)"));
		assert_int_equal(chown(f, 0, 0), 0);
		/* a directory above owned by another user */
		chmod(sub, 0755);
		assert_int_equal(chown(sub, 1234, 1234), 0);
		assert_int_equal(il_trust_path(f, why, sizeof(why)), IL_EPERM);
		assert_non_null(strstr(why, "/sub: owned by uid 1234 (not root or this user)"));
		assert_int_equal(chown(sub, 0, 0), 0);
	}
	chmod(sub, 0755);
	/* a symbolic link is judged by its target */
	put(dir, "target.json", g, sizeof(g));
	chmod(g, 0666);
	snprintf(link, sizeof(link), "%s/link.json", sub);
	assert_int_equal(symlink(g, link), 0);
	assert_int_equal(il_trust_path(link, why, sizeof(why)), IL_EPERM);
	assert_non_null(strstr(why, "target.json: writable by others"));
	/* missing: not found, said */
	snprintf(link, sizeof(link), "%s/none.json", sub);
	assert_int_equal(il_trust_path(link, why, sizeof(why)), IL_ENOTFOUND);
	assert_non_null(strstr(why, "none.json: No such file or directory"));
	/* a directory to be made: judged by what holds it */
	snprintf(link, sizeof(link), "%s/cache/idlelab", sub);
	assert_int_equal(il_trust_dir(link, why, sizeof(why)), 0);
	chmod(sub, 0777);
	assert_int_equal(il_trust_dir(link, why, sizeof(why)), IL_EPERM);
	assert_non_null(strstr(why, "/sub: writable by others (mode 0777)"));
	chmod(sub, 0755);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trust__modes_and_parents),
	};

	return cmocka_run_group_tests_name("util_trust", tests, NULL, NULL);
}
