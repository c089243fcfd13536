// SPDX-License-Identifier: GPL-2.0-or-later
/* The history index's SQLite adapter: one place that turns SQLite's errors into il_err (see historydb.h). */
#include "workflow/historydb.h"

#include <math.h>

/* SQLite's words; a damaged file is IL_EPARSE and a busy one IL_ETIMEOUT, so a caller can tell them apart. */
int il_historydb_fail(struct il_history *h, const char *what, struct il_err *err)
{
	int rc = sqlite3_errcode(h->db);
	int code = rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB ? IL_EPARSE :
		   rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? IL_ETIMEOUT : rc == SQLITE_NOMEM ? IL_ENOMEM : IL_EIO;

	return il_err_set(err, code, "history '%s': %s: %s", h->path, what, sqlite3_errmsg(h->db));
}

/* A constant statement (no data in it), or several. */
int il_historydb_exec(struct il_history *h, const char *sql, struct il_err *err)
{
	return sqlite3_exec(h->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : il_historydb_fail(h, "cannot write", err);
}

int il_historydb_prep(struct il_history *h, const char *sql, sqlite3_stmt **st, struct il_err *err)
{
	return sqlite3_prepare_v2(h->db, sql, -1, st, NULL) == SQLITE_OK ? 0 : il_historydb_fail(h, "cannot prepare a query", err);
}

/* Bind s (NULL: SQL NULL) as parameter i. */
int il_historydb_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Bind v (NaN or infinite: SQL NULL) as parameter i. */
int il_historydb_bind_num(sqlite3_stmt *st, int i, double v)
{
	return isfinite(v) ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

/* Run a bound statement that returns no rows, and reset it for the next binding. */
int il_historydb_step_done(struct il_history *h, sqlite3_stmt *st, struct il_err *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : il_historydb_fail(h, "cannot write", err);
}
