// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab compare`, `idlelab report`, `idlelab tested-by`. */
#include <libgen.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "report/report.h"
#include "report/views.h"
#include "stats/compare.h"
#include "stats/decide.h"
#include "stats/dataset.h"

struct cmp_args {
	const char *ref, *metric, *test, *fmt, *out, *view;
	double alpha, min_change, k, max_cv, level;   /* NAN: not given */
	bool holm, no_holm;
	long resamples, seed;
};

#define CMP_ARGS_INIT { .seed = -1, .alpha = NAN, .min_change = NAN, .k = NAN, .max_cv = NAN, .level = NAN }

#define CMP_OPTS(a)                                                                                           \
	IL_OPT_STR(0, "ref", &(a).ref, "NAME", "reference variant (default: the plan's reference, or the first)"), \
	IL_OPT_DBL(0, "alpha", &(a).alpha, "P", "significance level (default 0.05)"),                              \
	IL_OPT_PCT(0, "min-change", &(a).min_change, "PCT", "noise floor in percent (default 2%)"),                \
	IL_OPT_DBL(0, "k", &(a).k, "K", "noise threshold: k x the reference's relative standard error (default 2)"), \
	IL_OPT_STR(0, "metric", &(a).metric, "M[,M...]", "the key metrics, replacing the workloads' (and only these shown)"), \
	IL_OPT_PCT(0, "max-cv", &(a).max_cv, "PCT", "leave out metrics whose CV exceeds PCT in a variant (says which)"), \
	IL_OPT_STR(0, "test", &(a).test, "mwu|welch", "significance test (default welch: Welch's t)"),          \
	IL_OPT_BOOL(0, "holm", &(a).holm, "Holm-adjust each variant's key metrics, BH q for the rest (the default)"),            \
	IL_OPT_BOOL(0, "no-holm", &(a).no_holm, "do not adjust p for multiple comparisons"),                        \
	IL_OPT_DBL(0, "level", &(a).level, "L", "confidence level of the ratio CI (default 0.95)"),                \
	IL_OPT_NUM(0, "resamples", &(a).resamples, "N", "bootstrap resamples (default 2000)"),                      \
	IL_OPT_NUM(0, "seed", &(a).seed, "N", "bootstrap seed (default 1)")

/* --view: one of the seed threads' table shapes, or the traced samples' durations, instead of the report (report/views.h) */
#define VIEW_OPT(a) \
	IL_OPT_STR(0, "view", &(a).view, "iterations|states|clusters|misses|latency|durations", \
		   "a seed table's shape, or the idle traces' durations (docs/report.md)")

static int make_opts(const struct cmp_args *a, struct il_cmp_opts *o, struct il_strlist *only, struct il_err *err)
{
	*o = (struct il_cmp_opts)IL_CMP_OPTS_INIT;
	o->ref = a->ref;
	/* the option parser read the numbers (IL_OPT_DBL/PCT); NAN: not given, the default stays */
	if (!isnan(a->alpha) && !il_decide_alpha_ok(a->alpha))
		return il_err_set(err, IL_EINVAL, "--alpha %g: expected a significance level in (0, 0.5)", a->alpha);
	if (!isnan(a->alpha))
		o->alpha = a->alpha;
	if (!isnan(a->min_change))
		o->floor_pct = a->min_change;
	if (!isnan(a->k))
		o->k = a->k;
	if (!isnan(a->level))
		o->level = a->level;
	if (!isnan(a->max_cv))
		o->max_cv_pct = a->max_cv;
	if (!isnan(a->max_cv) && !(o->max_cv_pct > 0))
		return il_err_set(err, IL_EINVAL, "--max-cv: expected a percentage above 0, got %g", a->max_cv);
	if (a->test && strcmp(a->test, "mwu") && strcmp(a->test, "welch"))
		return il_err_set(err, IL_EINVAL, "--test: expected mwu or welch, got '%s'", a->test);
	o->test = a->test && !strcmp(a->test, "mwu") ? IL_TEST_MWU : IL_TEST_WELCH;
	if (a->holm && a->no_holm)
		return il_err_set(err, IL_EINVAL, "--holm and --no-holm contradict each other");
	o->holm = !a->no_holm;
	if (a->resamples < 0 || a->resamples > 1000000)
		return il_err_set(err, IL_EINVAL, "--resamples: expected 1..1000000");
	if (a->resamples)
		o->resamples = (unsigned)a->resamples;
	if (a->seed < -1)
		return il_err_set(err, IL_EINVAL, "--seed: expected a non-negative integer");
	if (a->seed >= 0)
		o->seed = (uint64_t)a->seed;
	if (a->metric) {
		if (il_strlist_split_on(only, a->metric, ','))
			return il_err_oom(err);
		o->only = only;
	}
	return 0;
}

