// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LAVA hosts: the host file's "lava" section and its errors, the token file's
 * checks, the REST answers' parsers on answers captured from a real LAVA
 * 2023.01 (tests/fixtures/lava), and its logs through libyaml; the token
 * kept out of errors and logs when a fake server on 127.0.0.1 echoes it. The
 * one test that talks to a real server is skipped unless one answers on
 * 127.0.0.1:8018.
 */
#include "testutil.h"

#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host.h"
#include "host/lava.h"
#include "host/lavalog.h"
#include "host/transport.h"
#include "util/str.h"

static const char *fixture(const char *name)
{
	static char rel[256];

	snprintf(rel, sizeof(rel), "tests/fixtures/lava/%s", name);
	return tu_srcpath(rel);
}

static int load_host(struct il_host_cfg *h, const char *dir, const char *json, struct il_err *err)
{
	tu_write(dir, "/board.json", json);
	return il_host_load(h, &(struct il_paths){ .hosts_dir = (char *)dir, .home = "/home/tester" }, "board", err);
}

/* ---- the "lava" section ---- */

static void test_lava__cfg_defaults_and_full(void **state)
{
	char *dir = tu_tmpdir();
	struct il_host_cfg h;
	struct il_err err = { 0 };
	struct il_buf where = IL_BUF_INIT;
	json_t *j;

	(void)state;
	assert_int_equal(load_host(&h, dir,
				   "{\"lava\": {\"url\": \"https://lava.example/\", \"token_file\": \"~/.config/lava-token\", "
				   "\"device_type\": \"qemu\"}}",
				   &err),
			 0);
	assert_int_equal(h.kind, IL_HOST_LAVA);
	assert_string_equal(il_host_kind_name(h.kind), "lava");
	assert_null(h.address);
	assert_string_equal(h.lava.url, "https://lava.example");
	assert_string_equal(h.lava.token_file, "/home/tester/.config/lava-token");
	assert_string_equal(h.lava.device_type, "qemu");
	assert_int_equal(h.lava.tags.n, 0);
	assert_int_equal(h.lava.priority, 50);
	assert_string_equal(h.lava.visibility, "public");
	assert_null(h.lava.artifact_dir);
	assert_int_equal(h.lava.poll_s, 5);
	assert_int_equal(h.lava.queue_timeout_s, 86400);
	assert_int_equal(h.lava.job_timeout_s, 3600);
	assert_int_equal(il_host_where(&h, &where), 0);
	assert_string_equal(il_buf_str(&where), "LAVA https://lava.example device type qemu");
	j = il_host_to_json(&h);
	assert_string_equal(json_string_value(json_object_get(j, "transport")), "lava");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "lava"), "token_file")),
			    "/home/tester/.config/lava-token");
	json_decref(j);
	il_buf_release(&where);
	il_host_release(&h);

	assert_int_equal(load_host(&h, dir,
				   "{\"description\": \"rk3399 boards in the Linaro lab\", \"cpus\": \"0-3\", \"lava\": {"
				   "\"url\": \"http://127.0.0.1:8018\", \"token_file\": \"/etc/idlelab/token\", "
				   "\"device_type\": \"rk3399-gru-kevin\", \"tags\": [\"cpuidle\", \"usb-serial\"], "
				   "\"priority\": \"high\", \"visibility\": \"personal\", \"artifact_dir\": \"~/srv\", "
				   "\"artifact_url\": \"file:///srv/idlelab\", \"poll_s\": 30, \"queue_timeout_s\": 600, "
				   "\"job_timeout_s\": 7200}}",
				   &err),
			 0);
	assert_int_equal(h.lava.tags.n, 2);
	assert_string_equal(h.lava.tags.v[1], "usb-serial");
	assert_int_equal(h.lava.priority, 100);
	assert_string_equal(h.lava.visibility, "personal");
	assert_string_equal(h.lava.artifact_dir, "/home/tester/srv");
	assert_string_equal(h.lava.artifact_url, "file:///srv/idlelab");
	assert_int_equal(h.lava.poll_s, 30);
	assert_int_equal(h.lava.queue_timeout_s, 600);
	assert_int_equal(h.lava.job_timeout_s, 7200);
	il_host_release(&h);
	assert_int_equal(load_host(&h, dir,
				   "{\"lava\": {\"url\": \"http://l\", \"token_file\": \"t\", \"device_type\": \"q\", "
				   "\"priority\": 7}}",
				   &err),
			 0);
	assert_int_equal(h.lava.priority, 7);
	il_host_release(&h);
	tu_rmtree(dir);
	free(dir);
}

