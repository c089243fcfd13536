// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel variants: series parsing (git format-patch output, quoted-printable
 * and RFC 2047, v1/v2 mixed with replies), libgit2 tarball import and series
 * application, Message-ID fetch from a real HTTP server on 127.0.0.1, and
 * Kconfig fragments checked against a tree. The builds themselves are
 * test_kernel_build.c's.
 */
#include "testutil.h"

#include <signal.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "cli/clipaths.h"
#include "kernel/applycheck.h"
#include "kernel/fetch.h"
#include "kernel/kconfig.h"
#include "kernel/patchdiff.h"
#include "kernel/repo.h"
#include "kernel/series.h"
#include "util/sha256.h"

static int parse_file(const char *rel, int version, struct il_series *s, struct il_err *err)
{
	size_t len;
	char *text = tu_read(tu_fixture_abs(rel), &len);
	int r = il_series_parse(text, len, version, rel, s, err);

	free(text);
	return r;
}

/* parse_file must succeed. */
static void parse_ok(const char *rel, int version, struct il_series *s)
{
	struct il_err err = { 0 };

	if (parse_file(rel, version, s, &err))
		fail_msg("%s: %s", rel, err.msg);
}

static void test_series__thread_with_versions_and_replies(void **state)
{
	struct il_series s;
	struct il_err err = { 0 };

	(void)state;
	parse_ok("series/thread.mbox", 0, &s);
	assert_int_equal(s.version, 2);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.messages, 9);
	assert_string_equal(s.cover_subject, "teo and friends, take 2");
	assert_string_equal(s.p[0].subject, "cpuidle: menu: Use a longer step");
	assert_string_equal(s.p[2].subject, "cpuidle: ladder: Promote on equal prediction");
	assert_string_equal(s.p[0].author_name, "Rafael Wysocki");
	assert_string_equal(s.p[0].files.v[0], "drivers/cpuidle/governors/menu.c");
	/* the reply's trailer joins patch 1; the quoted one does not */
	assert_true(il_strlist_has(&s.p[0].trailers, "Reviewed-by: Rev Iewer <rev@example.org>"));
	assert_false(il_strlist_has(&s.p[0].trailers, "Reviewed-by: Quoted Person <q@example.org>"));
	assert_true(il_strlist_has(&s.p[2].trailers, "Fixes: 0123456789ab (\"cpuidle: ladder: base\")"));
	assert_non_null(strstr(s.p[0].diff, "(idx + 1) * 220"));
	assert_non_null(strstr(s.p[0].message, "cpuidle: menu: Use a longer step\n\nThe step was too short"));
	assert_null(strstr(s.p[0].message, "diff --git"));
	il_series_release(&s);
	parse_ok("series/thread.mbox", 1, &s);
	assert_int_equal(s.version, 1);
	assert_non_null(strstr(s.p[0].diff, "(idx + 1) * 120"));
	il_series_release(&s);
	assert_int_equal(parse_file("series/thread.mbox", 3, &s, &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "no v3 patches (versions present: 1 2)"));
}

static void test_series__quoted_printable_and_rfc2047(void **state)
{
	struct il_series s;

	(void)state;
	parse_ok("series/qp.mbox", 0, &s);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.p[0].author_name, "Rafa\xc3\xabl Wysocki");
	/* folded subject unfolded, =3D and soft line breaks decoded */
	assert_string_equal(s.p[0].subject, "cpuidle: menu: Use a longer step");
	assert_non_null(strstr(s.p[0].diff, "(idx + 1) * 220"));
	assert_null(strstr(s.p[0].diff, "=3D"));
	assert_true(il_strlist_has(&s.p[0].trailers, "Signed-off-by: Rafa\xc3\xabl Wysocki <rafael@example.org>"));
	il_series_release(&s);
}

static void test_series__errors(void **state)
{
	struct il_series s;
	struct il_err err = { 0 };
	size_t len;
	char *text = tu_read(tu_fixture_abs("series/thread.mbox"), &len), *cut;

	(void)state;
	assert_int_equal(il_series_parse("hello\n", 6, 0, "x.txt", &s, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "x.txt: not an mbox"));
	assert_int_equal(il_series_parse("From a\nSubject: hi\n\nbody\n", 25, 0, "m", &s, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "no patches"));
	/* numbers beyond any series are no patch numbers (they overflowed int before: UBSan) */
	{
		static const char huge[] = "From a\nSubject: [PATCH 2147483648/2147483648] x\n\nbody\n"
					   "From b\nSubject: [PATCH v99999999999 1/1] y\n\nbody\n";

		assert_int_equal(il_series_parse(huge, sizeof(huge) - 1, 0, "m", &s, &err), IL_EPARSE);
		assert_non_null(strstr(err.msg, "no patches"));
	}
	/* drop v2 2/3: the gap is named */
	cut = strstr(text, "Subject: [PATCH v2 2/3]");
	assert_non_null(cut);
	while (cut > text && strncmp(cut, "\nFrom ", 6))
		cut--;
	{
		char *next = strstr(cut + 6, "\nFrom ");

		memmove(cut, next, strlen(next) + 1);
	}
	assert_int_equal(il_series_parse(text, strlen(text), 0, "t", &s, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "v2 has 2 of 3 patches: 2/3 is missing"));
	free(text);
	{
		struct il_cpuset sel;

		assert_int_equal(il_series_select("1-2", 3, &sel, &err), 0);
		assert_int_equal(sel.n, 2);
		il_cpuset_release(&sel);
		assert_int_equal(il_series_select("4", 3, &sel, &err), IL_EINVAL);
	}
}

