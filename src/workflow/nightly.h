/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One nightly regression check of a plan (docs/nightly.md). The plan's
 * "track" section names a repository and a branch; when the branch's tip is
 * one the plan has not measured on its host yet, the tip is built, booted
 * and measured by a run of the plan, then compared variant by variant with
 * the baseline, the last good nightly of the same plan and host, by
 * compare's rules (U test, noise threshold raised by the baseline's A/A
 * pair, Holm), and over the last nightlies by change points, so a drift of
 * small steps is caught too. Verdicts go to DIR/nightly.jsonl (appended,
 * fsync'd): the source of truth for baselines, for what was measured, and
 * for which regressions were already reported against which baseline.
 */
#ifndef IL_WORKFLOW_NIGHTLY_H
#define IL_WORKFLOW_NIGHTLY_H
#include <stdbool.h>
#include <jansson.h>
#include "run/engine.h"
#include "run/journal.h"
#include "workflow/nightlyq.h"
#include "util/err.h"

/* Declared once: names in the journal and the output, indexed by the enum. */
enum il_nightly_verdict {
	IL_NIGHTLY_UNCHANGED,   /* the tip was measured already: nothing run */
	IL_NIGHTLY_BASELINE,    /* the first nightly, or --rebaseline: the new baseline */
	IL_NIGHTLY_GOOD,        /* no regression beyond noise: the new baseline */
	IL_NIGHTLY_REGRESSION,  /* worse beyond noise (or drifting worse): the baseline stays */
	IL_NIGHTLY_FAILED,      /* nothing measured: the build, a boot or the host failed */
	IL_NIGHTLY_NVERDICTS
};
const char *il_nightly_verdict_name(enum il_nightly_verdict v);

struct il_nightly_opts {
	const struct il_run_opts *run;  /* borrowed: paths, workloads, host, progress, stop */
	const char *plan_path;
	const char *dir;                /* the runs directory: nightly.jsonl, the runs, history.sqlite */
	const char *db;                 /* the history index; NULL: DIR/history.sqlite */
	bool force;                     /* measure the tip even when it was measured */
	bool rebaseline;                /* take this nightly as the baseline, whatever it shows */
	bool dest[IL_NIGHTLY_NDESTS];   /* where the caller delivers alerts: a new one is owed to these */
};

struct il_nightly_result {
	enum il_nightly_verdict verdict;
	char *plan, *host, *branch;
	char tip[41];
	char *subject;             /* the tip's subject line, or NULL */
	char *run;                 /* the nightly's run directory (the one that measured the tip when unchanged) */
	char *reason;              /* failed: why */
	bool build_failed;         /* failed: the tip did not build (not retried until the tip changes) */
	char *base_run;            /* the baseline's run directory, NULL for none */
	char base_commit[41];
	json_t *compared;          /* every key metric of every variant: [{variant, key, ..., verdict}] (docs/nightly.md) */
	json_t *alert;             /* regression: the alert input (docs/alerts.md "Alert input"), else NULL */
	bool repeat;               /* regression: all of it was reported already against this baseline */
	json_t *reported;          /* regression: the keys reported against this baseline, with this night's */
	json_t *reported_before;   /* regression: the keys reported against it before this night */
	json_t *owed;              /* the alerts still owed, this night's included (il_nightlyq_owed), oldest first */
	char *drift_note;          /* why the drift over the last nightlies was not judged, or NULL */
	int lock_fd;               /* the runs directory's nightly lock, held until il_nightly_result_release */
};

/*
 * Run one nightly of o->plan_path into res (il_nightly_result_release, also
 * after an error). Returns 0 with res->verdict for every outcome of the
 * measurement, failed included (its reason in res->reason); errors are the
 * ones that leave nothing to judge: a bad plan or track section (IL_EINVAL /
 * IL_EPARSE naming the JSON path), the repository or fetch, another nightly
 * of the same runs directory running (IL_EINVAL), a stop (IL_EINTR: the run
 * is resumed by the next nightly). The verdict (all but unchanged) is
 * journaled before this returns, before any alert is composed: a new
 * regression's with its alert input, owed to o->dest. res->owed then lists
 * every alert still owed (this night's and earlier undelivered ones); the
 * caller delivers them and journals each attempt with il_nightly_delivery_begin/done/end,
 * under the lock res holds.
 */
int il_nightly_run(const struct il_nightly_opts *o, struct il_nightly_result *res, struct il_err *err);

/*
 * One delivery attempt of the owed entry e (from res->owed) to d, journaled
 * the instant its outcome is known. il_nightly_delivery_begin opens the
 * journal and serializes the "delivered" record before the attempt, so that
 * il_nightly_delivery_done(dv, NULL) — called the moment the destination took
 * the alert, for mail before the SMTP goodbye — is one write(2): a kill can
 * only fall between the server's acceptance and that write, never inside a
 * slower step. done with why records a failed attempt (still owed).
 * il_nightly_delivery_end closes (also after a failed begin).
 */
struct il_nightly_delivery {
	struct il_journal j;
	char *line;
	const struct il_nightly_result *res;
	const json_t *owed;
	enum il_nightly_dest d;
};
int il_nightly_delivery_begin(const struct il_nightly_opts *o, const struct il_nightly_result *res, const json_t *e,
			      enum il_nightly_dest d, struct il_nightly_delivery *dv, struct il_err *err);
int il_nightly_delivery_done(struct il_nightly_delivery *dv, const char *why, struct il_err *err);
void il_nightly_delivery_end(struct il_nightly_delivery *dv);

void il_nightly_result_release(struct il_nightly_result *r);

#endif
