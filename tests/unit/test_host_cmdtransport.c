// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command transport: the host file's "transport" section (errors named
 * by JSON path), the command string {cmd} stands for and the argv built from
 * a template, the exit status marker, and the transport itself over real
 * `sh -c` templates on this machine: exit codes, a transport that exits 0
 * whatever the command did (adb before Android 7), one that drops, time-outs,
 * a missing program, transfers with and without "pull", a corrupting push,
 * and the held lock.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/cmdtransport.h"
#include "host/host.h"
#include "util/proc.h"

/* Parse json as host file hosts/t1.json: want 0, or IL_EPARSE with msg in the message. */
static void parse(struct il_host_cfg *h, const char *json, const char *msg)
{
	json_error_t je;
	json_t *j = json_loads(json, 0, &je);
	struct il_err err = { 0 };
	int r;

	if (!j)
		fail_msg("bad test JSON '%s': %s", json, je.text);
	r = il_host_from_json(h, j, "t1", "hosts/t1.json", NULL, &err);
	json_decref(j);
	if (!msg && r)
		fail_msg("'%s': %s", json, err.msg);
	if (msg && (r != IL_EPARSE || !strstr(err.msg, msg) || !strstr(err.msg, "hosts/t1.json")))
		fail_msg("'%s': got %d '%s', wanted '%s'", json, r, err.msg, msg);
}

static void test_cmdtr__config_errors_name_json_path(void **state)
{
	static const char *const cases[][2] = {
		{ "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"true\"], \"push\": [\"cp\", \"{src}\", \"{dst}\"]}}",
		  "transport.exec: expected an argv template (array of strings) with {cmd}, the command as one sh string "
		  "(no {cmd} in it)" },
		{ "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd}\"], \"push\": [\"cp\", \"{src}\", \"/tmp/x\"]}}",
		  "transport.push: expected an argv template (array of strings) with {src} and {dst} (no {dst} in it)" },
		{ "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd}\"], \"push\": [\"cp\", \"{src}\", \"{dst}\"], "
		  "\"pull\": [\"cp\", \"{dst}\"]}}",
		  "transport.pull: expected an argv template (array of strings) with {src} and {dst} (no {src} in it)" },
		{ "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd}\"]}}", "transport.push: expected an argv template" },
		{ "{\"transport\": {\"push\": [\"cp\", \"{src}\", \"{dst}\"]}}", "transport.exec: expected an argv template" },
		{ "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd}\"], \"push\": [\"cp\", \"{src}\", \"{dst}\"], "
		  "\"copy\": []}}",
		  "transport.copy: unknown key (known: exec, push, pull)" },
		{ "{\"transport\": {\"exec\": [\"adb\", \"-s\", \"{host}\", \"shell\", \"{cmd}\"], \"push\": [\"cp\", \"{src}\", "
		  "\"{dst}\"]}}",
		  "transport.exec[2]: '{host}': unknown placeholder '{host}' (known: {cmd})" },
		{ "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd\"], \"push\": [\"cp\", \"{src}\", \"{dst}\"]}}",
		  "transport.exec[2]: '{cmd': unclosed placeholder" },
		{ "{\"transport\": {\"exec\": [], \"push\": [\"cp\", \"{src}\", \"{dst}\"]}}", "transport.exec: expected" },
		{ "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd}\"], \"push\": [\"cp\", \"{src}\", \"{dst}\"], "
		  "\"pull\": []}}",
		  "transport.pull: expected" },
		{ "{\"transport\": {\"exec\": \"adb shell {cmd}\", \"push\": [\"cp\", \"{src}\", \"{dst}\"]}}",
		  "transport.exec: expected an argv template" },
		{ "{\"transport\": {\"exec\": [\"sh\", 1], \"push\": [\"cp\", \"{src}\", \"{dst}\"]}}",
		  "transport.exec: expected an argv template" },
		{ "{\"transport\": [\"sh\", \"-c\", \"{cmd}\"]}", "transport: expected an object with \"exec\" and \"push\"" },
		{ "{\"address\": \"10.0.0.7\", \"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd}\"], \"push\": [\"cp\", "
		  "\"{src}\", \"{dst}\"]}}",
		  "address: not with \"transport\"" },
		{ "{\"identity\": \"~/.ssh/k\", \"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd}\"], \"push\": [\"cp\", "
		  "\"{src}\", \"{dst}\"]}}",
		  "identity: not with \"transport\"" },
		{ "{\"labvm\": \"labvm\", \"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd}\"], \"push\": [\"cp\", "
		  "\"{src}\", \"{dst}\"]}}",
		  "transport: expected no \"transport\" in a lab host's file" },
	};
	struct il_host_cfg h;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		parse(&h, cases[i][0], cases[i][1]);
}

