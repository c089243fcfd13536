/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A nightly's drift (docs/nightly.md "Drift"): over the last window
 * nightlies since the baseline epoch, per key metric and variant, the last
 * change point of the means from the history index (workflow/history.h,
 * stats/changepoint.h). One for the worse whose new level the tip is on,
 * beyond the floor, is a regression of kind "drift" unless the comparison
 * with the baseline found that metric already. The index is a cache of the
 * runs and never decides whether a verdict is journaled or an alert goes
 * out: a damaged one of the runs directory's own is moved aside and made
 * again, one that is locked or unusable leaves the drift unjudged, said.
 */
#ifndef IL_WORKFLOW_NIGHTLYDRIFT_H
#define IL_WORKFLOW_NIGHTLYDRIFT_H
#include <jansson.h>
#include "util/err.h"
#include "util/strlist.h"

struct il_nightly_drift_in {
	const char *dir;                   /* the runs directory */
	const char *db;                    /* the index; NULL: DIR/history.sqlite (then a damaged one is made again) */
	const char *plan, *host, *run;     /* this nightly (run: its directory) */
	const struct il_strlist *metrics;  /* the track's metrics, or NULL: the key metrics */
	double alpha, floor_pct;
	int window;
	const json_t *past, *epoch;        /* the nightly journal's records of this plan and host; the baseline epoch's (or NULL) */
};

/*
 * Append the drift regressions to regs (entries shaped like the comparison's
 * with "kind": "drift", "since", "since_run"). *note (caller frees; NULL
 * when the drift was judged on an intact index) says what happened to the
 * index. Errors: IL_ENOMEM, IL_EINTR only; everything else is a note.
 */
int il_nightly_drift(const struct il_nightly_drift_in *in, json_t *regs, char **note, struct il_err *err);

#endif
