// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the lab's files share (lab/labtool.c): an instance resolved from
 * --arch and --name, its run directory (lab/lab.h's il_lab_run_dir), the
 * shape and source tree defaults, and a host tool's failure named with the
 * end of its stderr.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab/labtool.h"

static void test_labtool__instances_and_run_dirs(void **state)
{
	struct il_lab_opts o = { .cache_dir = "/c" };
	struct il_lab_ref l = { 0 };
	struct il_err err = { 0 };
	char *d;

	(void)state;
	assert_non_null(d = il_lab_run_dir(&o));
	assert_string_equal(d, "/c/lab/run/labvm");
	free(d);
	o.arch = "x86_64", o.name = "k";
	assert_int_equal(il_lab_ref_open(&l, &o, &err), 0);
	assert_int_equal(l.a, IL_LAB_X86_64);
	assert_string_equal(l.name, "x86-k");
	assert_non_null(d = il_lab_ref_dir(&o, &l));
	assert_string_equal(d, "/c/lab/run/x86-k");
	free(d);
	il_lab_ref_release(&l);
	assert_null(l.name);
	assert_non_null(d = il_lab_run_dir(&o));
	assert_string_equal(d, "/c/lab/run/x86-k");
	free(d);
	/* not an instance: no directory, and the reference stays printable */
	o.arch = "mips";
	assert_null(il_lab_run_dir(&o));
	assert_int_equal(il_lab_ref_open(&l, &o, &err), IL_EINVAL);
	assert_ptr_equal(l.A, &il_lab_archs[IL_LAB_ARM64]);
	il_lab_ref_release(&l);
	/* the defaults */
	o = (struct il_lab_opts){ 0 };
	assert_string_equal(il_lab_src(&o), ".");
	assert_int_equal(il_lab_cpus(&o), 2);
	assert_int_equal(il_lab_mem(&o), 512);
	o = (struct il_lab_opts){ .src_dir = "/s", .cpus = 4, .mem_mb = 1024 };
	assert_string_equal(il_lab_src(&o), "/s");
	assert_int_equal(il_lab_cpus(&o), 4);
	assert_int_equal(il_lab_mem(&o), 1024);
	assert_true(il_lab_exists("/"));
	assert_false(il_lab_exists("/nonexistent/idlelab"));
}

static void step(const char *what, double elapsed_s, void *ctx)
{
	(void)elapsed_s;
	snprintf(ctx, 64, "%s", what);
}

static void test_labtool__tools(void **state)
{
	char *ok[] = { "true", NULL }, *bad[] = { "sh", "-c", "echo the reason >&2; exit 3", NULL };
	struct il_err err = { 0 };
	char last[64] = "";

	(void)state;
	assert_int_equal(il_lab_tool(ok, 0, "true", &err), 0);
	assert_int_equal(il_lab_tool(bad, 5000, "the tool", &err), IL_ECHILD);
	assert_string_equal(err.msg, "the tool failed (exit 3): the reason\n");
	/* arguments go in as arguments, never into the script */
	assert_int_equal(il_lab_sh("[ \"$1\" = 'a b' ] && [ \"$2\" = '$(x)' ]", "args", &err, "a b", "$(x)", NULL), 0);
	assert_int_equal(il_lab_sh("echo \"$1\" >&2; exit 1", "a script", &err, "said", NULL), IL_ECHILD);
	assert_string_equal(err.msg, "a script failed (exit 1): said\n");
	il_lab_step(step, last, "booting", 0);
	assert_string_equal(last, "booting");
	il_lab_step(NULL, NULL, "nobody asked", 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_labtool__instances_and_run_dirs),
		cmocka_unit_test(test_labtool__tools),
	};

	return cmocka_run_group_tests_name("lab_labtool", tests, NULL, NULL);
}
