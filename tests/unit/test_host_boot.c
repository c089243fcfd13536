// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host `boot` / `power_cycle` sections, and the boot flow on this machine
 * (the local transport): a command boot whose host never comes back, the
 * power-cycle command, the second wait, the infra-failure message; the own
 * kernel needing no reboot; an HTTP hook that cannot connect; the GRUB entry
 * lookup of runners/boot.sh on a grub.cfg in Debian's layout.
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "host/boot.h"
#include "host/host.h"
#include "host/runners.h"
#include "host/transport.h"
#include "util/proc.h"
#include "util/jsonfile.h"

static int parse(const char *boot, const char *pc, struct il_boot_cfg *c, struct il_err *err)
{
	json_error_t je;
	json_t *b = boot ? json_loads(boot, 0, &je) : NULL, *p = pc ? json_loads(pc, 0, &je) : NULL;
	int r;

	memset(c, 0, sizeof(*c));
	assert_true(!boot || b);
	assert_true(!pc || p);
	r = il_boot_cfg_parse(c, b, p, "hosts/x.json", err);
	json_decref(b);
	json_decref(p);
	return r;
}

static void expect_error(const char *boot, const char *pc, const char *msg)
{
	struct il_boot_cfg c;
	struct il_err err = { 0 };

	assert_int_not_equal(parse(boot, pc, &c, &err), 0);
	if (!strstr(err.msg, msg))
		fail_msg("wanted '%s' in '%s'", msg, err.msg);
	il_boot_cfg_release(&c);
}

static void test_boot__config(void **state)
{
	struct il_boot_cfg c;
	struct il_err err = { 0 };
	json_t *j;
	char *txt;

	(void)state;
	assert_int_equal(parse("{\"method\": \"kexec\", \"cmdline\": \"console=ttyS0 quiet\", \"timeout_s\": 120}",
			       "{\"url\": \"http://127.0.0.1:9/outlet/3\", \"headers\": [\"Authorization: Bearer s3cret\"], "
			       "\"body\": \"{\\\"token\\\": \\\"s3cret\\\"}\", \"wait_s\": 600}", &c, &err), 0);
	assert_int_equal(c.method, IL_BOOT_KEXEC);
	assert_string_equal(c.cmdline, "console=ttyS0 quiet");
	assert_int_equal(c.timeout_s, 120);
	assert_true(c.has_power_cycle);
	assert_int_equal(c.power_cycle.timeout_s, 30);
	j = il_boot_cfg_to_json(&c);
	txt = il_json_dumps(j, JSON_SORT_KEYS);
	/* the request's shape is shown, never its headers or body (credentials) */
	assert_non_null(strstr(txt, "\"method\": \"POST\""));
	assert_non_null(strstr(txt, "\"remote_dir\": \"<idlelab's working directory>/boot\""));
	assert_null(strstr(txt, "s3cret"));
	free(txt);
	json_decref(j);
	il_boot_cfg_release(&c);
	/* a password in the URL's userinfo, a token in its query: hidden in what is shown */
	assert_int_equal(parse("{\"method\": \"kexec\"}",
			       "{\"url\": \"http://admin:s3cret@127.0.0.1:9/outlet/3?token=s3cret\"}", &c, &err), 0);
	j = il_boot_cfg_to_json(&c);
	txt = il_json_dumps(j, JSON_SORT_KEYS);
	assert_null(strstr(txt, "s3cret"));
	assert_non_null(strstr(txt, "http://admin:***@127.0.0.1:9/outlet/3?***"));
	free(txt);
	json_decref(j);
	il_boot_cfg_release(&c);

	assert_int_equal(parse("{\"method\": \"command\", \"argv\": [\"pxe-set\", \"--kernel={image}\", \"{{literal}}\"]}",
			       "{\"argv\": [\"pdu\", \"cycle\", \"{host}\"]}", &c, &err), 0);
	assert_int_equal(c.method, IL_BOOT_COMMAND);
	assert_int_equal(c.argv.n, 3);
	assert_int_equal(c.timeout_s, 300);
	il_boot_cfg_release(&c);

	expect_error("{\"method\": \"pxe\"}", NULL, "hosts/x.json: boot.method: expected one of");
	expect_error("{\"method\": \"labvm\"}", NULL, "boot.method: expected \"labvm\" only on a lab host");
	expect_error("{\"method\": \"command\"}", NULL, "boot.argv: expected the command's argv");
	expect_error("{\"method\": \"kexec\", \"argv\": [\"x\"]}", NULL, "boot.argv: expected no argv unless");
	expect_error("{\"method\": \"command\", \"argv\": [\"x\", \"{kernel}\"]}", NULL,
		     "boot.argv[1]: unknown or unclosed placeholder in '{kernel}'");
	expect_error("{\"method\": \"command\", \"argv\": [\"x\", 3]}", NULL, "boot.argv[1]: expected a string");
	/* a brace never closed, at the end or before other text (read past the string before) */
	expect_error("{\"method\": \"command\", \"argv\": [\"x{\"]}", NULL, "boot.argv[0]: unknown or unclosed placeholder in 'x{'");
	expect_error("{\"method\": \"command\", \"argv\": [\"x\", \"{image\"]}", NULL, "boot.argv[1]: unknown or unclosed");
	expect_error("{\"method\": \"grub-reboot\", \"cmdline\": \"x\"}", NULL, "boot.cmdline: expected no cmdline unless");
	expect_error("{\"method\": \"kexec\", \"remote_dir\": \"/var/../etc\"}", NULL, "boot.remote_dir: expected an absolute");
	expect_error("{\"method\": \"kexec\", \"remote_dir\": \"tmp\"}", NULL, "boot.remote_dir");
	expect_error("{\"method\": \"kexec\", \"initrd\": \"/nonexistent/initrd\"}", NULL,
		     "boot.initrd: cannot read '/nonexistent/initrd'");
	expect_error("{\"method\": \"kexec\", \"timeout_s\": 2}", NULL, "boot.timeout_s: expected an integer from 5 to");
	expect_error("{\"method\": \"kexec\", \"reboot\": true}", NULL, "boot.reboot: unknown key (known: method, argv");
	expect_error(NULL, "{\"url\": \"http://127.0.0.1/\", \"argv\": [\"x\"]}", "power_cycle: expected exactly one of");
	expect_error(NULL, "{}", "power_cycle: expected exactly one of");
	expect_error(NULL, "{\"url\": \"ftp://127.0.0.1/x\"}", "power_cycle.url: expected an http:// or https:// URL");
	expect_error(NULL, "{\"url\": \"http://127.0.0.1/\", \"headers\": [\"X: a\\r\\nY: b\"]}",
		     "power_cycle.headers[0]: expected a \"Name: value\" string on one line");
	expect_error(NULL, "{\"argv\": [\"x\"], \"method\": \"POST\"}", "power_cycle.method: expected an HTTP method");
	expect_error(NULL, "[1]", "power_cycle: expected an object");
}

