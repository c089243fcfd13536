// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Change points (stats/changepoint.h) on seeded synthetic nightlies: a step
 * and a slow drift found where they are, two steps both found, pure noise
 * flagged at about the rate alpha promises, and the edges (constant series,
 * too few points, NaN, a level of 0, options) as documented.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/changepoint.h"
#include "stats/stats.h"

/* A standard normal from the seeded generator (Box-Muller). */
static double gauss(uint64_t *s)
{
	double u = (double)((il_stats_rand(s) >> 11) + 1) * 0x1p-53, v = (double)(il_stats_rand(s) >> 11) * 0x1p-53;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* x[i] = level[i] with relative noise of sd noise (0.005: 0.5%). */
static void noisy(double *x, const double *level, size_t n, double noise, uint64_t *s)
{
	for (size_t i = 0; i < n; i++)
		x[i] = level[i] * (1 + noise * gauss(s));
}

/* The change points of x with o (NULL: defaults); fails the test on an error. */
static size_t find(const double *x, size_t n, const struct il_cp_opts *o, struct il_cp **cps)
{
	struct il_err err = { 0 };
	size_t k = 99;

	if (il_changepoint_find(x, n, o, cps, &k, &err))
		fail_msg("%s", err.msg);
	assert_true(k == 0 ? *cps == NULL : *cps != NULL);
	return k;
}

static void test_changepoint__step_found_where_it_is(void **state)
{
	double level[12], x[12];
	struct il_cp *c = NULL;
	uint64_t s = 7;

	(void)state;
	for (size_t i = 0; i < 12; i++)
		level[i] = i < 6 ? 100 : 110;
	noisy(x, level, 12, 0.005, &s);
	assert_int_equal(find(x, 12, NULL, &c), 1);
	assert_int_equal(c[0].at, 6);
	assert_true(c[0].change_pct > 8 && c[0].change_pct < 12);
	assert_true(fabs(c[0].before - 100) < 1 && fabs(c[0].after - 110) < 1);
	assert_true(c[0].p < 0.05);
	free(c);

	/* no noise at all: s = 0 on both sides of the step, still a change (and a 10% drop too) */
	for (size_t i = 0; i < 12; i++)
		x[i] = i < 6 ? 5.5 : 4.95;
	assert_int_equal(find(x, 12, NULL, &c), 1);
	assert_int_equal(c[0].at, 6);
	assert_true(fabs(c[0].change_pct + 10) < 1e-9);
	assert_true(c[0].p < 0.01);
	free(c);
}

static void test_changepoint__slow_drift_found(void **state)
{
	double level[12], x[12];
	struct il_cp *c = NULL;
	uint64_t s = 11;
	size_t n;

	(void)state;
	/* 1% a night: every night-to-night change under the 2% floor */
	for (size_t i = 0; i < 12; i++)
		level[i] = 100 * (1 + 0.01 * (double)i);
	noisy(x, level, 12, 0.003, &s);
	for (size_t i = 1; i < 12; i++)
		assert_true(fabs(x[i] - x[i - 1]) / x[i - 1] < 0.02);
	assert_true((n = find(x, 12, NULL, &c)) >= 1);
	for (size_t i = 0; i < n; i++) {
		assert_true(c[i].change_pct >= 2);
		assert_true(c[i].at >= 2 && c[i].at <= 10);
		assert_true(c[i].p < 0.05);
	}
	free(c);
}

static void test_changepoint__two_steps_both_found(void **state)
{
	double level[20], x[20];
	struct il_cp *c = NULL;
	uint64_t s = 3;

	(void)state;
	/* 20 nights: a 10% regression at night 8, partly fixed at night 14 */
	for (size_t i = 0; i < 20; i++)
		level[i] = i < 8 ? 100 : i < 14 ? 110 : 104;
	noisy(x, level, 20, 0.005, &s);
	assert_int_equal(find(x, 20, NULL, &c), 2);
	assert_int_equal(c[0].at, 8);
	assert_int_equal(c[1].at, 14);
	/* each described by its neighbours: 100 -> 110, then 110 -> 104 */
	assert_true(fabs(c[0].before - 100) < 1 && fabs(c[0].after - 110) < 1);
	assert_true(fabs(c[1].before - 110) < 1 && fabs(c[1].after - 104) < 1);
	assert_true(c[0].change_pct > 8 && c[1].change_pct < -3);
	assert_true(c[0].p < 0.05 && c[1].p < 0.05);
	free(c);
}

/* How many of nser seeded pure-noise series of 12 points have a change point with o. */
static int false_positives(const struct il_cp_opts *o, double noise, int nser)
{
	double level[12], x[12];
	uint64_t s = 2026;
	int fp = 0;

	for (size_t i = 0; i < 12; i++)
		level[i] = 100;
	for (int k = 0; k < nser; k++) {
		struct il_cp *c = NULL;

		noisy(x, level, 12, noise, &s);
		fp += find(x, 12, o, &c) > 0;
		free(c);
	}
	return fp;
}

static void test_changepoint__pure_noise_at_about_alpha(void **state)
{
	struct il_cp_opts o = IL_CP_OPTS_INIT;
	int fp;

	(void)state;
	/* the test alone (no floor): a series without a change is flagged with probability <= alpha, 10 in 200 */
	o.floor_pct = 0;
	fp = false_positives(&o, 0.01, 200);
	print_message("pure noise, 200 series of 12 points, alpha 0.05, no floor: %d false positives\n", fp);
	assert_true(fp <= 20);
	/* and not a test that never says yes: fewer than 2 of 200 at alpha 0.05 would be a broken p */
	assert_true(fp >= 2);
	/* the defaults (2% floor) on a noisy metric (2% noise, as large as the floor): what a nightly sees */
	o.floor_pct = 2;
	fp = false_positives(&o, 0.02, 200);
	print_message("pure noise, 200 series of 12 points, 2%% noise, defaults: %d false positives\n", fp);
	assert_true(fp <= 20);
}

static void test_changepoint__edges(void **state)
{
	double x[12], nan_x[12];
	struct il_cp_opts o = IL_CP_OPTS_INIT;
	struct il_cp dummy, *c = &dummy;
	struct il_err err = { 0 };
	size_t n = 99;

	(void)state;
	/* constant (also 0, and a value whose mean rounds): none */
	for (size_t i = 0; i < 12; i++)
		x[i] = 5.53;
	assert_int_equal(find(x, 12, NULL, &c), 0);
	for (size_t i = 0; i < 12; i++)
		x[i] = 0;
	assert_int_equal(find(x, 12, NULL, &c), 0);
	/* n = 3 < 2 min_seg: none, not an error, even with a step in it; n = 0 too */
	x[0] = 1, x[1] = 1, x[2] = 100;
	assert_int_equal(find(x, 3, NULL, &c), 0);
	assert_int_equal(find(NULL, 0, NULL, &c), 0);
	/* NaN and infinity: IL_EINVAL naming the index */
	for (size_t i = 0; i < 12; i++)
		nan_x[i] = 100 + (double)(i % 2);
	nan_x[4] = NAN;
	assert_int_equal(il_changepoint_find(nan_x, 12, NULL, &c, &n, &err), IL_EINVAL);
	assert_null(c);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err.msg, "index 4 is NaN"));
	nan_x[4] = 100, nan_x[9] = -INFINITY;
	assert_int_equal(il_changepoint_find(nan_x, 12, NULL, &c, &n, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "index 9 is infinite"));
	/* a change from a level of 0 has no percent: IL_EINVAL naming where */
	for (size_t i = 0; i < 12; i++)
		x[i] = i < 7 ? 0 : 3;
	assert_int_equal(il_changepoint_find(x, 12, NULL, &c, &n, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "index 7: the mean before it is 0"));
	/* options out of range, said before anything else */
	o.alpha = 0;
	assert_int_equal(il_changepoint_find(NULL, 0, &o, &c, &n, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "alpha 0"));
	o = (struct il_cp_opts)IL_CP_OPTS_INIT;
	o.min_seg = 0;
	assert_int_equal(il_changepoint_find(x, 12, &o, &c, &n, &err), IL_EINVAL);
	o = (struct il_cp_opts)IL_CP_OPTS_INIT;
	o.permutations = 0;
	assert_int_equal(il_changepoint_find(x, 12, &o, &c, &n, &err), IL_EINVAL);
	o = (struct il_cp_opts)IL_CP_OPTS_INIT;
	o.floor_pct = NAN;
	assert_int_equal(il_changepoint_find(x, 12, &o, &c, &n, &err), IL_EINVAL);
}