static void test_lava__cfg_errors_name_file_and_path(void **state)
{
#define L(extra) "{\"lava\": {\"url\": \"http://lava\", \"token_file\": \"t\", \"device_type\": \"qemu\"" extra "}}"
	static const char *const cases[][2] = {
		{ "{\"lava\": {\"token_file\": \"t\", \"device_type\": \"q\"}}",
		  "board.json: lava.url: expected the LAVA server's http:// or https:// URL (required)" },
		{ "{\"lava\": {\"url\": \"ftp://x\", \"token_file\": \"t\", \"device_type\": \"q\"}}",
		  "board.json: lava.url: expected the LAVA server's http:// or https:// URL, not 'ftp://x'" },
		{ "{\"lava\": {\"url\": \"http://x\", \"device_type\": \"q\"}}", "lava.token_file: expected the path of a file" },
		{ "{\"lava\": {\"url\": \"http://x\", \"token_file\": \"t\"}}", "lava.device_type: expected a LAVA device type (required)" },
		{ L(", \"priority\": \"urgent\""), "lava.priority: expected \"high\", \"medium\", \"low\" or an integer from 0 to 100" },
		{ L(", \"priority\": 101"), "lava.priority: expected \"high\"" },
		{ L(", \"visibility\": \"group\""), "lava.visibility: expected \"public\" or \"personal\"" },
		{ L(", \"tags\": \"cpuidle\""), "lava.tags: expected an array of non-empty strings" },
		{ L(", \"poll_s\": 0"), "lava.poll_s: expected an integer from 1 to 600" },
		{ L(", \"queue_timeout_s\": -1"), "lava.queue_timeout_s: expected an integer" },
		{ L(", \"artifact_dir\": \"/srv\""), "lava.artifact_url: expected the URL under which LAVA's worker sees artifact_dir" },
		{ L(", \"artifact_url\": \"file:///srv\""), "lava.artifact_dir: expected the local directory" },
		{ L(", \"artifact_dir\": \"/srv\", \"artifact_url\": \"/srv\""), "lava.artifact_url: expected a file:///, http:// or https:// URL" },
		{ L(", \"tokenfile\": \"t\""), "lava.tokenfile: unknown key" },
		{ "{\"lava\": \"http://x\"}", "board.json: lava: expected an object with \"url\", \"token_file\" and \"device_type\"" },
		{ "{\"address\": \"10.0.0.7\", \"lava\": {\"url\": \"http://x\", \"token_file\": \"t\", \"device_type\": \"q\"}}",
		  "board.json: address: not with \"lava\" (a LAVA host is reached through LAVA jobs, not SSH)" },
		{ "{\"transport\": {\"exec\": [\"sh\", \"-c\", \"{cmd}\"], \"push\": [\"cp\", \"{src}\", \"{dst}\"]}, "
		  "\"lava\": {\"url\": \"http://x\", \"token_file\": \"t\", \"device_type\": \"q\"}}",
		  "board.json: transport: expected no \"transport\" with \"lava\"" },
	};
#undef L
	char *dir = tu_tmpdir();
	struct il_host_cfg h;
	struct il_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(load_host(&h, dir, cases[i][0], &err), IL_EPARSE);
		if (!strstr(err.msg, cases[i][1]))
			fail_msg("case %zu: '%s' does not contain '%s'", i, err.msg, cases[i][1]);
		assert_non_null(strstr(err.msg, "board.json: "));
	}
	tu_rmtree(dir);
	free(dir);
}

static void test_lava__no_transport(void **state)
{
	char *dir = tu_tmpdir();
	struct il_host_cfg h;
	struct il_transport *t = (struct il_transport *)1;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(load_host(&h, dir, "{\"lava\": {\"url\": \"http://x\", \"token_file\": \"t\", \"device_type\": \"q\"}}",
				   &err),
			 0);
	assert_int_equal(il_transport_open(&t, &h, &err), IL_EUNSUPPORTED);
	assert_null(t);
	assert_string_equal(err.msg, "host 'board' is a LAVA host: it is reached through LAVA jobs, not commands");
	il_host_release(&h);
	tu_rmtree(dir);
	free(dir);
}

/* ---- the token file ---- */

static char *token_file(const char *dir, const char *text, unsigned mode)
{
	char *path = il_str_dup_printf("%s/token", dir);

	unlink(path);
	tu_write(dir, "/token", text);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

#define SECRET "s3cr3tT0kenV4lue"

static void test_lava__token_file_rules(void **state)
{
	static const struct {
		const char *text;
		unsigned mode;
		int code;
		const char *msg;
	} cases[] = {
		{ SECRET "\n", 0644, IL_EPERM, "permissions 0644 are too open" },
		{ SECRET "\n", 0640, IL_EPERM, "permissions 0640 are too open" },
		{ SECRET "\n", 0602, IL_EPERM, "permissions 0602 are too open" },
		{ "", 0600, IL_EPARSE, "expected the LAVA API token on the first line, found none" },
		{ "  \n" SECRET "\n", 0600, IL_EPARSE, "found none" },
		{ "s3cr3t T0ken\n", 0600, IL_EPARSE, "not an API token (printable ASCII without blanks; byte 7 is not)" },
		{ "s3cr3t\x1bT0ken\n", 0600, IL_EPARSE, "byte 7 is not" },
		{ "s3cr\xc3\xa9tT0ken\n", 0600, IL_EPARSE, "byte 5 is not" },
	};
	char *dir = tu_tmpdir(), *path, *tok;
	struct il_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		path = token_file(dir, cases[i].text, cases[i].mode);
		assert_int_equal(il_lava_token_read(path, &tok, &err), cases[i].code);
		assert_null(tok);
		if (!strstr(err.msg, cases[i].msg) || !strstr(err.msg, path))
			fail_msg("case %zu: '%s'", i, err.msg);
		/* what the file holds is never said */
		assert_null(strstr(err.msg, "s3cr3t"));
		assert_null(strstr(err.msg, "T0ken"));
		free(path);
	}
	path = token_file(dir, "  \t" SECRET " \r\nsecond line\n", 0600);
	assert_int_equal(il_lava_token_read(path, &tok, &err), 0);
	assert_string_equal(tok, SECRET);
	free(tok);
	path[strlen(path) - 5] = '\0'; /* the directory */
	assert_int_equal(il_lava_token_read(path, &tok, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "not a regular file"));
	free(path);
	path = il_str_dup_printf("%s/none", dir);
	assert_int_equal(il_lava_token_read(path, &tok, &err), IL_ENOTFOUND);
	free(path);
	if (geteuid() == 0) {
		struct passwd *nobody = getpwnam("nobody");

		path = token_file(dir, SECRET "\n", 0600);
		if (nobody && chown(path, nobody->pw_uid, nobody->pw_gid) == 0) {
			assert_int_equal(il_lava_token_read(path, &tok, &err), IL_EPERM);
			assert_non_null(strstr(err.msg, "not by uid 0 that runs idlelab"));
			assert_null(strstr(err.msg, SECRET));
		}
		free(path);
	}
	tu_rmtree(dir);
	free(dir);
}