/* ---- repositories ---- */

static char *make_tarball(const char *dir)
{
	char cmd[2048], *out = malloc(600);

	snprintf(out, 600, "%s/tiny.tar.gz", dir);
	snprintf(cmd, sizeof(cmd), "tar -czf %s -C %s tinykernel --transform s,^tinykernel,linux-tiny, --mtime=@1700000000 --owner=0 --group=0 --sort=name",
		 out, tu_fixture_abs(""));
	assert_int_equal(system(cmd), 0);
	return out;
}

/*
 * The series of thread.mbox's v2 as it reaches a user by other roads (tests/fixtures/series/gen-posted.sh):
 * plain "--- a/" diffs with notes between two "---" lines, a cover letter without a Message-ID, lore's
 * quoted-printable and CRLF lines; quilt mail and `diff -up`; a gateway's "[EXTERNAL]" tag with the patch
 * as an octet-stream attachment and an "RE:" reply. Each parses to the same three patches, and each
 * applies to the tiny tree to the very tree that git format-patch's own mail gives.
 */
static void test_series__as_posted(void **state)
{
	static const char *const shapes[] = { "series/plain.mbox", "series/quilt.mbox", "series/exchange.mbox" };
	char *dir = tu_tmpdir(), *tgz = make_tarball(dir), *rp = NULL;
	struct il_err err = { 0 };
	struct il_series ref, s;
	git_repository *repo;
	git_oid base, want[3], got[3];
	int sel[] = { 1, 2, 3 };

	(void)state;
	il_repo_git_init();
	assert_int_equal(il_repo_import_tarball(tgz, dir, &rp, &base, &err), 0);
	assert_int_equal(il_repo_open(&repo, rp, &err), 0);
	parse_ok("series/thread.mbox", 2, &ref);
	assert_int_equal(il_repo_apply_series(repo, &base, &ref, sel, 3, want, &err), 0);
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		parse_ok(shapes[i], 0, &s);
		assert_int_equal(s.version, 2);
		assert_int_equal(s.n, 3);
		assert_string_equal(s.cover_subject, "teo and friends, take 2");
		for (size_t k = 0; k < 3; k++) {
			assert_string_equal(s.p[k].subject, ref.p[k].subject);
			assert_int_equal(s.p[k].files.n, 1);
			assert_string_equal(s.p[k].files.v[0], ref.p[k].files.v[0]);
			/* the notes between the "---" lines are no part of the commit */
			assert_null(strstr(s.p[k].message, "v1 -> v2"));
			assert_null(strstr(s.p[k].message, "\r"));
			assert_non_null(strstr(s.p[k].message, "Signed-off-by: Rafael Wysocki <rafael@example.org>"));
			assert_null(strstr(s.p[k].diff, "Index:"));
			assert_null(strstr(s.p[k].diff, "tiny.orig"));
		}
		if (il_repo_apply_series(repo, &base, &s, sel, 3, got, &err))
			fail_msg("%s: %s", shapes[i], err.msg);
		for (size_t k = 0; k < 3; k++) {
			git_commit *a, *b;

			assert_int_equal(git_commit_lookup(&a, repo, &want[k]), 0);
			assert_int_equal(git_commit_lookup(&b, repo, &got[k]), 0);
			if (!git_oid_equal(git_commit_tree_id(a), git_commit_tree_id(b)))
				fail_msg("%s: patch %zu gives another tree than git format-patch's mail", shapes[i], k + 1);
			git_commit_free(a);
			git_commit_free(b);
		}
		if (i == 0)
			assert_string_equal(s.cover_message_id, ""); /* the cover letter had none */
		if (i == 2) {
			/* To and Cc kept for the reply-all */
			assert_int_equal(s.p[0].recipients.n, 1);
			assert_string_equal(s.p[0].recipients.v[0], "linux-pm@vger.kernel.org");
			/* the gateway's reply ("RE: [EXTERNAL] [PATCH ...]") is a reply: its trailer joins patch 1 */
			assert_int_equal(s.replies, 1);
			assert_true(il_strlist_has(&s.p[0].trailers, "Reviewed-by: Rev Iewer <rev@example.org>"));
		}
		il_series_release(&s);
	}
	il_series_release(&ref);
	git_repository_free(repo);
	il_repo_git_shutdown();
	free(rp), free(tgz);
	tu_rmtree(dir);
	free(dir);
}

