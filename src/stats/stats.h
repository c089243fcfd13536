/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The statistics idlelab's verdicts rest on: descriptive statistics, the
 * two-sided Mann-Whitney U test (p-values as scipy.stats.mannwhitneyu at its
 * defaults: exact distribution when one sample has at most 8 values and there
 * are no ties, else the normal approximation with tie and continuity
 * correction), Welch's t-test, a seeded bootstrap confidence interval of the
 * ratio of means, and Holm's correction. Pure functions on arrays of finite
 * doubles; callers reject NaN/inf before (il_stats_check).
 */
#ifndef IL_STATS_STATS_H
#define IL_STATS_STATS_H
#include <stddef.h>
#include <stdint.h>
#include "util/err.h"

struct il_desc {
	size_t n;
	double mean, median, stdev, cv, min, max; /* stdev: sample (n-1); cv = stdev/|mean| (NaN if mean 0) */
};

void il_stats_desc_compute(const double *x, size_t n, struct il_desc *out);

/* IL_EINVAL naming label and the index when x holds NaN or an infinity. */
int il_stats_check(const double *x, size_t n, const char *label, struct il_err *err);

struct il_test {
	double stat;   /* U1 (of x) or Welch's t */
	double p;      /* two-sided */
	int exact;     /* 1 if the exact U distribution was used */
};

/* Mann-Whitney U, two-sided. n1, n2 >= 1. */
int il_stats_mwu(const double *x, size_t n1, const double *y, size_t n2, struct il_test *out, struct il_err *err);

/* The smallest two-sided p any Mann-Whitney outcome can reach for these sizes (no ties). */
double il_stats_mwu_min_p(size_t n1, size_t n2);

/* Welch's unequal-variance t-test, two-sided. n1, n2 >= 2. */
int il_stats_welch(const double *x, size_t n1, const double *y, size_t n2, struct il_test *out, struct il_err *err);

/* Student t survival function P(T > t) with df degrees of freedom; and the standard normal's. */
double il_stats_t_sf(double t, double df);
double il_stats_norm_sf(double z);
double il_stats_norm_isf(double p);

/*
 * Confidence interval (level, e.g. 0.95) of mean(y)/mean(x): percentile
 * bootstrap with b resamples from seed (reproducible). *method is "bootstrap",
 * or "normal" (delta method) when both samples exceed 1000 values, where the
 * bootstrap is both costly and indistinguishable from it. IL_EINVAL if mean(x) is 0.
 */
int il_stats_ratio_ci(const double *x, size_t n1, const double *y, size_t n2, double level, unsigned b, uint64_t seed,
		double *lo, double *hi, const char **method, struct il_err *err);

/*
 * The seeded generator behind every resampling here (the bootstrap, the
 * change-point permutations): splitmix64, so the same seed gives the same
 * answer on every machine. il_stats_rand: the next 64 bits from *state;
 * il_stats_rand_index: a uniform index in [0, n), n >= 1, without modulo bias.
 */
uint64_t il_stats_rand(uint64_t *state);
size_t il_stats_rand_index(uint64_t *state, size_t n);

/* Holm step-down adjustment of p[0..n) in place. IL_ENOMEM (p untouched) or 0. */
int il_stats_holm(double *p, size_t n);
/*
 * Benjamini-Hochberg q-values of p[0..n) in place: the false discovery rate
 * at which each would be declared (step-up). IL_ENOMEM (p untouched) or 0.
 */
int il_stats_bh(double *p, size_t n);

#endif
