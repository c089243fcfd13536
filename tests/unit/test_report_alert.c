// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Regression alerts: the subject and the lkp-style body for one and for
 * several regressions (grouped by workload, worst first, at most 100
 * columns), the webhook JSON, bad input named by its JSON path; the mail's
 * text (RFC 2047 subject, CRLF, no header injection) and the auth file's
 * rules (private regular file only, contents never in a message).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/alert.h"
#include "util/mail.h"

#define TIP "0123456789abcdef0123456789abcdef01234567"
#define BASE "fedcba9876543210fedcba9876543210fedcba98"

static json_t *fixture(void)
{
	json_error_t je;
	json_t *j = json_load_file(tu_srcpath("tests/fixtures/alert/two-workloads.json"), 0, &je);

	assert_non_null(j);
	return j;
}

/* The fixture with only its first regression (periodic idle_miss, +12.72%). */
static json_t *one(void)
{
	json_t *j = fixture(), *regs = json_object_get(j, "regressions");

	while (json_array_size(regs) > 1)
		json_array_remove(regs, 1);
	return j;
}

/*
 * Every line of s has at most max columns (UTF-8 characters), but for the
 * reproduce and bisect commands: commands are never folded (copied whole).
 */
static void assert_width(const char *s, size_t max)
{
	size_t col = 0;

	for (const char *line = s; *s; s++) {
		if (*s == '\n') {
			col = 0;
			line = s + 1;
			continue;
		}
		if (((unsigned char)*s & 0xc0) != 0x80 && ++col > max && strncmp(line, "  idlelab ", 10))
			fail_msg("a line over %zu columns: %.120s", max, line);
	}
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void test_report_alert__one(void **state)
{
	struct il_err err = { 0 };
	char *subject = NULL, *body = NULL;
	json_t *in = one(), *hook = NULL;

	(void)state;
	assert_int_equal(il_alert_compose(in, &subject, &body, &hook, &err), 0);
	assert_string_equal(subject, "idlelab: +12.7% regression of periodic.idle_miss (teo) on pm-next 0123456789ab");
	assert_non_null(strstr(body, "found 1 regression beyond noise in 1\nworkload on branch 'pm-next'"));
	assert_non_null(strstr(body, "\nplan:     governors\nhost:     labvm\nbranch:   pm-next\n"));
	assert_non_null(strstr(body, "\ncommit:   " TIP " (\"cpuidle: teo: Skip the tick stop check for\n"
				     "          shallow states\")\n"));
	assert_non_null(strstr(body, "\nbaseline: " BASE " (run 2026-11-30-governors)\n"));
	assert_non_null(strstr(body, "\nworkload: periodic\n\n    fedcba987654                   0123456789ab\n"));
	assert_non_null(strstr(body, "\n    0.1234 ±  2%     +12.7%      0.1391 ±  1%   0.00018    10/10  "
				     "idle_miss (teo, ratio)\n"));
	assert_non_null(strstr(body, "\ncommit range:\n  " BASE ".." TIP "\n"));
	assert_non_null(strstr(body, "\nto reproduce:\n  idlelab run examples/nightly.json --host labvm\n"));
	assert_non_null(strstr(body, "\nto bisect (suggested):\n  idlelab bisect examples/nightly.json --good"));
	assert_null(strstr(body, "more"));
	assert_width(body, 100);
	assert_string_equal(json_string_value(json_object_get(hook, "schema")), "idlelab-alert/1");
	assert_string_equal(json_string_value(json_object_get(hook, "subject")), subject);
	assert_string_equal(json_string_value(json_object_get(hook, "text")), body);
	assert_string_equal(json_string_value(json_object_get(hook, "commit_subject")),
			    "cpuidle: teo: Skip the tick stop check for shallow states");
	assert_true(json_equal(json_array_get(json_object_get(hook, "regressions"), 0),
			       json_array_get(json_object_get(in, "regressions"), 0)));
	free(subject);
	free(body);
	json_decref(hook);
	/* outputs not wanted may be NULL */
	assert_int_equal(il_alert_compose(in, &subject, NULL, NULL, &err), 0);
	free(subject);
	json_decref(in);
}

/* A drift (a change point over the nightlies) says so in its row and explains the numbers once. */
static void test_report_alert__drift(void **state)
{
	struct il_err err = { 0 };
	char *body = NULL;
	json_t *in = one(), *reg = json_array_get(json_object_get(in, "regressions"), 0);

	(void)state;
	json_object_set_new(reg, "kind", json_string("drift"));
	json_object_set_new(reg, "since", json_string("abcdef0123456789"));
	/* a nightly's run id is long: the baseline's goes on a line of its own */
	json_object_set_new(json_object_get(in, "baseline"), "run",
			    json_string("20261201-123509-nightly-nightly-e2e-a8859baf9872"));
	assert_int_equal(il_alert_compose(in, NULL, &body, NULL, &err), 0);
	assert_non_null(strstr(body, "\nbaseline: " BASE "\n          (run 20261201-123509-nightly-nightly-e2e-a8859baf9872)\n"));
	assert_non_null(strstr(body, "idle_miss (teo, ratio) drift since abcdef012345\n"));
	assert_int_equal(count(body, "\ndrift: a change point over the last nightlies"), 1);
	assert_width(body, 100);
	free(body);
	json_decref(in);
}

static void test_report_alert__several(void **state)
{
	struct il_err err = { 0 };
	char *subject = NULL, *body = NULL;
	json_t *in = fixture(), *hook = NULL, *regs;
	const char *sch, *per;

	(void)state;
	assert_int_equal(il_alert_compose(in, &subject, &body, &hook, &err), 0);
	/* the largest change names the mail, the rest are counted */
	assert_string_equal(subject, "idlelab: +20.6% regression of schbench.p99_latency (teo) and 3 more on pm-next "
				     "0123456789ab");
	assert_non_null(strstr(body, "found 4 regressions beyond noise in 2\nworkloads"));
	/* one table per workload, the worst workload first, each regression under its own workload */
	assert_int_equal(count(body, "\nworkload: "), 2);
	assert_non_null(sch = strstr(body, "\nworkload: schbench\n"));
	assert_non_null(per = strstr(body, "\nworkload: periodic\n"));
	assert_true(sch < per);
	assert_true(strstr(body, "p99_latency (teo, us)") < strstr(body, "requests_per_s (teo, req/s)"));
	assert_true(strstr(body, "requests_per_s (teo, req/s)") < per);
	assert_true(per < strstr(body, "idle_miss (teo, ratio)"));
	assert_true(strstr(body, "idle_miss (teo, ratio)") < strstr(body, "aboves (menu)\n"));
	assert_non_null(strstr(body, "\n     35210 ±  1%      -3.5%       33980 ±  1%    0.0012    10/10  "
				     "requests_per_s (teo, req/s)\n"));
	assert_non_null(strstr(body, "\n      1520 ±  3%      +5.9%        1610 ±  3%    0.0031     10/9  aboves (menu)\n"));
	assert_int_equal(count(body, "     mean  stdev    %change         mean  stdev         p        n  metric\n"), 2);
	assert_width(body, 100);
	/* the webhook lists them in the mail's order */
	regs = json_object_get(hook, "regressions");
	assert_int_equal(json_array_size(regs), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(regs, 0), "metric")), "p99_latency");
	assert_string_equal(json_string_value(json_object_get(json_array_get(regs, 3), "metric")), "aboves");
	free(subject);
	free(body);
	json_decref(hook);
	json_decref(in);
}

