/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decision of one comparison, and the one place that makes it: compare
 * (and through it every report, the Tested-by, nightly alerts), bisection's
 * steps and the adaptive run's stop rule all call il_decide. Three ways,
 * as Pinpoint's DIFFERENT / SAME / UNKNOWN with idlelab's thresholds:
 *
 *   better / worse (changed: no direction)  significant after the family's
 *       adjustment (p < alpha) and beyond the noise threshold;
 *   same     shown to be within the noise threshold: the (1 - 2 alpha')
 *       interval of the change lies inside +-threshold (two one-sided tests
 *       at alpha' = alpha over the family, Bonferroni);
 *   unknown  neither; with the samples per side that would decide, computed
 *       at the level actually applied (alpha' = alpha / family / looks).
 *
 * A run that looks at its data more than once (adaptive iterations) spends
 * alpha over its planned looks: every look tests at alpha / looks, so the
 * error of any decision, made at whichever look, stays below alpha (a union
 * bound: valid under optional stopping, simulated in test_stats_decide).
 */
#ifndef IL_STATS_DECIDE_H
#define IL_STATS_DECIDE_H
#include <stdbool.h>
#include <stddef.h>
#include "stats/dataset.h"
#include "stats/stats.h"

/* X(ENUM, "name"): the verdicts, as every output and the journal spell them */
#define IL_VERDICTS(X)                  \
	X(REF, "ref")                   \
	X(BETTER, "better")             \
	X(WORSE, "worse")               \
	X(CHANGED, "changed")           \
	X(SAME, "same")                 \
	X(UNKNOWN, "unknown")           \
	X(UNRELIABLE, "unreliable")     \
	X(BYPASSED, "bypassed")

enum il_verdict {
#define IL_V_ENUM(e, name) IL_VERDICT_##e,
	IL_VERDICTS(IL_V_ENUM)
#undef IL_V_ENUM
	IL_NVERDICTS
};

const char *il_decide_verdict_name(enum il_verdict v);
/* better, worse or changed: a finding */
bool il_decide_verdict_differs(enum il_verdict v);
/* a decision was reached: a finding or same */
bool il_decide_verdict_decided(enum il_verdict v);

/* One comparison of x (a variant) against r (the reference), as il_decide sees it. */
struct il_decide_in {
	const double *r, *x;
	size_t nr, nx;
	double p;               /* the test's p after the family's adjustment (NaN: no test possible) */
	double alpha;           /* the level of this look: the run's alpha / planned looks */
	size_t family;          /* comparisons the adjustment covers (>= 1): equivalence and n are at alpha / family */
	double change_pct;      /* of the mean vs the reference's */
	double threshold_pct;   /* the noise threshold */
	enum il_better better;
	size_t n_min;           /* the smallest n a side at which the test can reach alpha / family (MWU's limit) */
	bool governor_metric;   /* a metric of the governor's choices: the idle counters (idle.*) */
	bool bypassed;          /* a side has samples whose CPU latency limit was 0 (idle.governor_bypass) */
	double abs_floor;       /* the metric's absolute minimum change, in its unit (0: none): below it, never a finding */
};

struct il_decision {
	enum il_verdict v;
	double eq_lo, eq_hi;    /* the change's (1 - 2 alpha/family) interval, % of the reference mean (NaN: none) */
	size_t n_needed;        /* unknown: per side, to decide (0: cannot say) */
	char why[200];
};

/*
 * The verdict of one comparison (never REF or UNRELIABLE: those are the
 * caller's). A change of 0, or one smaller than the metric's absolute floor
 * (a hundredth of a percent of misses is nothing, whatever it is relative to
 * a reference near 0), is never better, worse or changed: it is the same
 * when its interval lies within the floor (or the relative threshold), else
 * unknown. A governor metric with a bypassed side is BYPASSED, neither a
 * finding nor a decision: under a CPU latency limit of 0 menu returns state
 * 0 without a prediction (drivers/cpuidle/governors/menu.c), so its idle
 * counters say nothing of the governor; the workload's own metrics are
 * decided as ever, and compare's sentence says the governor was bypassed.
 */
void il_decide(const struct il_decide_in *in, struct il_decision *out);

/*
 * The Welch interval of mean(x) - mean(r) at level (e.g. 0.9), in percent of
 * |mean(r)|; false (lo, hi NaN) when it has no meaning (fewer than 2 values
 * a side, a reference mean of 0).
 */
bool il_decide_change_interval(const double *r, size_t nr, const double *x, size_t nx, double level, double *lo, double *hi);

/* Whether alpha is a significance level idlelab decides at: 0 < alpha < 0.5 (beyond, its intervals mean nothing). */
bool il_decide_alpha_ok(double alpha);

/* The Student t quantile: t with P(T > t) = p for df degrees of freedom (0 < p < 1). */
double il_decide_t_isf(double p, double df);

/*
 * The per-look level of a run whose planned looks are looks (1: a fixed
 * run; adaptive iterations {min, max}: max - min + 1).
 */
double il_decide_look_alpha(double alpha, size_t looks);

#endif