/* ---- the answers ---- */

static int job9(struct il_lava_job *j, const char *body, struct il_err *err)
{
	return il_lava_parse_job(j, body, strlen(body), "job-9", err);
}

static int submit_s(long **ids, size_t *n, const char *body, struct il_err *err)
{
	return il_lava_parse_submit(ids, n, body, strlen(body), "s", err);
}

static void test_lava__parse_job(void **state)
{
	struct il_lava_job j;
	struct il_err err = { 0 };
	size_t len;
	char *text = tu_read(fixture("job-4-incomplete.json"), &len);

	(void)state;
	assert_int_equal(il_lava_parse_job(&j, text, len, "job-4", &err), 0);
	assert_int_equal(j.id, 4);
	assert_int_equal(j.state, IL_LAVA_FINISHED);
	assert_int_equal(j.health, IL_LAVA_INCOMPLETE);
	assert_string_equal(il_lava_state_name(j.state), "Finished");
	assert_string_equal(il_lava_health_name(j.health), "Incomplete");
	assert_string_equal(j.actual_device, "qemu-aarch64-01");
	assert_string_equal(j.description, "idlelab-infra-retry");
	assert_null(j.failure_comment);
	assert_string_equal(j.submit_time, "2026-12-01T15:26:31.943522Z");
	assert_string_equal(j.start_time, "2026-12-01T15:26:32.089408Z");
	assert_string_equal(j.end_time, "2026-12-01T15:26:34.033909Z");
	il_lava_job_release(&j);
	free(text);
	text = tu_read(fixture("job-5-complete.json"), &len);
	assert_int_equal(il_lava_parse_job(&j, text, len, "job-5", &err), 0);
	assert_int_equal(j.health, IL_LAVA_COMPLETE);
	il_lava_job_release(&j);
	free(text);

	/* a job not yet scheduled: nulls */
	{
		static const char queued[] = "{\"id\": 9, \"state\": \"Submitted\", \"health\": \"Unknown\", "
					     "\"actual_device\": null, \"start_time\": null, \"end_time\": null, "
					     "\"failure_comment\": \"dispatcher gone\"}";

		assert_int_equal(il_lava_parse_job(&j, queued, sizeof(queued) - 1, "job-9", &err), 0);
	}
	assert_int_equal(j.state, IL_LAVA_SUBMITTED);
	assert_int_equal(j.health, IL_LAVA_HEALTH_UNKNOWN);
	assert_null(j.actual_device);
	assert_null(j.start_time);
	assert_string_equal(j.failure_comment, "dispatcher gone");
	il_lava_job_release(&j);

	assert_int_equal(job9(&j, "{\"id\": 9, \"state\": \"Paused\", \"health\": \"Unknown\"}", &err),
			 IL_EPARSE);
	assert_string_equal(err.msg, "job-9: state: expected one of Submitted, Scheduling, Scheduled, Running, Canceling, "
				     "Finished, not 'Paused'");
	assert_int_equal(job9(&j, "{\"id\": 9, \"state\": \"Running\"}", &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "job-9: health: expected one of Unknown, Complete"));
	assert_int_equal(job9(&j, "{\"id\": \"9\"}", &err), IL_EPARSE);
	assert_string_equal(err.msg, "job-9: id: expected a job id (a positive integer)");
	assert_int_equal(job9(&j, "<html>", &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "job-9: not a JSON answer"));
	assert_int_equal(job9(&j, "[]", &err), IL_EPARSE);
}

