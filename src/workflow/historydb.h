/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the history index (workflow/history.h), shared by its files and by
 * nothing else: the handle, the SQLite adapter that turns SQLite's errors
 * into il_err (historydb.c), and indexing one run (historyrun.c), which
 * the update of a reports directory (history.c) repeats per run.
 */
#ifndef IL_WORKFLOW_HISTORYDB_H
#define IL_WORKFLOW_HISTORYDB_H
#include <sqlite3.h>
#include <stdint.h>
#include "stats/dataset.h"
#include "workflow/history.h"
#include "util/err.h"

struct il_history {
	sqlite3 *db;
	char *path;
};

/* SQLite's words for what failed; a damaged file is IL_EPARSE, a busy one IL_ETIMEOUT, so a caller can tell them apart. */
int il_historydb_fail(struct il_history *h, const char *what, struct il_err *err);
/* A constant statement (no data in it), or several. */
int il_historydb_exec(struct il_history *h, const char *sql, struct il_err *err);
int il_historydb_prep(struct il_history *h, const char *sql, sqlite3_stmt **st, struct il_err *err);
/* Bind s (NULL: SQL NULL) as parameter i. */
int il_historydb_bind_text(sqlite3_stmt *st, int i, const char *s);
/* Bind v (NaN or infinite: SQL NULL) as parameter i. */
int il_historydb_bind_num(sqlite3_stmt *st, int i, double v);
/* Run a bound statement that returns no rows, and reset it for the next binding. */
int il_historydb_step_done(struct il_history *h, sqlite3_stmt *st, struct il_err *err);

/* One run as the index knows it besides its dataset (historyrun.c). */
struct il_hrun {
	const char *run_id, *path;
	int64_t size, mtime_ns;
};
/* The journal of run_dir: its size and mtime (ns), what tells a changed run from a known one. */
int il_historyrun_stat(const char *run_dir, int64_t *size, int64_t *mtime_ns, struct il_err *err);
/*
 * Read run_dir (ri->path: its absolute path) into ds, with its journal's
 * size and mtime into *ri: what makes a run worth indexing. ds: released by
 * the caller, also on failure.
 */
int il_historyrun_read(const char *run_dir, struct il_hrun *ri, struct il_dataset *ds, struct il_err *err);
/* Write the rows of a read run in one savepoint (inside a rebuild's transaction, or one of its own). */
int il_historyrun_write(struct il_history *h, const struct il_hrun *ri, const struct il_dataset *ds, struct il_err *err);
/* Drop what the index holds of run_id (its rows, or its reason for being skipped). */
int il_historyrun_delete(struct il_history *h, const char *run_id, struct il_err *err);

#endif
