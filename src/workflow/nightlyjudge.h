/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A nightly's judgement of the measured tip (workflow/nightly.h measures
 * it): failed when no sample counted, the first baseline, else each
 * variant compared with the baseline's run by compare's rules and the
 * drift over the last nightlies (workflow/nightlydrift.h): good, or a
 * regression with its alert input (docs/alerts.md: the regressions, the
 * commit range, the commands that reproduce and bisect it) and which of
 * its keys were reported against this baseline already. Reads runs and the
 * journal's records it is given; writes nothing.
 */
#ifndef IL_WORKFLOW_NIGHTLYJUDGE_H
#define IL_WORKFLOW_NIGHTLYJUDGE_H
#include <jansson.h>
#include "workflow/nightly.h"
#include "util/err.h"
#include "util/str.h"

struct il_nightly_judge_in {
	const char *plan_path;             /* the plan's file, for messages */
	const char *dir, *db;              /* the runs directory and the history index (NULL: DIR/history.sqlite) */
	const json_t *plan;                /* the user's plan: with several governors entries, the bisect command names the variant */
	const struct il_strlist *metrics;  /* track.metrics, or NULL: the key metrics */
	double alpha, floor_pct;
	int window;                        /* the drift's nightlies */
	const json_t *past, *epoch;        /* the journal's records of this plan and host; the baseline epoch's, or NULL */
	const json_t *baseline;            /* the last good nightly whose run is still there; NULL: this one is the baseline */
};

/*
 * Judge res->run (the tip, measured) into res: verdict, reason and
 * build_failed (failed), base_run and base_commit, compared (appended to),
 * drift_note, and for a regression alert, reported, reported_before and
 * repeat. Errors: reading the runs, IL_ENOMEM, IL_EINTR (the drift);
 * IL_EINVAL naming track.metrics when it names no metric.
 */
int il_nightly_judge(const struct il_nightly_judge_in *in, struct il_nightly_result *res, struct il_err *err);

#endif