static void test_lava__parse_submit_and_messages(void **state)
{
	long *ids;
	size_t n, len;
	struct il_err err = { 0 };
	char *text = tu_read(fixture("submit.json"), &len), *m;

	(void)state;
	assert_int_equal(il_lava_parse_submit(&ids, &n, text, len, "submit", &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], 4);
	free(ids);
	free(text);
	assert_int_equal(submit_s(&ids, &n, "{\"job_ids\": [7, 8]}", &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ids[1], 8);
	free(ids);
	assert_int_equal(submit_s(&ids, &n, "{\"job_ids\": []}", &err), IL_EPARSE);
	assert_string_equal(err.msg, "s: job_ids: expected a non-empty array of job ids");
	assert_int_equal(submit_s(&ids, &n, "{\"job_ids\": [7, \"x\"]}", &err), IL_EPARSE);
	assert_string_equal(err.msg, "s: job_ids[1]: expected a job id (a positive integer)");
	assert_null(ids);

	static const char *const msgs[][2] = {
		{ "validate.json", "Job valid." },
		{ "validate-invalid.json", "Job invalid: required key not provided" },
		{ "notfound.json", "Not found." },
		{ "invalid-token.json", "Invalid token." },
		{ "submit.json", "job(s) successfully submitted" },
	};
	for (size_t i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
		text = tu_read(fixture(msgs[i][0]), &len);
		m = il_lava_parse_message(text, len);
		assert_string_equal(m, msgs[i][1]);
		free(m);
		free(text);
	}
	assert_null(il_lava_parse_message("<!DOCTYPE html>", 15));
	m = il_lava_parse_message("{\"message\": \"a\\u001b[31mb\\nc\"}", 30);
	assert_string_equal(m, "a?[31mb?c");
	free(m);
}

static const struct il_lava_test *find_test(const struct il_lava_tests *t, const char *suite, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name) && t->v[i].suite && !strcmp(t->v[i].suite, suite))
			return &t->v[i];
	fail_msg("no test %s/%s", suite, name);
	return NULL;
}

static void test_lava__parse_tests(void **state)
{
	struct il_lava_tests t = { 0 };
	const struct il_lava_test *c;
	struct il_err err = { 0 };
	bool more = true;
	size_t len;
	char *text = tu_read(fixture("tests-3-complete.json"), &len);

	(void)state;
	assert_int_equal(il_lava_parse_tests(&t, &more, text, len, "tests-3", &err), 0);
	assert_false(more);
	assert_int_equal(t.n, 21);
	assert_null(t.error_type);
	assert_null(t.error_msg);
	c = find_test(&t, "0_idlelab-governor", "cpu0-WFI-usage");
	assert_int_equal(c->result, IL_LAVA_PASS);
	assert_true(c->has_measurement);
	assert_true(c->measurement == 6.0);
	assert_string_equal(c->unit, "entries");
	c = find_test(&t, "lava", "job");
	assert_false(c->has_measurement);
	assert_string_equal(c->unit, "");
	c = find_test(&t, "lava", "file-download");
	assert_string_equal(c->unit, "seconds");
	il_lava_tests_release(&t);
	free(text);

	text = tu_read(fixture("tests-8-boot-timeout.json"), &len);
	assert_int_equal(il_lava_parse_tests(&t, &more, text, len, "tests-8", &err), 0);
	assert_string_equal(t.error_type, "Job");
	assert_string_equal(t.error_msg, "wait for prompt timed out");
	c = find_test(&t, "lava", "login-action");
	assert_int_equal(c->result, IL_LAVA_FAIL);
	assert_true(fabs(c->measurement - 29.68) < 1e-9);
	il_lava_tests_release(&t);
	free(text);

	text = tu_read(fixture("tests-6-test-raise.json"), &len);
	assert_int_equal(il_lava_parse_tests(&t, &more, text, len, "tests-6", &err), 0);
	assert_string_equal(t.error_type, "Test");
	assert_string_equal(t.error_msg, "governor-write-failed");
	assert_int_equal(find_test(&t, "0_raise", "a-failing-case")->result, IL_LAVA_FAIL);
	assert_string_equal(il_lava_result_name(IL_LAVA_SKIP), "skip");
	/* a second page appends */
	len = t.n;
	assert_int_equal(il_lava_parse_tests(&t, &more,
					     "{\"next\": \"http://x/?offset=2\", \"results\": [{\"name\": \"a\", \"result\": "
					     "\"skip\", \"measurement\": 1.5, \"unit\": null}]}",
					     110, "p2", &err),
			 0);
	assert_true(more);
	assert_int_equal(t.n, len + 1);
	assert_int_equal(t.v[len].result, IL_LAVA_SKIP);
	assert_null(t.v[len].suite);
	assert_true(t.v[len].measurement == 1.5);
	il_lava_tests_release(&t);
	free(text);

	static const char *const bad[][2] = {
		{ "{\"results\": {}}", "p: results: expected an array of test cases" },
		{ "{\"results\": [{\"name\": \"a\", \"result\": \"maybe\"}]}",
		  "p: results[0].result: expected one of pass, fail, skip, unknown, not 'maybe'" },
		{ "{\"results\": [{\"name\": \"a\", \"result\": \"pass\", \"measurement\": \"lots\"}]}",
		  "p: results[0].measurement: expected a number or null" },
		{ "{\"results\": [{\"name\": \"a\", \"result\": \"pass\", \"measurement\": \"nan\"}]}",
		  "p: results[0].measurement: expected a number or null" },
		{ "{\"results\": [{\"result\": \"pass\"}]}", "p: results[0].name: expected a test case name" },
		{ "{\"results\": [{\"name\": \"job\", \"result\": \"fail\", \"metadata\": \"case: job\\nerror_type: [\"}]}",
		  "p: results[0].metadata: line " },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&t, 0, sizeof(t));
		assert_int_equal(il_lava_parse_tests(&t, &more, bad[i][0], strlen(bad[i][0]), "p", &err), IL_EPARSE);
		if (strncmp(err.msg, bad[i][1], strlen(bad[i][1])))
			fail_msg("case %zu: '%s'", i, err.msg);
		il_lava_tests_release(&t);
	}
}

/* ---- logs ---- */