static void test_cmdtr__config_read_and_shown(void **state)
{
	struct il_host_cfg h;
	struct il_buf where = IL_BUF_INIT;
	json_t *j;

	(void)state;
	parse(&h, "{\"transport\": {\"exec\": [\"adb\", \"-s\", \"R5CT\", \"shell\", \"{cmd}\"], \"push\": [\"adb\", \"-s\", "
		  "\"R5CT\", \"push\", \"{src}\", \"{dst}\"], \"pull\": [\"adb\", \"-s\", \"R5CT\", \"pull\", \"{src}\", "
		  "\"{dst}\"]}, \"sudo\": true, \"command_timeout_s\": 30}",
	      NULL);
	assert_int_equal(h.kind, IL_HOST_COMMAND);
	assert_null(h.address);
	assert_null(h.known_hosts);
	assert_true(h.sudo);
	assert_int_equal(h.cmds.exec.n, 5);
	assert_string_equal(h.cmds.exec.v[4], "{cmd}");
	assert_int_equal(h.cmds.push.n, 6);
	assert_int_equal(h.cmds.pull.n, 6);
	assert_string_equal(il_host_kind_name(h.kind), "command");
	assert_int_equal(il_host_where(&h, &where), 0);
	assert_string_equal(il_buf_str(&where), "command: adb -s R5CT shell {cmd}");
	j = il_host_to_json(&h);
	assert_string_equal(json_string_value(json_object_get(j, "transport")), "command");
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_object_get(j, "commands"), "pull"), 3)),
			    "pull");
	assert_null(json_object_get(j, "address"));
	json_decref(j);
	il_buf_release(&where);
	il_host_release(&h);
	/* pull is optional; "{{cmd}}" is a literal, not the placeholder */
	parse(&h, "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd}\", \"{{cmd}}\"], \"push\": [\"cp\", \"{src}\", "
		  "\"{dst}\"]}}",
	      NULL);
	assert_int_equal(h.cmds.pull.n, 0);
	il_host_release(&h);
	parse(&h, "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"{{cmd}}\"], \"push\": [\"cp\", \"{src}\", \"{dst}\"]}}",
	      "no {cmd} in it");
	/* the shipped adb example is valid, and its command passes HOME with {cmd} in one element */
	{
		char ex[512], **av = NULL, *argv[] = { "id", "-u", NULL };
		const char *src = getenv("IL_SRCDIR");
		struct il_err err = { 0 };

		snprintf(ex, sizeof(ex), "%s/examples/hosts", src ? src : ".");
		assert_int_equal(il_host_load(&h, &(struct il_paths){ .hosts_dir = ex }, "pixel6-adb", &err), 0);
		assert_int_equal(h.kind, IL_HOST_COMMAND);
		assert_int_equal(il_cmdtransport_argv(&h, argv, "n", &av, &err), 0);
		assert_string_equal(av[3], "shell");
		assert_string_equal(av[4], "HOME=/data/local/tmp/idlelab 'id' '-u'; printf '\\nidlelab-rc:n:%d\\n' \"$?\" >&2");
		assert_null(av[5]);
		free(av);
		il_host_release(&h);
	}
}

