// SPDX-License-Identifier: GPL-2.0-or-later
/* Host inventory files, the quoting function, and the idle boot options of probe output. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
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

/* [user@]host[:port] from the command line and inventory lists: IPv6 in brackets or bare. */
static void test_inventory__spec(void **state)
{
	static const struct {
		const char *spec, *user, *addr;
		int port;
	} good[] = {
		{ "root@127.0.0.1:2222", "root", "127.0.0.1", 2222 },
		{ "lab.example", NULL, "lab.example", 0 },
		{ "pi@rk3399", "pi", "rk3399", 0 },
		{ "[::1]:2200", NULL, "::1", 2200 },
		{ "me@[fe80::1%eth0]", "me", "fe80::1%eth0", 0 },
		{ "::1", NULL, "::1", 0 },
	};
	static const char *const bad[] = { "root@", "@h", "h:0", "h:70000", "h:x", "a b", "h:", "u@h/x", "" };
	struct il_paths paths = { .home = (char *)"/home/tester" };
	struct il_host_cfg h;
	struct il_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		if (il_host_from_spec(&h, good[i].spec, "list.txt:3", &paths, &err))
			fail_msg("'%s': %s", good[i].spec, err.msg);
		assert_string_equal(h.address, good[i].addr);
		if (good[i].user)
			assert_string_equal(h.user, good[i].user);
		else
			assert_null(h.user);
		assert_int_equal(h.port, good[i].port);
		il_host_release(&h);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (il_host_from_spec(&h, bad[i], "list.txt:3", &paths, &err) != IL_EPARSE || !strstr(err.msg, "list.txt:3") ||
		    !strstr(err.msg, "expected [user@]host[:port]"))
			fail_msg("'%s' accepted or unclear: %s", bad[i], err.msg);
	}
}

/* A plain list: one spec a line, blank lines and # comments skipped, two words an error naming the file. */
static void test_inventory__list_file(void **state)
{
	char *dir = tu_tmpdir();
	char path[512];
	struct il_strlist l = { 0 };
	struct il_err err = { 0 };

	(void)state;
	snprintf(path, sizeof(path), "%s/fleet.list", dir);
	tu_write(dir, "/fleet.list", "# lab A\n\nroot@10.0.0.1:22\n  b.example   # rack 4\n\tc\n[::1]:2200");
	assert_int_equal(il_host_list_file(&l, path, &err), 0);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0], "root@10.0.0.1:22");
	assert_string_equal(l.v[1], "b.example");
	assert_string_equal(l.v[2], "c");
	assert_string_equal(l.v[3], "[::1]:2200");
	il_strlist_release(&l);
	tu_write(dir, "/fleet.list", "a\nb c\n");
	assert_int_equal(il_host_list_file(&l, path, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "fleet.list"));
	assert_non_null(strstr(err.msg, "'b c': expected one [user@]host[:port] a line"));
	il_strlist_release(&l);
	snprintf(path, sizeof(path), "%s/missing.list", dir);
	assert_int_not_equal(il_host_list_file(&l, path, &err), 0);
	assert_non_null(strstr(err.msg, "missing.list"));
	il_strlist_release(&l);
	tu_rmtree(dir);
	free(dir);
}

/* ~/.ssh/config aliases: literal Host names only (patterns and negations are not hosts). */
static void test_inventory__ssh_alias(void **state)
{
	char *dir = tu_tmpdir();
	char path[512];
	struct il_paths paths = { .ssh_config = path };

	(void)state;
	snprintf(path, sizeof(path), "%s/config", dir);
	tu_write(dir, "/config", "# Host commented\nHost pixel6 rk3399\n  HostName 10.0.0.2\nhost\tlower\nHost=eq\n"
				 "Host *.lab !bad\nMatch host m1\n  User x\n");
	assert_true(il_host_ssh_alias(&paths, "pixel6"));
	assert_true(il_host_ssh_alias(&paths, "rk3399"));
	assert_true(il_host_ssh_alias(&paths, "lower"));
	assert_true(il_host_ssh_alias(&paths, "eq"));
	assert_false(il_host_ssh_alias(&paths, "commented"));
	assert_false(il_host_ssh_alias(&paths, "*.lab"));
	assert_false(il_host_ssh_alias(&paths, "a.lab"));
	assert_false(il_host_ssh_alias(&paths, "bad"));
	assert_false(il_host_ssh_alias(&paths, "m1"));
	assert_false(il_host_ssh_alias(&paths, "10.0.0.2"));
	/* no config file: no aliases, and $HOME's is where it is looked for without IDLELAB_SSH_CONFIG */
	paths.ssh_config = NULL;
	paths.home = dir;
	assert_false(il_host_ssh_alias(&paths, "pixel6"));
	tu_write(dir, "/.ssh/config", "Host viahome\n");
	assert_true(il_host_ssh_alias(&paths, "viahome"));
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
	assert_int_equal(il_quote_argv(&cmd, args), 0);
	{
		char *argv[] = { "sh", "-c", cmd.p, NULL };

		assert_int_equal(il_proc_capture(argv, 5000, NULL, &out, &errb, &ex, &err), 0);
	}
	assert_int_equal(ex.code, 0);
	assert_string_equal(il_buf_str(&out), "[plain][it's][$(id)][a\nb]['][''][\\'][`x`][$HOME][]");
	/* shown to people: plain words bare, the rest quoted; the shell gets the same argv */
	il_buf_reset(&cmd);
	il_buf_reset(&out);
	assert_int_equal(il_quote_shown(&cmd, args), 0);
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
		cmocka_unit_test(test_inventory__spec),
		cmocka_unit_test(test_inventory__list_file),
		cmocka_unit_test(test_inventory__ssh_alias),
		cmocka_unit_test(test_quote__roundtrip_through_sh),
		cmocka_unit_test(test_probe__cmdline_idle),
	};

	return cmocka_run_group_tests_name("host_host", tests, NULL, NULL);
}