/*
 * Seed 003's v2 as Rafael J. Wysocki's tools send it (tests/fixtures/series/README.md): plain
 * "--- a/" diffs, version notes between two "---" lines, the author in an in-body From.
 */
static void test_series__seed003_as_sent(void **state)
{
	struct il_series s;

	(void)state;
	parse_ok("series/seed003.mbox", 0, &s);
	assert_int_equal(s.version, 2);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.cover_subject, "cpuidle: governor: Modify the handling of stopped tick");
	assert_string_equal(s.cover_message_id, "5959849.DvuYhMxLoT@rafael.j.wysocki");
	assert_string_equal(s.p[0].subject, "cpuidle: governors: menu: Refine stopped tick handling");
	/* the in-body From is the author (git mailinfo's rule) and no line of the commit message */
	assert_string_equal(s.p[0].author_email, "rafael.j.wysocki@intel.com");
	assert_string_equal(s.p[0].author_name, "Rafael J. Wysocki");
	assert_non_null(strstr(s.p[0].message, "handling\n\nThis change is based on the observation"));
	assert_null(strstr(s.p[0].message, "From:"));
	assert_int_equal(s.p[0].files.n, 2);
	assert_string_equal(s.p[0].files.v[0], "drivers/cpuidle/governors/gov.h");
	assert_string_equal(s.p[0].files.v[1], "drivers/cpuidle/governors/menu.c");
	assert_null(strstr(s.p[0].message, "v1 -> v2"));
	assert_non_null(strstr(s.p[0].diff, "diff --git a/drivers/cpuidle/governors/menu.c b/drivers/cpuidle/governors/menu.c\n"));
	assert_string_equal(s.p[1].subject, "cpuidle: governors: teo: Rearrange stopped tick handling");
	assert_int_equal(s.p[1].files.n, 1);
	assert_string_equal(s.p[1].files.v[0], "drivers/cpuidle/governors/teo.c");
	assert_int_equal(s.p[0].recipients.n, 5);
	il_series_release(&s);
}

/* A repository in dir/name whose one commit has menu.c = text (after pad filler lines); its HEAD into *base. */
static git_repository *menu_repo(const char *dir, const char *name, int pad, const char *text, git_oid *base)
{
	char path[4096], cmd[8192];
	struct il_err err = { 0 };
	git_repository *repo;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/%s/drivers/cpuidle/governors", dir, name);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/%s/drivers/cpuidle/governors/menu.c", dir, name);
	assert_non_null(f = fopen(path, "w"));
	for (int i = 0; i < pad; i++)
		fprintf(f, "/* line %d */\n", i + 1);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "cd %s/%s && git -c init.defaultBranch=main init -q && git add -A && "
		 "git -c user.name=T -c user.email=t@e.org commit -qm base", dir, name);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(il_repo_open(&repo, path, &err), 0);
	assert_int_equal(il_repo_resolve(repo, "HEAD", base, &err), 0);
	return repo;
}

/*
 * Seed 002's menu patch as lore serves it (quoted-printable, posted for linux-pm's pm branch): on
 * its own preimage far from the line it names it applies (an offset); on 6.12.118's menu.c, which
 * has it from the stable series with its comment reworded, it is a later form; on 6.1's it does
 * not apply (named with its hunk).
 */
