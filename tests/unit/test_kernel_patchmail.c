// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel/patchmail: one mail read as a patch, piece by piece: the subject's
 * [PATCH vN M/N] tag (gateway tags, replies, numbers out of range), trailers,
 * References, base-commit, a body split into message, diff and trailers, the
 * in-body From:/Date: lines, and the messages of an mbox as GMime reads them.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/patchmail.h"

static void test_patchmail__subject(void **state)
{
	static const struct {
		const char *subject;
		bool patch;
		int version, index, total;
		const char *rest;
	} cases[] = {
		{ "[PATCH v2 3/4] cpuidle: teo: foo", true, 2, 3, 4, "cpuidle: teo: foo" },
		{ "[PATCH] foo", true, 1, 1, 1, "foo" },
		{ "  [RFC PATCH v3 0/2]   the cover", true, 3, 0, 2, "the cover" },
		{ "[patch V2,1/3] lower case, commas", true, 2, 1, 3, "lower case, commas" },
		/* a gateway's tag before the PATCH one is passed over */
		{ "[EXTERNAL] [PATCH 1/1] foo", true, 1, 1, 1, "foo" },
		/* replies and forwards, also behind such a tag, are no patches */
		{ "Re: [PATCH 1/2] foo", false, 0, 0, 0, NULL },
		{ "AW: [PATCH 1/2] foo", false, 0, 0, 0, NULL },
		{ "[EXTERNAL] RE: [PATCH 1/2] foo", false, 0, 0, 0, NULL },
		/* numbers no series has: not a wrapped-around index */
		{ "[PATCH 10000/10001] foo", false, 0, 0, 0, NULL },
		{ "[PATCH v99999 1/1] foo", false, 0, 0, 0, NULL },
		{ "[GIT PULL] cpuidle for 6.19", false, 0, 0, 0, NULL },
		{ "plain mail", false, 0, 0, 0, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int v = -1, ix = -1, tot = -1;
		const char *rest = NULL;
		bool got = il_patchmail_subject(cases[i].subject, &v, &ix, &tot, &rest);

		if (got != cases[i].patch)
			fail_msg("'%s': %s, expected %s", cases[i].subject, got ? "a patch" : "no patch",
				 cases[i].patch ? "a patch" : "none");
		if (!got)
			continue;
		assert_int_equal(v, cases[i].version);
		assert_int_equal(ix, cases[i].index);
		assert_int_equal(tot, cases[i].total);
		assert_string_equal(rest, cases[i].rest);
	}
}

static void test_patchmail__trailers_refs_base(void **state)
{
	struct il_strlist refs = { 0 };
	char *base = NULL, hex64[80];

	(void)state;
	assert_true(il_patchmail_is_trailer("Reviewed-by: A <a@b>", 20));
	assert_true(il_patchmail_is_trailer("acked-by: A", 11));
	assert_false(il_patchmail_is_trailer("Reviewed-by:", 12)); /* no value */
	assert_false(il_patchmail_is_trailer("Reviewed: A", 11));
	/* in order, each once; "<>" and a token with a '<' inside are skipped */
	assert_int_equal(il_strlist_push(&refs, "root@x"), 0);
	assert_int_equal(il_patchmail_refs(&refs, "<a@b>\n <c@d> <root@x> <> <bad <e@f> <a@b>"), 0);
	assert_int_equal(refs.n, 3);
	assert_string_equal(refs.v[1], "a@b");
	assert_string_equal(refs.v[2], "c@d");
	assert_int_equal(il_patchmail_refs(&refs, NULL), 0);
	assert_int_equal(refs.n, 3);
	il_strlist_release(&refs);
	/* the first base-commit line with 7 to 64 hex digits */
	assert_int_equal(il_patchmail_base_commit("text\nbase-commit: abc\nbase-commit:  0123abcd9 tail\n", &base), 0);
	assert_string_equal(base, "0123abcd9");
	free(base);
	assert_int_equal(il_patchmail_base_commit("no base here\n", &base), 0);
	assert_null(base);
	/* 65 digits: too long for any hash */
	snprintf(hex64, sizeof(hex64), "base-commit: %s1", "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff");
	assert_int_equal(il_patchmail_base_commit(hex64, &base), 0);
	assert_null(base);
}

static void test_patchmail__body(void **state)
{
	struct il_patch p = { 0 };
	const char *body = "From: Real Author <real@example.org>\r\nDate: Tue, 1 Jan 2019 00:00:00 +0100\n\n"
			   "The step was too short.\n\nReviewed-by: Rev <rev@example.org>\nSigned-off-by: A <a@example.org>\n"
			   "---\nv1 -> v2: longer\n---\n f | 2 +-\n\n"
			   "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n";
	const char *b = body;

	(void)state;
	p.author_name = strdup("Sender");
	p.author_email = strdup("sender@example.org");
	assert_int_equal(il_patchmail_in_body_headers(&p, &b), 0);
	assert_string_equal(p.author_name, "Real Author");
	assert_string_equal(p.author_email, "real@example.org");
	assert_int_equal(p.date, 1546297200);
	assert_int_equal(p.tz_minutes, 60);
	assert_true(!strncmp(b, "The step", 8));
	assert_int_equal(il_patchmail_split_body(&p, "cpuidle: menu: longer step", b), 0);
	/* the message up to "---", without the notes between the two "---" lines */
	assert_string_equal(p.message, "cpuidle: menu: longer step\n\nThe step was too short.\n\n"
					"Reviewed-by: Rev <rev@example.org>\nSigned-off-by: A <a@example.org>\n");
	assert_null(strstr(p.diff, "v1 -> v2"));
	assert_non_null(strstr(p.diff, "+new\n"));
	assert_int_equal(p.trailers.n, 2);
	assert_int_equal(p.files.n, 1);
	assert_string_equal(p.files.v[0], "f");
	free(p.author_name), free(p.author_email), free(p.message), free(p.diff);
	il_strlist_release(&p.trailers), il_strlist_release(&p.files);
	/* a body without in-body headers is left as it is */
	memset(&p, 0, sizeof(p));
	p.author_name = strdup("Sender");
	p.author_email = strdup("sender@example.org");
	b = "From the top of the tree\n";
	assert_int_equal(il_patchmail_in_body_headers(&p, &b), 0);
	assert_string_equal(b, "From the top of the tree\n");
	assert_string_equal(p.author_name, "Sender");
	free(p.author_name), free(p.author_email);
}

static void test_patchmail__mbox(void **state)
{
	size_t len, n = 99;
	char *text = tu_read(tu_srcpath("tests/fixtures/series/thread.mbox"), &len);
	struct il_patchmail *m = NULL;
	struct il_err err = { 0 };
	size_t replies = 0;

	(void)state;
	assert_int_equal(il_patchmail_read_mbox("Subject: x\n", 11, "x.mbox", &m, &n, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "x.mbox: not an mbox"));
	assert_null(m);
	assert_int_equal(n, 0);
	assert_int_equal(il_patchmail_read_mbox(text, len, "thread.mbox", &m, &n, &err), 0);
	assert_int_equal(n, 9);
	assert_string_equal(m[0].subject, "[PATCH v1 0/3] teo and friends, take 1");
	assert_string_equal(m[0].email, "rafael@example.org");
	for (size_t i = 0; i < n; i++) {
		assert_non_null(m[i].body);
		if (strstr(m[i].subject, "Re: ") == m[i].subject) {
			replies++;
			assert_string_equal(m[i].in_reply_to,
					    "c962800eaec3262c594b02fce77b37793608d200.1795986410.git.rafael@example.org");
			assert_non_null(strstr(m[i].body, "Reviewed-by: Rev Iewer <rev@example.org>"));
			assert_int_equal(m[i].date, 1763028000);
		}
	}
	assert_int_equal(replies, 1);
	il_patchmail_free(m, n);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patchmail__subject),
		cmocka_unit_test(test_patchmail__trailers_refs_base),
		cmocka_unit_test(test_patchmail__body),
		cmocka_unit_test(test_patchmail__mbox),
	};

	return cmocka_run_group_tests_name("kernel_patchmail", tests, NULL, NULL);
}
