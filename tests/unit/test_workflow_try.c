// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * idlelab try's library half: governors from the patches' paths, the base
 * (trailer, --base, HEAD; a missing one named), the plan (base, cumulative
 * patches or the whole series, the A/A copy last), the source argument and
 * the message a reply answers.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/reply.h"
#include "util/mailbox.h"
#include "workflow/try.h"

static void one(struct il_series *s, struct il_patch *p, const char *const *files)
{
	memset(s, 0, sizeof(*s));
	memset(p, 0, sizeof(*p));
	for (; *files; files++)
		assert_int_equal(il_strlist_push(&p->files, *files), 0);
	s->n = 1, s->p = p, s->version = 1;
}

static const char *govs_of(const char *const *files)
{
	static char out[64];
	struct il_series s;
	struct il_patch p;
	struct il_strlist g = { 0 };
	struct il_buf b = IL_BUF_INIT;

	one(&s, &p, files);
	assert_int_equal(il_try_governors(&s, &g), 0);
	il_strlist_join(&g, &b);
	snprintf(out, sizeof(out), "%s", il_buf_str(&b));
	il_buf_release(&b);
	il_strlist_release(&g);
	il_strlist_release(&p.files);
	return out;
}

static void test_try__governors(void **state)
{
	(void)state;
	assert_string_equal(govs_of((const char *[]){ "drivers/cpuidle/governors/teo.c", NULL }), "teo");
	assert_string_equal(govs_of((const char *[]){ "drivers/cpuidle/governors/menu.c", NULL }), "menu");
	assert_string_equal(govs_of((const char *[]){ "drivers/cpuidle/governors/menu.c", "drivers/cpuidle/governors/teo.c",
						      NULL }), "menu teo");
	assert_string_equal(govs_of((const char *[]){ "drivers/cpuidle/cpuidle.c", NULL }), "menu teo");
	assert_string_equal(govs_of((const char *[]){ "kernel/sched/idle.c", NULL }), "menu teo");
	assert_string_equal(govs_of((const char *[]){ "include/linux/cpuidle.h", NULL }), "menu teo");
	assert_string_equal(govs_of((const char *[]){ "drivers/cpuidle/governors/ladder.c", NULL }), "ladder");
	assert_string_equal(govs_of((const char *[]){ "drivers/cpuidle/governors/haltpoll.c", NULL }), "haltpoll");
	assert_string_equal(govs_of((const char *[]){ "drivers/cpuidle/governors/teo.c", "Documentation/x.rst", NULL }),
			    "teo");
	/* nothing idle-related: both default governors */
	assert_string_equal(govs_of((const char *[]){ "mm/slub.c", NULL }), "menu teo");
}

static char *repo_with_commit(char **sha)
{
	char *dir = tu_tmpdir(), cmd[1024], buf[64] = "";
	FILE *f;

	snprintf(cmd, sizeof(cmd), "cd %s && git -c init.defaultBranch=main init -q && echo x > f && git add f && "
		 "git -c user.name=T -c user.email=t@e.org commit -q -m one && git rev-parse HEAD", dir);
	assert_non_null(f = popen(cmd, "r"));
	assert_non_null(fgets(buf, sizeof(buf), f));
	pclose(f);
	buf[strcspn(buf, "\n")] = 0;
	*sha = strdup(buf);
	return dir;
}