static void test_repo__seed002_later_form(void **state)
{
	static const char pre[] = "\t\t}\n\n\t\t/*\n"
				  "\t\t * Use a physical idle state, not busy polling, unless a timer\n"
				  "\t\t * is going to trigger soon enough.\n\t\t */\n"
				  "\t\tif ((drv->states[idx].flags & CPUIDLE_FLAG_POLLING) &&\n"
				  "\t\t    s->target_residency_ns <= data->next_timer_ns) {\n"
				  "\t\t\tpredicted_ns = s->target_residency_ns;\n\t\t\tidx = i;\n\t\t\tbreak;\n\t\t}\n";
	static const char v612[] = "\t\t}\n\n\t\t/*\n"
				   "\t\t * Use a physical idle state instead of busy polling so long as\n"
				   "\t\t * its target residency is below the residency threshold, its\n"
				   "\t\t * exit latency is not greater than the predicted idle duration,\n"
				   "\t\t * and the next timer doesn't expire soon.\n\t\t */\n"
				   "\t\tif ((drv->states[idx].flags & CPUIDLE_FLAG_POLLING) &&\n"
				   "\t\t    s->target_residency_ns < RESIDENCY_THRESHOLD_NS &&\n"
				   "\t\t    s->target_residency_ns <= data->next_timer_ns &&\n"
				   "\t\t    s->exit_latency_ns <= predicted_ns) {\n"
				   "\t\t\tpredicted_ns = s->target_residency_ns;\n\t\t\tidx = i;\n\t\t\tbreak;\n\t\t}\n";
	static const char v61[] = "\t\tif (s->target_residency_ns > predicted_ns) {\n\t\t\t/*\n"
				  "\t\t\t * Use a physical idle state, not busy polling, unless\n"
				  "\t\t\t * a timer is going to trigger soon enough.\n\t\t\t */\n"
				  "\t\t\tif ((drv->states[idx].flags & CPUIDLE_FLAG_POLLING) &&\n"
				  "\t\t\t    s->exit_latency_ns <= latency_req &&\n"
				  "\t\t\t    s->target_residency_ns <= data->next_timer_ns) {\n"
				  "\t\t\t\tpredicted_ns = s->target_residency_ns;\n\t\t\t\tidx = i;\n\t\t\t\tbreak;\n\t\t\t}\n";
	char *dir = tu_tmpdir();
	struct il_err err = { 0 };
	struct il_series s;
	git_repository *repo;
	git_oid base, out[1];
	int one[] = { 1 };

	(void)state;
	il_repo_git_init();
	parse_ok("series/seed002.mbox", 0, &s);
	assert_int_equal(s.version, 4);
	assert_int_equal(s.n, 1);
	assert_non_null(strstr(s.p[0].diff, "+\t\t    s->target_residency_ns < RESIDENCY_THRESHOLD_NS &&\n"));
	repo = menu_repo(dir, "pre", 12, pre, &base);
	if (il_repo_apply_series(repo, &base, &s, one, 1, out, &err))
		fail_msg("on its own preimage at line 13 (the hunk says 320): %s", err.msg);
	git_repository_free(repo);
	repo = menu_repo(dir, "v612", 318, v612, &base);
	assert_int_equal(il_repo_apply_series(repo, &base, &s, one, 1, out, &err), IL_EINVAL);
	if (!strstr(err.msg, ": the lines it adds are already in the base (a later form of it?)"))
		fail_msg("%s", err.msg);
	git_repository_free(repo);
	repo = menu_repo(dir, "v61", 370, v61, &base);
	assert_int_equal(il_repo_apply_series(repo, &base, &s, one, 1, out, &err), IL_EINVAL);
	if (!strstr(err.msg, ": drivers/cpuidle/governors/menu.c: hunk at line 320 did not apply"))
		fail_msg("%s", err.msg);
	git_repository_free(repo);
	il_series_release(&s);
	il_repo_git_shutdown();
	tu_rmtree(dir);
	free(dir);
}

static bool starts(const char *s)
{
	return il_patchdiff_starts(s, s + strlen(s));
}

/* Diffs in the shapes git am takes, line by line: the git form they become. */
static void test_series__diff_shapes(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		/* plain, with a new file (/dev/null) and a deleted one */
		{ "--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/new.c\n@@ -0,0 +1 @@\n+n\n"
		  "--- a/old.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-o\n",
		  "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n"
		  "diff --git a/new.c b/new.c\nnew file mode 100644\n--- /dev/null\n+++ b/new.c\n@@ -0,0 +1 @@\n+n\n"
		  "diff --git a/old.c b/old.c\ndeleted file mode 100644\n--- a/old.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-o\n" },
		/* a removed line that reads like a file header is counted as the hunk's, not taken for one */
		{ "--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,1 @@\n--- a/y\n-+++ b/y\n x\n-- \n2.43.0\n",
		  "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,1 @@\n--- a/y\n-+++ b/y\n x\n" },
		/* an empty context line (its space lost in the mail), CRLF, and "\ No newline" */
		{ "--- a/x.c\r\n+++ b/x.c\r\n@@ -1,2 +1,2 @@\r\n\r\n-a\r\n\\ No newline at end of file\r\n+b\r\n",
		  "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n \n-a\n\\ No newline at end of file\n+b\n" },
		/* git's own form passes as it is, its extended headers too */
		{ "diff --git a/x.c b/y.c\nsimilarity index 90%\nrename from x.c\nrename to y.c\nindex 1..2 100644\n"
		  "--- a/x.c\n+++ b/y.c\n@@ -1 +1 @@\n-a\n+b\n",
		  "diff --git a/x.c b/y.c\nsimilarity index 90%\nrename from x.c\nrename to y.c\nindex 1..2 100644\n"
		  "--- a/x.c\n+++ b/y.c\n@@ -1 +1 @@\n-a\n+b\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct il_buf out = IL_BUF_INIT;
		struct il_strlist files = { 0 };

		assert_true(il_patchdiff_starts(cases[i].in, cases[i].in + strlen(cases[i].in)));
		assert_int_equal(il_patchdiff_normalize(cases[i].in, strlen(cases[i].in), &out, &files), 0);
		if (strcmp(il_buf_str(&out), cases[i].want))
			fail_msg("case %zu:\n%s\nwanted\n%s", i, il_buf_str(&out), cases[i].want);
		il_buf_release(&out);
		il_strlist_release(&files);
	}
	/* where git mailinfo would not break a mail: prose that mentions diff(1), a "---" separator */
	assert_false(starts("diff -u shows it\nnothing more\n"));
	assert_false(starts("---\n drivers/x.c | 2 +-\n"));
	assert_false(starts("--- a/x.c\n+++ b/x.c\nno hunk\n"));
	assert_true(starts("Index: k/x.c\n====\n--- k.orig/x.c\t2025\n+++ k/x.c\t2025\n@@ -1 +1 @@\n"));
	assert_true(starts("diff -Naur k.orig/x.c k/x.c\n--- k.orig/x.c\n+++ k/x.c\n@@ -1 +1 @@\n"));
}