/* The command string for an argv, and the argv of a template around it. */
static void test_cmdtr__command_for_a_template(void **state)
{
	char *argv[] = { "cat", "/sys/devices/system/cpu/cpuidle/current_governor", "it's", NULL };
	static const char want[] = "'cat' '/sys/devices/system/cpu/cpuidle/current_governor' 'it'\\''s'; "
				   "printf '\\nidlelab-rc:0123abcd:%d\\n' \"$?\" >&2";
	struct il_buf b = IL_BUF_INIT;
	struct il_host_cfg h;
	struct il_err err = { 0 };
	char **av = NULL;

	(void)state;
	assert_int_equal(il_cmdtransport_command(&b, argv, "0123abcd"), 0);
	assert_string_equal(il_buf_str(&b), want);
	parse(&h, "{\"transport\": {\"exec\": [\"adb\", \"-s\", \"SERIAL\", \"shell\", \"{cmd}\"], \"push\": [\"adb\", "
		  "\"push\", \"{src}\", \"{dst}\"]}}",
	      NULL);
	assert_int_equal(il_cmdtransport_argv(&h, argv, "0123abcd", &av, &err), 0);
	assert_string_equal(av[0], "adb");
	assert_string_equal(av[3], "shell");
	assert_string_equal(av[4], want);
	assert_null(av[5]);
	free(av);
	/* the held lock's command: no marker */
	assert_int_equal(il_cmdtransport_argv(&h, argv, NULL, &av, &err), 0);
	assert_string_equal(av[4], "'cat' '/sys/devices/system/cpu/cpuidle/current_governor' 'it'\\''s'");
	free(av);
	il_host_release(&h);
	/* text around {cmd} stays in its element */
	parse(&h, "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"cd / && {cmd}\"], \"push\": [\"cp\", \"{src}\", \"{dst}\"]}}",
	      NULL);
	assert_int_equal(il_cmdtransport_argv(&h, argv, "n1", &av, &err), 0);
	assert_string_equal(av[2], "cd / && 'cat' '/sys/devices/system/cpu/cpuidle/current_governor' 'it'\\''s'; "
				   "printf '\\nidlelab-rc:n1:%d\\n' \"$?\" >&2");
	assert_null(av[3]);
	free(av);
	il_host_release(&h);
	il_buf_release(&b);
}

/* The command string run by a real sh: the marker carries the status and is cut off again, byte for byte. */
static void test_cmdtr__marker_through_sh(void **state)
{
	char *args[] = { "sh", "-c", "printf 'out\\nno newline'; printf 'err\\n' >&2; exit 7", NULL };
	struct il_buf cmd = IL_BUF_INIT, out = IL_BUF_INIT, errb = IL_BUF_INIT;
	struct il_err err = { 0 };
	struct il_exit ex;
	int code = -1;

	(void)state;
	assert_int_equal(il_cmdtransport_command(&cmd, args, "feed42"), 0);
	{
		char *argv[] = { "sh", "-c", cmd.p, NULL };

		assert_int_equal(il_proc_capture(argv, 5000, NULL, &out, &errb, &ex, &err), 0);
	}
	assert_int_equal(ex.code, 0); /* the shell's own status: not the command's */
	assert_true(il_cmdtransport_status(&out, &errb, "feed42", &code));
	assert_int_equal(code, 7);
	assert_string_equal(il_buf_str(&out), "out\nno newline");
	assert_string_equal(il_buf_str(&errb), "err\n");
	/* merged into stdout through a terminal (CRLF), with another nonce's marker before it */
	il_buf_reset(&out);
	il_buf_reset(&errb);
	il_buf_adds(&out, "a\r\n\r\nidlelab-rc:other:3\r\nb\r\n\r\nidlelab-rc:feed42:126\r\n");
	assert_true(il_cmdtransport_status(&out, &errb, "feed42", &code));
	assert_int_equal(code, 126);
	assert_string_equal(il_buf_str(&out), "a\r\n\r\nidlelab-rc:other:3\r\nb\r\n");
	assert_false(il_cmdtransport_status(&out, &errb, "feed42", &code));
	il_buf_release(&cmd);
	il_buf_release(&out);
	il_buf_release(&errb);
}

/* ---- the transport over `sh -c` templates on this machine ---- */

static char *tmp;

static int group_setup(void **state)
{
	(void)state;
	tmp = tu_tmpdir();
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	tu_rmtree(tmp);
	free(tmp);
	return 0;
}

/* A host "t1" whose exec template is exec (JSON array text), push cp, pull as given (NULL: none). */
static struct il_transport *open_with(struct il_host_cfg *h, const char *exec, const char *push, const char *pull,
				      int want, const char *msg)
{
	char json[2048];
	struct il_transport *t = NULL;
	struct il_err err = { 0 };

	snprintf(json, sizeof(json), "{\"transport\": {\"exec\": %s, \"push\": %s%s%s}, \"connect_timeout_s\": 2, "
		 "\"command_timeout_s\": 20}", exec, push ? push : "[\"cp\", \"{src}\", \"{dst}\"]", pull ? ", \"pull\": " : "",
		 pull ? pull : "");
	parse(h, json, NULL);
	if (il_transport_open(&t, h, &err) != want || (msg && !strstr(err.msg, msg)))
		fail_msg("open with %s: got '%s', wanted %d '%s'", exec, err.msg, want, msg ? msg : "");
	return t;
}

