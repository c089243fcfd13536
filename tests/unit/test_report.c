// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reports from a real run journal (tests/fixtures/journal/run1, captured on
 * a haltpoll VM): every format against its golden file, the text report's
 * width, HTML escaping of hostile labels, the traced samples' plots (on the
 * views' traced fixture), malformed journals; the A/A check
 * and Holm's adjustment; and Tested-by's rules on run1 (the host's own
 * kernel, a journal from before host kinds and the environment probe) and
 * on the journals derive.py makes from it (patched/: two built kernels on
 * an SSH host; running/: the host's own kernel on it).
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/environ.h"
#include "report/report.h"
#include "stats/compare.h"
#include "stats/dataset.h"
#include "util/str.h"
#include "util/jsonfile.h"

/* tests/fixtures/journal/RUN[/FILE]; a static buffer */
static const char *fixture(const char *run, const char *file)
{
	static char path[4096];
	const char *src = getenv("IL_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/fixtures/journal/%s%s%s", src ? src : ".", run, file ? "/" : "",
		 file ? file : "");
	return path;
}

static const char *run1(const char *file)
{
	return fixture("run1", file);
}

static void load(struct il_dataset *ds, struct il_cmp *c, const char *dir)
{
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_err err = { 0 };

	memset(ds, 0, sizeof(*ds));
	if (il_datajournal_add_run(ds, dir, NULL, &err))
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

		snprintf(name, sizeof(name), "report.%s", il_report_fmt_ext((enum il_fmt)f));
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

		assert_int_equal(il_testedby_report(&c, &(struct il_tb_opts){ .as = "Test Person <test@example.org>" }, &out,
						     &err),
				 0);
		golden = tu_read(run1("tested-by.txt"), &glen);
		assert_int_equal(glen, out.len);
		assert_memory_equal(golden, out.p, glen);
		free(golden);
		assert_int_equal(il_testedby_report(&c, &(struct il_tb_opts){ .as = "no email here" }, &out, &err),
				 IL_EINVAL);
		assert_non_null(strstr(err.msg, "Name <email>"));
		il_buf_reset(&out);
		il_compare_release(&c);
		il_dataset_release(&ds);
		/* a Tested-by that is due: two built kernels on an SSH host */
		load(&ds, &c, fixture("patched", NULL));
		assert_int_equal(il_testedby_report(&c, &(struct il_tb_opts){ .as = "Test Person <test@example.org>" }, &out,
						     &err),
				 0);
		golden = tu_read(fixture("patched", "tested-by.txt"), &glen);
		if (glen != out.len || memcmp(golden, out.p, glen))
			fail_msg("patched/tested-by.txt differs from the golden file (update-golden.sh)");
		free(golden);
		il_buf_release(&out);
	}
	il_compare_release(&c);
	il_dataset_release(&ds);
}

/*
 * The JSON report whole or (jansson out of memory) not at all: never one with a key left out. Only
 * the object's making runs short: json_dumps itself drops an object's key when its buffer cannot
 * grow there (jansson 2.14 ignores that one write's result), so the text is made afterwards.
 */
