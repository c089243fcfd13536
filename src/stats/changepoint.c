// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Change points by binary segmentation with a permutation test
 * (stats/changepoint.h): the split statistic, its test, the search, and the
 * description of each change by the segments it finally separates.
 */
#include "stats/changepoint.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

/*
 * How close a permutation's statistic may come below the observed and still
 * count as "at least as large": the same values summed in another order
 * differ in their last bits, and a tie must count (it keeps p conservative).
 */
#define TIE_REL 1e-9

struct search {
	const double *x;
	const struct il_cp_opts *o;
	double *c, *perm; /* the segment being tested, centred and scaled, and its shuffled copy */
	struct il_cp *cps;
	size_t ncp, cap;
	struct il_err *err;
};

static double mean(const double *x, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

/* 100 (after - before) / |before|; before is not 0 (the callers say so). */
static double pct(double before, double after)
{
	return 100 * (after - before) / fabs(before);
}

/*
 * The best split k of c[0..len) (total tot) and its between-segments sum of
 * squares B_k = (S_k len - k tot)^2 / (k (len - k) len), S_k the sum of the
 * first k: (mean left - mean right)^2 k (len - k) / len. Why B and not T:
 * the total sum of squares SS is the same for every split and every
 * permutation of the segment, the pooled within sum of squares is SS - B_k,
 * so T_k^2 = (len - 2) B_k / (SS - B_k) grows with B_k. Comparing B is
 * comparing T without dividing by s_k: a split with s_k = 0 (an exact step
 * without noise) has B_k = SS, the largest any split can have. The first k
 * wins a tie.
 */
static size_t best_split(const double *c, size_t len, double tot, size_t min_seg, double *b_out)
{
	double s = 0, best = -1;
	size_t bk = 0;

	for (size_t k = 1; k + min_seg <= len; k++) {
		double d, b;

		s += c[k - 1];
		if (k < min_seg)
			continue;
		d = s * (double)len - (double)k * tot;
		b = d * d / ((double)k * (double)(len - k) * (double)len);
		if (b > best)
			best = b, bk = k;
	}
	*b_out = best;
	return bk;
}

/*
 * p of the best split of the segment at lo (s->c, len values, total tot;
 * statistic b_obs): (1 + #permutations at least as large) / (1 +
 * permutations). Counting stops once p can no longer fall below alpha: the p
 * returned then is a lower bound, already >= alpha (such a split is not a
 * change, and its p is never shown).
 */
static double perm_p(const struct search *s, size_t lo, size_t len, double tot, double b_obs)
{
	const struct il_cp_opts *o = s->o;
	/* each segment its own stream: its p does not depend on the order the segments are searched in */
	uint64_t st = o->seed ^ (0x9e3779b97f4a7c15ull * (lo + 1)) ^ (0xc2b2ae3d27d4eb4full * (len + 1));
	double stop = o->alpha * (1.0 + o->permutations), b;
	unsigned ge = 0;

	memcpy(s->perm, s->c, len * sizeof(*s->perm));
	for (unsigned i = 0; i < o->permutations && 1.0 + ge < stop; i++) {
		/* Fisher-Yates: shuffling the previous permutation is as uniform as shuffling the original */
		for (size_t j = len - 1; j > 0; j--) {
			size_t r = il_stats_rand_index(&st, j + 1);
			double t = s->perm[j];

			s->perm[j] = s->perm[r];
			s->perm[r] = t;
		}
		best_split(s->perm, len, tot, o->min_seg, &b);
		if (b >= b_obs * (1 - TIE_REL))
			ge++;
	}
	return (1.0 + ge) / (1.0 + o->permutations);
}

static int zero_before(struct il_err *err, size_t at)
{
	return il_err_set(err, IL_EINVAL, "change point at index %zu: the mean before it is 0 (a change in percent of 0 "
			  "has no meaning)", at);
}

/* Search x[lo..hi) for a change; when there is one, record it and search both sides. */
static int search_seg(struct search *s, size_t lo, size_t hi)
{
	const struct il_cp_opts *o = s->o;
	const double *x = s->x + lo;
	size_t len = hi - lo, k, i;
	double m, scale = 0, tot = 0, b, before, after, p;
	int r;

	if (len / 2 < o->min_seg)
		return 0;
	for (i = 1; i < len && x[i] == x[0]; i++)
		;
	if (i == len)
		return 0; /* constant: nothing moved (its rounding noise is no change either) */
	/* centred and scaled to [-1, 1]: T does not change, and the sums stay well conditioned */
	m = mean(x, len);
	for (i = 0; i < len; i++)
		scale = fmax(scale, fabs(x[i] - m));
	for (i = 0; i < len; i++)
		tot += (s->c[i] = (x[i] - m) / scale);
	k = best_split(s->c, len, tot, o->min_seg, &b);
	before = mean(x, k);
	after = mean(x + k, len - k);
	/* below the floor no p makes it a change: no permutations spent on it */
	if (before != 0 && fabs(pct(before, after)) < o->floor_pct)
		return 0;
	if ((p = perm_p(s, lo, len, tot, b)) >= o->alpha)
		return 0;
	if (before == 0)
		return zero_before(s->err, lo + k);
	if (s->ncp == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		struct il_cp *n = realloc(s->cps, cap * sizeof(*n));

		if (!n)
			return il_err_oom(s->err);
		s->cps = n;
		s->cap = cap;
	}
	s->cps[s->ncp++] = (struct il_cp){ .at = lo + k, .before = before, .after = after, .change_pct = pct(before, after),
					   .p = p };
	if ((r = search_seg(s, lo, lo + k)))
		return r;
	return search_seg(s, lo + k, hi);
}

static int by_at(const void *a, const void *b)
{
	size_t x = ((const struct il_cp *)a)->at, y = ((const struct il_cp *)b)->at;

	return (x > y) - (x < y);
}

/*
 * Each change described by the segments it separates once the search is
 * done: a change found in a longer segment is then measured against its
 * real neighbours (100 -> 110 -> 104 reads 100 -> 110 and 110 -> 104, not
 * 100 -> 107 and 110 -> 104). A change that, so measured, falls below the
 * floor is no change by the rule that found it: the weakest such is dropped,
 * its two segments merged, and the rest measured again, until none is.
 */
static int describe(struct search *s, size_t n)
{
	for (;;) {
		size_t weakest = s->ncp;

		for (size_t i = 0; i < s->ncp; i++) {
			struct il_cp *c = &s->cps[i];
			size_t from = i ? s->cps[i - 1].at : 0, to = i + 1 < s->ncp ? s->cps[i + 1].at : n;

			c->before = mean(s->x + from, c->at - from);
			c->after = mean(s->x + c->at, to - c->at);
			if (c->before == 0)
				return zero_before(s->err, c->at);
			c->change_pct = pct(c->before, c->after);
			if (fabs(c->change_pct) < s->o->floor_pct &&
			    (weakest == s->ncp || fabs(c->change_pct) < fabs(s->cps[weakest].change_pct)))
				weakest = i;
		}
		if (weakest == s->ncp)
			return 0;
		memmove(&s->cps[weakest], &s->cps[weakest + 1], (s->ncp - weakest - 1) * sizeof(*s->cps));
		s->ncp--;
	}
}

int il_changepoint_find(const double *x, size_t n, const struct il_cp_opts *o, struct il_cp **out, size_t *nout,
			struct il_err *err)
{
	static const struct il_cp_opts defaults = IL_CP_OPTS_INIT;
	struct search s = { .x = x, .o = o ? o : &defaults, .err = err };
	int r;

	*out = NULL;
	*nout = 0;
	o = s.o;
	if (!(o->alpha > 0 && o->alpha < 1) || !(o->floor_pct >= 0 && isfinite(o->floor_pct)) || o->min_seg < 1 ||
	    !o->permutations)
		return il_err_set(err, IL_EINVAL, "change points: options out of range (alpha %g: in (0, 1); floor %g%%: >= 0; "
				  "min_seg %zu: >= 1; permutations %u: >= 1)", o->alpha, o->floor_pct, o->min_seg,
				  o->permutations);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return il_err_set(err, IL_EINVAL, "change points: the value at index %zu is %s, not a finite number", i,
					  isnan(x[i]) ? "NaN" : "infinite");
	if (n / 2 < o->min_seg)
		return 0;
	s.c = malloc(n * sizeof(*s.c));
	s.perm = malloc(n * sizeof(*s.perm));
	if (!s.c || !s.perm) {
		r = il_err_oom(err);
		goto cleanup;
	}
	if ((r = search_seg(&s, 0, n)))
		goto cleanup;
	if (s.ncp > 1)
		qsort(s.cps, s.ncp, sizeof(*s.cps), by_at);
	if ((r = describe(&s, n)))
		goto cleanup;
	if (s.ncp) {
		*out = s.cps;
		*nout = s.ncp;
		s.cps = NULL;
	}
cleanup:
	free(s.c);
	free(s.perm);
	free(s.cps);
	return r;
}
