// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark: the error rates of the verdicts, by simulation through the one
 * decision code (tests/unit/decide_sim.h): A/A false alarms and the power to
 * find a 5% shift at 2% CV, fixed at 5 and 10 samples a side and adaptive
 * from 5 to 40 (alpha spent over the looks), with the samples a side each
 * needed; and try's runs in stages (several kernels, 5..20 rounds). The same
 * simulations as test_stats_decide, more runs.
 */
#include <stdio.h>
#include <time.h>

#include "decide_sim.h"

int main(void)
{
	static const struct {
		const char *name;
		double shift;
		size_t lo, hi;
	} cases[] = {
		{ "A/A, fixed n=10", 0, 0, 10 },   { "A/A, adaptive 5..40", 0, 5, 40 },
		{ "5% shift, fixed n=5", -5, 0, 5 }, { "5% shift, fixed n=10", -5, 0, 10 },
		{ "5% shift, adaptive 5..40", -5, 5, 40 }, { "2% shift, fixed n=10", -2, 0, 10 },
		{ "2% shift, adaptive 5..40", -2, 5, 40 },
	};
	const size_t runs = 5000;

	printf("bench_decide: %zu simulated runs a case, 2%% CV, alpha 0.05 (adaptive: alpha/36 a look)\n", runs);
	printf("%-26s %9s %9s %9s %9s %8s %7s\n", "case", "differs", "right", "same", "unknown", "mean n", "s");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct timespec t0, t1;
		struct rates r;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		r = simulate(runs, cases[i].shift, cases[i].lo, cases[i].hi, 1000 + i);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("%-26s %8.2f%% ", cases[i].name, 100 * r.differ);
		if (cases[i].shift)
			printf("%8.2f%% ", 100 * r.right);
		else
			printf("%9s ", "-"); /* no right direction when there is no difference */
		printf("%8.2f%% %8.2f%% %8.2f %7.2f\n", 100 * r.same, 100 * r.unknown, r.mean_n,
		       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	/* the A/A-aware floor (issue #41): one key metric at 5% CV, n = 6, the A/A pair apart by the drift */
	{
		static const struct {
			const char *name;
			double aa, shift;
		} aa_cases[] = { { "2x change, A/A 7.5% apart", 7.5, -50 }, { "5% change, A/A 7.5% apart", 7.5, -5 },
				 { "no change, no drift", 0, 0 } };

		printf("A/A-aware floor: %zu runs a case, 5%% CV, n = 6\n", runs);
		printf("%-26s %9s %9s %12s %10s\n", "case", "differs", "right", "A/A differs", "of those");
		for (size_t i = 0; i < sizeof(aa_cases) / sizeof(aa_cases[0]); i++) {
			double nq;
			struct rates r = simulate_aa(runs, aa_cases[i].aa, aa_cases[i].shift, 5, 6, 2000 + i, &nq);

			printf("%-26s %8.2f%% %8.2f%% %11.2f%% %9.2f%%\n", aa_cases[i].name, 100 * r.differ, 100 * r.right,
			       100 * nq, 100 * r.differ_drift);
		}
	}
	/* try --iterations auto: base, patch and A/A copy looked at in stages (5..20 every 5: 4 looks) */
	{
		static const struct {
			const char *name;
			double shift;
			size_t step;
		} st_cases[] = { { "no change, stages of 5", 0, 5 }, { "5% change, stages of 5", -5, 5 },
				 { "2% change, stages of 5", -2, 5 }, { "no change, every round", 0, 1 } };

		printf("staged looks (try --iterations auto): %zu runs a case, 2%% CV, 5..20 rounds, 3 kernels\n", runs);
		printf("%-26s %9s %9s %12s %8s\n", "case", "differs", "right", "A/A differs", "mean n");
		for (size_t i = 0; i < sizeof(st_cases) / sizeof(st_cases[0]); i++) {
			double aa;
			struct rates r = simulate_staged(runs, st_cases[i].shift, 2, 5, 20, st_cases[i].step, 3000 + i, &aa);

			printf("%-26s %8.2f%% ", st_cases[i].name, 100 * r.differ);
			if (st_cases[i].shift)
				printf("%8.2f%% ", 100 * r.right);
			else
				printf("%9s ", "-");
			printf("%11.2f%% %8.2f\n", 100 * aa, r.mean_n);
		}
	}
	return 0;
}
