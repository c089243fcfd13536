// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark: the change points `idlelab history` computes for a plan of 40
 * metrics x 4 variants (160 series, half with a 5% step, 1% noise): over the
 * default window of 20 nightlies (target < 0.2 s) and over a year of them
 * (--window 0, 365 points: target < 5 s).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stats/changepoint.h"
#include "stats/stats.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Seconds for 160 series of n points, and how many change points they had. */
static double run(size_t n, size_t *found)
{
	double *x = malloc(n * sizeof(*x)), t0;
	uint64_t s = 1;

	*found = 0;
	t0 = now();
	for (int k = 0; k < 160; k++) {
		size_t at = n / 4 + il_stats_rand_index(&s, n / 2), ncp;
		struct il_cp *cps = NULL;
		struct il_err err = { 0 };

		for (size_t i = 0; i < n; i++) {
			double u = (double)((il_stats_rand(&s) >> 11) + 1) * 0x1p-53, v = (double)(il_stats_rand(&s) >> 11) * 0x1p-53;

			x[i] = (k % 2 && i >= at ? 105 : 100) * (1 + 0.01 * sqrt(-2 * log(u)) * cos(2 * M_PI * v));
		}
		if (il_changepoint_find(x, n, NULL, &cps, &ncp, &err)) {
			fprintf(stderr, "bench changepoint: %s\n", err.msg);
			exit(1);
		}
		*found += ncp;
		free(cps);
	}
	free(x);
	return now() - t0;
}

int main(void)
{
	size_t f20, f365;
	double t20 = run(20, &f20), t365 = run(365, &f365);

	printf("bench changepoint: 160 series (80 with a 5%% step), 1%% noise: 20 points %.3f s, %zu change points "
	       "(target < 0.2 s: %s); 365 points %.2f s, %zu change points (target < 5 s: %s)\n",
	       t20, f20, t20 < 0.2 ? "met" : "MISSED", t365, f365, t365 < 5 ? "met" : "MISSED");
	return 0;
}