static void test_boot__host_file(void **state)
{
	char *dir = tu_tmpdir();
	struct il_host_cfg h;
	struct il_err err = { 0 };

	(void)state;
	tu_write(dir, "/pc.json", "{\"address\": \"127.0.0.1\", \"boot\": {\"method\": \"grub-reboot\"}, "
				  "\"power_cycle\": {\"argv\": [\"true\"]}}");
	tu_write(dir, "/bad.json", "{\"address\": \"127.0.0.1\", \"boot\": {\"method\": \"grub\"}}");
	tu_write(dir, "/lab.json", "{\"labvm\": \"nosuchlab\", \"address\": \"127.0.0.1\"}");
	assert_int_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = dir }, "pc", &err), 0);
	assert_int_equal(h.boot.method, IL_BOOT_GRUB);
	assert_true(h.boot.has_power_cycle);
	il_host_release(&h);
	assert_int_not_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = dir }, "bad", &err), 0);
	assert_non_null(strstr(err.msg, "bad.json: boot.method: expected one of \"labvm\", \"kexec\", \"grub-reboot\""));
	assert_int_not_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = dir }, "lab", &err), 0);
	assert_non_null(strstr(err.msg, "lab.json: address: not with \"labvm\""));
	assert_int_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = dir }, "local", &err), 0);
	assert_int_equal(h.boot.method, IL_BOOT_NONE);
	il_host_release(&h);
	/* the shipped examples are valid */
	{
		char ex[512];
		const char *src = getenv("IL_SRCDIR");

		snprintf(ex, sizeof(ex), "%s/examples/hosts", src ? src : ".");
		assert_int_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = ex }, "rk3399", &err), 0);
		assert_int_equal(h.boot.method, IL_BOOT_KEXEC);
		il_host_release(&h);
		assert_int_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = ex }, "srv7-grub", &err), 0);
		assert_int_equal(h.boot.method, IL_BOOT_GRUB);
		assert_int_equal(h.boot.power_cycle.argv.n, 12);
		il_host_release(&h);
	}
	tu_rmtree(dir);
	free(dir);
}