static bool is_run_dir(const char *p)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/journal.jsonl", p);
	return !stat(path, &st);
}

/* Build the dataset from run directories and number files (argv[1..n]). */
static int load(struct il_dataset *ds, char **args, int n, struct il_err *err)
{
	int runs = 0, r;

	for (int i = 0; i < n; i++)
		runs += is_run_dir(args[i]);
	for (int i = 0; i < n; i++) {
		char *copy = strdup(args[i]), *base = basename(copy), prefix[300];
		struct stat st;

		if (is_run_dir(args[i])) {
			snprintf(prefix, sizeof(prefix), "%s/", base);
			r = il_datajournal_add_run(ds, args[i], runs > 1 ? prefix : NULL, err);
		} else if (!stat(args[i], &st) && S_ISDIR(st.st_mode)) {
			r = il_err_set(err, IL_EINVAL, "'%s' is a directory without journal.jsonl (not a run directory)",
				       args[i]);
		} else {
			char *dot = strrchr(base, '.');

			if (dot && dot != base)
				*dot = 0;
			r = il_dataset_add_file(ds, args[i], il_dataset_var(ds, base) >= 0 ? args[i] : base, err);
		}
		free(copy);
		if (r)
			return r;
	}
	return 0;
}

/* What a compare-style command builds; cmp_done releases it. */
struct cmp_work {
	struct il_dataset ds;
	struct il_strlist only;
	struct il_cmp_opts o;
	struct il_cmp c;
};

/* Release w; returns the exit code for r (printing err when r is not 0). */
static int cmp_done(struct cmp_work *w, int r, struct il_err *err)
{
	il_compare_release(&w->c);
	il_dataset_release(&w->ds);
	il_strlist_release(&w->only);
	return r ? il_cli_fail(err) : IL_EXIT_OK;
}

/*
 * A comparing command's start: parse, the run directories it wants (nmin..nmax, nmax 0: any
 * number; what: the error otherwise), then the format (f NULL: the command has none), the view
 * and the comparison options. -1: go on, else the exit code (usage errors printed).
 */
