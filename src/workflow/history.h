/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run history: an SQLite index (libsqlite3) of every run's metrics, one
 * row per run and one per (run, variant, metric) with n, mean, median,
 * stdev, min and max, so a nightly job can follow a plan's numbers across
 * runs. The journals stay the source of truth: the index is made from them
 * through il_datajournal_add_run and can always be rebuilt (docs/history.md).
 */
#ifndef IL_WORKFLOW_HISTORY_H
#define IL_WORKFLOW_HISTORY_H
#include <stddef.h>
#include <jansson.h>
#include "stats/changepoint.h"
#include "util/err.h"
#include "util/strlist.h"

/* The schema this version writes and reads (PRAGMA user_version). */
#define IL_HISTORY_SCHEMA 2

struct il_history;

/*
 * Open the history at db_path, or create it (exclusively, mode 0600) with
 * the current schema when no file is there. A file that is not SQLite, an
 * SQLite database that is not an idlelab history, or a history of another
 * schema version is refused with IL_EINVAL naming the file (a symbolic link
 * too). *h: il_history_close.
 */
int il_history_open(struct il_history **h, const char *db_path, struct il_err *err);
/* Close h (NULL is fine). */
void il_history_close(struct il_history *h);

/*
 * Index one run directory (its journal.jsonl read by il_datajournal_add_run):
 * the run (id = the directory's basename, absolute path, plan, hosts,
 * start time, kernels with commits, complete or not) and its metrics.
 * Adding a run again replaces its rows, in one transaction; an incomplete
 * run is indexed and marked so. A journal that cannot be read is an
 * IL_EPARSE (or IL_ENOTFOUND) error and leaves the index as it was.
 */
int il_history_add_run(struct il_history *h, const char *run_dir, struct il_err *err);

/* A run directory that could not be indexed, and why. */
struct il_history_skip {
	char *run_id;
	char *reason;
};

/* What an update or a rebuild did. */
struct il_history_sync {
	size_t added;       /* runs (re)indexed now */
	size_t unchanged;   /* runs already indexed with this journal (size and mtime) */
	size_t nskipped;
	struct il_history_skip *skipped; /* runs not indexed, with the reason (also earlier ones whose journal did not change) */
};
void il_history_sync_release(struct il_history_sync *s);

/*
 * Index every run directory under reports_dir (a directory with
 * journal.jsonl) that the index does not have with this journal yet (by
 * name, journal size and mtime). A run that cannot be read is listed in
 * out->skipped with the reason (and not tried again until its journal
 * changes); it never stops the others. Errors: the directory cannot be read
 * (IL_ENOTFOUND), the database fails (IL_EIO). out: il_history_sync_release,
 * also on failure.
 */
int il_history_update(struct il_history *h, const char *reports_dir, struct il_history_sync *out, struct il_err *err);

/* Drop everything and index every run under reports_dir, as il_history_update (one transaction). */
int il_history_rebuild(struct il_history *h, const char *reports_dir, struct il_history_sync *out,
		       struct il_err *err);

/* What il_history_series is asked for. */
struct il_history_query {
	const char *plan, *host;            /* host: only runs on this host (NULL: all) */
	const struct il_strlist *metrics;   /* only these keys, full or their last parts (NULL or empty: all) */
	size_t window;                      /* change points over the last N points per variant; 0: all */
	struct il_cp_opts cp;               /* of the change points (IL_CP_OPTS_INIT) */
};

/*
 * The history of q->plan (docs/formats.md, "History JSON", schema
 * "idlelab-history/1"): its runs in start order, and per metric key and
 * variant the points in run start order (run, start time, kernel, commit,
 * n, mean, median, stdev, min, max) and the change points of the means of
 * its last q->window points (il_changepoint_find with q->cp; points without
 * a mean left out): where the new level starts and the run before it, each
 * with its commit, the means before and after, the change in percent, p,
 * and whether it is worse by the metric's direction. A variant whose level
 * before a change is 0 has none (a percent of 0 has no meaning).
 * *out (caller owns, json_decref): the object. IL_ENOTFOUND when the index
 * has no run of the plan (on the host), or no metric matches; IL_EINVAL
 * when q->cp is out of range.
 */
int il_history_series(struct il_history *h, const struct il_history_query *q, json_t **out, struct il_err *err);

#endif