static bool has_step(json_t *steps, const char *name)
{
	size_t i;
	json_t *s;

	json_array_foreach(steps, i, s)
		if (!strcmp(json_string_value(json_object_get(s, "step")), name))
			return true;
	return false;
}

/* A local "host" whose boot command runs but which never reboots (this machine). */
static void local_host(struct il_host_cfg *h, const char *dir)
{
	struct il_err err = { 0 };
	char cmd[512], pc[512];

	assert_int_equal(il_host_load(h, NULL, "local", &err), 0);
	snprintf(cmd, sizeof(cmd), "printf '%%s %%s %%s %%s\\n' \"$0\" \"$1\" \"$2\" \"$3\" >> %s/boot.log", dir);
	snprintf(pc, sizeof(pc), "echo cycled \"$0\" >> %s/cycle.log", dir);
	h->boot.method = IL_BOOT_COMMAND;
	h->boot.timeout_s = 1;
	assert_int_equal(il_strlist_push(&h->boot.argv, "sh"), 0);
	assert_int_equal(il_strlist_push(&h->boot.argv, "-c"), 0);
	assert_int_equal(il_strlist_push(&h->boot.argv, cmd), 0);
	assert_int_equal(il_strlist_push(&h->boot.argv, "{image}"), 0);
	assert_int_equal(il_strlist_push(&h->boot.argv, "{release}"), 0);
	assert_int_equal(il_strlist_push(&h->boot.argv, "release={release};host={host}"), 0);
	assert_int_equal(il_strlist_push(&h->boot.argv, "{{image}}"), 0);
	h->boot.has_power_cycle = true;
	h->boot.power_cycle.timeout_s = 10;
	h->boot.power_cycle.wait_s = 1;
	assert_int_equal(il_strlist_push(&h->boot.power_cycle.argv, "sh"), 0);
	assert_int_equal(il_strlist_push(&h->boot.power_cycle.argv, "-c"), 0);
	assert_int_equal(il_strlist_push(&h->boot.power_cycle.argv, pc), 0);
	assert_int_equal(il_strlist_push(&h->boot.power_cycle.argv, "{host}"), 0);
}

static void test_boot__never_comes_back(void **state)
{
	char *dir = tu_tmpdir(), path[512], *log;
	struct il_host_cfg h;
	struct il_boot_target tgt = { "broken", "/artifacts/x/Image", NULL, "6.1.0-il0badc0de", NULL };
	struct il_err err = { 0 };
	json_t *steps = NULL;

	(void)state;
	local_host(&h, dir);
	assert_int_equal(il_boot_run(&h, &tgt, NULL, &steps, &err), IL_ETIMEOUT);
	assert_non_null(strstr(err.msg, "host 'local' did not come back with a new boot within 1 s"));
	assert_non_null(strstr(err.msg, "power-cycled (sh exited 0), still not up after 1 s more"));
	assert_true(has_step(steps, "trigger"));
	assert_true(has_step(steps, "still-up"));
	assert_true(has_step(steps, "not-up"));
	assert_true(has_step(steps, "power-cycle"));
	assert_true(has_step(steps, "failed"));
	assert_false(has_step(steps, "up"));
	json_decref(steps);
	snprintf(path, sizeof(path), "%s/boot.log", dir);
	log = tu_read(path, NULL);
	/* placeholders inside text are replaced; each element stays one argument */
	assert_string_equal(log, "/artifacts/x/Image 6.1.0-il0badc0de release=6.1.0-il0badc0de;host=local {image}\n");
	free(log);
	snprintf(path, sizeof(path), "%s/cycle.log", dir);
	log = tu_read(path, NULL);
	assert_string_equal(log, "cycled local\n");
	free(log);

	/* without a hook the error says so */
	h.boot.has_power_cycle = false;
	assert_int_equal(il_boot_run(&h, &tgt, NULL, &steps, &err), IL_ETIMEOUT);
	assert_non_null(strstr(err.msg, "no power_cycle hook configured for host 'local'"));
	json_decref(steps);

	/* a boot command that fails: the host was never told to go down, so no power cycle */
	h.boot.has_power_cycle = true;
	free(h.boot.argv.v[2]);
	h.boot.argv.v[2] = strdup("echo 'no such PXE profile' >&2; exit 4");
	assert_int_equal(il_boot_run(&h, &tgt, NULL, &steps, &err), IL_ECHILD);
	assert_non_null(strstr(err.msg, "host 'local': boot command 'sh' failed (exit 4): no such PXE profile"));
	assert_false(has_step(steps, "power-cycle"));
	json_decref(steps);
	il_host_release(&h);
	tu_rmtree(dir);
	free(dir);
}

