/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Noise-aware bisection of an idle-metric regression: the decisions, and
 * their journal (DIR/bisect.jsonl, one record per line, fsync'd, the only
 * state: a killed bisection resumes from it). How a commit is measured is
 * the caller's (struct il_bisect_measurer: workflow/bisectrun.h measures
 * through the run engine on a real host; tests simulate).
 *
 * The endpoints first: good twice (an A/A pair: the change between its two
 * rounds raises each metric's noise floor), bad once; they must differ on
 * at least one chosen metric (by the one decision code, stats/decide.h:
 * Welch's p < alpha and the change beyond the floor), and only the metrics
 * that differ are bisected on. A step commit's samples are tested against
 * both endpoints, by the same code with alpha spent over the step's looks
 * (its doubling rounds) and Bonferroni over its metrics: "good" when unlike bad and
 * within the good third of the way from good to bad on every such metric,
 * "bad" the other way; otherwise more
 * samples (the round doubles the count, up to max_n), then "weak" (the
 * nearer side, marked, its error counted). A commit that does not build is
 * skipped at once; a boot or host failure is retried once, then skipped;
 * neither is ever blamed. The result names the first bad commit, or the
 * range that skipped commits leave, with a bound on the chance the answer is
 * wrong: the sum over decided steps of the p-value against the side taken
 * (the answer: workflow/bisectresult.h; the journal and its setup record:
 * workflow/bisectjournal.h; a bisection's directory and files for the
 * command: workflow/bisectsession.h).
 */
#ifndef IL_WORKFLOW_BISECT_H
#define IL_WORKFLOW_BISECT_H
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "workflow/bisectresult.h"
#include "util/err.h"
#include "util/strlist.h"

enum il_bisect_mstatus { IL_BM_OK, IL_BM_BUILD_FAILED, IL_BM_INFRA_FAILED };

/*
 * One round of one commit: status and, when OK, {"KEY": {"values": [...],
 * "better": "lower"|"higher"|null, "unit": "..."}} for every metric the run
 * had (the caller owns *values and *reason after measure returns).
 */
struct il_bisect_round {
	enum il_bisect_mstatus status;
	char *reason;
	json_t *values;
	char *run;          /* where the evidence is (a run directory), or NULL */
};

struct il_bisect_measurer {
	/* measure commit (40 hex) in round k (0, 1, ...) with n samples; label names it ("good", "step") */
	int (*measure)(void *ctx, const char *commit, size_t k, size_t n, struct il_bisect_round *out,
		       struct il_err *err);
	/* the commit's subject line (caller frees), or NULL */
	char *(*subject)(void *ctx, const char *commit);
	void *ctx;
	/*
	 * For the confirmation (NULL: none): a commit with culprit reverted on
	 * top of onto, the same one every time (out: 40 hex); IL_EINVAL when it
	 * does not revert cleanly, with why.
	 */
	int (*revert)(void *ctx, const char *culprit, const char *onto, char out[41], struct il_err *err);
};

struct il_bisect_opts {
	const char *dir;            /* bisect.jsonl lives here */
	const char *good, *bad;     /* 40-hex commits */
	struct il_strlist commits;  /* (good, bad], oldest first: the last is bad */
	struct il_strlist metrics;  /* keys or metric names ("idle.aboves" matches "sleeper.idle.aboves"); empty: every metric with a direction */
	size_t n0;                  /* samples per first round (>= 3) */
	size_t max_n;               /* cap on a commit's samples (>= n0) */
	double alpha;               /* per decision (0.05) */
	double floor_pct;           /* least change that counts (2.0) */
	double k;                   /* noise threshold: k x the good endpoint's relative standard error (2) */
	int infra_retries;          /* a round lost to a boot or host failure is retried this often (1) */
	bool confirm;               /* found: measure the culprit reverted on bad, like a step (needs m->revert) */
};

/*
 * Bisect (or resume: records already in DIR/bisect.jsonl are not measured
 * again). out is released with il_bisect_result_release, also on failure.
 */
int il_bisect_run(const struct il_bisect_opts *o, const struct il_bisect_measurer *m, struct il_bisect_result *out,
		  struct il_err *err);

/*
 * git bisect run's step: classify commit against the endpoints already in
 * DIR (a bisection that measured them); *verdict as a step's. Journalled as
 * the bisection's own rounds are ("round" and "verdict" records).
 */
int il_bisect_classify(const struct il_bisect_opts *o, const struct il_bisect_measurer *m, const char *commit,
		       struct il_bisect_step *out, struct il_err *err);

#endif