struct seen {
	size_t n, by_lvl[IL_LAVALOG_NLVLS];
	char first_dt[40], first_msg[128];
	json_t *results;    /* every results msg, in order */
	json_t *lists;      /* every sequence msg */
	struct il_buf msgs; /* every scalar msg with its length */
	size_t stop_at;     /* stop with IL_EINTR at this entry (0: never) */
};

static int on_entry(void *ctx, const struct il_lavalog_entry *e, struct il_err *err)
{
	struct seen *s = ctx;

	if (!s->n++) {
		il_str_lcpy(s->first_dt, e->dt, sizeof(s->first_dt));
		il_str_lcpy(s->first_msg, e->msg ? e->msg : "", sizeof(s->first_msg));
	}
	s->by_lvl[e->lvl]++;
	assert_true(e->line > 0);
	assert_true(!e->msg != !e->msg_json);
	if (e->msg_json && json_is_object(e->msg_json) && e->lvl == IL_LAVALOG_RESULTS)
		json_array_append(s->results, (json_t *)e->msg_json);
	if (e->msg_json && json_is_array(e->msg_json))
		json_array_append(s->lists, (json_t *)e->msg_json);
	if (e->msg) {
		il_buf_add(&s->msgs, e->msg, e->msg_len);
		il_buf_add(&s->msgs, "|", 1);
	}
	if (s->stop_at && s->n == s->stop_at)
		return il_err_set(err, IL_EINTR, "stopped at %zu", e->line);
	return 0;
}

static void seen_init(struct seen *s)
{
	memset(s, 0, sizeof(*s));
	s->results = json_array();
	s->lists = json_array();
}

static void seen_release(struct seen *s)
{
	json_decref(s->results);
	json_decref(s->lists);
	il_buf_release(&s->msgs);
}

static void test_lavalog__real_log(void **state)
{
	struct seen s;
	struct il_err err = { 0 };
	struct il_buf console = IL_BUF_INIT;
	size_t len;
	char *text = tu_read(fixture("log-job3-excerpt.yaml"), &len);
	const json_t *r;

	(void)state;
	seen_init(&s);
	assert_int_equal(il_lavalog_parse(text, len, on_entry, &s, "job-3", &err), 0);
	assert_int_equal(s.n, 92);
	assert_string_equal(s.first_dt, "2026-12-01T15:26:08.150079");
	assert_string_equal(s.first_msg, "lava-dispatcher, installed at version: 2023.01");
	assert_int_equal(s.by_lvl[IL_LAVALOG_TARGET], 33);
	assert_int_equal(s.by_lvl[IL_LAVALOG_RESULTS], 11);
	assert_int_equal(s.by_lvl[IL_LAVALOG_OTHER], 0);
	/* mappings come as JSON, nested ones too; "! " tagged numbers are strings, as LAVA's loader reads them */
	r = json_array_get(s.results, 1);
	assert_string_equal(json_string_value(json_object_get(r, "case")), "file-download");
	assert_string_equal(json_string_value(json_object_get(json_object_get(r, "extra"), "label")), "dtb");
	assert_string_equal(json_string_value(json_object_get(json_object_get(r, "extra"), "size")), "8187");
	r = json_array_get(s.results, 4);
	assert_string_equal(json_string_value(json_object_get(r, "case")), "uptime-at-test");
	assert_string_equal(json_string_value(json_object_get(r, "measurement")), "2.38");
	assert_string_equal(json_string_value(json_object_get(r, "units")), "s");
	r = json_array_get(s.results, 10);
	assert_string_equal(json_string_value(json_object_get(r, "case")), "job");
	assert_string_equal(json_string_value(json_object_get(r, "result")), "pass");
	/* a list msg, with \\ escapes */
	assert_int_equal(json_array_size(s.lists), 1);
	assert_string_equal(json_string_value(json_array_get(json_array_get(s.lists, 0), 0)), "-\\[ cut here \\]");
	seen_release(&s);

	assert_int_equal(il_lavalog_target_text(text, len, &console, "job-3", &err), 0);
	assert_int_equal(strncmp(il_buf_str(&console), "/ # [6n\n\n/ # [6n#\n", 18), 0);
	assert_non_null(strstr(il_buf_str(&console), "\n<LAVA_SIGNAL_TESTSET STOP>\npoweroff\n"));
	il_buf_release(&console);
	/* a cap on the console is the caller's */
	il_buf_init(&console, 100);
	assert_int_equal(il_lavalog_target_text(text, len, &console, "job-3", &err), IL_ETOOBIG);
	assert_string_equal(err.msg, "job-3: the console output is larger than 100 bytes");
	il_buf_release(&console);

	/* the callback stops the parse */
	seen_init(&s);
	s.stop_at = 3;
	assert_int_equal(il_lavalog_parse(text, len, on_entry, &s, "job-3", &err), IL_EINTR);
	assert_string_equal(err.msg, "stopped at 3");
	seen_release(&s);
	free(text);

	/* the tail of a boot that timed out: exceptions, errors, the job's error */
	text = tu_read(fixture("log-boot-timeout-tail.yaml"), &len);
	seen_init(&s);
	assert_int_equal(il_lavalog_parse(text, len, on_entry, &s, "job-8", &err), 0);
	assert_int_equal(s.n, 37);
	assert_true(s.by_lvl[IL_LAVALOG_EXCEPTION] >= 3);
	assert_true(s.by_lvl[IL_LAVALOG_ERROR] >= 3);
	r = json_array_get(s.results, json_array_size(s.results) - 1);
	assert_string_equal(json_string_value(json_object_get(r, "error_type")), "Job");
	assert_string_equal(json_string_value(json_object_get(r, "error_msg")), "wait for prompt timed out");
	seen_release(&s);
	free(text);
}