static void test_try__base(void **state)
{
	char *sha, *dir = repo_with_commit(&sha);
	struct il_series s = { 0 };
	struct il_try_base b;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_try_base(dir, &s, NULL, &b, &err), 0);
	assert_int_equal(b.from, IL_TRY_BASE_HEAD);
	assert_string_equal(b.sha, sha);
	free(b.rev);
	assert_int_equal(il_try_base(dir, &s, "main", &b, &err), 0);
	assert_int_equal(b.from, IL_TRY_BASE_OPTION);
	assert_string_equal(b.rev, "main");
	free(b.rev);
	s.base_commit = sha; /* the trailer wins over --base */
	assert_int_equal(il_try_base(dir, &s, "nope", &b, &err), 0);
	assert_int_equal(b.from, IL_TRY_BASE_TRAILER);
	assert_string_equal(b.sha, sha);
	free(b.rev);
	s.base_commit = "0123456789abcdef0123456789abcdef01234567";
	assert_int_not_equal(il_try_base(dir, &s, NULL, &b, &err), 0);
	assert_non_null(strstr(err.msg, "the base 0123456789abcdef0123456789abcdef01234567 (from the series' base-commit: "
				    "trailer) is not a commit of"));
	assert_null(b.rev);
	s.base_commit = NULL;
	assert_int_not_equal(il_try_base(dir, &s, "v9.9", &b, &err), 0);
	assert_non_null(strstr(err.msg, "the base v9.9 (from --base)"));
	assert_non_null(strstr(err.msg, dir));
	tu_rmtree(dir);
	free(dir);
	free(sha);
}

/*
 * The sender, checked in full before anything is built: a git user.name with RFC 5322 specials
 * ("Intel: Jo" reads as a group) is quoted, so the reply composed hours later takes it; an --as
 * that is no single mailbox, or that carries control bytes, is refused at once.
 */
