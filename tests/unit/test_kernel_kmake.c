// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel/kmake: make's command line and log (a real make on a small
 * Makefile), the image an arch builds, mkdir -p that names the directory it
 * could not make, and file copies that name the file they could not read.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel/kmake.h"

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static void test_kmake__mkdirs(void **state)
{
	char *dir = tu_tmpdir(), p[600], want[700];
	struct il_err err = { 0 };

	(void)state;
	/* every level made; made again is fine, with or without a trailing slash */
	snprintf(p, sizeof(p), "%s/a/b/c", dir);
	assert_int_equal(il_kmake_mkdirs(p, &err), 0);
	assert_true(is_dir(p));
	assert_int_equal(il_kmake_mkdirs(p, &err), 0);
	snprintf(p, sizeof(p), "%s/a/b/c/", dir);
	assert_int_equal(il_kmake_mkdirs(p, &err), 0);
	/* a regular file in the way: the directory under it is named, whatever follows it */
	tu_write(dir, "/a/file", "x\n");
	snprintf(p, sizeof(p), "%s/a/file/sub/deeper", dir);
	assert_int_equal(il_kmake_mkdirs(p, &err), IL_EIO);
	snprintf(want, sizeof(want), "cannot create directory '%s/a/file/sub': ", dir);
	assert_non_null(strstr(err.msg, want));
	assert_null(strstr(err.msg, "deeper"));
	tu_rmtree(dir);
	free(dir);
}

static void test_kmake__copy(void **state)
{
	char *dir = tu_tmpdir(), from[600], to[600], *got, *sent;
	struct il_err err = { 0 };

	(void)state;
	tu_write(dir, "/from", "line 1\nline 2\n");
	snprintf(from, sizeof(from), "%s/from", dir);
	snprintf(to, sizeof(to), "%s/to", dir);
	assert_int_equal(il_kmake_copy(from, to, &err), 0);
	got = tu_read(to, NULL);
	sent = tu_read(from, NULL);
	assert_non_null(strstr(got, "line 1\nline 2\n"));
	assert_string_equal(got, sent);
	free(got), free(sent);
	snprintf(from, sizeof(from), "%s/missing", dir);
	assert_int_equal(il_kmake_copy(from, to, &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, from));
	tu_rmtree(dir);
	free(dir);
}

static void test_kmake__image(void **state)
{
	static const char *const cases[][2] = {
		{ "arm64", "Image" }, { "x86", "bzImage" }, { "x86_64", "bzImage" }, { "arm", "zImage" }, { "riscv", "all" },
	};
	struct il_kvar v = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v.cfg.arch = (char *)cases[i][0];
		assert_string_equal(il_kmake_image(&v), cases[i][1]);
	}
	/* the plan's first target wins */
	assert_int_equal(il_strlist_push(&v.cfg.targets, "vmlinux"), 0);
	assert_int_equal(il_strlist_push(&v.cfg.targets, "dtbs"), 0);
	assert_string_equal(il_kmake_image(&v), "vmlinux");
	il_strlist_release(&v.cfg.targets);
}

static void test_kmake__run(void **state)
{
	char *dir = tu_tmpdir(), src[600], obj[600], want[1500];
	char *all[] = { (char *)"all", NULL }, *fail[] = { (char *)"fail", NULL }, *quiet[] = { (char *)"true", NULL };
	struct il_kvar v = { 0 };
	struct il_buf log = IL_BUF_INIT;
	struct il_err err = { 0 };
	int code = -1;

	(void)state;
	tu_write(dir, "/src/Makefile", "all:\n\t@echo \"built O=$(O) ARCH=$(ARCH) CC=$(CROSS_COMPILE) FOO=$(FOO)\"\n"
		 "fail:\n\t@echo broken >&2; exit 3\n");
	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(obj, sizeof(obj), "%s/obj", dir);
	v.cfg.arch = (char *)"tiny";
	v.cfg.cross_compile = (char *)"x-";
	assert_int_equal(il_strlist_push(&v.cfg.make_args, "FOO=bar"), 0);
	assert_int_equal(il_kmake_run(&v, src, obj, all, NULL, &log, &code, &err), 0);
	assert_int_equal(code, 0);
	/* the command as run, then its output */
	snprintf(want, sizeof(want), "$ make -C %s O=%s ARCH=tiny CROSS_COMPILE=x- FOO=bar all\n", src, obj);
	assert_true(strncmp(il_buf_str(&log), want, strlen(want)) == 0);
	snprintf(want, sizeof(want), "built O=%s ARCH=tiny CC=x- FOO=bar\n", obj);
	assert_non_null(strstr(il_buf_str(&log), want));
	/* a failed make is its exit code and its log, no error */
	il_buf_reset(&log);
	assert_int_equal(il_kmake_run(&v, src, obj, fail, NULL, &log, &code, &err), 0);
	assert_int_not_equal(code, 0);
	assert_non_null(strstr(il_buf_str(&log), "broken"));
	code = -1;
	assert_int_equal(il_kmake_quiet(quiet, &code, &err), 0);
	assert_int_equal(code, 0);
	il_buf_release(&log);
	il_strlist_release(&v.cfg.make_args);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmake__mkdirs),
		cmocka_unit_test(test_kmake__copy),
		cmocka_unit_test(test_kmake__image),
		cmocka_unit_test(test_kmake__run),
	};

	return cmocka_run_group_tests_name("kernel_kmake", tests, NULL, NULL);
}