static void test_lavalog__escapes(void **state)
{
	static const char want[] = "\x1b[0;32mOK\x1b[0m caf\xc3\xa9 a\xc2\xa0"
				   "b \x1b[6n \xc2\x85 \xf0\x9f\x98\x80 tab\there|nul\0byte|other namespace|";
	struct seen s;
	struct il_err err = { 0 };
	size_t len;
	char *text = tu_read(fixture("log-escapes.yaml"), &len);
	const json_t *m;

	(void)state;
	seen_init(&s);
	assert_int_equal(il_lavalog_parse(text, len, on_entry, &s, "esc", &err), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.msgs.len, sizeof(want) - 1);
	assert_memory_equal(s.msgs.p, want, sizeof(want) - 1);
	assert_int_equal(s.by_lvl[IL_LAVALOG_FEEDBACK], 1);
	/* a level this table does not know is still an entry */
	assert_int_equal(s.by_lvl[IL_LAVALOG_OTHER], 1);
	seen_release(&s);
	free(text);

	assert_int_equal(il_lavalog_yaml_json("case: job\nerror_type: Infrastructure\nlist: [a, {b: c}]\n", 55, (json_t **)&m,
					      "meta", &err),
			 0);
	assert_string_equal(json_string_value(json_object_get(m, "error_type")), "Infrastructure");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(m, "list"), 1), "b")), "c");
	json_decref((json_t *)m);
	assert_int_equal(il_lavalog_yaml_json("", 0, (json_t **)&m, "meta", &err), 0);
	assert_true(json_is_null(m));
	assert_int_equal(il_lavalog_yaml_json("a: 1\n---\nb: 2\n", 14, (json_t **)&m, "meta", &err), IL_EPARSE);
	assert_string_equal(err.msg, "meta: line 2: expected one YAML document");
	assert_int_equal(il_lavalog_yaml_json("a: &x [1]\nb: *x\n", 16, (json_t **)&m, "meta", &err), IL_EPARSE);
	assert_string_equal(err.msg, "meta: line 2: expected no alias (LAVA writes none)");
}

static void test_lavalog__bad_input(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "- {\"dt\": \"2026\", \"lvl\": \"info\", \"msg\": \"a\"}\n- {\"dt\": \"2026\", \"lvl\": \"tar",
		  "t: line 2: found unexpected end of stream while scanning a quoted scalar" },
		{ "- {\"dt\": \"2026\", \"lvl\": \"info\", \"msg\": \"a\"}\n- {\"dt\": \"2026\", \"lvl\": \"info\"}\n",
		  "t: line 2: expected a log entry with \"lvl\" and \"msg\"" },
		{ "just some text\n", "t: line 1: expected a LAVA log (a sequence of {dt, lvl, msg} entries)" },
		{ "- plain\n", "t: line 1: expected a log entry {dt, lvl, msg}" },
		{ "- {\"dt\": \"x\", \"lvl\": [1], \"msg\": \"a\"}\n", "t: line 1: expected \"lvl\" to be a string" },
		{ "- {\"lvl\": \"info\", \"msg\": \"a\"}\n\n\n- {\"lvl\": \"info\", \"msg\": \"\xff\"}\n", "t: line 4: invalid" },
		{ "- {\"lvl\": \"info\", \"msg\": \"\\q\"}\n", "t: line 1: found unknown escape character" },
		{ "- {\"lvl\": \"info\", \"msg\": \"a\"}\n]]]\n", "t: line 2: " },
	};
	struct seen s;
	struct il_err err = { 0 };
	char deep[400];
	size_t len;
	char *text = tu_read(fixture("log-job3-excerpt.yaml"), &len);

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		seen_init(&s);
		assert_int_equal(il_lavalog_parse(cases[i].text, strlen(cases[i].text), on_entry, &s, "t", &err), IL_EPARSE);
		if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)))
			fail_msg("case %zu: '%s'", i, err.msg);
		seen_release(&s);
	}
	/* an empty log (no line yet), blanks, and a log cut at a line's end are logs */
	for (int i = 0; i < 2; i++) {
		seen_init(&s);
		assert_int_equal(il_lavalog_parse(i ? " \n\n" : "", i ? 3 : 0, on_entry, &s, "t", &err), 0);
		assert_int_equal(s.n, 0);
		seen_release(&s);
	}
	/* cut in the middle of line 40: the 39 before it are delivered, then the error names line 40 */
	{
		const char *p = text;

		for (int l = 1; l < 40; l++)
			p = strchr(p, '\n') + 1;
		seen_init(&s);
		assert_int_equal(il_lavalog_parse(text, (size_t)(p - text) + 30, on_entry, &s, "cut", &err), IL_EPARSE);
		assert_int_equal(s.n, 39);
		assert_non_null(strstr(err.msg, "cut: line 40: "));
		seen_release(&s);
		seen_init(&s);
		assert_int_equal(il_lavalog_parse(text, (size_t)(p - text), on_entry, &s, "cut", &err), 0);
		assert_int_equal(s.n, 39);
		seen_release(&s);
	}
	/* nesting is bounded */
	memset(deep, '[', sizeof(deep));
	memcpy(deep, "- {\"lvl\": \"info\", \"msg\": ", 25);
	seen_init(&s);
	assert_int_equal(il_lavalog_parse(deep, sizeof(deep), on_entry, &s, "deep", &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "deep: line 1: "));
	seen_release(&s);
	free(text);
}