static void test_report__json_out_of_memory(void **state)
{
	struct il_dataset ds;
	struct il_cmp c;
	struct il_buf whole = IL_BUF_INIT;
	long n = 0;

	(void)state;
	load(&ds, &c, run1(NULL));
	assert_int_equal(il_report_json_text(&c, &whole), 0);
	for (bool hit = true; hit; n += tu_oom_stride()) {
		json_t *j;
		char *s;

		tu_json_oom(n);
		j = il_report_json(&c);
		hit = tu_json_oom_end();
		if (!j) {
			assert_true(hit);
			continue;
		}
		s = il_json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		assert_non_null(s);
		assert_memory_equal(s, il_buf_str(&whole), strlen(s));
		assert_int_equal(strlen(s) + 1, whole.len);
		free(s);
		json_decref(j);
	}
	assert_true(n > 100);
	il_buf_release(&whole);
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
	assert_int_equal(il_report_text(&c, &out), 0);
	assert_int_equal(il_testedby_report(&c, &(struct il_tb_opts){ .as = "T <t@e.org>" }, &out, NULL), 0);
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

/* The number of times needle occurs in hay. */
/*
 * A run with traced samples (tests/fixtures/views/trace-durations, invented
 * numbers): per state a figure with the duration histograms' svg, each
 * variant's bars in it, and the tick decisions table; run1, untraced, has no
 * such section.
 */
static void test_report__html_trace_plots(void **state)
{
	static const char *const states[] = { "WFI", "cpu-sleep", "cluster-sleep" };
	const char *src = getenv("IL_SRCDIR");
	char dir[4096];
	struct il_dataset ds;
	struct il_cmp c;
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };

	(void)state;
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/views/trace-durations", src ? src : ".");
	load(&ds, &c, dir);
	assert_int_equal(il_report_render(&c, IL_FMT_HTML, &out, &err), 0);
	assert_int_equal(tu_count(out.p, "<figure class=trace "), 3);
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		char fig[128];
		const char *at, *end;

		snprintf(fig, sizeof(fig), "<figure class=trace data-state=\"%s\">", states[i]);
		assert_non_null(at = strstr(out.p, fig));
		assert_non_null(end = strstr(at, "</svg></figure>"));
		assert_non_null(strstr(at, "<svg "));
		/* both variants' bars are in this state's plot, each bar titled with its bucket */
		assert_true(strstr(at, "<title>teo ") && strstr(at, "<title>teo ") < end);
		assert_true(strstr(at, "<title>teo-stop ") && strstr(at, "<title>teo-stop ") < end);
	}
	/* teo-stop's cpu-sleep periods past the tick: 1218 in 4-8ms of 12788 (test_views checks the sums) */
	assert_non_null(strstr(out.p, "<title>teo-stop 4-8ms: 1218 periods, 9.5%</title>"));
	assert_non_null(strstr(out.p, "<table class=tick>"));
	assert_non_null(strstr(out.p, "<td>teo-stop</td><td>cpu-sleep</td><td>yes</td><td>5120</td>"));
	il_buf_release(&out);
	il_compare_release(&c);
	il_dataset_release(&ds);

	load(&ds, &c, run1(NULL));
	assert_int_equal(il_report_render(&c, IL_FMT_HTML, &out, &err), 0);
	assert_null(strstr(out.p, "class=trace"));
	assert_null(strstr(out.p, "class=tick"));
	il_buf_release(&out);
	il_compare_release(&c);
	il_dataset_release(&ds);
}

/*
 * A run whose host's tracing does not see CPU 1 (issue #44: idle.trace.blind_cpus in every traced sample):
 * the text report, the HTML report and Tested-by say so once for the run, not once per sample.
 */
static void test_report__blind_cpu_once(void **state)
{
	static const char note[] = "tracing does not see the idle entries of CPU 1 (";
	const char *src = getenv("IL_SRCDIR");
	char dir[4096];
	struct il_dataset ds;
	struct il_cmp c;
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };
	size_t traced = 0;
	char want[96];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/views/trace-durations", src ? src : ".");
	load(&ds, &c, dir);
	assert_int_equal(il_report_render(&c, IL_FMT_TEXT, &out, &err), 0);
	assert_null(strstr(out.p, "tracing does not see"));
	il_buf_release(&out);
	for (size_t i = 0; i < ds.nrows; i++) {
		json_t *t = json_object_get(ds.rows[i].idle, "trace");

		if (!json_is_object(t))
			continue;
		traced++;
		assert_int_equal(json_object_set_new(t, "blind_cpus", json_pack("[{s:i, s:i, s:i}]", "cpu", 1, "moved", 27,
										   "traced", 0)), 0);
	}
	assert_true(traced > 1);
	snprintf(want, sizeof(want), "%s%zu of %zu traced samples)", note, traced, traced);
	assert_int_equal(il_report_render(&c, IL_FMT_TEXT, &out, &err), 0);
	assert_int_equal(tu_count(out.p, note), 1);
	assert_non_null(strstr(out.p, want));
	assert_non_null(strstr(out.p, "traced samples): its counters moved"));
	il_buf_release(&out);
	/* the page's own paragraph, and the mailing-list text it embeds */
	assert_int_equal(il_report_render(&c, IL_FMT_HTML, &out, &err), 0);
	assert_int_equal(tu_count(out.p, "<p><i>tracing does not see the idle entries of CPU 1 ("), 1);
	assert_int_equal(tu_count(out.p, note), 2);
	il_buf_release(&out);
	assert_int_equal(il_testedby_report(&c, &(struct il_tb_opts){ .as = "T <t@e.org>" }, &out, &err), 0);
	/* wrapped at 100 columns: the note's first words are on one line */
	assert_int_equal(tu_count(out.p, "tracing does not see the idle entries of CPU 1"), 1);
	il_buf_release(&out);
	il_compare_release(&c);
	il_dataset_release(&ds);
}

static double many_vals(size_t v, size_t m, int i, void *ctx)
{
	(void)ctx;
	return 100 + 10 * (double)v + (double)m + 0.3 * (double)(i % 3);
}

/*
 * Tested-by lists every key metric (the decision family, issue #41): twelve key metrics of four variants
 * do not fit the block's 60 lines as blocks, so each is one line; none is left to --full.
 */
