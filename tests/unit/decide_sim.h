/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Simulated runs through the one decision code (il_compare, so il_decide):
 * a reference and a variant shift_pct off it, one key metric at 2% CV,
 * fixed or adaptive (judged after every round, stopping at the first
 * decision). Shared by tests/unit/test_stats_decide.c (the error rates
 * asserted) and tests/bench/bench_decide.c (the figures printed), so both
 * measure the same thing.
 */
#ifndef IL_TESTS_DECIDE_SIM_H
#define IL_TESTS_DECIDE_SIM_H
#include <math.h>
#include <string.h>

#include "stats/compare.h"
#include "stats/dataset.h"
#include "stats/decide.h"
#include "run/plan.h"
#include "stats/stats.h"

static double gauss(uint64_t *s)
{
	double u = ((double)(il_stats_rand(s) >> 11) + 0.5) / 9007199254740992.0;
	double v = ((double)(il_stats_rand(s) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

struct sim {
	struct il_dataset ds;
	struct il_mseries m;
	struct il_values vals[2];
	char *var[2];
	double r[64], x[64];
};

static void sim_init(struct sim *s)
{
	memset(s, 0, sizeof(*s));
	s->var[0] = "ref";
	s->var[1] = "x";
	s->m = (struct il_mseries){ .key = "w.score", .group = "w", .metric = "score", .unit = "us",
				    .better = IL_BETTER_LOWER, .key_metric = true, .var = s->vals };
	s->ds = (struct il_dataset){ .title = "sim", .nvar = 2, .var = s->var, .reference = "ref", .nmet = 1, .met = &s->m };
}

/*
 * The verdict at n samples a side (the first n of each), deciding at alpha /
 * looks; *settled: the stop rule of a run whose maximum is iter_max (0:
 * fixed) would stop here (il_compare_settled: decided, or futile).
 */
static enum il_verdict sim_judge(struct sim *s, size_t n, size_t looks, size_t iter_max, bool *settled)
{
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_cmp c;
	struct il_err err = { 0 };
	enum il_verdict v;

	s->vals[0] = (struct il_values){ .n = n, .v = s->r };
	s->vals[1] = (struct il_values){ .n = n, .v = s->x };
	o.looks = looks;
	o.iter_max = iter_max;
	o.resamples = 20; /* the ratio CI is for reading, not for deciding */
	*settled = false;
	if (il_compare(&c, &s->ds, &o, &err))
		return IL_VERDICT_UNKNOWN;
	v = il_compare_res(&c, 0, 1)->vk;
	*settled = il_compare_settled(&c);
	il_compare_release(&c);
	return v;
}

struct rates {
	double differ, right, same, unknown, mean_n;
	double differ_drift;  /* simulate_aa: of the runs whose A/A pair differed, those that called the variant */
};

/*
 * runs simulated runs of a variant shift_pct off the reference (2% CV, lower
 * is better): fixed at n_max (n_min 0), or adaptive from n_min to n_max,
 * stopping at the first look where the run's stop rule would (decided, or
 * futile: needing more samples than the maximum).
 */
static struct rates simulate(size_t runs, double shift_pct, size_t n_min, size_t n_max, uint64_t seed)
{
	struct sim s;
	struct rates out = { 0 };
	size_t looks = n_min ? n_max - n_min + 1 : 1;

	sim_init(&s);
	for (size_t k = 0; k < runs; k++) {
		enum il_verdict v = IL_VERDICT_UNKNOWN;
		size_t n;

		for (size_t i = 0; i < n_max; i++) {
			s.r[i] = 100 + 2 * gauss(&seed);
			s.x[i] = 100 * (1 + shift_pct / 100) + 2 * gauss(&seed);
		}
		for (n = n_min ? n_min : n_max; n <= n_max; n++) {
			bool settled;

			v = sim_judge(&s, n, looks, n_min ? n_max : 0, &settled);
			if (il_decide_verdict_decided(v) || settled)
				break;
		}
		out.mean_n += (double)(n > n_max ? n_max : n);
		out.differ += il_decide_verdict_differs(v);
		out.right += v == (shift_pct < 0 ? IL_VERDICT_BETTER : IL_VERDICT_WORSE);
		out.same += v == IL_VERDICT_SAME;
		out.unknown += v == IL_VERDICT_UNKNOWN;
	}
	out.differ /= (double)runs, out.right /= (double)runs, out.same /= (double)runs, out.unknown /= (double)runs;
	out.mean_n /= (double)runs;
	return out;
}

/*
 * Runs with an A/A pair: the reference, its A/A copy aa_pct off it (the
 * host drifting between them) and a variant shift_pct off the reference, one
 * key metric at cv_pct, n samples a side (fixed). What the A/A-aware floor
 * must give: a large change still found when the A/A pair differs, and no
 * more false alarms than without it. *host_not_quiet: the share of runs in
 * which the A/A pair differed.
 */
static struct rates simulate_aa(size_t runs, double aa_pct, double shift_pct, double cv_pct, size_t n, uint64_t seed,
				double *host_not_quiet)
{
	struct il_mseries m;
	struct il_values vals[3];
	char *var[3] = { "ref", "x", "ref-again" };
	double r[64], x[64], a[64];
	struct il_dataset ds = { .title = "sim", .nvar = 3, .var = var, .reference = "ref", .aa = "ref-again", .nmet = 1,
				 .met = &m };
	struct rates out = { 0 };

	*host_not_quiet = 0;
	m = (struct il_mseries){ .key = "w.score", .group = "w", .metric = "score", .unit = "us",
				 .better = IL_BETTER_LOWER, .key_metric = true, .var = vals };
	for (size_t k = 0; k < runs; k++) {
		struct il_cmp_opts o = IL_CMP_OPTS_INIT;
		struct il_cmp c;
		struct il_err err = { 0 };
		enum il_verdict v = IL_VERDICT_UNKNOWN;

		for (size_t i = 0; i < n; i++) {
			r[i] = 100 * (1 + cv_pct / 100 * gauss(&seed));
			x[i] = 100 * (1 + shift_pct / 100) * (1 + cv_pct / 100 * gauss(&seed));
			a[i] = 100 * (1 + aa_pct / 100) * (1 + cv_pct / 100 * gauss(&seed));
		}
		vals[0] = (struct il_values){ .n = n, .v = r };
		vals[1] = (struct il_values){ .n = n, .v = x };
		vals[2] = (struct il_values){ .n = n, .v = a };
		o.resamples = 20;
		if (!il_compare(&c, &ds, &o, &err)) {
			v = il_compare_res(&c, 0, 1)->vk;
			*host_not_quiet += c.nunreliable > 0;
			out.differ_drift += c.nunreliable > 0 && il_decide_verdict_differs(v);
			il_compare_release(&c);
		}
		out.differ += il_decide_verdict_differs(v);
		out.right += v == (shift_pct < 0 ? IL_VERDICT_BETTER : IL_VERDICT_WORSE);
		out.same += v == IL_VERDICT_SAME;
		out.unknown += v == IL_VERDICT_UNKNOWN || v == IL_VERDICT_UNRELIABLE;
		out.mean_n += (double)n;
	}
	out.differ /= (double)runs, out.right /= (double)runs, out.same /= (double)runs, out.unknown /= (double)runs;
	out.mean_n /= (double)runs;
	out.differ_drift = *host_not_quiet > 0 ? out.differ_drift / *host_not_quiet : 0;
	*host_not_quiet /= (double)runs;
	return out;
}

/*
 * Runs shaped like try's (--iterations auto): the base (the reference), a
 * patched kernel shift_pct off it and the base's A/A copy, one key metric at
 * cv_pct, looked at in stages (n_min, every step after it, n_max: the kernels
 * of a stage are booted in turn), stopping at the first look where the run's
 * stop rule (il_compare_judge) would. out.differ: the patch called better or
 * worse; *aa_differ: the A/A copy called different ("host not quiet": a
 * false alarm by construction).
 */
static struct rates simulate_staged(size_t runs, double shift_pct, double cv_pct, size_t n_min, size_t n_max,
				    size_t step, uint64_t seed, double *aa_differ)
{
	struct il_mseries m;
	struct il_values vals[3];
	char *var[3] = { "menu@base", "menu@patch-1", "menu@base-aa" };
	double r[64], x[64], a[64];
	struct il_dataset ds = { .title = "sim", .nvar = 3, .var = var, .reference = "menu@base", .aa = "menu@base-aa",
				 .nmet = 1, .met = &m };
	size_t looks = il_plan_adaptive_looks((int)n_min, (int)n_max, (int)step);
	struct rates out = { 0 };

	*aa_differ = 0;
	m = (struct il_mseries){ .key = "w.score", .group = "w", .metric = "score", .unit = "us",
				 .better = IL_BETTER_LOWER, .key_metric = true, .var = vals };
	for (size_t k = 0; k < runs; k++) {
		enum il_verdict v = IL_VERDICT_UNKNOWN, va = IL_VERDICT_UNKNOWN;
		size_t n = n_min;

		for (size_t i = 0; i < n_max; i++) {
			r[i] = 100 * (1 + cv_pct / 100 * gauss(&seed));
			x[i] = 100 * (1 + shift_pct / 100) * (1 + cv_pct / 100 * gauss(&seed));
			a[i] = 100 * (1 + cv_pct / 100 * gauss(&seed));
		}
		for (;;) {
			struct il_cmp_opts o = IL_CMP_OPTS_INIT;
			struct il_cmp c;
			struct il_err err = { 0 };
			struct il_buf why = IL_BUF_INIT;
			int stop = 0;

			vals[0] = (struct il_values){ .n = n, .v = r };
			vals[1] = (struct il_values){ .n = n, .v = x };
			vals[2] = (struct il_values){ .n = n, .v = a };
			o.looks = looks;
			o.iter_max = n_max;
			o.resamples = 20;
			if (!il_compare(&c, &ds, &o, &err)) {
				v = il_compare_res(&c, 0, 1)->vk;
				va = il_compare_res(&c, 0, 2)->vk;
				stop = il_compare_judge(&c, 1, &why);
				il_compare_release(&c);
			}
			il_buf_release(&why);
			if (stop || n >= n_max)
				break;
			n = n + step < n_max ? n + step : n_max;
		}
		out.mean_n += (double)n;
		out.differ += il_decide_verdict_differs(v);
		out.right += v == (shift_pct < 0 ? IL_VERDICT_BETTER : IL_VERDICT_WORSE);
		out.same += v == IL_VERDICT_SAME;
		out.unknown += v == IL_VERDICT_UNKNOWN || v == IL_VERDICT_UNRELIABLE;
		/* the A/A copy's differing key metric is marked unreliable (host not quiet): that is its alarm */
		*aa_differ += il_decide_verdict_differs(va) || va == IL_VERDICT_UNRELIABLE;
	}
	out.differ /= (double)runs, out.right /= (double)runs, out.same /= (double)runs, out.unknown /= (double)runs;
	out.mean_n /= (double)runs;
	*aa_differ /= (double)runs;
	return out;
}

#endif
