// SPDX-License-Identifier: GPL-2.0-or-later
/* The search paths cli/clipaths.c builds: their order, the variables that replace them, directories left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/clipaths.h"
#include "testutil.h"
#include "util/str.h"

static void test_cli_clipaths__order_and_override(void **state)
{
	char *d = tu_tmpdir(), *x;
	struct il_cli_source *s;
	struct il_paths p;
	size_t n;

	(void)state;
	tu_write(d, "/xdg/idlelab/hosts/a.json", "{}");
	assert_non_null(x = il_str_dup_printf("%s/xdg", d));
	setenv("XDG_CONFIG_HOME", x, 1);
	unsetenv("IDLELAB_HOSTS");
	assert_int_equal(il_cli_sources(&s, &n, IL_CLI_HOSTS, NULL), 0);
	/* the working directory, the user's, the system's (no installed hosts: only workloads are installed) */
	assert_int_equal(n, 3);
	assert_string_equal(s[0].origin, "working directory");
	assert_string_equal(s[1].origin, "user");
	assert_true(s[1].used);
	assert_non_null(strstr(s[1].dir, "/xdg/idlelab/hosts"));
	assert_string_equal(s[2].origin, "system");
	il_cli_sources_free(s, n);
	/* the variable replaces it all; the option wins over the variable */
	setenv("IDLELAB_HOSTS", "/elsewhere", 1);
	assert_int_equal(il_cli_sources(&s, &n, IL_CLI_HOSTS, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].dir, "/elsewhere");
	il_cli_sources_free(s, n);
	assert_int_equal(il_cli_paths(&p, "/opt", NULL, NULL, NULL), 0);
	assert_string_equal(p.hosts_dir, "/opt");
	il_paths_release(&p);
	unsetenv("IDLELAB_HOSTS");
	assert_int_equal(il_cli_paths(&p, NULL, NULL, NULL, NULL), 0);
	assert_non_null(strstr(p.hosts_dir, "/xdg/idlelab/hosts"));
	il_paths_release(&p);
	unsetenv("XDG_CONFIG_HOME");
	free(x);
	tu_rmtree(d);
	free(d);
}

static void test_cli_clipaths__writable_by_others_left_out(void **state)
{
	char *d = tu_tmpdir(), *x, *h;
	struct il_cli_source *s;
	struct il_paths p;
	size_t n;

	(void)state;
	tu_write(d, "/xdg/idlelab/workloads/w.json", "{}");
	assert_non_null(x = il_str_dup_printf("%s/xdg", d));
	assert_non_null(h = il_str_dup_printf("%s/idlelab/workloads", x));
	assert_int_equal(chmod(h, 0777), 0);
	setenv("XDG_CONFIG_HOME", x, 1);
	unsetenv("IDLELAB_WORKLOADS");
	assert_int_equal(il_cli_sources(&s, &n, IL_CLI_WORKLOADS, NULL), 0);
	assert_false(s[1].used);
	{
		char *want = il_str_dup_printf("%s: writable by others (mode 0777)", h);

		assert_string_equal(s[1].why, want);
		free(want);
	}
	il_cli_sources_free(s, n);
	assert_int_equal(il_cli_paths(&p, NULL, NULL, NULL, NULL), 0);
	assert_null(strstr(p.workloads_dir, h));
	il_paths_release(&p);
	assert_int_equal(chmod(h, 0755), 0);
	unsetenv("XDG_CONFIG_HOME");
	free(h);
	free(x);
	tu_rmtree(d);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_clipaths__order_and_override),
		cmocka_unit_test(test_cli_clipaths__writable_by_others_left_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