static void test_changepoint__deterministic(void **state)
{
	double level[20], x[20];
	struct il_cp *a = NULL, *b = NULL;
	struct il_cp_opts o = IL_CP_OPTS_INIT;
	uint64_t s = 5;
	size_t na, nb;

	(void)state;
	for (size_t i = 0; i < 20; i++)
		level[i] = i < 8 ? 100 : i < 14 ? 110 : 104;
	noisy(x, level, 20, 0.005, &s);
	na = find(x, 20, NULL, &a);
	nb = find(x, 20, NULL, &b);
	assert_int_equal(na, 2);
	assert_int_equal(nb, na);
	assert_memory_equal(a, b, na * sizeof(*a));
	free(b);
	/* another seed draws other permutations: the same splits, p close but its own */
	o.seed = 12345;
	assert_int_equal(find(x, 20, &o, &b), na);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(b[i].at, a[i].at);
		assert_true(fabs(b[i].p - a[i].p) < 0.01);
	}
	free(a);
	free(b);
}

/* A step below the floor is no change, however clear; at a lower floor it is. */
static void test_changepoint__floor(void **state)
{
	double x[12];
	struct il_cp_opts o = IL_CP_OPTS_INIT;
	struct il_cp *c = NULL;

	(void)state;
	for (size_t i = 0; i < 12; i++)
		x[i] = i < 6 ? 100 : 101.5;
	assert_int_equal(find(x, 12, NULL, &c), 0);
	o.floor_pct = 1;
	assert_int_equal(find(x, 12, &o, &c), 1);
	assert_int_equal(c[0].at, 6);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_changepoint__step_found_where_it_is),
		cmocka_unit_test(test_changepoint__slow_drift_found),
		cmocka_unit_test(test_changepoint__two_steps_both_found),
		cmocka_unit_test(test_changepoint__pure_noise_at_about_alpha),
		cmocka_unit_test(test_changepoint__edges),
		cmocka_unit_test(test_changepoint__deterministic),
		cmocka_unit_test(test_changepoint__floor),
	};

	return cmocka_run_group_tests_name("stats_changepoint", tests, NULL, NULL);
}
