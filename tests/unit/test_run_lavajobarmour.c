// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A LAVA job's files read back from its console (run/lavajobarmour.c):
 * damage on the way (a changed character, a lost line, a missing end, noise
 * between the lines, a block sent twice) never comes back as data.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/lavajob.h"
#include "util/sha256.h"

/* Damage on the way: a changed character, a lost line, a missing end, noise between the lines. */
static void test_lavajob__unarmour(void **state)
{
	/* "hello idle\n" is aGVsbG8gaWRsZQo= (11 bytes) */
	struct il_sha256 h;
	char hex[65], begin[200];
	struct il_lavajob_file *f;
	struct il_err err = { 0 };
	size_t n;

	(void)state;
	assert_int_equal(il_sha256_init(&h), 0);
	il_sha256_update(&h, "hello idle\n", 11);
	il_sha256_final(&h, hex);
	snprintf(begin, sizeof(begin), "IDLELAB-BEGIN a %s 11", hex);
	{
		const char *lines[] = { "boot noise", begin, "+ base64 /tmp/x", "aGVsbG8g", "<LAVA_SIGNAL_TESTCASE x>",
					"aWRsZQo=", "IDLELAB-END a", "after" };

		assert_int_equal(il_lavajob_unarmour(lines, 8, &f, &n, &err), 0);
		assert_int_equal(n, 1);
		assert_true(f[0].ok);
		assert_int_equal(f[0].data.len, 11);
		assert_memory_equal(f[0].data.p, "hello idle\n", 11);
		il_lavajob_files_release(f, n);
	}
	{
		/* one character changed on the console: same length, other bytes */
		const char *lines[] = { begin, "aGVsbG8h", "aWRsZQo=", "IDLELAB-END a" };

		assert_int_equal(il_lavajob_unarmour(lines, 4, &f, &n, &err), 0);
		assert_false(f[0].ok);
		assert_non_null(strstr(f[0].why, "SHA-256"));
		assert_int_equal(f[0].data.len, 0);
		il_lavajob_files_release(f, n);
	}
	{
		/* a line lost, a file never ended, then another file */
		const char *lines[] = { begin, "aWRsZQo=", "IDLELAB-END a", begin, "aGVsbG8g", begin, "aGVsbG8g", "aWRsZQo=" };

		assert_int_equal(il_lavajob_unarmour(lines, 8, &f, &n, &err), 0);
		assert_int_equal(n, 3);
		assert_false(f[0].ok);
		assert_non_null(strstr(f[0].why, "bytes arrived"));
		assert_false(f[1].ok);
		assert_non_null(strstr(f[1].why, "next file began"));
		assert_false(f[2].ok);
		assert_non_null(strstr(f[2].why, "never came"));
		il_lavajob_files_release(f, n);
	}
	{
		/* malformed BEGIN lines are not files; an END for another name does not end this one */
		const char *lines[] = { "IDLELAB-BEGIN a nothex 11", "IDLELAB-BEGIN a", begin, "aGVsbG8g", "IDLELAB-END b",
					"aWRsZQo=", "IDLELAB-END a" };

		assert_int_equal(il_lavajob_unarmour(lines, 7, &f, &n, &err), 0);
		assert_int_equal(n, 1);
		assert_true(f[0].ok);
		il_lavajob_files_release(f, n);
	}
	{
		/* a complete file of a name sent twice (a workload printed a block of its own): neither wins */
		const char *lines[] = { begin, "aGVsbG8g", "aWRsZQo=", "IDLELAB-END a",
					begin, "aGVsbG8g", "aWRsZQo=", "IDLELAB-END a" };

		assert_int_equal(il_lavajob_unarmour(lines, 8, &f, &n, &err), 0);
		assert_int_equal(n, 2);
		assert_false(f[0].ok);
		assert_false(f[1].ok);
		assert_non_null(strstr(f[0].why, "sent twice"));
		assert_int_equal(f[0].data.len, 0);
		il_lavajob_files_release(f, n);
	}
	assert_int_equal(il_lavajob_unarmour(NULL, 0, &f, &n, &err), 0);
	assert_int_equal(n, 0);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lavajob__unarmour),
	};

	return cmocka_run_group_tests_name("run_lavajobarmour", tests, NULL, NULL);
}