static void test_try__identity(void **state)
{
	char *sha, *dir = repo_with_commit(&sha), cmd[1024];
	struct il_buf who = IL_BUF_INIT;
	struct il_err err = { 0 };

	(void)state;
	snprintf(cmd, sizeof(cmd), "git -C %s config user.name 'Intel: Jo' && git -C %s config user.email jo@example.org",
		 dir, dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(il_try_identity(dir, NULL, &who, &err), 0);
	assert_string_equal(il_buf_str(&who), "\"Intel: Jo\" <jo@example.org>");
	assert_int_equal(il_mailbox_check(il_buf_str(&who), "the sender", &err), 0);
	il_buf_reset(&who);
	assert_int_equal(il_try_identity(dir, "Intel: Jo <jo@example.org>", &who, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "--as: expected \"Name <email>\""));
	assert_int_equal(il_try_identity(dir, "Jo <jo@example.org>\r\nBcc: x@y.org", &who, &err), IL_EINVAL);
	assert_int_equal(il_try_identity(dir, "<jo@example.org>", &who, &err), IL_EINVAL);
	assert_int_equal(il_try_identity(dir, "Jo <jo@example.org>", &who, &err), 0);
	assert_string_equal(il_buf_str(&who), "Jo <jo@example.org>");
	il_buf_release(&who);
	tu_rmtree(dir);
	free(dir);
	free(sha);
}

/*
 * A try run of two governors (tests/fixtures/journal/trygov: menu and teo on base, patch-1 and
 * base-aa): each governor's kernels against that governor on the base, never across governors; the
 * reply says what each part compares, the platform once, a verdict per governor, the trailer once.
 */
static void test_try__compare_per_governor(void **state)
{
	struct il_try_compare tc;
	struct il_reply_part parts[2];
	struct il_reply_opts o = { .from = "Tess Ter <tess@example.org>", .to = "a@b.org", .subject = "[PATCH 0/1] x",
				   .in_reply_to = "c@b.org", .date = 1764662400 };
	struct il_buf mail = IL_BUF_INIT;
	struct il_err err = { 0 };
	const char *tb;

	(void)state;
	assert_int_equal(il_try_compare(tu_srcpath("tests/fixtures/journal/trygov"), &tc, &err), 0);
	assert_int_equal(tc.n, 2);
	assert_string_equal(tc.title[0], "menu, each kernel against menu on the base: menu@patch-1, menu@base-aa (A/A) "
					 "against menu@base");
	assert_string_equal(tc.title[1], "teo, each kernel against teo on the base: teo@patch-1, teo@base-aa (A/A) "
					 "against teo@base");
	for (size_t i = 0; i < 2; i++)
		parts[i] = (struct il_reply_part){ tc.title[i], &tc.cmp[i] };
	assert_int_equal(il_reply_compose(parts, 2, &o, &mail, &err), 0);
	assert_int_equal(tu_count(mail.p, "\nmenu, each kernel against menu on the base: "), 1);
	assert_int_equal(tu_count(mail.p, "\nteo, each kernel against teo on the base: "), 1);
	assert_int_equal(tu_count(mail.p, "\nPlatform: "), 1);
	assert_int_equal(tu_count(mail.p, "\nVerdict: "), 2);
	/* the verdicts never set one governor against the other */
	assert_null(strstr(strstr(mail.p, "\nteo, each kernel"), "menu@"));
	assert_true(strstr(mail.p, "\nteo, each kernel") > strstr(mail.p, "\nmenu, each kernel"));
	assert_int_equal(tu_count(mail.p, "\nTested-by: "), 1);
	tb = strstr(mail.p, "\nTested-by: Tess Ter <tess@example.org>\n");
	assert_non_null(tb);
	assert_true(tb > strstr(mail.p, "\nteo, each kernel"));
	il_buf_release(&mail);
	il_try_compare_release(&tc);
	/* one governor: the run whole, no titles */
	assert_int_equal(il_try_compare(tu_srcpath("tests/fixtures/journal/patched"), &tc, &err), 0);
	assert_int_equal(tc.n, 1);
	assert_null(tc.title[0]);
	il_try_compare_release(&tc);
}

static void test_try__plan(void **state)
{
	struct il_series s;
	struct il_patch p;
	struct il_try_src src = { .mbox = "/x/s.mbox" };
	struct il_try_req q = { .repo = "/r", .host = "h", .src = &src, .iterations = 3 };
	struct il_strlist wl = { 0 };
	struct il_err err = { 0 };
	json_t *plan, *ks, *w;

	(void)state;
	one(&s, &p, (const char *[]){ "drivers/cpuidle/governors/teo.c", NULL });
	assert_int_equal(il_try_plan(&q, &s, "abc", &plan, &err), 0);
	ks = json_object_get(plan, "kernels");
	assert_int_equal(json_array_size(ks), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ks, 0), "name")), "base");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ks, 0), "commit")), "abc");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ks, 1), "name")), "patch-%d");
	assert_true(json_is_true(json_object_get(json_array_get(ks, 1), "cumulative")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(ks, 1), "series"), "mbox")),
			    "/x/s.mbox");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ks, 2), "name")), "base-aa");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ks, 2), "commit")), "abc");
	assert_string_equal(json_string_value(json_array_get(json_object_get(plan, "governors"), 0)), "teo");
	assert_int_equal(json_array_size(json_object_get(plan, "governors")), 1);
	w = json_object_get(plan, "workloads");
	assert_int_equal(json_array_size(w), il_try_nworkloads);
	assert_string_equal(json_string_value(json_object_get(json_array_get(w, 0), "workload")), il_try_workloads[0].workload);
	assert_int_equal(json_integer_value(json_object_get(plan, "iterations")), 3);
	assert_string_equal(json_string_value(json_object_get(plan, "host")), "h");
	json_decref(plan);
	/* --whole, --workload, a Message-ID */
	src = (struct il_try_src){ .message_id = "a@b", .server = "http://s" };
	q.whole = true;
	assert_int_equal(0, il_strlist_push(&wl, "level"));
	q.workloads = &wl;
	assert_int_equal(il_try_plan(&q, &s, "abc", &plan, &err), 0);
	ks = json_object_get(plan, "kernels");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ks, 1), "name")), "series");
	assert_true(json_is_false(json_object_get(json_array_get(ks, 1), "cumulative")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(ks, 1), "series"),
							      "message_id")), "a@b");
	assert_string_equal(json_string_value(json_array_get(json_object_get(plan, "workloads"), 0)), "level");
	json_decref(plan);
	q.iterations = 100001;
	assert_int_not_equal(il_try_plan(&q, &s, "abc", &plan, &err), 0);
	assert_null(plan);
	il_strlist_release(&wl);
	il_strlist_release(&p.files);
}

