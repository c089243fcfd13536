/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Comparing every variant against the reference, metric by metric, and the
 * verdict: better / worse (by the metric's direction), `changed` (a
 * significant change of a metric without a direction, e.g. a residency
 * share), `~` (noise: not significant at alpha, or smaller than the noise
 * threshold) or `?` (too few samples for the test ever to reach alpha).
 *
 * Noise threshold = max(floor, k x the reference mean's relative standard
 * error). The floor is the configured one (default 2%), raised to the change
 * an A/A pair (the reference measured twice) showed for that metric.
 *
 * The A/A pair is a check of the host, not a comparison of the verdict: where
 * it differs (raw p < alpha and beyond its noise threshold) the metric is
 * `unreliable` for every variant ("host not quiet") instead of a finding.
 * Family-wise error control: by default p-values are Holm-adjusted over the
 * comparisons of the verdict (every variant but the reference and its A/A
 * partner, on every metric that is not unreliable, where p was computed).
 */
#ifndef IL_STATS_COMPARE_H
#define IL_STATS_COMPARE_H
#include <stdbool.h>
#include "stats/dataset.h"
#include "stats/stats.h"
#include "util/buf.h"
#include "util/str.h"

enum il_test_kind { IL_TEST_MWU, IL_TEST_WELCH };

struct il_cmp_opts {
	const char *ref;          /* NULL: the dataset's reference */
	double alpha;             /* 0.05 */
	double floor_pct;         /* 2.0 */
	double k;                 /* 2.0 */
	enum il_test_kind test;
	bool holm;                /* Holm-adjust p over the comparisons of the verdict (default true) */
	double level;             /* CI level, 0.95 */
	unsigned resamples;       /* bootstrap resamples, 2000 */
	uint64_t seed;
	const struct il_strlist *only; /* metric keys (or key suffixes) to keep; NULL: all */
	double max_cv_pct;        /* drop a metric when a variant's CV exceeds this; 0: keep all */
};
#define IL_CMP_OPTS_INIT { NULL, 0.05, 2.0, 2.0, IL_TEST_MWU, true, 0.95, 2000, 1, NULL, 0 }

/* A metric left out by max_cv_pct: its noisiest variant and that variant's CV (a fraction). */
struct il_cmp_dropped {
	size_t met;               /* index into ds->met */
	size_t var;
	double cv;
};

struct il_mres {
	struct il_desc d;
	double change_pct;        /* of the mean, vs the reference; NaN for the reference */
	double p;                 /* Holm-adjusted when o.holm and in the family; NaN when not computed */
	double p_raw;             /* the test's own p, before any adjustment */
	double ci_lo, ci_hi;      /* of mean/ref mean */
	const char *ci_method;
	double threshold_pct;
	const char *verdict;      /* "better", "worse", "changed", "~", "?", "unreliable", or "ref" for the reference */
	char why[200];
	size_t n_needed;          /* for ~: per side, to detect the larger of the observed change and the floor */
};

struct il_cmp {
	struct il_cmp_opts o;
	const struct il_dataset *ds;  /* borrowed */
	int ref;
	int aa;                       /* A/A partner index or -1 */
	size_t nmet;                  /* metrics kept */
	size_t *met;                  /* indices into ds->met */
	struct il_mres *r;            /* [nmet][ds->nvar] */
	bool *unreliable;             /* [nmet]: the A/A pair differs on this metric (host not quiet) */
	size_t nunreliable;           /* metrics that are */
	size_t nfamily;               /* comparisons Holm adjusted over (0 without --holm) */
	size_t ndropped;              /* metrics selected but left out for their CV (o.max_cv_pct) */
	struct il_cmp_dropped *dropped;
	/* the verdict's comparisons (neither the reference nor its A/A partner), by outcome */
	size_t nbetter, nworse, nchanged, nnoise, nunknown, nunrel;
};

int il_compare(struct il_cmp *out, const struct il_dataset *ds, const struct il_cmp_opts *o, struct il_err *err);
void il_compare_release(struct il_cmp *c);

/*
 * "metrics left out, CV above 25% (a metric of noise on this host): a.b (menu 96%), ..."
 * into b when some were; false (b untouched) when none were.
 */
bool il_compare_dropped_note(const struct il_cmp *c, struct il_buf *b);
/* Result of kept metric i for variant v. */
const struct il_mres *il_cmp_res(const struct il_cmp *c, size_t i, size_t v);

/*
 * One paragraph in plain words: "no difference above noise in 14 of 16
 * metrics; pingpong.usec_per_loop 13.2% better for teo (p=0.0002); ..."
 * into b. Directionless metrics are left out of the counts unless changed.
 */
int il_compare_sentence(const struct il_cmp *c, struct il_buf *b);

/*
 * When the A/A pair differs: "host not quiet: menu / menu-again differ on
 * periodic.idle.idles (p=0.013); those metrics are marked unreliable" (no
 * newline) into b, and true; nothing and false when the host was quiet or
 * there is no A/A pair.
 */
bool il_compare_aa_warning(const struct il_cmp *c, struct il_buf *b);

#endif