static void test_report__tested_by_lists_the_whole_family(void **state)
{
	static const char *const vars[] = { "ref", "ref-again", "b", "c" },
			  *const mets[] = { "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11", "k12" };
	char *dir = tu_tmpdir(), want[32];
	struct il_dataset ds = { 0 };
	struct il_cmp c;
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };

	(void)state;
	tu_journal(dir, vars, 4, true, mets, 12,
		   "[\"k1\", \"k2\", \"k3\", \"k4\", \"k5\", \"k6\", \"k7\", \"k8\", \"k9\", \"k10\", \"k11\", \"k12\"]", 6,
		   NULL, many_vals, NULL);
	assert_int_equal(il_datajournal_add_run(&ds, dir, NULL, &err), 0);
	assert_int_equal(il_compare(&c, &ds, &o, &err), 0);
	assert_int_equal(il_testedby_report(&c, &(struct il_tb_opts){ .as = "T <t@e.org>" }, &out, &err), 0);
	for (size_t i = 0; i < 12; i++) {
		snprintf(want, sizeof(want), "\nw.k%zu (", i + 1);
		if (!strstr(out.p, want))
			fail_msg("%s missing from:\n%s", want, out.p);
	}
	assert_null(strstr(out.p, "more metric"));
	assert_non_null(strstr(out.p, "\nw.k1 (us): ref "));
	il_buf_release(&out);
	il_compare_release(&c);
	il_dataset_release(&ds);
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
		int r = il_datajournal_add_run(&ds, dir, NULL, &err);

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
		assert_int_equal(il_datajournal_add_run(&ds, dir, NULL, &err), IL_EPARSE);
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
		assert_int_equal(il_datajournal_add_run(&ds, dir, NULL, &err), IL_EPARSE);
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

/* ---- the A/A check, Holm, Tested-by ---- */

/* The Tested-by of a run directory, with opts; the caller frees the text. */
static char *tested_by(const char *dir, const struct il_tb_opts *o)
{
	struct il_dataset ds;
	struct il_cmp c;
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };

	load(&ds, &c, dir);
	if (il_testedby_report(&c, o, &out, &err))
		fail_msg("%s", err.msg);
	il_compare_release(&c);
	il_dataset_release(&ds);
	return il_buf_detach(&out);
}

