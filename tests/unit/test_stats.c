// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statistics against scipy's numbers (tests/fixtures/stats, generated once by
 * gen-scipy.py), and the verdict's error rates: an A/A study (false
 * positives <= alpha + sampling tolerance) and a power study (a 5% shift at 2%
 * CV, n = 10 per side, detected in >= 90% of trials).
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"
#include "stats/dataset.h"
#include "stats/stats.h"

struct ref_case {
	char name[64];
	double x[64], y[64];
	size_t nx, ny;
	double a, b;
};

static size_t parse_list(char *s, double *out)
{
	size_t n = 0;

	for (char *tok = s, *next; tok && *tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = 0;
		out[n++] = strtod(tok, NULL);
	}
	return n;
}

static size_t load_cases(const char *file, struct ref_case *cases, size_t max)
{
	char path[4096], line[8192];
	const char *src = getenv("IL_SRCDIR");
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/stats/%s", src ? src : ".", file);
	f = fopen(path, "r");
	assert_non_null(f);
	while (n < max && fgets(line, sizeof(line), f)) {
		char *fields[5], *p = line;

		if (line[0] == '#')
			continue;
		for (int i = 0; i < 5; i++) {
			fields[i] = p;
			p = strchr(p, '|');
			if (p)
				*p++ = 0;
		}
		snprintf(cases[n].name, sizeof(cases[n].name), "%s", fields[0]);
		cases[n].nx = parse_list(fields[1], cases[n].x);
		cases[n].ny = parse_list(fields[2], cases[n].y);
		cases[n].a = strtod(fields[3], NULL);
		cases[n].b = strtod(fields[4], NULL);
		n++;
	}
	fclose(f);
	return n;
}

static void assert_rel(const char *what, const char *name, double got, double want, double tol)
{
	double d = fabs(got - want), scale = fabs(want) > 1e-300 ? fabs(want) : 1;

	if (!(d <= tol * scale || d < 1e-300))
		fail_msg("%s %s: got %.17g, scipy %.17g (rel %.3g)", what, name, got, want, d / scale);
}

static struct ref_case cases[128];

/*
 * Each case of file (at least min of them) through test: the statistic
 * (named stat, within stat_tol) and p (within 1e-6) as scipy has them.
 * Returns how many of the cases took the exact path.
 */
static size_t check_two_sample(const char *file, size_t min,
			       int (*test)(const double *, size_t, const double *, size_t, struct il_test *, struct il_err *),
			       const char *stat, double stat_tol)
{
	size_t n = load_cases(file, cases, 128), nexact = 0;
	struct il_err err = { 0 };

	assert_true(n >= min);
	for (size_t i = 0; i < n; i++) {
		struct il_test t;

		assert_int_equal(test(cases[i].x, cases[i].nx, cases[i].y, cases[i].ny, &t, &err), 0);
		assert_rel(stat, cases[i].name, t.stat, cases[i].a, stat_tol);
		assert_rel("p", cases[i].name, t.p, cases[i].b, 1e-6);
		nexact += (size_t)t.exact;
	}
	return nexact;
}

static void test_mwu__matches_scipy(void **state)
{
	(void)state;
	assert_true(check_two_sample("mwu.txt", 70, il_stats_mwu, "U1", 0) >= 10); /* both regimes covered */
}

static void test_welch__matches_scipy(void **state)
{
	(void)state;
	check_two_sample("welch.txt", 60, il_stats_welch, "t", 1e-9);
}

static void test_bootstrap__agrees_with_scipy_and_is_reproducible(void **state)
{
	size_t n = load_cases("bootstrap.txt", cases, 128);
	struct il_err err = { 0 };

	(void)state;
	assert_true(n >= 50);
	for (size_t i = 0; i < n; i++) {
		double lo, hi, lo2, hi2, w = cases[i].b - cases[i].a;
		const char *m;

		assert_int_equal(il_stats_ratio_ci(cases[i].x, cases[i].nx, cases[i].y, cases[i].ny, 0.95, 20000, 42, &lo, &hi,
					     &m, &err),
				 0);
		assert_string_equal(m, "bootstrap");
		/* two Monte Carlo estimates of the same percentiles: within 6% of the interval's width */
		if (fabs(lo - cases[i].a) > 0.06 * w || fabs(hi - cases[i].b) > 0.06 * w)
			fail_msg("%s: CI [%g, %g], scipy [%g, %g]", cases[i].name, lo, hi, cases[i].a, cases[i].b);
		assert_int_equal(il_stats_ratio_ci(cases[i].x, cases[i].nx, cases[i].y, cases[i].ny, 0.95, 20000, 42, &lo2,
					     &hi2, &m, &err),
				 0);
		assert_true(lo == lo2 && hi == hi2);
	}
}