/* ---- a fake server that echoes the token ---- */

/* A server on 127.0.0.1 giving answers[i] (whole HTTP answers) to its i-th connection, in a thread. */
struct fake {
	int fd, port;
	const char *const *answers;
	size_t n;
	pthread_t th;
};

static void *fake_serve(void *arg)
{
	struct fake *f = arg;

	for (size_t i = 0; i < f->n; i++) {
		int c = accept(f->fd, NULL, NULL);
		char req[16384];
		size_t got = 0;
		ssize_t k;
		char *end;

		if (c < 0)
			break;
		/* the request's head, then as much body as its Content-Length says */
		while (got < sizeof(req) - 1 && (k = read(c, req + got, sizeof(req) - 1 - got)) > 0) {
			req[got += (size_t)k] = 0;
			if ((end = strstr(req, "\r\n\r\n"))) {
				const char *cl = strcasestr(req, "\r\nContent-Length:");
				size_t want = (size_t)(end + 4 - req) + (cl && cl < end ? strtoul(cl + 17, NULL, 10) : 0);

				if (got >= want)
					break;
			}
		}
		if (write(c, f->answers[i], strlen(f->answers[i])) < 0)
			i = f->n;
		close(c);
	}
	return NULL;
}

static void fake_start(struct fake *f, const char *const *answers, size_t n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	f->answers = answers;
	f->n = n;
	f->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(f->fd >= 0);
	assert_int_equal(bind(f->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(f->fd, (struct sockaddr *)&a, &len), 0);
	assert_int_equal(listen(f->fd, 8), 0);
	f->port = ntohs(a.sin_port);
	assert_int_equal(pthread_create(&f->th, NULL, fake_serve, f), 0);
}

static void fake_stop(struct fake *f)
{
	pthread_join(f->th, NULL);
	close(f->fd);
}

/* An HTTP answer with a JSON (or any) body; the caller frees it. */
static char *answer(int status, const char *body)
{
	char *s = il_str_dup_printf("HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
				    "Connection: close\r\n\r\n%s", status, strlen(body), body);

	assert_non_null(s);
	return s;
}

/* whatever a server answers, the token never comes back in a message or a log */
static void test_lava__token_never_echoed(void **state)
{
	char pad[300], *dir = tu_tmpdir(), *tokpath = token_file(dir, SECRET "\n", 0600), *bodies[9];
	struct il_lava_cfg cfg = { .token_file = tokpath };
	struct il_lava_conn c;
	struct il_lava_job j = { 0 };
	struct il_buf log = IL_BUF_INIT;
	struct il_err err = { 0 };
	struct fake f;
	size_t nb = 0;

	(void)state;
	memset(pad, 'x', sizeof(pad) - 1);
	pad[290] = 0; /* the token right where LAVA's words are cut to 300 bytes */
	bodies[nb++] = answer(401, "{\"detail\": \"Invalid token " SECRET ".\"}");
	{
		char *b = il_str_dup_printf("{\"message\": \"%s" SECRET "\"}", pad);

		bodies[nb++] = answer(403, b);
		free(b);
	}
	/* escaped in JSON: the parser gives the token back */
	bodies[nb++] = answer(401, "{\"detail\": \"bad token \\u00733cr3tT0kenV4lue\"}");
	bodies[nb++] = answer(200, "{\"id\": 9, \"state\": \"" SECRET "\", \"health\": \"Unknown\"}");
	bodies[nb++] = answer(200, SECRET " is not JSON");
	bodies[nb++] = answer(500, "{\"detail\": \"Authorization: Token " SECRET "\"}");
	bodies[nb++] = answer(200, "{\"message\": \"Job invalid: token " SECRET "\"}");
	bodies[nb++] = answer(200, "- {\"dt\": \"2026\", \"lvl\": \"target\", \"msg\": \"echo " SECRET "\"}\n");
	/* another job's state is no answer about this one */
	bodies[nb++] = answer(200, "{\"id\": 8, \"state\": \"Running\", \"health\": \"Unknown\"}");
	fake_start(&f, (const char *const *)bodies, nb);
	cfg.url = il_str_dup_printf("http://127.0.0.1:%d", f.port);
	assert_int_equal(il_lava_conn_open(&c, &cfg, &err), 0);
	c.timeout_s = 10;

	assert_int_equal(il_lava_job_get(&c, 9, &j, &err), IL_EAUTH);
	assert_non_null(strstr(err.msg, "/api/v0.2/jobs/9/: HTTP 401: Invalid token <token>."));
	assert_null(strstr(err.msg, "s3cr3t"));
	assert_int_equal(il_lava_job_get(&c, 9, &j, &err), IL_EAUTH);
	assert_non_null(strstr(err.msg, "HTTP 403: xxx"));
	assert_null(strstr(err.msg, "s3cr3t"));
	assert_int_equal(il_lava_job_get(&c, 9, &j, &err), IL_EAUTH);
	assert_non_null(strstr(err.msg, "HTTP 401: bad token <token>"));
	assert_int_equal(il_lava_job_get(&c, 9, &j, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "state: expected one of Submitted"));
	assert_null(strstr(err.msg, "s3cr3t"));
	assert_int_equal(il_lava_job_get(&c, 9, &j, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "not a JSON answer"));
	assert_null(strstr(err.msg, "s3cr3t"));
	assert_int_equal(il_lava_job_cancel(&c, 9, &err), IL_EIO);
	assert_non_null(strstr(err.msg, "HTTP 500: Authorization: Token <token>"));
	assert_null(strstr(err.msg, "s3cr3t"));
	assert_int_equal(il_lava_validate(&c, "job: x", &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "Job invalid: token <token>"));
	assert_null(strstr(err.msg, "s3cr3t"));
	assert_int_equal(il_lava_job_logs(&c, 9, 0, &log, &err), 0);
	assert_non_null(strstr(il_buf_str(&log), "echo <token>"));
	assert_null(strstr(il_buf_str(&log), "s3cr3t"));
	assert_int_equal(il_lava_job_get(&c, 9, &j, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "/api/v0.2/jobs/9/: id: expected 9, the job asked for, not 8"));
	assert_int_equal(j.id, 0);

	/* the last guard on its own: a message that has the token, whatever put it there */
	snprintf(err.msg, sizeof(err.msg), "a %s b %s", SECRET, SECRET);
	assert_int_equal(il_lava_scrub_err(&c, IL_EIO, &err), IL_EIO);
	assert_string_equal(err.msg, "a <token> b <token>");
	fake_stop(&f);
	il_lava_conn_release(&c);
	il_buf_release(&log);
	for (size_t i = 0; i < nb; i++)
		free(bodies[i]);
	free(cfg.url);
	free(tokpath);
	tu_rmtree(dir);
	free(dir);
}

/* ---- a real server, when one runs here ---- */

#define LIVE_URL "http://127.0.0.1:8018"
#define LIVE_TOKEN "/var/tmp/lava18/root/root/lava18/api-token"

static bool listening(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;

	if (fd >= 0)
		close(fd);
	return ok;
}

/* read-only calls: a job's state, its tests, its log's end; never a submission (the server is shared) */
static void test_lava__live_server(void **state)
{
	struct il_lava_cfg cfg = { .url = LIVE_URL, .token_file = LIVE_TOKEN };
	struct il_lava_conn c;
	struct il_lava_job j = { 0 };
	struct il_lava_tests t;
	struct il_buf log = IL_BUF_INIT;
	struct il_err err = { 0 };
	size_t lines = 0;

	(void)state;
	if (!listening(8018) || access(LIVE_TOKEN, R_OK))
		TU_SKIP("no LAVA server on " LIVE_URL " with its token");
	if (il_lava_conn_open(&c, &cfg, &err))
		TU_SKIP(err.msg);
	assert_int_equal(il_lava_job_get(&c, 3, &j, &err), 0);
	assert_int_equal(j.id, 3);
	assert_non_null(j.submit_time);
	il_lava_job_release(&j);
	assert_int_equal(il_lava_job_get(&c, 999999, &j, &err), IL_ENOTFOUND);
	assert_string_equal(err.msg, LIVE_URL "/api/v0.2/jobs/999999/: HTTP 404: Not found.");
	assert_int_equal(il_lava_job_tests(&c, 3, &t, &err), 0);
	assert_true(t.n > 0);
	il_lava_tests_release(&t);
	assert_int_equal(il_lava_job_logs(&c, 3, 0, &log, &err), 0);
	for (size_t i = 0; i < log.len; i++)
		lines += log.p[i] == '\n';
	assert_true(lines > 0);
	il_buf_reset(&log);
	/* past the last line: no lines, not an error */
	assert_int_equal(il_lava_job_logs(&c, 3, lines, &log, &err), 0);
	assert_int_equal(log.len, 0);
	il_buf_release(&log);
	il_lava_conn_release(&c);

	/* a wrong token: the call fails for authentication and the message does not carry it */
	{
		char *dir = tu_tmpdir(), *path = token_file(dir, "wrongtoken\n", 0600);

		cfg.token_file = path;
		assert_int_equal(il_lava_conn_open(&c, &cfg, &err), 0);
		assert_int_equal(il_lava_job_get(&c, 3, &j, &err), IL_EAUTH);
		assert_string_equal(err.msg, LIVE_URL "/api/v0.2/jobs/3/: HTTP 403: Invalid token.");
		il_lava_conn_release(&c);
		free(path);
		tu_rmtree(dir);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lava__cfg_defaults_and_full),
		cmocka_unit_test(test_lava__cfg_errors_name_file_and_path),
		cmocka_unit_test(test_lava__no_transport),
		cmocka_unit_test(test_lava__token_file_rules),
		cmocka_unit_test(test_lava__parse_job),
		cmocka_unit_test(test_lava__parse_submit_and_messages),
		cmocka_unit_test(test_lava__parse_tests),
		cmocka_unit_test(test_lavalog__real_log),
		cmocka_unit_test(test_lavalog__escapes),
		cmocka_unit_test(test_lavalog__bad_input),
		cmocka_unit_test(test_lava__token_never_echoed),
		cmocka_unit_test(test_lava__live_server),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