/* A metric name too long for its row gets a line of its own, cut at 100 columns. */
static void test_report_alert__long_names(void **state)
{
	struct il_err err = { 0 };
	char *body = NULL, name[300];
	json_t *in = one();

	(void)state;
	memset(name, 'm', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	memcpy(name, "ü", strlen("ü"));
	json_object_set_new(json_array_get(json_object_get(in, "regressions"), 0), "metric", json_string(name));
	json_object_set_new(in, "subject", json_string("a very long subject of a commit, " "longer than a line can be: "
				"cpuidle: teo: Skip the tick stop check for shallow states and more"));
	assert_int_equal(il_alert_compose(in, NULL, &body, NULL, &err), 0);
	assert_width(body, 100);
	assert_non_null(strstr(body, "10/10  \n    ümmmm"));
	free(body);
	json_decref(in);
}

/* Each bad value is named by its JSON path. */
static void test_report_alert__bad_input(void **state)
{
	static const struct {
		const char *path, *json, *want;
	} cases[] = {
		{ "commit", NULL, "alert: commit: expected a commit id of 40 hexadecimal digits (required)" },
		{ "commit", "\"0123456789ABCDEF\"", "alert: commit: expected a commit id of 40 hexadecimal digits" },
		{ "baseline", "{\"run\": \"x\"}", "alert: baseline.commit: expected a commit id of 40 hexadecimal digits" },
		{ "range", "\"" BASE ".." BASE "\"", "alert: range: expected \"BASE..TIP\" with BASE baseline.commit and TIP" },
		{ "range", "\"fedcba9..0123456\"", NULL },
		{ "branch", "\"pm-next\\nBcc: x@y\"", "alert: branch: expected one line of text" },
		{ "colour", "\"red\"", "alert: colour: unknown key (known: plan, host," },
		{ "regressions", "[]", "alert: regressions: expected a non-empty array of regressions" },
		{ "regressions", "[1]", "alert: regressions[0]: expected a regression object" },
		{ "regressions[1].p", "2", "alert: regressions[1].p: expected a number from 0 to 1" },
		{ "regressions[2].n", "0", "alert: regressions[2].n: expected an integer from 1 to 1000000000" },
		{ "regressions[3].better", "\"same\"", "alert: regressions[3].better: expected \"lower\" or \"higher\"" },
		{ "regressions[3].change_pct", "3.49", "alert: regressions[3].change_pct: expected a change for the worse "
						       "(better is 'higher': below 0)" },
		{ "regressions[0].stdev", "-1", "alert: regressions[0].stdev: expected a number, 0 or more" },
		{ "regressions[1].workload", NULL, "alert: regressions[1].workload: expected a non-empty string (required)" },
		{ "regressions[0].colour", "1", "alert: regressions[0].colour: unknown key (known: workload," },
		{ "regressions[0].kind", "\"slide\"", "alert: regressions[0].kind: expected \"jump\" or \"drift\"" },
		{ "regressions[0].kind", "\"drift\"", "alert: regressions[0].since: expected with kind \"drift\": a commit id" },
		{ "regressions[1].since", "\"fedcba98\"", "alert: regressions[1].since: expected with kind \"drift\"" },
		{ "regressions[1].kind", "\"jump\"", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct il_err err = { 0 };
		char *subject = (char *)"untouched";
		json_t *in = fixture(), *obj = in, *v = NULL;
		const char *key = cases[i].path, *dot = strrchr(key, '.');
		char idx;

		if (!strncmp(key, "regressions[", 12) && dot) {
			idx = key[12];
			obj = json_array_get(json_object_get(in, "regressions"), (size_t)(idx - '0'));
			key = dot + 1;
		}
		if (cases[i].json)
			assert_non_null(v = json_loads(cases[i].json, JSON_DECODE_ANY, NULL));
		if (v)
			json_object_set_new(obj, key, v);
		else
			json_object_del(obj, key);
		if (!cases[i].want) {
			assert_int_equal(il_alert_compose(in, NULL, NULL, NULL, &err), 0);
		} else {
			assert_int_equal(il_alert_compose(in, &subject, NULL, NULL, &err), IL_EPARSE);
			if (!strstr(err.msg, cases[i].want))
				fail_msg("%s: got '%s', wanted '%s'", cases[i].path, err.msg, cases[i].want);
			assert_string_equal(subject, "untouched");
		}
		json_decref(in);
	}
	{
		struct il_err err = { 0 };
		json_t *arr = json_array();

		assert_int_equal(il_alert_compose(arr, NULL, NULL, NULL, &err), IL_EPARSE);
		assert_string_equal(err.msg, "alert: (top level): expected an object");
		json_decref(arr);
	}
}

/*
 * The tip's subject is written by whoever can commit to the branch: control
 * bytes, a TAB, a CR, escapes and 1,010 bytes neither refuse the alert nor
 * break the mail (lines of at most 998 bytes); the subject is cut to 200
 * bytes on a character boundary.
 */
static void test_report_alert__hostile_subject(void **state)
{
	struct il_err err = { 0 };
	char *subject = NULL, *body = NULL, big[1100];
	json_t *in = fixture(), *hook = NULL;
	struct il_strlist to = { 0 };
	struct il_buf mail = IL_BUF_INIT;
	const char *p, *q;

	(void)state;
	static const char head[] = "cpuidle: \033[2J\033]0;t\007\tmenu\rdeep \xc3\xa9";

	memset(big, 'x', sizeof(big));
	memcpy(big, head, strlen(head));
	big[1010] = 0;
	json_object_set_new(in, "subject", json_string(big));
	assert_int_equal(il_alert_compose(in, &subject, &body, &hook, &err), 0);
	assert_null(strchr(body, '\033'));
	assert_null(strchr(body, '\r'));
	assert_null(strchr(body, '\t'));
	assert_non_null(strstr(body, "(\"cpuidle: ?[2J?]0;t? menu?deep"));
	assert_non_null(strstr(body, "\xc3\xa9xxx"));
	assert_non_null(strstr(body, "xxx...\")"));
	q = json_string_value(json_object_get(hook, "commit_subject"));
	assert_non_null(q);
	assert_int_equal(strlen(q), 203);
	assert_string_equal(q + 200, "...");
	/* the mail composes: every line within 998 bytes */
	assert_int_equal(0, il_strlist_push(&to, "pm@example.org"));
	{
		struct il_mail m = { .url = "smtp://127.0.0.1:1/", .from = "n@example.org", .to = &to, .subject = subject,
				     .body = body };

		assert_int_equal(il_mail_compose(&m, true, &mail, &err), 0);
	}
	for (p = mail.p; (q = strstr(p, "\r\n")); p = q + 2)
		assert_true(q - p <= 998);
	/* a cut never splits a character: 199 x and an e-acute (2 bytes) make 201 bytes, cut before it */
	memset(big, 'x', 199);
	memcpy(big + 199, "\xc3\xa9tail", 7);
	json_object_set_new(in, "subject", json_string(big));
	json_decref(hook);
	free(subject), free(body);
	assert_int_equal(il_alert_compose(in, NULL, NULL, &hook, &err), 0);
	q = json_string_value(json_object_get(hook, "commit_subject"));
	assert_int_equal(strlen(q), 202);
	assert_string_equal(q + 199, "...");
	json_decref(hook);
	il_strlist_release(&to);
	il_buf_release(&mail);
	json_decref(in);
}

/* ---- the mail's text ---- */

static void test_util_mail__compose(void **state)
{
	struct il_strlist to = { 0 };
	struct il_mail m = { .from = "nightly@lab.example.org", .to = &to, .body = "line one\nline two\n" };
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(0, il_strlist_push(&to, "pm@example.org"));
	assert_int_equal(0, il_strlist_push(&to, "dev@example.org"));
	m.subject = "idlelab: +12.7% regression of periodic.idle_miss (teo) and 3 more on pm-next 0123456789ab";
	assert_int_equal(il_mail_compose(&m, true, &b, &err), 0);
	assert_non_null(strstr(b.p, "\r\nFrom: nightly@lab.example.org\r\nTo: pm@example.org,\r\n    dev@example.org\r\n"));
	/* folded before a blank past 78 columns */
	assert_non_null(strstr(b.p, "\r\nSubject: idlelab: +12.7% regression of periodic.idle_miss (teo) and 3 more on\r\n"
				    " pm-next 0123456789ab\r\n"));
	assert_non_null(strstr(b.p, "\r\nMessage-ID: <"));
	assert_non_null(strstr(b.p, ".idlelab@lab.example.org>\r\n"));
	assert_non_null(strstr(b.p, "\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
				    "Content-Transfer-Encoding: 8bit\r\n\r\nline one\r\nline two\r\n"));
	assert_int_equal(strncmp(b.p, "Date: ", 6), 0);
	assert_true(strstr(b.p, " +0000\r\n") != NULL);
	/* no bare LF anywhere */
	for (size_t i = 0; i < b.len; i++)
		if (b.p[i] == '\n')
			assert_int_equal(b.p[i - 1], '\r');
	il_buf_release(&b);

	/* not ASCII: RFC 2047 encoded-words, cut between characters */
	m.subject = "Größenänderung";
	assert_int_equal(il_mail_compose(&m, false, &b, &err), 0);
	assert_non_null(strstr(b.p, "\nSubject: =?UTF-8?B?R3LDtsOfZW7DpG5kZXJ1bmc=?=\n"));
	il_buf_release(&b);

	/* what would break the header or the body is refused, naming the field */
	m.subject = "x\r\nBcc: victim@example.org";
	assert_int_equal(il_mail_compose(&m, true, &b, &err), IL_EINVAL);
	assert_string_equal(err.msg, "mail: subject: expected one line of UTF-8 text");
	m.subject = "ok";
	m.from = "a@b\r\nBcc: victim@example.org";
	assert_int_equal(il_mail_compose(&m, true, &b, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "mail: from: expected an address"));
	m.from = "a@b";
	m.body = "bad \x1b[2J escape\n";
	assert_int_equal(il_mail_compose(&m, true, &b, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "mail: body:"));
	il_buf_release(&b);
	il_strlist_release(&to);
}

/* ---- the auth file ---- */

static void test_util_mail__auth_file(void **state)
{
	char *dir = tu_tmpdir(), path[512], link[512], *user = NULL, *pw = NULL;
	struct il_err err = { 0 };

	(void)state;
	snprintf(path, sizeof(path), "%s/auth", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	tu_write(dir, "/auth", "nightly:s3cr:et-pw");
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(il_mail_auth_read(path, &user, &pw, &err), 0);
	assert_string_equal(user, "nightly");
	assert_string_equal(pw, "s3cr:et-pw");
	free(user);
	il_mail_auth_wipe(pw);
	assert_int_equal(chmod(path, 0400), 0);
	assert_int_equal(il_mail_auth_read(path, &user, &pw, &err), 0);
	free(user);
	il_mail_auth_wipe(pw);

	/* readable by others: refused, and the message says why without the contents */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(il_mail_auth_read(path, &user, &pw, &err), IL_EPERM);
	assert_null(user);
	assert_null(pw);
	assert_non_null(strstr(err.msg, "mode 0644"));
	assert_null(strstr(err.msg, "s3cr"));
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(il_mail_auth_read(path, &user, &pw, &err), IL_EPERM);

	/* a symbolic link, even to a good file: refused, not followed */
	assert_int_equal(chmod(path, 0600), 0);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(il_mail_auth_read(link, &user, &pw, &err), IL_EPERM);
	assert_non_null(strstr(err.msg, "symbolic link"));

	/* not a regular file, missing, no "user:" */
	assert_int_equal(il_mail_auth_read(dir, &user, &pw, &err), IL_EPERM);
	unlink(link);
	assert_int_equal(il_mail_auth_read(link, &user, &pw, &err), IL_ENOTFOUND);
	tu_write(dir, "/auth", "just-a-secret-token");
	assert_int_equal(il_mail_auth_read(path, &user, &pw, &err), IL_EPARSE);
	assert_null(strstr(err.msg, "secret"));

	/* il_mail_send checks the file before it connects to anything */
	{
		struct il_strlist to = { 0 };
		struct il_mail m = { .url = "smtp://127.0.0.1:1", .auth_file = path, .from = "a@b", .to = &to,
				     .subject = "s", .body = "b\n" };

		assert_int_equal(0, il_strlist_push(&to, "c@d"));
		assert_int_equal(chmod(path, 0644), 0);
		assert_int_equal(il_mail_send(&m, &err), IL_EPERM);
		m.url = "http://127.0.0.1:1";
		assert_int_equal(il_mail_send(&m, &err), IL_EINVAL);
		il_strlist_release(&to);
	}
	tu_rmtree(dir);
	free(dir);
}

/* A server that is not there: the URL in the message, its password never. */
static void test_util_mail__send_down(void **state)
{
	struct il_strlist to = { 0 };
	struct il_err err = { 0 };
	char url[128];
	struct il_mail m = { .url = url, .from = "a@b", .to = &to, .subject = "s", .body = "b\n", .timeout_s = 10 };

	(void)state;
	snprintf(url, sizeof(url), "smtp://nightly:hunter2@127.0.0.1:%d", tu_free_port());
	assert_int_equal(0, il_strlist_push(&to, "c@d"));
	assert_int_equal(il_mail_send(&m, &err), IL_ECONNECT);
	assert_non_null(strstr(err.msg, "mail via smtp://nightly:***@127.0.0.1:"));
	assert_null(strstr(err.msg, "hunter2"));
	il_strlist_release(&to);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_alert__one),
		cmocka_unit_test(test_report_alert__drift),
		cmocka_unit_test(test_report_alert__several),
		cmocka_unit_test(test_report_alert__long_names),
		cmocka_unit_test(test_report_alert__bad_input),
		cmocka_unit_test(test_report_alert__hostile_subject),
		cmocka_unit_test(test_util_mail__compose),
		cmocka_unit_test(test_util_mail__auth_file),
		cmocka_unit_test(test_util_mail__send_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