static void test_stats__edge_cases(void **state)
{
	double x[] = { 1, 2, NAN }, y[] = { 1, INFINITY }, c[] = { 5, 5, 5 }, p[] = { 0.01, 0.04, 0.03, 0.5 };
	struct il_err err = { 0 };
	struct il_desc d;
	struct il_test t;

	(void)state;
	assert_int_equal(il_stats_check(x, 3, "a.txt", &err), IL_EINVAL);
	assert_string_equal(err.msg, "a.txt: value 3 is NaN, not a finite number");
	assert_int_equal(il_stats_check(y, 2, "b", &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "infinite"));
	il_stats_desc_compute(c, 3, &d);
	assert_true(d.stdev == 0 && d.cv == 0 && d.median == 5);
	il_stats_desc_compute(c, 1, &d);
	assert_true(isnan(d.stdev));
	assert_int_equal(il_stats_mwu(c, 0, c, 3, &t, &err), IL_EINVAL);
	assert_int_equal(il_stats_welch(c, 1, c, 3, &t, &err), IL_EINVAL);
	/* 3 vs 3 can never reach 0.05 two-sided: 2/C(6,3) = 0.1 */
	assert_true(fabs(il_stats_mwu_min_p(3, 3) - 0.1) < 1e-12);
	assert_true(il_stats_mwu_min_p(4, 4) < 0.05);
	il_stats_holm(p, 4);
	assert_true(fabs(p[0] - 0.04) < 1e-12 && fabs(p[2] - 0.09) < 1e-12 && fabs(p[1] - 0.09) < 1e-12 &&
		    fabs(p[3] - 0.5) < 1e-12);
	assert_true(fabs(il_stats_norm_isf(0.025) - 1.959963984540054) < 1e-9);
	assert_true(fabs(il_stats_t_sf(2.0, 10) - 0.036694017385370196) < 1e-9);
}

/* ---- verdict error rates on simulated runs ---- */

static uint64_t rng_state = 12345;

