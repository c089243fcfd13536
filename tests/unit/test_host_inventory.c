// SPDX-License-Identifier: GPL-2.0-or-later
/* Host inventory files, the quoting function, and the idle boot options of probe output. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/inventory.h"
#include "host/probe.h"
#include "host/quote.h"
#include "util/proc.h"

static void write_host(const char *dir, const char *name, const char *json)
{
	char path[512];

	snprintf(path, sizeof(path), "/%s.json", name);
	tu_write(dir, path, json);
}

static void test_inventory__load_and_defaults(void **state)
{
	char *dir = tu_tmpdir();
	struct il_host_cfg h;
	struct il_strlist names = { 0 };
	struct il_err err = { 0 };

	(void)state;
	setenv("HOME", "/home/tester", 1);
	write_host(dir, "rk3399", "{\"address\": \"127.0.0.1\", \"port\": 2222, \"identity\": \"~/.ssh/lab\", "
				  "\"host_key_policy\": \"accept-new\", \"sudo\": true, \"cpus\": \"0-3\", \"quiesce_s\": 1.5}");
	write_host(dir, "min", "{\"address\": \"lab.example\"}");
	assert_int_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = dir, .home = getenv("HOME") }, "rk3399", &err), 0);
	assert_string_equal(h.address, "127.0.0.1");
	assert_int_equal(h.port, 2222);
	assert_string_equal(h.identity, "/home/tester/.ssh/lab");
	assert_int_equal(h.host_key_policy, IL_HOSTKEY_ACCEPT_NEW);
	assert_true(h.sudo);
	assert_string_equal(h.cpus, "0-3");
	assert_true(h.quiesce_s == 1.5);
	il_host_release(&h);
	assert_int_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = dir, .home = getenv("HOME") }, "min", &err), 0);
	assert_int_equal(h.port, 0);
	assert_null(h.user);
	assert_string_equal(h.known_hosts, "/home/tester/.ssh/known_hosts");
	assert_int_equal(h.host_key_policy, IL_HOSTKEY_STRICT);
	assert_int_equal(h.connect_timeout_s, 10);
	il_host_release(&h);
	assert_int_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = dir, .home = getenv("HOME") }, "local", &err), 0);
	assert_int_equal(h.kind, IL_HOST_LOCAL);
	il_host_release(&h);
	assert_int_equal(il_host_list(&names, &(struct il_paths){ .hosts_dir = dir }, &err), 0);
	assert_int_equal(names.n, 3);
	assert_string_equal(names.v[0], "local");
	assert_string_equal(names.v[1], "min");
	il_strlist_release(&names);
	tu_rmtree(dir);
	free(dir);
}

static void test_inventory__errors_name_file_and_path(void **state)
{
	static const char *const cases[][2] = {
		{ "{\"address\": \"a\", \"port\": \"22\"}", "port: expected an integer from 1 to 65535" },
		{ "{\"address\": \"a\", \"port\": 70000}", "port: expected an integer from 1 to 65535" },
		{ "{\"port\": 22}", "address: expected a host name or IP address (required)" },
		{ "{\"address\": \"a\", \"host_key_policy\": \"yolo\"}", "host_key_policy: expected \"strict\" or \"accept-new\"" },
		{ "{\"address\": \"a\", \"adress\": \"b\"}", "adress: unknown key" },
		{ "{\"address\": \"a\", \"cpus\": \"0-x\"}", "cpus: invalid CPU list" },
		{ "{\"address\": \"a\", \"sudo\": \"yes\"}", "sudo: expected true or false" },
		{ "{\"address\": \"a\", \"quiesce_s\": -1}", "quiesce_s: expected seconds" },
		{ "{\"address\": \"a\",\n \"port\": }", "bad.json:2:" },
		{ "{\"address\": \"a\", \"address\": \"b\"}", "duplicate object key" },
		{ "[1]", "(top level): expected a host object" },
	};
	char *dir = tu_tmpdir();
	struct il_host_cfg h;
	struct il_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		write_host(dir, "bad", cases[i][0]);
		if (il_host_load(&h, &(struct il_paths){ .hosts_dir = dir, .home = getenv("HOME") }, "bad", &err) != IL_EPARSE || !strstr(err.msg, cases[i][1]) ||
		    !strstr(err.msg, "bad.json"))
			fail_msg("case %zu: '%s', wanted '%s'", i, err.msg, cases[i][1]);
	}
	assert_int_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = dir, .home = getenv("HOME") }, "nothere", &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "nothere.json"));
	assert_int_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = dir, .home = getenv("HOME") }, "../etc/passwd", &err), IL_EINVAL);
	tu_rmtree(dir);
	free(dir);
}

/* The quoted string, run by a real /bin/sh, gives back exactly the argv. */
static void test_quote__roundtrip_through_sh(void **state)
{
	char *args[] = { "printf", "[%s]", "plain", "it's", "$(id)", "a\nb", "'", "''", "\\'", "`x`", "$HOME", "", NULL };
	struct il_buf cmd = IL_BUF_INIT, out = IL_BUF_INIT, errb = IL_BUF_INIT;
	struct il_exit ex;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_sh_quote_argv(&cmd, args), 0);
	{
		char *argv[] = { "sh", "-c", cmd.p, NULL };

		assert_int_equal(il_proc_capture(argv, 5000, NULL, &out, &errb, &ex, &err), 0);
	}
	assert_int_equal(ex.code, 0);
	assert_string_equal(il_buf_str(&out), "[plain][it's][$(id)][a\nb]['][''][\\'][`x`][$HOME][]");
	/* shown to people: plain words bare, the rest quoted; the shell gets the same argv */
	il_buf_reset(&cmd);
	il_buf_reset(&out);
	assert_int_equal(il_sh_quote_shown(&cmd, args), 0);
	assert_non_null(strstr(cmd.p, " plain 'it'\\''s' '$(id)' "));
	{
		char *argv[] = { "sh", "-c", cmd.p, NULL };

		assert_int_equal(il_proc_capture(argv, 5000, NULL, &out, &errb, &ex, &err), 0);
	}
	assert_string_equal(il_buf_str(&out), "[plain][it's][$(id)][a\nb]['][''][\\'][`x`][$HOME][]");
	il_buf_release(&cmd);
	il_buf_release(&out);
	il_buf_release(&errb);
}

/* Idle-relevant boot options are picked out (tests/unit/test_host_probe.c has the rest of the probe). */
static void test_probe__cmdline_idle(void **state)
{
	static const char txt[] = "idlelab.uname_r:6.1.0\nidlelab.cmdline:ro quiet nohz_full=2-3 idle=poll cpuidle.off=1\n";
	struct il_err err = { 0 };
	json_t *j;

	(void)state;
	assert_int_equal(il_probe_parse(txt, sizeof(txt) - 1, "x", &j, NULL, &err), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "cmdline_idle"), "nohz_full")), "2-3");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "cmdline_idle"), "idle")), "poll");
	assert_null(json_object_get(json_object_get(j, "cmdline_idle"), "quiet"));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inventory__load_and_defaults),
		cmocka_unit_test(test_inventory__errors_name_file_and_path),
		cmocka_unit_test(test_quote__roundtrip_through_sh),
		cmocka_unit_test(test_probe__cmdline_idle),
	};

	return cmocka_run_group_tests_name("host_inventory", tests, NULL, NULL);
}