static int cmp_begin(int argc, char **argv, const struct il_opt *opts, const char *const *usage, int nmin, int nmax,
		     const char *what, const struct cmp_args *a, struct cmp_work *w, enum il_fmt *f, enum il_view *view,
		     int *nargs)
{
	struct il_err err = { 0 };
	int r;

	if ((r = il_opt_parse(argc, argv, opts, usage, nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	if (*nargs < nmin || (nmax && *nargs > nmax))
		return il_opt_error(opts, usage, "%s", what);
	if ((f && a->fmt && il_report_fmt_parse(a->fmt, f, &err)) || (view && a->view && il_views_parse(a->view, view, &err)) ||
	    make_opts(a, &w->o, &w->only, &err)) {
		il_strlist_release(&w->only);
		return il_opt_error(opts, usage, "%s", err.msg);
	}
	return -1;
}

int il_cmd_compare(int argc, char **argv)
{
	const char *better = NULL;
	struct cmp_args a = CMP_ARGS_INIT;
	const struct il_opt opts[] = {
		CMP_OPTS(a),
		IL_OPT_STR(0, "format", &a.fmt, "text|md|csv|json|html", "output format (default text)"),
		VIEW_OPT(a),
		IL_OPT_STR('o', "output", &a.out, "FILE", "write to FILE instead of stdout"),
		IL_OPT_STR(0, "better", &better, "higher|lower", "direction of the numbers in plain files (default none)"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab compare A B [C ...] [--ref NAME] [--alpha 0.05] [--metric M] [--format F] [--view V] [-o FILE]",
		"  each argument is a run directory (variants from its journal) or a file of numbers, one per line", NULL
	};
	struct cmp_work w = { 0 };
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };
	enum il_fmt f = IL_FMT_TEXT;
	enum il_view view;
	int nargs, r;

	if ((r = cmp_begin(argc, argv, opts, usage, 1, 0, "nothing to compare", &a, &w, &f, &view, &nargs)) >= 0)
		return r;
	if (better && strcmp(better, "higher") && strcmp(better, "lower"))
		return il_opt_error(opts, usage, "--better: expected higher or lower, got '%s'", better);
	if (!(r = load(&w.ds, argv + 1, nargs, &err)) && better)
		il_dataset_file_direction(&w.ds, !strcmp(better, "higher") ? IL_BETTER_HIGHER : IL_BETTER_LOWER);
	if (!r && !(r = il_compare(&w.c, &w.ds, &w.o, &err)) &&
	    !(r = a.view ? il_views_report(&w.c, view, f, &out, &err) : il_report_render(&w.c, f, &out, &err)))
		r = il_cli_output(a.out, il_buf_str(&out), out.len, &err);
	il_buf_release(&out);
	return cmp_done(&w, r, &err);
}

int il_cmd_report(int argc, char **argv)
{
	struct cmp_args a = CMP_ARGS_INIT;
	const struct il_opt opts[] = {
		CMP_OPTS(a),
		IL_OPT_STR(0, "format", &a.fmt, "text|md|csv|json|html", "only this format (default: all)"),
		VIEW_OPT(a),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab report RUN_DIR [--format F] [--view V] [compare options]",
					     "  writes report.{txt,md,csv,json,html} into RUN_DIR, from journal.jsonl alone",
					     "  (--view V: view-V.{txt,md,csv,json} instead)", NULL };
	struct cmp_work w = { 0 };
	struct il_err err = { 0 };
	enum il_fmt f = IL_FMT_TEXT;
	enum il_view view;
	int nargs, r;

	if ((r = cmp_begin(argc, argv, opts, usage, 1, 1, "expected one run directory", &a, &w, &f, &view, &nargs)) >= 0)
		return r;
	if (!(r = il_datajournal_add_run(&w.ds, argv[1], NULL, &err)) && !(r = il_compare(&w.c, &w.ds, &w.o, &err))) {
		for (int i = 0; i < IL_NFMT && !r; i++) {
			struct il_buf out = IL_BUF_INIT;
			char path[4096];

			if ((a.fmt && (enum il_fmt)i != f) || (a.view && !a.fmt && (enum il_fmt)i == IL_FMT_HTML))
				continue;
			if (a.view)
				snprintf(path, sizeof(path), "%s/view-%s.%s", argv[1], il_views_name(view),
					 il_report_fmt_ext((enum il_fmt)i));
			else
				snprintf(path, sizeof(path), "%s/report.%s", argv[1], il_report_fmt_ext((enum il_fmt)i));
			if (!(r = a.view ? il_views_report(&w.c, view, (enum il_fmt)i, &out, &err) :
					   il_report_render(&w.c, (enum il_fmt)i, &out, &err)) &&
			    !(r = il_buf_write_file_atomic(path, il_buf_str(&out), out.len, &err)))
				printf("%s\n", path);
			il_buf_release(&out);
		}
	}
	return cmp_done(&w, r, &err);
}

int il_cmd_tested_by(int argc, char **argv)
{
	struct cmp_args a = CMP_ARGS_INIT;
	struct il_tb_opts tb = { 0 };
	const struct il_opt opts[] = {
		CMP_OPTS(a),
		IL_OPT_STR(0, "as", &tb.as, "\"NAME <EMAIL>\"", "who tested (default: user.name/user.email from git config)"),
		IL_OPT_BOOL(0, "force", &tb.force,
			    "the trailer even for a run without a kernel under test or on the lab (the output says so)"),
		IL_OPT_BOOL(0, "full", &tb.full, "everything: the whole report, not the short block (<= 60 lines)"),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab tested-by RUN_DIR [--as \"Name <email>\"] [--full] [--force]",
					     "  the trailer only for a run of a kernel under test on a host that is not the lab",
					     NULL };
	struct cmp_work w = { 0 };
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };
	int nargs, r;

	if ((r = cmp_begin(argc, argv, opts, usage, 1, 1, "expected one run directory", &a, &w, NULL, NULL, &nargs)) >= 0)
		return r;
	if (!(r = il_datajournal_add_run(&w.ds, argv[1], NULL, &err)) && !(r = il_compare(&w.c, &w.ds, &w.o, &err)) &&
	    !(r = il_testedby_report(&w.c, &tb, &out, &err)))
		fputs(il_buf_str(&out), stdout);
	il_buf_release(&out);
	return cmp_done(&w, r, &err);
}
