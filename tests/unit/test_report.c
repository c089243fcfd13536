// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reports from a real run journal (tests/fixtures/journal/run1, captured on
 * a haltpoll VM): every format against its golden file, the text report's
 * width, HTML escaping of hostile labels, Tested-by, and malformed journals.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "stats/compare.h"
#include "stats/dataset.h"

static const char *run1(const char *file)
{
	static char path[4096];
	const char *src = getenv("IL_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/fixtures/journal/run1%s%s", src ? src : ".", file ? "/" : "", file ? file : "");
	return path;
}

static void load(struct il_dataset *ds, struct il_cmp *c, const char *dir)
{
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_err err = { 0 };

	memset(ds, 0, sizeof(*ds));
	if (il_dataset_add_run(ds, dir, NULL, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(il_compare(c, ds, &o, &err), 0);
}

static void test_report__golden_files(void **state)
{
	struct il_dataset ds;
	struct il_cmp c;
	struct il_err err = { 0 };

	(void)state;
	load(&ds, &c, run1(NULL));
	assert_int_equal(ds.counted, 48);
	assert_int_equal(ds.skipped, 8);
	assert_string_equal(ds.aa, "menu-again");
	for (int f = 0; f < IL_NFMT; f++) {
		struct il_buf out = IL_BUF_INIT;
		char name[32], *golden;
		size_t glen;

		snprintf(name, sizeof(name), "report.%s", il_fmt_ext((enum il_fmt)f));
		assert_int_equal(il_report_render(&c, (enum il_fmt)f, &out, &err), 0);
		golden = tu_read(run1(name), &glen);
		if (glen != out.len || memcmp(golden, out.p, glen))
			fail_msg("%s differs from the golden file (tests/fixtures/journal/update-golden.sh regenerates "
				 "it after an intended change)", name);
		free(golden);
		il_buf_release(&out);
	}
	{
		struct il_buf out = IL_BUF_INIT;
		char *golden;
		size_t glen;

		assert_int_equal(il_report_tested_by(&c, "Test Person <test@example.org>", &out, &err), 0);
		golden = tu_read(run1("tested-by.txt"), &glen);
		assert_int_equal(glen, out.len);
		assert_memory_equal(golden, out.p, glen);
		free(golden);
		assert_int_equal(il_report_tested_by(&c, "no email here", &out, &err), IL_EINVAL);
		assert_non_null(strstr(err.msg, "Name <email>"));
		il_buf_release(&out);
	}
	il_compare_release(&c);
	il_dataset_release(&ds);
}

static void test_report__text_fits_mail(void **state)
{
	struct il_dataset ds;
	struct il_cmp c;
	struct il_buf out = IL_BUF_INIT;
	const char *p;

	(void)state;
	load(&ds, &c, run1(NULL));
	assert_int_equal(il_report_text(&c, &out, false), 0);
	assert_int_equal(il_report_tested_by(&c, "T <t@e.org>", &out, NULL), 0);
	for (p = out.p; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n > 100)
			fail_msg("line of %zu columns: %.*s", n, (int)n, p);
		for (size_t i = 0; i < n; i++)
			assert_true(p[i] >= 0x20 && p[i] < 0x7f); /* plain ASCII */
		p += n + (nl ? 1 : 0);
	}
	/* the seeds' row shape */
	assert_non_null(strstr(out.p, "test            gov            iter      score      idles idle_miss   ratio"));
	il_buf_release(&out);
	il_compare_release(&c);
	il_dataset_release(&ds);
}

static void write_raw(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *copy_journal(const char *from, const char *to_dir, const char *find, const char *repl)
{
	size_t len;
	char *text = tu_read(from, &len), path[600];
	struct il_buf b = IL_BUF_INIT;
	const char *p = text, *hit;

	while (find && (hit = strstr(p, find))) {
		il_buf_add(&b, p, (size_t)(hit - p));
		il_buf_adds(&b, repl);
		p = hit + strlen(find);
	}
	il_buf_adds(&b, p);
	snprintf(path, sizeof(path), "%s/journal.jsonl", to_dir);
	write_raw(path, il_buf_str(&b));
	free(text);
	il_buf_release(&b);
	return strdup(path);
}

static void test_report__html_escapes_everything(void **state)
{
	char *dir = tu_tmpdir(), *jp;
	struct il_dataset ds;
	struct il_cmp c;
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };

	(void)state;
	jp = copy_journal(run1("journal.jsonl"), dir, "\"menu-again\"", "\"<img src=x onerror=alert(1)>&\"");
	load(&ds, &c, dir);
	assert_int_equal(il_report_render(&c, IL_FMT_HTML, &out, &err), 0);
	assert_null(strstr(out.p, "<img"));
	assert_non_null(strstr(out.p, "&lt;img src=x onerror=alert(1)&gt;&amp;"));
	il_buf_reset(&out);
	assert_int_equal(il_report_render(&c, IL_FMT_CSV, &out, &err), 0);
	il_buf_reset(&out);
	assert_int_equal(il_report_render(&c, IL_FMT_MD, &out, &err), 0);
	assert_non_null(strstr(out.p, "\\<img src=x onerror=alert(1)\\>&"));
	il_buf_release(&out);
	il_compare_release(&c);
	il_dataset_release(&ds);
	free(jp);
	tu_rmtree(dir);
	free(dir);
}

static void test_report__malformed_journals(void **state)
{
	static const struct {
		const char *find, *repl, *msg;
	} cases[] = {
		/* a metric of the wrong type */
		{ "\"usec_per_loop\":2.8807", "\"usec_per_loop\":\"fast\"", "journal.jsonl:11: metrics.usec_per_loop: expected a finite number" },
		/* an unknown field */
		{ "\"attempt\":1,\"final\":true,\"status\":\"warmup\"", "\"attempt\":1,\"colour\":1,\"final\":true,\"status\":\"warmup\"",
		  "journal.jsonl:3: unknown field 'colour' in a sample record" },
		/* wrong type of a key field */
		{ "\"iteration\":0,", "\"iteration\":\"zero\",", "iteration: expected integer" },
		/* damage in the middle */
		{ "{\"type\":\"sample\",\"seq\":4,", "{\"type\":\"sample\",\"seq\":4,,", "journal.jsonl:7: not a JSON record" },
	};
	struct il_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = tu_tmpdir(), *jp = copy_journal(run1("journal.jsonl"), dir, cases[i].find, cases[i].repl);
		struct il_dataset ds = { 0 };
		int r = il_dataset_add_run(&ds, dir, NULL, &err);

		if (!r || !strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: r=%d '%s', expected '%s'", i, r, err.msg, cases[i].msg);
		il_dataset_release(&ds);
		free(jp);
		tu_rmtree(dir);
		free(dir);
	}
	{
		/* a torn last line: an error that says how to repair it */
		char *dir = tu_tmpdir(), *jp = copy_journal(run1("journal.jsonl"), dir, NULL, NULL);
		struct il_dataset ds = { 0 };
		FILE *f = fopen(jp, "a");

		fputs("{\"type\":\"sample\",\"seq\":56", f);
		fclose(f);
		assert_int_equal(il_dataset_add_run(&ds, dir, NULL, &err), IL_EPARSE);
		assert_non_null(strstr(err.msg, "last line is truncated"));
		assert_non_null(strstr(err.msg, "--resume"));
		il_dataset_release(&ds);
		free(jp);
		tu_rmtree(dir);
		free(dir);
	}
	{
		struct il_dataset ds = { 0 };
		char *dir = tu_tmpdir();

		char jp[700], np[700];

		snprintf(jp, sizeof(jp), "%s/journal.jsonl", dir);
		snprintf(np, sizeof(np), "%s/n.txt", dir);
		write_raw(jp, "");
		assert_int_equal(il_dataset_add_run(&ds, dir, NULL, &err), IL_EPARSE);
		assert_non_null(strstr(err.msg, "no run-start record"));
		il_dataset_release(&ds);
		write_raw(np, "1.5\n2\n# comment\n\nnan\n");
		assert_int_equal(il_dataset_add_file(&ds, np, "n", &err), IL_EPARSE);
		assert_non_null(strstr(err.msg, "n.txt:5: 'nan' is not a finite number"));
		il_dataset_release(&ds);
		tu_rmtree(dir);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report__golden_files),
		cmocka_unit_test(test_report__text_fits_mail),
		cmocka_unit_test(test_report__html_escapes_everything),
		cmocka_unit_test(test_report__malformed_journals),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
