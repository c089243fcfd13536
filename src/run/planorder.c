// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plan in run order (declared in run/plan.h): the orders' names, the
 * matrix of samples (hosts and kernels in blocks; a round's variants
 * interleaved, random, balanced by a Williams square, or blocked), and the
 * stages and looks of an adaptive run. Out of plan.c, which reads the plan.
 */
#include "run/plan.h"

#include <stdlib.h>

/* splitmix64: the order of a random plan depends on its seed only */
static uint64_t mix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

const char *il_plan_order_name(enum il_order o)
{
	static const char *const names[IL_NORDERS] = {
		[IL_ORDER_INTERLEAVE] = "interleave",
		[IL_ORDER_BLOCKED] = "blocked",
		[IL_ORDER_RANDOM] = "random",
		[IL_ORDER_BALANCED] = "balanced",
	};

	return (unsigned)o < IL_NORDERS ? names[o] : "?";
}

/*
 * Position g of round row of a Williams square over n variants: row 0 is
 * 0, 1, n-1, 2, n-2, ... and row r adds r (mod n); for an odd n the rows
 * n..2n-1 are rows 0..n-1 reversed. Every variant is in every position, and
 * follows every other one, once in each n (2n) rows.
 */
static int williams(size_t n, size_t row, size_t g)
{
	size_t r = row % (n % 2 ? 2 * n : n), k, first;

	if (r >= n)
		g = n - 1 - g, r -= n;
	k = (g + 1) / 2;
	first = g == 0 ? 0 : g % 2 ? k : n - k;
	return (int)((first + r) % n);
}

int il_plan_step(const struct il_plan *p)
{
	if (!p->iter_min)
		return 0;
	return p->iter_step ? p->iter_step : p->kernels.n > 1 ? p->iter_min : 1;
}

bool il_plan_adaptive_look_at(int min, int max, int step, int rounds)
{
	return step > 0 && rounds >= min && rounds <= max && ((rounds - min) % step == 0 || rounds == max);
}

size_t il_plan_adaptive_looks(int min, int max, int step)
{
	if (step < 1 || max < min)
		return 1;
	return 1 + (size_t)((max - min + step - 1) / step);
}

/* The matrix being written: one round (R counts warmups first) of kernel ke on host h. */
struct matrix {
	const struct il_plan *p;
	struct il_spec *v;
	size_t k;
	int *perm;
	uint64_t rng;
};

static void emit(struct matrix *m, size_t h, size_t ke, size_t g, size_t w, size_t R)
{
	size_t warm = (size_t)m->p->warmup;

	m->v[m->k] = (struct il_spec){ m->k, (int)h, (int)ke, (int)g, (int)w, (int)(R < warm ? R : R - warm), R < warm };
	m->k++;
}

/*
 * interleave: A B C A B C ... so slow drift (thermal, background noise)
 * spreads over every variant; random: a fresh permutation of the variants in
 * every round (a randomised block design); balanced: the rows of a Williams
 * square (counted rounds from row 0), so no variant always runs first or
 * always right after the same one (a position or carry-over effect).
 */
static void emit_round(struct matrix *m, size_t h, size_t ke, size_t R)
{
	const struct il_plan *p = m->p;
	size_t warm = (size_t)p->warmup;

	for (size_t w = 0; w < p->nwl; w++) {
		for (size_t g = 0; g < p->ngov; g++)
			m->perm[g] = p->order == IL_ORDER_BALANCED ? williams(p->ngov, R < warm ? R : R - warm, g) : (int)g;
		if (p->order == IL_ORDER_RANDOM)
			for (size_t g = p->ngov; g > 1; g--) {
				size_t x = (size_t)(mix(&m->rng) % g);
				int t = m->perm[g - 1];

				m->perm[g - 1] = m->perm[x];
				m->perm[x] = t;
			}
		for (size_t g = 0; g < p->ngov; g++)
			emit(m, h, ke, (size_t)m->perm[g], w, R);
	}
}

int il_plan_matrix(const struct il_plan *p, struct il_spec **out, size_t *n, struct il_err *err)
{
	size_t rounds = (size_t)p->iterations + (size_t)p->warmup, warm = (size_t)p->warmup;
	size_t total = p->hosts.n * p->kernels.n * p->ngov * p->nwl * rounds;
	struct matrix m = { .p = p, .rng = p->seed };
	size_t step = (size_t)il_plan_step(p);

	*out = NULL;
	*n = 0;
	if (!total)
		return il_err_set(err, IL_EINVAL, "the plan has no samples (no hosts given?)");
	m.v = calloc(total, sizeof(*m.v));
	m.perm = calloc(p->ngov, sizeof(*m.perm));
	if (!m.v || !m.perm) {
		free(m.v);
		free(m.perm);
		return il_err_oom(err);
	}
	/* hosts and kernels always run in blocks: a kernel needs a reboot */
	for (size_t h = 0; h < p->hosts.n; h++) {
		if (p->order == IL_ORDER_BLOCKED) {
			for (size_t ke = 0; ke < p->kernels.n; ke++)
				for (size_t g = 0; g < p->ngov; g++)
					for (size_t w = 0; w < p->nwl; w++)
						for (size_t r = 0; r < rounds; r++)
							emit(&m, h, ke, g, w, r);
			continue;
		}
		if (!step) {
			for (size_t ke = 0; ke < p->kernels.n; ke++)
				for (size_t r = 0; r < rounds; r++)
					emit_round(&m, h, ke, r);
			continue;
		}
		/*
		 * adaptive: in stages, each kernel's block of the stage's rounds in turn (its warmup
		 * in the first stage), so that every variant has the rounds of a look when it is taken
		 */
		for (size_t lo = 0, hi = (size_t)p->iter_min; lo < (size_t)p->iterations;
		     lo = hi, hi = hi + step < (size_t)p->iterations ? hi + step : (size_t)p->iterations)
			for (size_t ke = 0; ke < p->kernels.n; ke++)
				for (size_t r = lo ? lo + warm : 0; r < hi + warm; r++)
					emit_round(&m, h, ke, r);
	}
	free(m.perm);
	*out = m.v;
	*n = m.k;
	return 0;
}