#define SH_C "[\"sh\", \"-c\", \"{cmd}\"]"

static void exec_want(struct il_transport *t, char *const argv[], int code, const char *out, const char *errtext)
{
	struct il_exec_result res;
	struct il_err err = { 0 };

	if (il_transport_exec(t, argv, NULL, &res, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(res.exit_code, code);
	assert_string_equal(il_buf_str(&res.out), out);
	if (errtext)
		assert_string_equal(il_buf_str(&res.err), errtext);
	il_transport_result_release(&res);
}

static void test_cmdtr__exec_codes_and_streams(void **state)
{
	char *fail7[] = { "sh", "-c", "echo out; echo err >&2; exit 7", NULL };
	char *literal[] = { "printf", "[%s]", "$(id)", "a b", "'", "", NULL };
	char *missing[] = { "no-such-program-idlelab", NULL };
	struct il_host_cfg h;
	struct il_transport *t;

	(void)state;
	t = open_with(&h, SH_C, NULL, NULL, 0, NULL);
	assert_true(t->is_root == (geteuid() == 0));
	assert_non_null(strstr(t->auth, "(sh)"));
	exec_want(t, fail7, 7, "out\n", "err\n");
	exec_want(t, literal, 0, "[$(id)][a b]['][]", "");
	{
		/* input reaches the command's stdin through the transport's program, then its end */
		char *rd[] = { "sh", "-c", "read -r n && echo \"got $n\" && cat", NULL };
		struct il_exec_opts o = { .input = "IL0123\n" };
		struct il_exec_result res;
		struct il_err err = { 0 };

		assert_int_equal(il_transport_exec(t, rd, &o, &res, &err), 0);
		assert_int_equal(res.exit_code, 0);
		assert_string_equal(il_buf_str(&res.out), "got IL0123\n");
		il_transport_result_release(&res);
	}
	{
		struct il_exec_result res;
		struct il_err err = { 0 };

		assert_int_equal(il_transport_exec(t, missing, NULL, &res, &err), 0);
		assert_int_equal(res.exit_code, 127);
		il_transport_result_release(&res);
	}
	il_transport_free(t);
	il_host_release(&h);
	/* a transport that merges stderr into stdout and always exits 0 (adb before Android 7) */
	t = open_with(&h, "[\"sh\", \"-c\", \"exec 2>&1; {cmd}; exit 0\"]", NULL, NULL, 0, NULL);
	exec_want(t, fail7, 7, "out\nerr\n", "");
	il_transport_free(t);
	il_host_release(&h);
}

static void test_cmdtr__transport_failures_name_the_host(void **state)
{
	char *slow[] = { "sleep", "5", NULL };
	struct il_exec_opts o = { .timeout_ms = 300 };
	struct il_exec_result res;
	struct il_host_cfg h;
	struct il_err err = { 0 };
	struct il_transport *t;
	struct timespec a, b;

	(void)state;
	/* the program is not there */
	assert_null(open_with(&h, "[\"no-such-transport-idlelab\", \"{cmd}\"]", NULL, NULL, IL_ENOTFOUND,
			      "host 't1': transport.exec: cannot run 'no-such-transport-idlelab'"));
	il_host_release(&h);
	/* it runs but the command never does (a device that is not there) */
	assert_null(open_with(&h, "[\"sh\", \"-c\", \"echo 'error: device not found' >&2; exit 1\", \"{cmd}\"]", NULL,
			      NULL, IL_ECONNECT, "host 't1': 'id' did not run to its end: the transport's 'sh' exited 1: "
			      "error: device not found"));
	il_host_release(&h);
	/*
	 * the command ran (its marker came back) but `id -u` answered garbage or failed: the host was
	 * reached, so this is no connection failure (the audit's "unreachable") but its answer's
	 */
	{
		static const struct {
			const char *id, *msg;
			int code;
		} bad[] = {
			{ "echo abc", "host 't1': 'id -u' through the transport answered 'abc': expected a numeric user id "
				      "alone on its line", IL_EPARSE },
			{ "echo", "answered '': expected a numeric user id", IL_EPARSE },
			{ "echo 0 extra", "answered '0 extra': expected a numeric user id", IL_EPARSE },
			{ "printf '1000\\n\\n'", "answered '1000", IL_EPARSE },
			{ "echo 99999999999", "answered '99999999999'", IL_EPARSE },
			{ "echo nope >&2; return 3", "host 't1': 'id -u' through the transport failed (exit 3): nope", IL_EIO },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			char exec[256];

			snprintf(exec, sizeof(exec), "[\"sh\", \"-c\", \"id() {{ %s; }}; {cmd}\"]", bad[i].id);
			assert_null(open_with(&h, exec, NULL, NULL, bad[i].code, bad[i].msg));
			il_host_release(&h);
		}
		/* a terminal's "\r\n" is still a uid */
		t = open_with(&h, "[\"sh\", \"-c\", \"id() {{ printf '0\\\\r\\\\n'; }}; {cmd}\"]", NULL, NULL, 0, NULL);
		assert_true(t->is_root);
		il_transport_free(t);
		il_host_release(&h);
	}
	/* a time-out kills the transport's program and says so */
	t = open_with(&h, SH_C, NULL, NULL, 0, NULL);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(il_transport_exec(t, slow, &o, &res, &err), IL_ETIMEOUT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true(b.tv_sec - a.tv_sec < 3);
	assert_string_equal(err.msg, "host 't1': 'sleep' timed out after 0.3 s (the transport's 'sh' was killed)");
	il_transport_result_release(&res);
	il_transport_free(t);
	il_host_release(&h);
}

/* 300 KiB with every byte value and no final newline. */
static void binary_file(const char *path)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	for (int i = 0; i < 300 * 1024; i++)
		fputc((i * 7 + i / 256) & 0xff, f);
	fputc('\r', f);
	fclose(f);
}

static void round_trip(struct il_transport *t, const char *tag)
{
	char src[512], dst[512], back[512];
	struct il_err err = { 0 };
	char *a, *b;
	size_t la, lb;

	snprintf(src, sizeof(src), "%s/%s.src", tmp, tag);
	snprintf(dst, sizeof(dst), "%s/%s.remote", tmp, tag);
	snprintf(back, sizeof(back), "%s/%s.back", tmp, tag);
	binary_file(src);
	if (t->upload(t, src, dst, &err) || t->download(t, dst, back, &err))
		fail_msg("%s: %s", tag, err.msg);
	a = tu_read(src, &la);
	b = tu_read(back, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
	assert_int_equal(t->download(t, "/nonexistent/idlelab", back, &err), IL_ENOTFOUND);
}

static void test_cmdtr__transfers(void **state)
{
	char src[512], dst[512], cmd[1200];
	struct il_host_cfg h;
	struct il_err err = { 0 };
	struct il_transport *t;
	struct stat st;

	(void)state;
	/* without pull: the download is `cat` through exec, binary-safe */
	t = open_with(&h, SH_C, NULL, NULL, 0, NULL);
	round_trip(t, "cat");
	il_transport_free(t);
	il_host_release(&h);
	t = open_with(&h, SH_C, NULL, "[\"cp\", \"{src}\", \"{dst}\"]", 0, NULL);
	round_trip(t, "pull");
	il_transport_free(t);
	il_host_release(&h);
	/* a push that changes the file is caught, and nothing is left on the host */
	t = open_with(&h, SH_C, "[\"sh\", \"-c\", \"cp \\\"$0\\\" \\\"$1\\\" && echo x >> \\\"$1\\\"\", \"{src}\", \"{dst}\"]",
		      NULL, 0, NULL);
	snprintf(src, sizeof(src), "%s/cat.src", tmp);
	snprintf(dst, sizeof(dst), "%s/bad.remote", tmp);
	assert_int_equal(t->upload(t, src, dst, &err), IL_EIO);
	assert_non_null(strstr(err.msg, "checksum mismatch after upload"));
	assert_int_not_equal(stat(dst, &st), 0);
	snprintf(cmd, sizeof(cmd), "ls %s | grep -c idlelab-tmp", tmp);
	{
		char *argv[] = { "sh", "-c", cmd, NULL };

		exec_want(t, argv, 1, "0\n", NULL);
	}
	il_transport_free(t);
	il_host_release(&h);
	/* a push that fails says which and how */
	t = open_with(&h, SH_C, "[\"sh\", \"-c\", \"echo 'adb: error: no space' >&2; exit 1\", \"{src}\", \"{dst}\"]",
		      NULL, 0, NULL);
	assert_int_equal(t->upload(t, src, dst, &err), IL_EIO);
	assert_non_null(strstr(err.msg, "host 't1': transport.push 'sh' of"));
	assert_non_null(strstr(err.msg, "(exit 1): adb: error: no space"));
	il_transport_free(t);
	il_host_release(&h);
}

/* ssh(1) and scp(1) as the transport, against a real sshd on 127.0.0.1: exec, and transfers with and without pull. */
static void test_cmdtr__ssh_as_the_command(void **state)
{
	char opts[1200], exec[1400], push[1500], pull[1500], *fail3[] = { "sh", "-c", "echo e >&2; exit 3", NULL };
	struct tu_sshd sshd;
	struct il_host_cfg h;
	struct il_transport *t;
	const char *why;

	(void)state;
	if ((why = tu_sshd_start(&sshd)))
		TU_SKIP(why);
	if (access("/usr/bin/scp", X_OK)) {
		tu_sshd_stop(&sshd);
		TU_SKIP("scp not installed (Debian openssh-client)");
	}
	snprintf(opts, sizeof(opts), "\"-F\", \"/dev/null\", \"-i\", \"%s\", \"-o\", \"UserKnownHostsFile=%s\", \"-o\", "
		 "\"BatchMode=yes\", \"-o\", \"LogLevel=ERROR\"", sshd.client_key, sshd.known_hosts);
	snprintf(exec, sizeof(exec), "[\"ssh\", \"-p\", \"%d\", %s, \"root@127.0.0.1\", \"{cmd}\"]", sshd.port, opts);
	snprintf(push, sizeof(push), "[\"scp\", \"-O\", \"-q\", \"-P\", \"%d\", %s, \"{src}\", \"root@127.0.0.1:{dst}\"]",
		 sshd.port, opts);
	snprintf(pull, sizeof(pull), "[\"scp\", \"-O\", \"-q\", \"-P\", \"%d\", %s, \"root@127.0.0.1:{src}\", \"{dst}\"]",
		 sshd.port, opts);
	t = open_with(&h, exec, push, NULL, 0, NULL);
	assert_true(t->is_root);
	exec_want(t, fail3, 3, "", "e\n");
	round_trip(t, "ssh-cat");
	il_transport_free(t);
	il_host_release(&h);
	t = open_with(&h, exec, push, pull, 0, NULL);
	round_trip(t, "ssh-pull");
	il_transport_free(t);
	il_host_release(&h);
	tu_sshd_stop(&sshd);
}

static void test_cmdtr__hold(void **state)
{
	char *lock[] = { "sh", "-c", "echo held; cat > /dev/null", NULL };
	char *quick[] = { "sh", "-c", "echo done", NULL };
	struct il_buf first = IL_BUF_INIT;
	struct il_host_cfg h;
	struct il_err err = { 0 };
	struct il_transport *t;

	(void)state;
	t = open_with(&h, SH_C, NULL, NULL, 0, NULL);
	assert_int_equal(t->hold(t, lock, 5000, &first, &err), 0);
	assert_string_equal(il_buf_str(&first), "held\n");
	assert_true(t->hold_alive(t));
	t->hold_release(t);
	assert_false(t->hold_alive(t));
	il_buf_reset(&first);
	assert_int_equal(t->hold(t, quick, 5000, &first, &err), 0);
	assert_string_equal(il_buf_str(&first), "done\n");
	for (int i = 0; i < 50 && t->hold_alive(t); i++)
		usleep(100000); /* it ended (its first line may come before its end) */
	assert_false(t->hold_alive(t));
	il_buf_release(&first);
	il_transport_free(t);
	il_host_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdtr__config_errors_name_json_path),
		cmocka_unit_test(test_cmdtr__config_read_and_shown),
		cmocka_unit_test(test_cmdtr__command_for_a_template),
		cmocka_unit_test(test_cmdtr__marker_through_sh),
		cmocka_unit_test(test_cmdtr__exec_codes_and_streams),
		cmocka_unit_test(test_cmdtr__transport_failures_name_the_host),
		cmocka_unit_test(test_cmdtr__transfers),
		cmocka_unit_test(test_cmdtr__ssh_as_the_command),
		cmocka_unit_test(test_cmdtr__hold),
	};

	return cmocka_run_group_tests_name("host_cmdtransport", tests, group_setup, group_teardown);
}
