/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Comparing every variant against the reference, metric by metric, with one
 * decision family (docs/report.md "Verdicts"):
 *
 * - Key metrics (each workload's declared key_metrics: its score, the
 *   governor-quality metrics that matter for it; --metric replaces them)
 *   make the verdict. Per variant, their p-values are Holm-adjusted over
 *   that variant's key comparisons (each variant is one claim: one patch's
 *   Tested-by line, one nightly tip, one bisection step), and each is
 *   decided three ways by il_decide (stats/decide.h): better / worse /
 *   changed, same (shown within the noise threshold), or unknown with the
 *   samples per side that would decide.
 * - Every other metric is secondary: Benjamini-Hochberg q-values over all
 *   secondary comparisons, decided the same way at q, and marked exploratory:
 *   never in the verdict sentence, never silently noise.
 *
 * Noise threshold = max(floor, k x the reference mean's relative standard
 * error). The floor is the configured one (default 2%), raised to the change
 * an A/A pair (the reference measured twice) showed for that metric.
 *
 * The A/A pair is a check of the host: its key metrics are decided with the
 * same family adjustment. Where it differs on one ("host not quiet"), that
 * metric's noise threshold is raised for every variant to the A/A floor:
 * the largest change the A/A change's (1 - 2 alpha') interval allows. A
 * variant's change beyond the floor keeps its verdict (with the A/A
 * difference and the floor in its why); one within it is `unreliable` (a
 * change of that size is what the host does by itself today). Its secondary
 * differences (BH) are listed as exploratory.
 *
 * An adaptive run (iterations {min, max}) spends alpha over its planned
 * looks: o.looks = max - min + 1 and every decision is at alpha / looks.
 *
 * The comparison is stats/compare.c; the stop rule over comparisons
 * (il_compare_decided ... il_compare_run_decided) stats/comparejudge.c; what
 * one says in words (il_compare_sentence, the warnings, the dropped note)
 * stats/comparewords.c.
 */
#ifndef IL_STATS_COMPARE_H
#define IL_STATS_COMPARE_H
#include <stdbool.h>
#include "stats/dataset.h"
#include "stats/decide.h"
#include "stats/stats.h"
#include "util/buf.h"
#include "util/strlist.h"

enum il_test_kind { IL_TEST_WELCH, IL_TEST_MWU };

struct il_cmp_opts {
	const char *ref;          /* NULL: the dataset's reference */
	double alpha;             /* 0.05 */
	double floor_pct;         /* 2.0 */
	double k;                 /* 2.0 */
	enum il_test_kind test;   /* Welch by default: at 3-10 samples an exact rank test cannot reach a family's level */
	bool holm;                /* Holm-adjust the key family (default true); false: no adjustment at all */
	double level;             /* ratio CI level, 0.95 */
	unsigned resamples;       /* bootstrap resamples, 2000 */
	uint64_t seed;
	const struct il_strlist *only; /* the key metrics, replacing the workloads' (and only those shown); NULL: all */
	double max_cv_pct;        /* drop a metric when a variant's CV exceeds this; 0: keep all */
	size_t looks;             /* planned looks of an adaptive run (0: the dataset's; 1: a fixed run) */
	size_t iter_max;          /* an adaptive run's maximum of rounds (0: the dataset's; none for a fixed run) */
};
#define IL_CMP_OPTS_INIT { NULL, 0.05, 2.0, 2.0, IL_TEST_WELCH, true, 0.95, 2000, 1, NULL, 0, 0, 0 }

/* A metric left out by max_cv_pct: its noisiest variant and that variant's CV (a fraction). */
struct il_cmp_dropped {
	size_t met;               /* index into ds->met */
	size_t var;
	double cv;
};

struct il_mres {
	struct il_desc d;
	double change_pct;        /* of the mean, vs the reference; NaN for the reference */
	double p;                 /* adjusted (key: Holm over the variant's family; secondary: BH q); NaN: no test */
	double p_raw;             /* the test's own p, before any adjustment */
	double ci_lo, ci_hi;      /* of mean/ref mean */
	const char *ci_method;
	double eq_lo, eq_hi;      /* the decision's interval of the change, % (il_decide) */
	double threshold_pct;
	enum il_verdict vk;
	const char *verdict;      /* il_decide_verdict_name(vk) */
	bool key;                 /* in the decision family (else secondary: exploratory) */
	size_t family;            /* comparisons its adjustment covered */
	char why[200];
	size_t n_needed;          /* unknown: per side, at the level applied, to decide */
};