static size_t lines_of(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* How many lines start with "Tested-by: " */
static size_t trailers(const char *s)
{
	size_t n = 0;

	for (const char *p = s; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, "Tested-by: ", 11);
	return n;
}

static const struct il_tb_opts as_test = { .as = "Test Person <test@example.org>" };

/*
 * run1's A/A pair (menu / menu-again, a real haltpoll VM) differs on the
 * secondary periodic.idle.idles (-8.9%, raw p 0.0127 among ~60 secondary
 * comparisons): chance, so exploratory and no "host not quiet"; ladder's
 * -21.9% there is an exploratory finding, never the verdict.
 */
static void test_aa__chance_on_a_secondary_metric_is_exploratory(void **state)
{
	struct il_dataset ds;
	struct il_cmp c;
	struct il_buf out = IL_BUF_INIT;
	size_t idles = 0, ladder;

	(void)state;
	load(&ds, &c, run1(NULL));
	assert_int_equal(c.nunreliable, 0);
	while (strcmp(ds.met[c.met[idles]].key, "periodic.idle.idles"))
		idles++;
	assert_false(c.key[idles]);
	assert_false(c.unreliable[idles]);
	assert_true(fabs(il_compare_res(&c, idles, (size_t)c.aa)->p_raw - 0.0127) < 0.005);
	ladder = (size_t)il_dataset_var(&ds, "ladder");
	assert_string_equal(il_compare_res(&c, idles, ladder)->verdict, "changed");
	assert_false(il_compare_aa_warning(&c, &out));
	il_compare_sentence(&c, &out);
	assert_null(strstr(out.p, "host not quiet"));
	assert_null(strstr(out.p, "periodic.idle.idles"));
	assert_non_null(strstr(out.p, "secondary metrics (exploratory, BH q-values): "));
	il_buf_reset(&out);
	assert_int_equal(il_report_text(&c, &out), 0);
	assert_true(strncmp(out.p, "WARNING", 7));
	assert_non_null(strstr(strstr(out.p, "periodic.idle.idles (count"), "changed (exploratory)\n"));
	il_buf_release(&out);
	il_compare_release(&c);
	il_dataset_release(&ds);
}

static double noisy_aa(size_t v, size_t m, int i, void *ctx)
{
	(void)m, (void)ctx;
	/* menu-again 60% slower than menu on the key metric; ladder 1% off menu */
	return (v == 1 ? 160 : v == 2 ? 101 : 100) + 0.4 * (i % 3);
}

/* A truly noisy pair (one side 60% slower on a key metric) is caught: a warning, and never a finding. */
static void test_aa__a_noisy_pair_on_a_key_metric_is_caught(void **state)
{
	static const char *const vars[] = { "menu", "menu-again", "ladder" }, *const mets[] = { "score" };
	char *dir = tu_tmpdir();
	struct il_dataset ds;
	struct il_cmp c;
	struct il_buf out = IL_BUF_INIT;

	(void)state;
	tu_journal(dir, vars, 3, true, mets, 1, NULL, 6, NULL, noisy_aa, NULL);
	load(&ds, &c, dir);
	assert_int_equal(c.aa, 1);
	assert_int_equal(c.nunreliable, 1);
	assert_true(c.key[0] && c.unreliable[0]);
	assert_string_equal(il_compare_res(&c, 0, 2)->verdict, "unreliable");
	assert_true(il_compare_aa_warning(&c, &out));
	if (!strstr(out.p, "host not quiet: menu / menu-again differ on the key metric w.score (+59.8%, p="))
		fail_msg("%s", out.p);
	il_buf_reset(&out);
	assert_int_equal(il_report_text(&c, &out), 0);
	assert_true(!strncmp(out.p, "WARNING: host not quiet: menu / menu-again", 42));
	il_buf_release(&out);
	il_compare_release(&c);
	il_dataset_release(&ds);
	tu_rmtree(dir);
	free(dir);
}

/*
 * One variant of each of two runs side by side (what a nightly compares): the
 * values are the runs' own, so the change and the test's raw p are the ones
 * of the same two variants compared inside one run.
 */
static void test_dataset__pick(void **state)
{
	struct il_dataset ds, pair = { 0 };
	struct il_cmp c, pc = { 0 };
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_err err = { 0 };
	size_t i = 0, j = 0;

	(void)state;
	load(&ds, &c, run1(NULL));
	assert_int_equal(il_dataset_pick(&pair, &ds, "menu", "baseline"), 0);
	assert_int_equal(il_dataset_pick(&pair, &ds, "ladder", "tip"), 0);
	assert_int_equal(il_dataset_pick(&pair, &ds, "nope", "x"), IL_ENOTFOUND);
	assert_int_equal(pair.nvar, 2);
	pair.reference = strdup("baseline");
	assert_int_equal(il_compare(&pc, &pair, &o, &err), 0);
	while (strcmp(ds.met[c.met[i]].key, "periodic.idle.idles"))
		i++;
	while (strcmp(pair.met[pc.met[j]].key, "periodic.idle.idles"))
		j++;
	assert_int_equal(pair.met[pc.met[j]].var[1].n, ds.met[c.met[i]].var[il_dataset_var(&ds, "ladder")].n);
	assert_true(fabs(il_compare_res(&pc, j, 1)->change_pct -
			 il_compare_res(&c, i, (size_t)il_dataset_var(&ds, "ladder"))->change_pct) < 1e-9);
	assert_true(fabs(il_compare_res(&pc, j, 1)->p_raw - il_compare_res(&c, i, (size_t)il_dataset_var(&ds, "ladder"))->p_raw) <
		    1e-12);
	il_compare_release(&pc);
	il_compare_release(&c);
	il_dataset_release(&pair);
	il_dataset_release(&ds);
}

static double family_vals(size_t v, size_t m, int i, void *ctx)
{
	static const double ref[] = { 10, 11, 12, 13, 14 }, b[] = { 12.5, 15, 16, 17, 18 };

	(void)ctx;
	/* the secondary metric s: the same quiet values for all; k1, k2: 2 of 25 pairs out of order (MWU p = 8/252) */
	return m == 2 ? 100 + 0.01 * i : v == 0 ? ref[i] : b[i] + 0.1 * (double)(v - 1) + 0.01 * (double)m;
}

/*
 * The decision family: per variant, its key metrics Holm-adjusted (k1 and
 * k2: raw MWU p 8/252 = 0.0317 each, 16/252 = 0.0635 after Holm over 2), the
 * secondary metric apart (BH); without adjustment both key metrics are worse.
 */
static void test_family__holm_per_variant_over_its_key_metrics(void **state)
{
	static const char *const vars[] = { "ref", "b", "c" }, *const mets[] = { "k1", "k2", "s" };
	char *dir = tu_tmpdir();
	struct il_dataset ds = { 0 };
	struct il_cmp c;
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_err err = { 0 };
	struct il_buf s = IL_BUF_INIT;

	(void)state;
	tu_journal(dir, vars, 3, false, mets, 3, "[\"k1\", \"k2\"]", 5, NULL, family_vals, NULL);
	assert_int_equal(il_datajournal_add_run(&ds, dir, NULL, &err), 0);
	assert_true(ds.met[0].key_metric && ds.met[1].key_metric && !ds.met[2].key_metric);
	o.test = IL_TEST_MWU;
	o.holm = false;
	assert_int_equal(il_compare(&c, &ds, &o, &err), 0);
	assert_true(fabs(il_compare_res(&c, 0, 1)->p - 8.0 / 252) < 1e-9);
	assert_string_equal(il_compare_res(&c, 0, 1)->verdict, "worse");
	assert_string_equal(il_compare_res(&c, 1, 2)->verdict, "worse");
	il_compare_sentence(&c, &s);
	assert_non_null(strstr(s.p, "[p not adjusted for multiple comparisons]"));
	il_compare_release(&c);
	il_buf_reset(&s);
	o.holm = true;
	assert_int_equal(il_compare(&c, &ds, &o, &err), 0);
	for (size_t i = 0; i < 2; i++)
		for (size_t v = 1; v < 3; v++) {
			const struct il_mres *x = il_compare_res(&c, i, v);

			assert_true(fabs(x->p - 16.0 / 252) < 1e-9);
			assert_true(fabs(x->p_raw - 8.0 / 252) < 1e-9);
			assert_int_equal(x->family, 2);
			/* not shown, not shown the same either: unknown, with the samples that would tell */
			assert_string_equal(x->verdict, "unknown");
			assert_true(x->n_needed > 5);
		}
	assert_int_equal(c.family_max, 2);
	assert_int_equal(c.n[IL_VERDICT_UNKNOWN], 4);
	/* the secondary metric: every variant equal to the reference, shown the same */
	assert_string_equal(il_compare_res(&c, 2, 1)->verdict, "same");
	il_compare_sentence(&c, &s);
	assert_non_null(strstr(s.p, "no key metric shown to differ beyond noise (4 key comparisons); unknown: 4 of 4 ("));
	assert_non_null(strstr(s.p, "[key metrics: p Holm-adjusted per variant over up to 2, alpha 0.05]"));
	assert_null(strstr(s.p, "no difference above noise"));
	il_buf_release(&s);
	il_compare_release(&c);
	il_dataset_release(&ds);
	tu_rmtree(dir);
	free(dir);
}

static void test_testedby__trailer_once_at_the_end(void **state)
{
	char *tb = tested_by(fixture("patched", NULL), &as_test);
	const char *last;

	(void)state;
	/* kernels v6.18-rc4 and teo-1 (commits), host kind ssh: a Tested-by */
	assert_int_equal(trailers(tb), 1);
	last = strstr(tb, "\nTested-by: ");
	assert_non_null(last);
	assert_string_equal(last, "\nTested-by: Test Person <test@example.org>\n");
	assert_null(strstr(tb, "Evidence, not a Tested-by"));
	assert_null(strstr(tb, "WARNING"));
	/* what was measured: each kernel's release as it booted, its commit, the patch's subject */
	assert_non_null(strstr(tb, "Kernels: v6.18-rc4 (6.18.0-rc4-il6146a0f1, commit 6146a0f1dfae); teo-1 (6.18.0-rc4-il8f627f86,\n"
				   "  commit 8f627f86062e: cpuidle: "));
	free(tb);
}

/* Where the tree came from (a plan kernel's "origin", try's from the lab's tree): said once, the variant has its base's. */
static void test_testedby__kernels_say_where_the_tree_came_from(void **state)
{
	char *dir = tu_tmpdir(), *j = tu_read(fixture("patched", "journal.jsonl"), NULL), *nl = strchr(j, '\n'), *tb;
	struct il_buf b = IL_BUF_INIT;
	json_t *rs;

	(void)state;
	/* the run-start record with an origin on both kernels, the rest of the journal as it is */
	assert_non_null(nl);
	*nl = 0;
	assert_non_null(rs = json_loads(j, 0, NULL));
	for (size_t i = 0; i < 2; i++)
		json_object_set_new(json_array_get(json_object_get(rs, "kernels"), i), "origin",
				    json_string("Debian linux-source-6.12 (/usr/src/x.tar.xz)"));
	{
		char *line = il_json_dumps(rs, JSON_COMPACT);

		il_buf_adds(&b, line);
		free(line);
	}
	il_buf_printf(&b, "\n%s", nl + 1);
	{
		char *path = il_str_dup_printf("%s/journal.jsonl", dir);
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		assert_int_equal(fwrite(b.p, 1, b.len, f), b.len);
		assert_int_equal(fclose(f), 0);
		free(path);
	}
	tb = tested_by(dir, &as_test);
	if (tu_count(tb, "from Debian linux-source-6.12") != 1 ||
	    !strstr(tb, "(6.18.0-rc4-il6146a0f1, commit 6146a0f1dfae, from Debian linux-source-6.12"))
		fail_msg("%s", tb);
	json_decref(rs);
	il_buf_release(&b);
	free(tb), free(j);
	tu_rmtree(dir);
	free(dir);
}

static void test_testedby__no_trailer_for_the_running_kernel(void **state)
{
	char *tb = tested_by(fixture("running", NULL), &as_test);

	(void)state;
	assert_int_equal(trailers(tb), 0);
	assert_non_null(strstr(tb, "Evidence, not a Tested-by:\n  - no kernel under test: every sample ran on the "
				   "host's own kernel (6.18.44-fc-v769)"));
	/* the host's kind is recorded (ssh): that rule holds */
	assert_null(strstr(tb, "emulated lab"));
	free(tb);
	/* the old journal: neither rule can be met, and no identity is needed for evidence */
	tb = tested_by(run1(NULL), &(struct il_tb_opts){ 0 });
	assert_int_equal(trailers(tb), 0);
	assert_non_null(strstr(tb, "  - host local: its kind is not recorded"));
	free(tb);
}

static void test_testedby__no_trailer_on_the_lab(void **state)
{
	char *dir = tu_tmpdir(), *jp, *tb;

	(void)state;
	jp = copy_journal(fixture("patched", "journal.jsonl"), dir, "\"kind\":\"ssh\"", "\"kind\":\"lab\"");
	tb = tested_by(dir, &as_test);
	assert_int_equal(trailers(tb), 0);
	assert_true(!strncmp(tb, "Evidence, not a Tested-by:\n  - host kvm7 is idlelab's emulated lab VM (QEMU TCG)", 79));
	assert_non_null(strstr(tb, "Note: " "Measured on idlelab's QEMU lab host"));
	free(tb);
	/* --force: the trailer, at the end, and the output says it was forced and why it would not have been */
	tb = tested_by(dir, &(struct il_tb_opts){ .as = as_test.as, .force = true });
	assert_int_equal(trailers(tb), 1);
	assert_true(!strncmp(tb, "Forced (--force): a Tested-by, although otherwise this is evidence, not a Tested-by:\n"
				 "  - host kvm7 is idlelab's emulated lab VM",
			     127));
	assert_non_null(strstr(tb, "\nTested-by: Test Person <test@example.org>\n"));
	assert_string_equal(strstr(tb, "\nTested-by: "), "\nTested-by: Test Person <test@example.org>\n");
	free(tb);
	free(jp);
	tu_rmtree(dir);
	free(dir);
	/* a host NAMED like the lab but of kind ssh is not the lab: the caveat comes from the kind */
	dir = tu_tmpdir();
	jp = copy_journal(fixture("patched", "journal.jsonl"), dir, "kvm7", "labvm-rack3");
	tb = tested_by(dir, &as_test);
	assert_int_equal(trailers(tb), 1);
	assert_null(strstr(tb, "QEMU lab host"));
	assert_non_null(strstr(tb, "host labvm-rack3 (ssh)"));
	free(tb);
	free(jp);
	tu_rmtree(dir);
	free(dir);
}

static void test_testedby__short_by_default(void **state)
{
	char *tb = tested_by(fixture("patched", NULL), &as_test);
	char *full = tested_by(fixture("patched", NULL), &(struct il_tb_opts){ .as = as_test.as, .full = true });

	(void)state;
	assert_true(lines_of(tb) <= 60);
	assert_true(lines_of(full) > 60);
	/* each workload's score; a residency share only with --full (and the command line) */
	assert_non_null(strstr(tb, "pingpong.usec_per_loop (us, lower is better): menu@v6.18-rc4 4.126 [reference]\n"));
	assert_non_null(strstr(tb, "periodic.wakeup_lat_avg_us (us, lower is better)"));
	assert_null(strstr(tb, "periodic.wakeup_lat_p99_us"));
	assert_null(strstr(tb, "usage_share"));
	assert_null(strstr(tb, "Kernel command line:"));
	assert_non_null(strstr(full, "periodic.idle.state.POLL.usage_share"));
	assert_non_null(strstr(full, "Kernel command line: BOOT_IMAGE=/vmlinuz-"));
	assert_int_equal(trailers(full), 1);
	assert_string_equal(strstr(full, "\nTested-by: "), "\nTested-by: Test Person <test@example.org>\n");
	free(tb);
	free(full);
	/*
	 * A wide run, 12 metrics x 6 variants all different: 12 blocks of 6 lines
	 * do not fit; whole blocks up to 60 lines, then what --full adds.
	 */
	{
		char *dir = tu_tmpdir(), path[700];
		struct il_buf j = IL_BUF_INIT;
		struct il_dataset ds = { 0 };
		struct il_cmp c;
		struct il_cmp_opts o = IL_CMP_OPTS_INIT;
		struct il_buf out = IL_BUF_INIT;
		struct il_err err = { 0 };
		int seq = 0;

		il_buf_adds(&j, "{\"type\":\"run-start\",\"plan_name\":\"wide\",\"reference\":\"g0\",\"variants\":[");
		for (int v = 0; v < 6; v++)
			il_buf_printf(&j, "%s{\"label\":\"g%d\",\"kernel\":\"k%d\",\"governor\":\"menu\",\"disable\":[]}",
				      v ? "," : "", v, v);
		il_buf_adds(&j, "],\"kernels\":[");
		for (int v = 0; v < 6; v++)
			il_buf_printf(&j, "%s{\"name\":\"k%d\",\"commit\":\"%040d\"}", v ? "," : "", v, v);
		il_buf_adds(&j, "],\"workloads\":{\"w\":{\"workload\":\"w\",\"params\":{},\"metrics\":[");
		for (int m = 0; m < 12; m++)
			il_buf_printf(&j, "%s{\"name\":\"m%02d\",\"unit\":\"us\",\"better\":\"lower\"}", m ? "," : "", m);
		il_buf_adds(&j, "]}},\"iterations\":6,\"warmup\":0,\"order\":\"interleave\"}\n"
				"{\"type\":\"host\",\"host\":\"h\",\"kind\":\"ssh\",\"fingerprint\":{}}\n");
		for (int i = 0; i < 6; i++)
			for (int v = 0; v < 6; v++) {
				il_buf_printf(&j, "{\"type\":\"sample\",\"seq\":%d,\"final\":true,\"status\":\"ok\","
						  "\"variant\":\"g%d\",\"workload\":\"w\",\"iteration\":%d,\"metrics\":{",
					      seq++, v, i);
				/* variant v's values 10v% above g0's, never overlapping: every comparison a finding */
				for (int m = 0; m < 12; m++)
					il_buf_printf(&j, "%s\"m%02d\":%g", m ? "," : "", m, 100 * (1 + 0.1 * v) + 0.1 * i);
				il_buf_adds(&j, "}}\n");
			}
		snprintf(path, sizeof(path), "%s/journal.jsonl", dir);
		write_raw(path, il_buf_str(&j));
		if (il_datajournal_add_run(&ds, dir, NULL, &err))
			fail_msg("%s", err.msg);
		o.holm = false;
		assert_int_equal(il_compare(&c, &ds, &o, &err), 0);
		/* the family: m00 (the first metric, by default); the other 11 secondary, exploratory */
		assert_int_equal(c.n[IL_VERDICT_WORSE], 5);
		assert_int_equal(c.n2[IL_VERDICT_WORSE], 55);
		assert_int_equal(il_testedby_report(&c, &as_test, &out, &err), 0);
		assert_true(lines_of(out.p) <= 60);
		assert_non_null(strstr(out.p, "w.m00 (us, lower is better): g0 100.25 [reference]\n"));
		assert_non_null(strstr(out.p, "Secondary metrics that differ (exploratory: BH q-values, not the verdict):\n"));
		assert_non_null(strstr(out.p, " more metrics: idlelab tested-by --full\n"));
		assert_null(strstr(out.p, "w.m11 (us"));
		assert_string_equal(strstr(out.p, "\nTested-by: "), "\nTested-by: Test Person <test@example.org>\n");
		il_buf_release(&out);
		il_buf_release(&j);
		il_compare_release(&c);
		il_dataset_release(&ds);
		tu_rmtree(dir);
		free(dir);
	}
}

static void test_testedby__environment(void **state)
{
	char *tb = tested_by(fixture("patched", NULL), &as_test);

	(void)state;
	assert_non_null(strstr(tb, "\nVM: yes (cpuinfo hypervisor flag; DMI QEMU Standard PC (Q35 + ICH9, 2009); "
				   "systemd-detect-virt kvm)\n"));
	assert_non_null(strstr(tb, "\nIdle boot options: cpuidle_haltpoll.force=1 haltpoll.guest_halt_poll_ns=200000 "
				   "nohz_full=1\n  rcu_nocbs=1\n"));
	assert_non_null(strstr(tb, "\ncpufreq: none (no cpufreq policy"));
	assert_non_null(strstr(tb, "\nTick: HZ=250, NO_HZ_FULL (from /boot/config-6.18.0-rc4-il8f627f86)\n"));
	assert_non_null(strstr(tb, "\nPM QoS: /dev/cpu_dma_latency held by tuned (pid 812); no CPU resume latency limit\n"));
	free(tb);
	/* an old journal: what it lacks is "not recorded" */
	tb = tested_by(run1(NULL), &as_test);
	assert_non_null(strstr(tb, "\nVM: yes (cpuinfo hypervisor flag; DMI and device tree not recorded)\n"));
	/* today's list of idle options, read from the recorded command line (haltpoll.* is new) */
	assert_non_null(strstr(tb, "\nIdle boot options: cpuidle_haltpoll.force=1 haltpoll.guest_halt_poll_ns=0\n"));
	assert_non_null(strstr(tb, "\ncpufreq: none on cpu0 (other CPUs not recorded)\n"));
	assert_non_null(strstr(tb, "\nTick: HZ and NO_HZ not recorded\n"));
	assert_non_null(strstr(tb, "\nPM QoS: /dev/cpu_dma_latency holders not recorded; no CPU resume latency limit\n"));
	free(tb);
}

/* The environment lines from fingerprints of other shapes: limits per CPU, cpufreq groups, not root. */
static void test_environment__shapes(void **state)
{
	static const char fp[] =
		"{\"virtualization\": {\"hypervisor_flag\": false, \"vm\": false, \"evidence\": null},"
		" \"cmdline\": \"ro intel_idle.max_cstate=1 processor.max_cstate=1 idle=poll quiet -- nohz_full=3\","
		" \"cpufreq\": {\"driver\": \"intel_pstate\", \"governor\": \"powersave\", \"policies\": ["
		"  {\"driver\": \"intel_pstate\", \"governor\": \"powersave\", \"cpus\": \"0-3\", \"policies\": 4},"
		"  {\"driver\": \"intel_pstate\", \"governor\": \"performance\", \"cpus\": \"4\", \"policies\": 1}]},"
		" \"kernel_config\": {\"source\": null, \"hz\": null, \"tick\": null, \"options\": {}},"
		" \"pm_qos_resume_latency_us\": {\"0\": \"0\", \"1\": \"20\", \"2\": \"n/a\", \"3\": \"20\"},"
		" \"cpu_dma_latency_holders\": {\"processes\": [], \"scanned\": \"own\"}}";
	json_t *j = json_loads(fp, 0, NULL);
	struct il_buf out = IL_BUF_INIT;

	(void)state;
	assert_non_null(j);
	assert_int_equal(il_environ_report(j, false, &out), 0);
	assert_string_equal(out.p,
			    "VM: no (no cpuinfo hypervisor flag, DMI or device tree sign of a hypervisor)\n"
			    /* what follows "--" is init's, not the kernel's */
			    "Idle boot options: intel_idle.max_cstate=1 processor.max_cstate=1 idle=poll\n"
			    "cpufreq: intel_pstate powersave on CPUs 0-3 (4 policies); intel_pstate performance on CPU 4 (1\n"
			    "  policy)\n"
			    "Tick: HZ unknown, NO_HZ unknown (neither /proc/config.gz nor /boot/config-RELEASE was readable)\n"
			    "PM QoS: no process holds /dev/cpu_dma_latency (the probe was not root: only its own user's processes\n"
			    "  were seen); CPUs 1,3: resume latency limit 20 us; CPU 2: resume latency limit 0 us (no idle state\n"
			    "  but polling)\n");
	/* jansson out of memory while grouping the CPUs: an error, never a line without them */
	for (long n = 0, hit = 1; hit; n += tu_oom_stride()) {
		struct il_buf part = IL_BUF_INIT;
		int r;

		tu_json_oom(n);
		r = il_environ_report(j, false, &part);
		hit = tu_json_oom_end();
		if (r) {
			assert_int_equal(r, IL_ENOMEM);
			assert_true(hit);
		} else
			assert_string_equal(part.p, out.p);
		il_buf_release(&part);
	}
	il_buf_release(&out);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report__golden_files),
		cmocka_unit_test(test_report__json_out_of_memory),
		cmocka_unit_test(test_dataset__pick),
		cmocka_unit_test(test_report__text_fits_mail),
		cmocka_unit_test(test_report__html_escapes_everything),
		cmocka_unit_test(test_report__html_trace_plots),
		cmocka_unit_test(test_report__blind_cpu_once),
		cmocka_unit_test(test_report__tested_by_lists_the_whole_family),
		cmocka_unit_test(test_report__malformed_journals),
		cmocka_unit_test(test_aa__chance_on_a_secondary_metric_is_exploratory),
		cmocka_unit_test(test_aa__a_noisy_pair_on_a_key_metric_is_caught),
		cmocka_unit_test(test_family__holm_per_variant_over_its_key_metrics),
		cmocka_unit_test(test_testedby__trailer_once_at_the_end),
		cmocka_unit_test(test_testedby__kernels_say_where_the_tree_came_from),
		cmocka_unit_test(test_testedby__no_trailer_for_the_running_kernel),
		cmocka_unit_test(test_testedby__no_trailer_on_the_lab),
		cmocka_unit_test(test_testedby__short_by_default),
		cmocka_unit_test(test_testedby__environment),
		cmocka_unit_test(test_environment__shapes),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
