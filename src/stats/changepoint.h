/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Change points in a series of per-run means (a metric's last N nightlies):
 * where its level moved, even when no single night moved beyond the noise
 * floor (a drift of 1% a night is 10% after ten nights).
 *
 * Method: binary segmentation (Killick & Eckley, "changepoint: An R Package
 * for Changepoint Analysis", JSS 2014) with a permutation test of each split,
 * as Apache Otava's E-divisive (Matteson & James, "A Nonparametric Approach
 * for Multiple Change Point Analysis of Multivariate Data", JASA 2014) judges
 * its splits by permutation. In a segment of len points the candidate split k
 * (min_seg <= k <= len - min_seg) maximises
 *     T_k = |mean(left) - mean(right)| * sqrt(k (len - k) / len) / s_k,
 * s_k the pooled within-segment standard deviation of that split; its p is
 * (1 + #permutations whose max_k T >= the observed) / (1 + permutations),
 * the permutations being of that segment's values, drawn by a seeded
 * splitmix64 (stats.h) so the same input always gives the same answer. A
 * split is a change when p < alpha and |change| >= floor_pct; both sides are
 * then searched again.
 *
 * Why permutations: the points are means of a few samples each, their
 * distribution is not known to be normal (idle metrics are skewed, bounded,
 * sometimes bimodal), a window is 12 to 20 points, and the maximum over k of
 * a t statistic has no simple null distribution; the permutation test needs
 * only that the points of a segment without a change are exchangeable, and
 * is exact at any size.
 */
#ifndef IL_STATS_CHANGEPOINT_H
#define IL_STATS_CHANGEPOINT_H
#include <stddef.h>
#include <stdint.h>
#include "util/err.h"

struct il_cp_opts {
	double alpha;          /* a split is a change when its permutation p is below this */
	double floor_pct;      /* ... and its change, in percent of the level before, at least this */
	size_t min_seg;        /* the fewest points a segment may have (>= 1) */
	unsigned permutations; /* per test (>= 1; the smallest p is 1 / (1 + permutations)) */
	uint64_t seed;         /* of the permutations: same seed and input, same answer */
};
/* alpha 0.05, a 2% floor (idlelab's noise floor), segments of 2 or more, 1999 permutations, seed 1 */
#define IL_CP_OPTS_INIT { .alpha = 0.05, .floor_pct = 2.0, .min_seg = 2, .permutations = 1999, .seed = 1 }

struct il_cp {
	size_t at;         /* index of the first point of the new segment */
	double before;     /* the mean of the segment that ends at `at` */
	double after;      /* the mean of the segment that starts at `at` */
	double change_pct; /* 100 * (after - before) / |before| */
	double p;          /* of the permutation test that found the split */
};

/*
 * The change points of x[0..n), sorted by `at`. before and after are the
 * means of the final segments on either side (a change found in a longer
 * segment is described by its neighbours once the search is done, and one
 * whose change then falls below floor_pct is dropped, its segments merged).
 * o: NULL for IL_CP_OPTS_INIT. n < 2 * min_seg: no change points, not an
 * error. *out (caller frees; NULL when there is none) and *nout.
 * Errors (IL_EINVAL): a value that is NaN or infinite (naming its index),
 * a change whose segment before has mean 0 (naming its index: a change in
 * percent of 0 has no meaning), options out of range (alpha in (0, 1),
 * floor_pct >= 0, min_seg >= 1, permutations >= 1; checked first, also for
 * n = 0). IL_ENOMEM.
 */
int il_changepoint_find(const double *x, size_t n, const struct il_cp_opts *o, struct il_cp **out, size_t *nout,
			struct il_err *err);

#endif