static double gauss(void)
{
	/* Box-Muller on a 64-bit LCG: deterministic */
	double u1, u2;

	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	u1 = ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	u2 = ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static const char *verdict_for_test(double shift, double cv, size_t n, enum il_test_kind test, size_t *n_needed)
{
	char *dir = tu_tmpdir(), a[600], b[600];
	struct il_dataset ds = { 0 };
	struct il_cmp c;
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_err err = { 0 };
	static char verdict[16];
	FILE *fa, *fb;

	snprintf(a, sizeof(a), "%s/ref.txt", dir);
	snprintf(b, sizeof(b), "%s/var.txt", dir);
	fa = fopen(a, "w");
	fb = fopen(b, "w");
	for (size_t i = 0; i < n; i++) {
		fprintf(fa, "%.17g\n", 100 * (1 + cv * gauss()));
		fprintf(fb, "%.17g\n", 100 * (1 + shift) * (1 + cv * gauss()));
	}
	fclose(fa);
	fclose(fb);
	assert_int_equal(il_dataset_add_file(&ds, a, "ref", &err), 0);
	assert_int_equal(il_dataset_add_file(&ds, b, "var", &err), 0);
	o.resamples = 200;
	o.test = test;
	assert_int_equal(il_compare(&c, &ds, &o, &err), 0);
	snprintf(verdict, sizeof(verdict), "%s", il_compare_res(&c, 0, 1)->verdict);
	if (n_needed)
		*n_needed = il_compare_res(&c, 0, 1)->n_needed;
	il_compare_release(&c);
	il_dataset_release(&ds);
	tu_rmtree(dir);
	free(dir);
	return verdict;
}

static const char *verdict_for(double shift, double cv, size_t n)
{
	return verdict_for_test(shift, cv, n, IL_TEST_WELCH, NULL);
}

static void test_verdict__aa_false_positive_rate(void **state)
{
	size_t fp = 0, trials = 200;

	(void)state;
	for (size_t i = 0; i < trials; i++)
	{
		const char *v = verdict_for(0, 0.02, 10);

		/* same or unknown: anything else is a false alarm */
		fp += strcmp(v, "same") && strcmp(v, "unknown");
	}
	/* alpha 0.05; 3 binomial standard errors of 200 trials: 0.05 + 0.046 */
	print_message("A/A: %zu of %zu comparisons of identical distributions flagged\n", fp, trials);
	assert_true((double)fp / (double)trials <= 0.05 + 3 * sqrt(0.05 * 0.95 / (double)trials));
}

static void test_verdict__power(void **state)
{
	size_t hit = 0, trials = 200;

	(void)state;
	for (size_t i = 0; i < trials; i++)
		hit += strcmp(verdict_for(0.05, 0.02, 10), "changed") == 0;
	print_message("power: a 5%% shift at 2%% CV, n=10 per side, detected in %zu of %zu trials\n", hit, trials);
	assert_true(hit >= trials * 9 / 10);
}

/* Compare two files of numbers; the variant's result (caller releases c and ds). */
static const struct il_mres *compare_lists(const char *ref, const char *var, struct il_cmp *c, struct il_dataset *ds,
					   char *dir)
{
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_err err = { 0 };

	tu_write(dir, "/ref.txt", ref);
	tu_write(dir, "/var.txt", var);
	{
		char a[600], b[600];

		snprintf(a, sizeof(a), "%s/ref.txt", dir);
		snprintf(b, sizeof(b), "%s/var.txt", dir);
		assert_int_equal(il_dataset_add_file(ds, a, "ref", &err), 0);
		assert_int_equal(il_dataset_add_file(ds, b, "var", &err), 0);
	}
	if (il_compare(c, ds, &o, &err))
		fail_msg("%s", err.msg);
	return il_compare_res(c, 0, 1);
}

/* a reference of zeros and a variant that is not: +inf% is a change, not noise (p < alpha) */
static void test_verdict__infinite_change(void **state)
{
	char *dir = tu_tmpdir();
	struct il_dataset ds = { 0 };
	struct il_cmp c;
	const struct il_mres *x;

	(void)state;
	x = compare_lists("0\n0\n0\n0\n0\n0\n", "1\n2\n1\n3\n2\n1\n", &c, &ds, dir);
	assert_true(isinf(x->change_pct));
	assert_true(x->p < 0.05);
	assert_string_equal(x->verdict, "changed");
	il_compare_release(&c);
	il_dataset_release(&ds);
	tu_rmtree(dir);
	free(dir);
}

/* an outlier near DBL_MAX: finite mean and spread, a CI that is no NaN */
static void test_stats__huge_outlier(void **state)
{
	char *dir = tu_tmpdir();
	struct il_dataset ds = { 0 };
	struct il_cmp c;
	const struct il_mres *x;
	struct il_desc d;
	const double v[] = { 1, 2, 1e308, 1e308, 3 };

	(void)state;
	il_stats_desc_compute(v, 5, &d);
	assert_true(isfinite(d.mean) && isfinite(d.stdev) && isfinite(d.cv));
	assert_true(fabs(d.mean - 4e307) < 1e293);
	x = compare_lists("1\n2\n3\n2\n1\n", "2\n3\n1e308\n2\n3\n", &c, &ds, dir);
	assert_false(isnan(x->ci_lo));
	assert_false(isnan(x->ci_hi));
	il_compare_release(&c);
	il_dataset_release(&ds);
	tu_rmtree(dir);
	free(dir);
}

/*
 * 3 vs 3: no outcome of the U test reaches alpha (smallest two-sided p 0.1),
 * so a 50% shift is unknown under --test mwu, asking for the 4 a side it
 * needs; Welch's t decides it at 3.
 */
static void test_verdict__too_few_samples(void **state)
{
	size_t need = 0;

	(void)state;
	assert_string_equal(verdict_for_test(0.5, 0.01, 3, IL_TEST_MWU, &need), "unknown");
	assert_true(need >= 4);
	assert_string_equal(verdict_for_test(0.5, 0.01, 4, IL_TEST_MWU, NULL), "changed");
	assert_string_equal(verdict_for(0.5, 0.01, 3), "changed");
	assert_string_equal(verdict_for(0.5, 0.01, 1), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mwu__matches_scipy),
		cmocka_unit_test(test_welch__matches_scipy),
		cmocka_unit_test(test_bootstrap__agrees_with_scipy_and_is_reproducible),
		cmocka_unit_test(test_stats__edge_cases),
		cmocka_unit_test(test_verdict__aa_false_positive_rate),
		cmocka_unit_test(test_verdict__power),
		cmocka_unit_test(test_verdict__too_few_samples),
		cmocka_unit_test(test_verdict__infinite_change),
		cmocka_unit_test(test_stats__huge_outlier),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