/*
 * A series checked against its base before anything is built: every patch that does not apply is named
 * (k/N, subject, the base), each later one still checked on what the ones before it made, with why: the
 * file and libgit2's hunk, a change the base already has (its reverse applies), or added lines that the
 * base already has in a later form (as a stable tree carries a backport).
 */
static void test_repo__apply_check(void **state)
{
	static const char later[] =
		"From x Mon Sep 17 00:00:00 2001\nFrom: A <a@b.org>\nSubject: [PATCH] cpuidle: menu: Start at 0\n"
		"Message-ID: <l@b.org>\n\nSigned-off-by: A <a@b.org>\n---\n"
		"--- a/drivers/cpuidle/governors/menu.c\n+++ b/drivers/cpuidle/governors/menu.c\n@@ -6,3 +6,3 @@\n"
		" {\n-\tint idx = 7;\n+\tint idx = 0;\n an old context line\n";
	char *dir = tu_tmpdir(), *tgz = make_tarball(dir), *rp = NULL, want[160], cmd[1200];
	struct il_err err = { 0 };
	struct il_series v1, v2, l;
	struct il_buf rel = IL_BUF_INIT;
	git_repository *repo, *mk;
	git_oid base, o2[3], o1[3], head;
	git_commit *c;
	git_tree *t;
	int sel[] = { 1, 2, 3 }, one[] = { 1 };

	(void)state;
	il_repo_git_init();
	assert_int_equal(il_repo_import_tarball(tgz, dir, &rp, &base, &err), 0);
	assert_int_equal(il_repo_open(&repo, rp, &err), 0);
	parse_ok("series/thread.mbox", 2, &v2);
	parse_ok("series/thread.mbox", 1, &v1);
	assert_int_equal(il_repo_apply_series(repo, &base, &v2, sel, 3, o2, &err), 0);
	/* v2's 1/3 again on top of itself: its change is there */
	assert_int_equal(il_repo_apply_series(repo, &o2[0], &v2, one, 1, o1, &err), IL_EINVAL);
	snprintf(want, sizeof(want), "patch 1/3 'cpuidle: menu: Use a longer step' does not apply on base %.12s: ",
		 git_oid_tostr_s(&o2[0]));
	if (!strstr(err.msg, want) || !strstr(err.msg, "its change is already in the base (its reverse applies)"))
		fail_msg("%s", err.msg);
	/* v1 on v2: 1/3 and 2/3 conflict (their files named), 3/3 is v2's own 3/3 (already there); all three said */
	assert_int_equal(il_repo_apply_series(repo, &o2[2], &v1, sel, 3, o1, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "patch 1/3 'cpuidle: menu: Use a longer step' does not apply"));
	assert_non_null(strstr(err.msg, ": drivers/cpuidle/governors/menu.c: "));
	assert_non_null(strstr(err.msg, "\n  patch 2/3 'cpuidle: teo: Annotate the start index' does not apply"));
	assert_non_null(strstr(err.msg, ": drivers/cpuidle/governors/teo.c: "));
	assert_non_null(strstr(err.msg, "\n  patch 3/3 'cpuidle: ladder: Promote on equal prediction' does not apply"));
	assert_non_null(strstr(strstr(err.msg, "patch 3/3"), "already in the base (its reverse applies)"));
	/* a change whose context is gone but whose added line is there: a later form */
	assert_int_equal(il_series_parse(later, strlen(later), 0, "later", &l, &err), 0);
	assert_int_equal(il_repo_apply_series(repo, &base, &l, one, 1, o1, &err), IL_EINVAL);
	if (!strstr(err.msg, "the lines it adds are already in the base (a later form of it?)"))
		fail_msg("%s", err.msg);
	il_series_release(&l);
	il_series_release(&v1);
	il_series_release(&v2);
	git_repository_free(repo);
	/* the base's release as make kernelversion prints it, from the tree's Makefile */
	snprintf(cmd, sizeof(cmd), "cd %s && mkdir mk && cd mk && git -c init.defaultBranch=main init -q && "
		 "printf '# SPDX\\nVERSION = 6\\nPATCHLEVEL = 12\\nSUBLEVEL = 118\\nEXTRAVERSION =\\nNAME = Baby Opossum Posse\\n' "
		 "> Makefile && git add Makefile && git -c user.name=T -c user.email=t@e.org commit -q -m mk", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/mk", dir);
	assert_int_equal(il_repo_open(&mk, cmd, &err), 0);
	assert_int_equal(il_repo_resolve(mk, "HEAD", &head, &err), 0);
	assert_int_equal(git_commit_lookup(&c, mk, &head), 0);
	assert_int_equal(git_commit_tree(&t, c), 0);
	assert_int_equal(il_applycheck_kernelversion(mk, t, &rel), 0);
	assert_string_equal(il_buf_str(&rel), "6.12.118");
	git_tree_free(t);
	git_commit_free(c);
	git_repository_free(mk);
	il_buf_release(&rel);
	il_repo_git_shutdown();
	free(rp), free(tgz);
	tu_rmtree(dir);
	free(dir);
}

static void test_repo__import_apply_stable_ids(void **state)
{
	char *dir = tu_tmpdir(), *tgz = make_tarball(dir), *rp = NULL, *rp2 = NULL;
	struct il_err err = { 0 };
	struct il_series s;
	git_repository *repo;
	git_oid base, again, out1[3], out2[3];
	int sel[] = { 1, 2, 3 };

	(void)state;
	il_repo_git_init();
	assert_int_equal(il_repo_import_tarball(tgz, dir, &rp, &base, &err), 0);
	assert_int_equal(il_repo_import_tarball(tgz, dir, &rp2, &again, &err), 0); /* cached */
	assert_true(git_oid_equal(&base, &again));
	assert_string_equal(rp, rp2);
	assert_int_equal(il_repo_open(&repo, rp, &err), 0);
	{ /* the import's HEAD is its commit: other tools read the repository as it is */
		git_oid head;

		assert_int_equal(git_reference_name_to_id(&head, repo, "HEAD"), 0);
		assert_true(git_oid_equal(&head, &base));
	}
	parse_ok("series/thread.mbox", 0, &s);
	assert_int_equal(il_repo_apply_series(repo, &base, &s, sel, 3, out1, &err), 0);
	assert_int_equal(il_repo_apply_series(repo, &base, &s, sel, 3, out2, &err), 0);
	for (int i = 0; i < 3; i++)
		assert_true(git_oid_equal(&out1[i], &out2[i])); /* reproducible commit ids */
	/* endpoints given the wrong way round: the message names both, each once */
	{
		struct il_strlist range = { 0 };
		char g[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1], want[200];

		git_oid_tostr(g, sizeof(g), &out1[2]);
		git_oid_tostr(b, sizeof(b), &base);
		assert_int_equal(il_repo_range(repo, &out1[2], &base, false, &range, &err), IL_EINVAL);
		snprintf(want, sizeof(want), "%.12s is not an ancestor of %.12s", g, b);
		if (!strstr(err.msg, want))
			fail_msg("'%s' lacks '%s'", err.msg, want);
		assert_int_equal(il_repo_range(repo, &base, &out1[2], false, &range, &err), 0);
		assert_int_equal(range.n, 3);
		il_strlist_release(&range);
	}
	{
		git_commit *c;

		assert_int_equal(git_commit_lookup(&c, repo, &out1[0]), 0);
		assert_string_equal(git_commit_author(c)->name, "Rafael Wysocki");
		assert_int_equal(git_commit_author(c)->when.time, 1762959720); /* v2: 2025-11-12T16:02:00+01:00 */
		assert_non_null(strstr(git_commit_message(c), "The step was too short"));
		git_commit_free(c);
	}
	il_series_release(&s);
	/* a patch that does not apply: named, with libgit2's reason */
	parse_ok("series/bad.mbox", 0, &s);
	assert_int_equal(il_repo_apply_series(repo, &base, &s, sel, 1, out1, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "patch 1/1 'cpuidle: menu: Return the next state' does not apply"));
	assert_non_null(strstr(err.msg, "menu.c"));
	il_series_release(&s);
	/* checkout into a build directory touches only what changed */
	{
		char wd[700], f[800];
		struct stat st1, st2;

		snprintf(wd, sizeof(wd), "%s/work", dir);
		assert_int_equal(il_repo_checkout_to(repo, &base, wd, &err), 0);
		snprintf(f, sizeof(f), "%s/drivers/cpuidle/governors/teo.c", wd);
		assert_int_equal(stat(f, &st1), 0);
		sleep(1);
		parse_ok("series/thread.mbox", 0, &s);
		assert_int_equal(il_repo_apply_series(repo, &base, &s, sel, 1, out1, &err), 0);
		assert_int_equal(il_repo_checkout_to(repo, &out1[0], wd, &err), 0);
		assert_int_equal(stat(f, &st2), 0);
		assert_true(st1.st_mtime == st2.st_mtime); /* teo.c untouched by the menu patch */
		snprintf(f, sizeof(f), "%s/drivers/cpuidle/governors/menu.c", wd);
		{
			char *t = tu_read(f, NULL);

			assert_non_null(strstr(t, "* 220"));
			free(t);
		}
		il_series_release(&s);
	}
	git_repository_free(repo);
	il_repo_git_shutdown();
	free(rp), free(rp2), free(tgz);
	tu_rmtree(dir);
	free(dir);
}

/* ---- fetch from a real HTTP server on loopback ---- */

static void gz_write(const char *path, const char *data, size_t len, size_t cut)
{
	gzFile g = gzopen(path, "wb");

	assert_non_null(g);
	gzwrite(g, data, (unsigned)len);
	gzclose(g);
	if (cut) {
		size_t n;
		char *all = tu_read(path, &n);
		FILE *f = fopen(path, "wb");

		fwrite(all, 1, n > cut ? n - cut : n, f);
		fclose(f);
		free(all);
	}
}

/* without HOME the cache is the user's own home's, never a shared /tmp path */
static void test_fetch__cache_dir_without_home(void **state)
{
	char *h = getenv("HOME") ? strdup(getenv("HOME")) : NULL, *c = getenv("IDLELAB_CACHE") ? strdup(getenv("IDLELAB_CACHE")) : NULL;
	char *x = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
	struct passwd *pw = getpwuid(getuid());
	char want[600], *cd;

	(void)state;
	unsetenv("HOME"), unsetenv("IDLELAB_CACHE"), unsetenv("XDG_CACHE_HOME");
	snprintf(want, sizeof(want), "%s/.cache/idlelab", pw ? pw->pw_dir : ".");
	cd = il_cli_cache_dir(NULL);
	assert_string_equal(cd, want);
	assert_null(strstr(cd, "/tmp"));
	free(cd);
	cd = il_cli_cache_dir("/x");
	assert_string_equal(cd, "/x");
	free(cd);
	if (h)
		setenv("HOME", h, 1);
	if (c)
		setenv("IDLELAB_CACHE", c, 1);
	if (x)
		setenv("XDG_CACHE_HOME", x, 1);
	free(h), free(c), free(x);
}

static void on_fetch(const struct il_progress *p, void *ctx)
{
	*(struct il_progress *)ctx = *p;
}

static void test_fetch__public_inbox_layout(void **state)
{
	char *dir = tu_tmpdir(), sub[700], url[64], cache[700], p[800];
	struct il_progress fp = { 0 };
	struct il_err err = { 0 };
	struct il_buf mb = IL_BUF_INIT;
	size_t len;
	char *mbox = tu_read(tu_fixture_abs("series/thread.mbox"), &len);
	int port = tu_free_port();
	pid_t pid;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/www/all/cover.1795986410.git.rafael@example.org", dir);
	snprintf(p, sizeof(p), "mkdir -p %s %s/www/all/trunc@x %s/www/all/html@x", sub, dir, dir);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof(p), "%s/t.mbox.gz", sub);
	gz_write(p, mbox, len, 0);
	snprintf(p, sizeof(p), "%s/www/all/trunc@x/t.mbox.gz", dir);
	gz_write(p, mbox, len, 200);
	snprintf(p, sizeof(p), "%s/www/all/html@x/t.mbox.gz", dir);
	gz_write(p, "<html>nope</html>", 17, 0);
	pid = fork();
	if (!pid) {
		char port_s[16], root[700];

		snprintf(port_s, sizeof(port_s), "%d", port);
		snprintf(root, sizeof(root), "%s/www", dir);
		freopen("/dev/null", "w", stderr);
		freopen("/dev/null", "w", stdout);
		execlp("python3", "python3", "-m", "http.server", "--bind", "127.0.0.1", "--directory", root, port_s, NULL);
		_exit(127);
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	for (int i = 0; i < 50; i++) {
		struct il_buf probe = IL_BUF_INIT;
		int r = il_fetch_thread(url, "<cover.1795986410.git.rafael@example.org>", cache, NULL, NULL, &probe, &err);

		il_buf_release(&probe);
		if (r != IL_ECONNECT)
			break;
		usleep(100000);
	}
	if (il_fetch_thread(url, "<cover.1795986410.git.rafael@example.org>", cache, NULL, NULL, &mb, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(mb.len, len);
	assert_memory_equal(mb.p, mbox, len);
	il_buf_reset(&mb);
	assert_int_equal(il_fetch_thread(url, "missing@x", NULL, NULL, NULL, &mb, &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "404"));
	assert_int_equal(il_fetch_thread(url, "trunc@x", NULL, on_fetch, &fp, &mb, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "truncated"));
	/* the download's progress: bytes, ending with a last report of everything received */
	assert_true(fp.last);
	assert_true(fp.done > 0);
	assert_string_equal(fp.unit, "bytes");
	assert_int_equal(il_fetch_thread(url, "html@x", NULL, NULL, NULL, &mb, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "not an mbox"));
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	/* the server is gone: the cache still answers */
	il_buf_reset(&mb);
	assert_int_equal(il_fetch_thread(url, "cover.1795986410.git.rafael@example.org", cache, NULL, NULL, &mb, &err), 0);
	assert_int_equal(mb.len, len);
	assert_int_equal(il_fetch_thread(url, "other@x", cache, NULL, NULL, &mb, &err), IL_ECONNECT);
	/*
	 * a cache entry that is not the thread it is filed as (a planted mbox, or another thread's)
	 * is never used: fetched again, which fails here, the server being gone
	 */
	{
		char key[65], path[800];
		struct il_sha256 h;

		assert_int_equal(il_sha256_init(&h), 0);
		il_sha256_update(&h, "planted@x", 9);
		il_sha256_final(&h, key);
		snprintf(path, sizeof(path), "%s/threads/%s.mbox", cache, key);
		tu_write(path, "", mbox);
		il_buf_reset(&mb);
		assert_int_equal(il_fetch_thread(url, "<planted@x>", cache, NULL, NULL, &mb, &err), IL_ECONNECT);
		assert_int_equal(mb.len, 0);
	}
	il_buf_release(&mb);
	free(mbox);
	tu_rmtree(dir);
	free(dir);
}

/* ---- Kconfig ---- */

/* Kconfig's own shapes (indented, menuconfig, comments, no .git), and a fragment in CRLF lines */
static void test_kconfig__tree_and_fragment(void **state)
{
	char *dir = tu_tmpdir(), cfg[512], frag[512];
	struct il_strlist names = { 0 }, frags = { 0 }, skipped = { 0 };
	struct il_err err = { 0 };
	bool found[5];

	(void)state;
	tu_write(dir, "/Kconfig", "source \"drivers/Kconfig\"\n");
	tu_write(dir, "/drivers/Kconfig.idle", "if CPU_IDLE\n  config CPU_IDLE_GOV_TEO  # teo\n\tbool \"teo\"\n"
		 "menuconfig\tCPU_IDLE_MULTIPLE_DRIVERS\nconfigX NOT_ONE\nendif\n");
	tu_write(dir, "/.git/Kconfig", "config IN_GIT\n");
	tu_write(dir, "/drivers/idle.c", "config NOT_A_KCONFIG\n");
	assert_int_equal(0, il_strlist_split(&names, "CPU_IDLE_GOV_TEO CPU_IDLE_MULTIPLE_DRIVERS NOT_ONE IN_GIT NOT_A_KCONFIG"));
	assert_int_equal(il_kconfig_defined(dir, &names, found, &err), 0);
	assert_true(found[0] && found[1]);
	assert_false(found[2] || found[3] || found[4]);
	/* the final .config has TEO and lacks the others; the fragment's "is not set" is kept too */
	snprintf(cfg, sizeof(cfg), "%s/.config", dir);
	snprintf(frag, sizeof(frag), "%s/lab.config", dir);
	tu_write(dir, "/.config", "CONFIG_CPU_IDLE_GOV_TEO=y\nCONFIG_HZ=250\n");
	tu_write(dir, "/lab.config", "# the lab\r\nCONFIG_CPU_IDLE_GOV_TEO=y\r\nCONFIG_NOT_ONE=y\r\n# CONFIG_KEXEC is not set\r\n");
	assert_int_equal(0, il_strlist_push(&frags, frag));
	assert_int_equal(il_kconfig_verify(cfg, dir, &frags, &skipped, &err), 0);
	assert_int_equal(skipped.n, 1);
	assert_non_null(strstr(skipped.v[0], "CONFIG_NOT_ONE=y ("));
	il_strlist_release(&skipped);
	/* "is not set" that the .config sets; an option the tree has at another value */
	tu_write(dir, "/lab.config", "# CONFIG_HZ is not set\n");
	assert_int_equal(il_kconfig_verify(cfg, dir, &frags, &skipped, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "CONFIG_HZ should be unset"));
	tu_write(dir, "/lab.config", "CONFIG_CPU_IDLE_GOV_TEO=m\n");
	assert_int_equal(il_kconfig_verify(cfg, dir, &frags, &skipped, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "CONFIG_CPU_IDLE_GOV_TEO=m is not set as asked"));
	/* required, and the tree lacks it */
	tu_write(dir, "/lab.config", "# idlelab-required: CONFIG_NOT_ONE\nCONFIG_NOT_ONE=y\n");
	assert_int_equal(il_kconfig_verify(cfg, dir, &frags, &skipped, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "lab.config: CONFIG_NOT_ONE is required"));
	assert_int_equal(skipped.n, 0);
	/* a fragment that is not there is named */
	tu_write(dir, "/lab.config", "");
	unlink(frag);
	assert_int_equal(il_kconfig_verify(cfg, dir, &frags, &skipped, &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "lab.config"));
	il_strlist_release(&names), il_strlist_release(&frags);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series__thread_with_versions_and_replies),
		cmocka_unit_test(test_series__quoted_printable_and_rfc2047),
		cmocka_unit_test(test_series__errors),
		cmocka_unit_test(test_series__as_posted),
		cmocka_unit_test(test_series__seed003_as_sent),
		cmocka_unit_test(test_series__diff_shapes),
		cmocka_unit_test(test_repo__import_apply_stable_ids),
		cmocka_unit_test(test_repo__apply_check),
		cmocka_unit_test(test_repo__seed002_later_form),
		cmocka_unit_test(test_fetch__public_inbox_layout),
		cmocka_unit_test(test_fetch__cache_dir_without_home),
		cmocka_unit_test(test_kconfig__tree_and_fragment),
	};

	return cmocka_run_group_tests_name("kernel", tests, NULL, NULL);
}