static void test_try__source(void **state)
{
	struct il_try_src s;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_try_source("<20250101.1@x.org>", NULL, &s, &err), 0);
	assert_string_equal(s.message_id, "20250101.1@x.org");
	assert_string_equal(s.server, IL_TRY_DEFAULT_SERVER);
	il_try_src_release(&s);
	assert_int_equal(il_try_source("https://lore.kernel.org/linux-pm/20250101.1%40x.org/T/#u", NULL, &s, &err), 0);
	assert_string_equal(s.message_id, "20250101.1@x.org");
	assert_string_equal(s.server, "https://lore.kernel.org");
	il_try_src_release(&s);
	assert_int_not_equal(il_try_source("/no/such/file", NULL, &s, &err), 0);
	assert_non_null(strstr(err.msg, "/no/such/file"));
}

static void test_try__answer(void **state)
{
	static const char mbox[] =
		"From x Mon Sep 17 00:00:00 2001\nFrom: A <a@b.org>\nSubject: [PATCH 0/1] teo: things\n"
		"Message-ID: <cover@b.org>\nIn-Reply-To: <root@b.org>\nReferences: <root@b.org>\n\n\n  Makes teo better.\n\n"
		"base-commit: 0123456789abcdef0123456789abcdef01234567\n\n"
		"From x Mon Sep 17 00:00:00 2001\nFrom: A <a@b.org>\nSubject: [PATCH 1/1] cpuidle: teo: one\n"
		"Message-ID: <p1@b.org>\nIn-Reply-To: <cover@b.org>\nReferences: <root@b.org>\n <cover@b.org>\n\n"
		"Body.\n---\ndiff --git a/drivers/cpuidle/governors/teo.c b/drivers/cpuidle/governors/teo.c\n--- a/x\n+++ b/x\n"
		"@@ -1 +1 @@\n-a\n+b\n";
	struct il_series s;
	struct il_try_answer a;
	struct il_buf q = IL_BUF_INIT;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_series_parse(mbox, strlen(mbox), 0, "t", &s, &err), 0);
	assert_string_equal(s.base_commit, "0123456789abcdef0123456789abcdef01234567");
	il_try_answer_of(&s, &a);
	assert_string_equal(a.message_id, "cover@b.org");
	assert_string_equal(a.subject, "[PATCH 0/1] teo: things");
	assert_string_equal(a.author_email, "a@b.org");
	assert_int_equal(a.references->n, 1);
	assert_string_equal(a.references->v[0], "root@b.org");
	assert_int_equal(il_try_first_line(a.body, &q), 0);
	assert_string_equal(il_buf_str(&q), "  Makes teo better.");
	assert_int_equal(s.p[0].references.n, 2);
	assert_string_equal(s.p[0].references.v[1], "cover@b.org");
	/* a cover letter without a Message-ID (the parser keeps ""): answered on the last patch, as b4 does */
	s.cover_message_id[0] = 0;
	il_try_answer_of(&s, &a);
	assert_string_equal(a.message_id, "p1@b.org");
	/* without a cover letter: the last patch */
	free(s.cover_message_id);
	s.cover_message_id = NULL;
	il_try_answer_of(&s, &a);
	assert_string_equal(a.message_id, "p1@b.org");
	assert_string_equal(a.subject, "[PATCH 1/1] cpuidle: teo: one");
	il_buf_release(&q);
	il_series_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_try__governors), cmocka_unit_test(test_try__base),
		cmocka_unit_test(test_try__identity),
		cmocka_unit_test(test_try__compare_per_governor),
		cmocka_unit_test(test_try__plan),      cmocka_unit_test(test_try__source),
		cmocka_unit_test(test_try__answer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