struct il_cmp {
	struct il_cmp_opts o;
	const struct il_dataset *ds;  /* borrowed */
	int ref;
	int aa;                       /* A/A partner index or -1 */
	size_t nmet;                  /* metrics kept */
	size_t *met;                  /* indices into ds->met */
	struct il_mres *r;            /* [nmet][ds->nvar] */
	bool *key;                    /* [nmet]: a key metric (the decision family) */
	size_t nkey;                  /* key metrics kept */
	bool *unreliable;             /* [nmet]: the A/A pair differs on this key metric (host not quiet) */
	double *aa_floor;             /* [nmet]: there, the raised threshold in % (the A/A floor); NaN elsewhere */
	size_t nunreliable;           /* metrics that are */
	bool *aa_secondary;           /* [nmet]: the A/A pair differs on this secondary metric (exploratory) */
	size_t naa_secondary;
	size_t family_max;            /* the largest per-variant key family (0 without --holm) */
	size_t nsecondary_family;     /* secondary comparisons the BH q-values cover */
	size_t looks;                 /* planned looks (1: a fixed run) */
	double alpha_look;            /* alpha / looks: the level of every decision */
	size_t ndropped;              /* metrics selected but left out for their CV (o.max_cv_pct) */
	struct il_cmp_dropped *dropped;
	/* the key comparisons (neither the reference nor its A/A partner), by verdict */
	size_t n[IL_NVERDICTS];
	/* the secondary ones, by verdict (exploratory) */
	size_t n2[IL_NVERDICTS];
	size_t n_needed_max;          /* the most samples per side an unknown key comparison needs (0: none) */
	size_t iter_max;              /* an adaptive run's maximum of rounds (0: not adaptive) */
	size_t nfutile;               /* unknown key comparisons that need more than iter_max samples a side */
	size_t *nbypass;              /* [ds->nvar]: counted samples whose governor was bypassed (CPU latency limit 0) */
	size_t nbypass_all;           /* their sum */
};

int il_compare(struct il_cmp *out, const struct il_dataset *ds, const struct il_cmp_opts *o, struct il_err *err);
void il_compare_release(struct il_cmp *c);

/*
 * "metrics left out, CV above 25% (a metric of noise on this host): a.b (menu 96%), ..."
 * into b when some were; false (b untouched) when none were.
 */
bool il_compare_dropped_note(const struct il_cmp *c, struct il_buf *b);
/* Whether a counted sample's governor was bypassed: its idle JSON carries governor_bypass (run/sample.c). */
bool il_compare_row_bypassed(const struct il_row *row);

/* Result of kept metric i for variant v. */
const struct il_mres *il_compare_res(const struct il_cmp *c, size_t i, size_t v);

/*
 * The verdict in plain words, from the key comparisons only: "teo better
 * on pingpong.usec_per_loop (-13.2%, p=0.0002); the same within noise: 10
 * of 12; unknown: 1 (about 9 samples per side would tell)", or "no
 * difference above noise in 12 of 12 key comparisons" when every one is
 * shown the same; then a count of secondary (exploratory) differences.
 */
int il_compare_sentence(const struct il_cmp *c, struct il_buf *b);

/* Whether every key comparison (the A/A pair's aside) is decided: better, worse, changed or same. */
bool il_compare_decided(const struct il_cmp *c);
/*
 * Whether an adaptive run has nothing left to learn: every key comparison is
 * decided, or, unknown, needs more samples a side than the run's maximum
 * (futility: stopping for it never adds a finding, so it costs no error).
 */
bool il_compare_settled(const struct il_cmp *c);

/*
 * The stop rule over n comparisons that are judged together (a run's one, or
 * a try's one per governor): 1 when every key comparison of each is decided,
 * 2 when each is settled but some are unknown (futile), else 0; why says the
 * counts (and, not decided, what more samples would tell).
 */
int il_compare_judge(const struct il_cmp *c, size_t n, struct il_buf *why);

/*
 * The stop rule of an adaptive run (run/engine.h's judge): the run's journal
 * compared at the defaults, as its report is, so the report's verdicts are
 * the ones the run stopped on. 1: every key comparison is decided (why says
 * so); 2: the undecided ones cannot be decided within the run's maximum
 * (futile: why says what they would need); 0: not yet (why: "2 of 12 key
 * comparisons unknown: ..."); < 0: an error in err.
 */
int il_compare_run_decided(const char *run_dir, struct il_buf *why, struct il_err *err);

/*
 * When the A/A pair differs on a key metric: "host not quiet: menu /
 * menu-again differ on the key metric pingpong.usec_per_loop (-7.5%,
 * p=0.024): its noise floor is raised to the A/A floor 13.1%; changes within
 * it are unreliable, larger ones keep their verdict" (no newline) into b,
 * and true; nothing and false when the host was quiet on the key metrics or
 * there is no A/A pair.
 */
bool il_compare_aa_warning(const struct il_cmp *c, struct il_buf *b);

/*
 * "governor bypassed in 4 of 4 samples of before: governor bypassed: CPU
 * latency limit 0 us (held by PID 4242/cyclictest): ...; their idle metrics
 * are marked bypassed" (no newline) into b, and true, when some counted
 * sample ran under a CPU latency limit of 0 (idle.governor_bypass, written by
 * the run from its PM QoS scan); nothing and false otherwise.
 */
bool il_compare_bypass_warning(const struct il_cmp *c, struct il_buf *b);

#endif
