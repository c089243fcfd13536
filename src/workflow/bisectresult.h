/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bisection's answer (workflow/bisect.h makes it): the decided commits,
 * the first bad one or the range skipped commits leave, the endpoints'
 * metrics, the bound on the chance it is wrong, the confirmation; their
 * release and their JSON (docs/bisect.md). The structs own their strings
 * and JSON.
 */
#ifndef IL_WORKFLOW_BISECTRESULT_H
#define IL_WORKFLOW_BISECTRESULT_H
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "util/strlist.h"

/* One decided commit, as the result lists it. */
struct il_bisect_step {
	char *commit, *subject;
	char *verdict;              /* "good", "bad", "skip", "weak-good", "weak-bad" */
	char *reason;               /* skip: why; weak: why not decided */
	size_t n;                   /* samples it took */
	double p_wrong;             /* the p-value against the side taken (NaN for skip) */
	json_t *metrics;            /* {"KEY": {"median", "change_vs_good_pct", "change_vs_bad_pct", "p_good", "p_bad"}} */
};

struct il_bisect_result {
	char *state;                /* "found", "range" (skips hide it), "no-difference" */
	char *first_bad;            /* found: the commit */
	struct il_strlist range;    /* range: the commits it is among */
	json_t *endpoints;          /* per metric: good and bad medians, change, p, floor, whether bisected on */
	size_t nsteps;
	struct il_bisect_step *steps;
	size_t samples;             /* every sample measured, endpoints included */
	double p_wrong;             /* union bound, at most 1 */
	bool weak;                  /* a weak step decided part of it */
	/*
	 * With opts.confirm, when found: the culprit reverted on bad, classified
	 * like a step ("good": confirmed, the revert restores good; "bad": not
	 * confirmed; "skip"), or NULL with confirm_note saying why not measured.
	 */
	struct il_bisect_step *confirm;
	char *confirm_note;
};

void il_bisect_step_release(struct il_bisect_step *s);
void il_bisect_result_release(struct il_bisect_result *r);

/* The result as JSON (docs/bisect.md); caller decrefs; NULL when memory ran out. */
json_t *il_bisect_result_json(const struct il_bisect_result *r);

#endif