static void test_boot__own_kernel_needs_no_reboot(void **state)
{
	char *dir = tu_tmpdir(), path[512];
	struct il_host_cfg h;
	struct utsname u;
	struct il_boot_target tgt = { NULL, NULL, NULL, NULL, NULL };
	struct il_err err = { 0 };
	json_t *steps = NULL;

	(void)state;
	assert_int_equal(uname(&u), 0);
	tgt.release = u.release;
	local_host(&h, dir);
	assert_int_equal(il_boot_run(&h, &tgt, NULL, &steps, &err), 0);
	assert_true(has_step(steps, "done"));
	assert_false(has_step(steps, "trigger"));
	snprintf(path, sizeof(path), "%s/boot.log", dir);
	assert_int_not_equal(access(path, F_OK), 0);
	json_decref(steps);
	il_host_release(&h);
	tu_rmtree(dir);
	free(dir);
}

static void test_boot__http_hook_unreachable(void **state)
{
	struct il_boot_cfg c;
	struct il_err err = { 0 };
	char pc[256], *detail = NULL;
	int port = tu_free_port();

	(void)state;
	snprintf(pc, sizeof(pc), "{\"url\": \"http://127.0.0.1:%d/cycle\", \"timeout_s\": 5}", port);
	assert_int_equal(parse("{\"method\": \"kexec\"}", pc, &c, &err), 0);
	assert_int_equal(il_boot_power_cycle(&c, "rk3399", NULL, &detail, &err), IL_ECONNECT);
	assert_non_null(strstr(err.msg, "host 'rk3399': power-cycle request POST http://127.0.0.1:"));
	assert_null(detail);
	il_boot_cfg_release(&c);
}

static void grub_entry(const char *release, int want_rc, const char *want)
{
	const char *script = il_runners_script("boot.sh");
	char *av[] = { (char *)"sh", (char *)"-c", (char *)script, (char *)"boot.sh", (char *)"grub-entry",
		       (char *)tu_fixture("../grub/grub.cfg"), (char *)release, NULL };
	struct il_buf out = IL_BUF_INIT, er = IL_BUF_INIT;
	struct il_exit ex;
	struct il_err err = { 0 };

	assert_non_null(script);
	assert_int_equal(il_proc_capture(av, 10000, NULL, &out, &er, &ex, &err), 0);
	assert_int_equal(il_proc_exit_status(&ex), want_rc);
	if (!strstr(il_buf_str(&out), want))
		fail_msg("wanted '%s' in '%s'", want, il_buf_str(&out));
	il_buf_release(&out);
	il_buf_release(&er);
}

static void test_boot__grub_entry(void **state)
{
	(void)state;
	/* inside the "Advanced options" submenu: submenu id > entry id, never the recovery entry */
	grub_entry("6.1.112-il5d0c9a21", 0,
		   "gnulinux-advanced-3f1c2b9e-8d5a-4e57-9c1e-2a6b0f7d4c11>gnulinux-6.1.112-il5d0c9a21-advanced-");
	grub_entry("6.1.0-27-amd64", 0, "gnulinux-simple-3f1c2b9e-8d5a-4e57-9c1e-2a6b0f7d4c11\n");
	/* a prefix of a release is not that release */
	grub_entry("6.1.112-il5d0c9a2", 3, "idlelab.boot_fail:no GRUB entry boots vmlinuz-6.1.112-il5d0c9a2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boot__config),
		cmocka_unit_test(test_boot__host_file),
		cmocka_unit_test(test_boot__never_comes_back),
		cmocka_unit_test(test_boot__own_kernel_needs_no_reboot),
		cmocka_unit_test(test_boot__http_hook_unreachable),
		cmocka_unit_test(test_boot__grub_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
