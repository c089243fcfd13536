// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The run history index (SQLite): opening it, its schema and its upgrade,
 * and keeping it up to date with a reports directory (its runs, and the
 * nightly verdicts of nightly.jsonl). Indexing one run is historyrun.c,
 * the series of a plan historyseries.c, the SQLite adapter historydb.c.
 * Every statement is a constant with bound parameters.
 */
#include "workflow/history.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/journal.h"
#include "run/rundir.h"
#include "workflow/historydb.h"
#include "util/buf.h"
#include "util/str.h"

/* PRAGMA application_id of an idlelab history: 'ILH1' */
#define APP_ID 1229735985
#define STR_(x) #x
#define STR(x) STR_(x)

/* The integer a one-value query returns. */
static int query_int(struct il_history *h, const char *sql, int64_t *out, int *rc)
{
	sqlite3_stmt *st = NULL;

	*rc = sqlite3_prepare_v2(h->db, sql, -1, &st, NULL);
	if (*rc == SQLITE_OK && (*rc = sqlite3_step(st)) == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		*rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return *rc == SQLITE_OK ? 0 : -1;
}

/* ---- Opening and the schema ---- */

/* Schema 2: the nightly verdicts of the runs directory's nightly.jsonl, by run id (docs/nightly.md). */
#define NIGHTLY_SQL \
	"CREATE TABLE IF NOT EXISTS nightly (" \
	" run_id TEXT PRIMARY KEY, verdict TEXT NOT NULL, alerted INTEGER NOT NULL, repeat INTEGER NOT NULL);"

/* A schema 1 history (before nightlies) gets the table; nothing else changed. */
static const char upgrade1_sql[] = "BEGIN IMMEDIATE;" NIGHTLY_SQL "PRAGMA user_version = 2; COMMIT;";

static const char schema_sql[] =
	"BEGIN IMMEDIATE;"
	"CREATE TABLE IF NOT EXISTS runs ("
	" id INTEGER PRIMARY KEY,"
	" run_id TEXT NOT NULL UNIQUE,"          /* the run directory's basename */
	" path TEXT NOT NULL,"                   /* its absolute path */
	" plan TEXT NOT NULL,"
	" started TEXT NOT NULL,"                /* the run-start record's time (UTC, ISO 8601) */
	" complete INTEGER NOT NULL,"            /* run-end written and every planned sample final */
	" planned INTEGER, counted INTEGER NOT NULL, not_counted INTEGER NOT NULL,"
	" journal_size INTEGER NOT NULL, journal_mtime_ns INTEGER NOT NULL);"
	"CREATE INDEX IF NOT EXISTS runs_plan ON runs (plan, started);"
	"CREATE TABLE IF NOT EXISTS run_hosts ("
	" run INTEGER NOT NULL REFERENCES runs (id), host TEXT NOT NULL, PRIMARY KEY (run, host));"
	"CREATE TABLE IF NOT EXISTS run_kernels ("
	" run INTEGER NOT NULL REFERENCES runs (id), kernel TEXT NOT NULL, commit_id TEXT, release TEXT,"
	" PRIMARY KEY (run, kernel));"
	"CREATE TABLE IF NOT EXISTS metrics ("
	" run INTEGER NOT NULL REFERENCES runs (id),"
	" variant TEXT NOT NULL, var_idx INTEGER NOT NULL, kernel TEXT NOT NULL, commit_id TEXT,"
	" gov_label TEXT NOT NULL, governor TEXT, workload TEXT NOT NULL,"
	" metric_key TEXT NOT NULL, metric TEXT NOT NULL, met_idx INTEGER NOT NULL,"
	" n INTEGER NOT NULL, mean REAL, median REAL, stdev REAL, min REAL, max REAL,"
	" unit TEXT NOT NULL, better TEXT NOT NULL CHECK (better IN ('higher', 'lower', 'none')),"
	" idle INTEGER NOT NULL, PRIMARY KEY (run, variant, metric_key));"
	"CREATE TABLE IF NOT EXISTS skipped ("
	" run_id TEXT PRIMARY KEY, path TEXT NOT NULL, journal_size INTEGER NOT NULL,"
	" journal_mtime_ns INTEGER NOT NULL, reason TEXT NOT NULL);"
	NIGHTLY_SQL
	"PRAGMA application_id = " STR(APP_ID) ";"
	"PRAGMA user_version = " STR(IL_HISTORY_SCHEMA) ";"
	"COMMIT;";

static int check_schema(struct il_history *h, struct il_err *err)
{
	int64_t app = 0, ver = 0, nobj = 0;
	int rc;

	if (query_int(h, "PRAGMA application_id", &app, &rc) || query_int(h, "PRAGMA user_version", &ver, &rc) ||
	    query_int(h, "SELECT count(*) FROM sqlite_master", &nobj, &rc)) {
		if (rc == SQLITE_NOTADB)
			return il_err_set(err, IL_EPARSE, "'%s' is not an SQLite database (not an idlelab history): refused",
					  h->path);
		return il_historydb_fail(h, "cannot read", err);
	}
	if (app == 0 && nobj == 0) {
		/* new (or empty): the schema; IF NOT EXISTS, as another idlelab may make it at the same time */
		if (sqlite3_exec(h->db, schema_sql, NULL, NULL, NULL) != SQLITE_OK) {
			int r = il_historydb_fail(h, "cannot create the schema", err);

			sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
			return r;
		}
		if (query_int(h, "PRAGMA application_id", &app, &rc) || query_int(h, "PRAGMA user_version", &ver, &rc))
			return il_historydb_fail(h, "cannot read", err);
	}
	if (app != APP_ID)
		return il_err_set(err, IL_EINVAL, "'%s' is an SQLite database but not an idlelab history (application_id "
				  "%lld): refused", h->path, (long long)app);
	if (ver == 1 && IL_HISTORY_SCHEMA == 2) {
		if (sqlite3_exec(h->db, upgrade1_sql, NULL, NULL, NULL) != SQLITE_OK) {
			int r = il_historydb_fail(h, "cannot upgrade the schema", err);

			sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
			return r;
		}
		ver = 2;
	}
	if (ver != IL_HISTORY_SCHEMA)
		return il_err_set(err, IL_EINVAL, "history '%s' has schema version %lld, this idlelab reads %d: remove it and "
				  "run 'idlelab history --rebuild'", h->path, (long long)ver, IL_HISTORY_SCHEMA);
	return 0;
}

int il_history_open(struct il_history **out, const char *db_path, struct il_err *err)
{
	struct il_history *h;
	struct stat st;
	int fd, r;

	*out = NULL;
	/* a new file exclusively, private: idlelab runs as root on shared machines */
	fd = open(db_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	else if (errno != EEXIST)
		return il_err_set(err, IL_EIO, "cannot create history '%s': %s", db_path, strerror(errno));
	if (lstat(db_path, &st))
		return il_err_set(err, IL_EIO, "cannot read history '%s': %s", db_path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return il_err_set(err, IL_EINVAL, "history '%s' is not a regular file%s: refused", db_path,
				  S_ISLNK(st.st_mode) ? " (a symbolic link)" : "");
	if (!(h = calloc(1, sizeof(*h))) || !(h->path = strdup(db_path))) {
		free(h);
		return il_err_oom(err);
	}
	if (sqlite3_open_v2(db_path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		r = h->db ? il_historydb_fail(h, "cannot open", err) : il_err_oom(err);
		il_history_close(h);
		return r;
	}
	sqlite3_busy_timeout(h->db, 10000);
	if ((r = check_schema(h, err))) {
		il_history_close(h);
		return r;
	}
	*out = h;
	return 0;
}

void il_history_close(struct il_history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h->path);
	free(h);
}

/* ---- Updating and rebuilding from a reports directory ---- */

void il_history_sync_release(struct il_history_sync *s)
{
	for (size_t i = 0; i < s->nskipped; i++)
		IL_FREE_ALL(s->skipped[i].run_id, s->skipped[i].reason);
	free(s->skipped);
	memset(s, 0, sizeof(*s));
}

static int push_skip(struct il_history_sync *s, const char *run_id, const char *reason)
{
	struct il_history_skip *n = realloc(s->skipped, (s->nskipped + 1) * sizeof(*n));

	if (!n)
		return IL_ENOMEM;
	s->skipped = n;
	n[s->nskipped].run_id = strdup(run_id);
	n[s->nskipped].reason = strdup(reason);
	if (!n[s->nskipped].run_id || !n[s->nskipped].reason) {
		IL_FREE_ALL(n[s->nskipped].run_id, n[s->nskipped].reason);
		return IL_ENOMEM;
	}
	s->nskipped++;
	return 0;
}

/*
 * What the index holds for run_id with this path, journal size and mtime:
 * 1 its rows, 2 its reason for being skipped (*reason, caller frees), 0
 * neither; or a negative IL_E* code.
 */
static int known(struct il_history *h, const struct il_hrun *ri, char **reason, struct il_err *err)
{
	static const char *const sql[] = {
		"SELECT NULL FROM runs WHERE run_id = ?1 AND path = ?2 AND journal_size = ?3 AND journal_mtime_ns = ?4",
		"SELECT reason FROM skipped WHERE run_id = ?1 AND path = ?2 AND journal_size = ?3 AND journal_mtime_ns = ?4",
	};
	int found = 0;

	*reason = NULL;
	for (size_t i = 0; !found && i < 2; i++) {
		sqlite3_stmt *st = NULL;
		int rc;

		if ((found = il_historydb_prep(h, sql[i], &st, err)))
			return found;
		il_historydb_bind_text(st, 1, ri->run_id);
		il_historydb_bind_text(st, 2, ri->path);
		sqlite3_bind_int64(st, 3, ri->size);
		sqlite3_bind_int64(st, 4, ri->mtime_ns);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			found = (int)i + 1;
		else if (rc != SQLITE_DONE)
			found = il_historydb_fail(h, "cannot read", err);
		if (found == 2 && !(*reason = strdup((const char *)sqlite3_column_text(st, 0))))
			found = il_err_oom(err);
		sqlite3_finalize(st);
	}
	return found;
}

/* Remember that run could not be indexed, and why (tried again when its journal changes). */
static int remember_skip(struct il_history *h, const struct il_hrun *ri, const char *reason, struct il_err *err)
{
	sqlite3_stmt *st = NULL;
	int r;

	if ((r = il_historyrun_delete(h, ri->run_id, err)) ||
	    (r = il_historydb_prep(h, "INSERT INTO skipped (run_id, path, journal_size, journal_mtime_ns, reason) VALUES (?1, ?2, ?3, ?4, ?5)",
		      &st, err)))
		return r;
	il_historydb_bind_text(st, 1, ri->run_id);
	il_historydb_bind_text(st, 2, ri->path);
	sqlite3_bind_int64(st, 3, ri->size);
	sqlite3_bind_int64(st, 4, ri->mtime_ns);
	il_historydb_bind_text(st, 5, reason);
	r = il_historydb_step_done(h, st, err);
	sqlite3_finalize(st);
	return r;
}

/* One run directory of a reports directory: unchanged, indexed, or skipped with its reason. */
static int sync_one(struct il_history *h, const char *dir, const char *name, struct il_history_sync *out,
		    struct il_err *err)
{
	char *rd = il_rundir_join(dir, name), abs[PATH_MAX], *reason = NULL;
	struct il_hrun ri = { .run_id = name, .path = abs };
	struct il_dataset ds = { 0 };
	struct il_err e = { 0 };
	int r;

	if (!rd)
		return il_err_oom(err);
	if (!realpath(rd, abs) || il_historyrun_stat(rd, &ri.size, &ri.mtime_ns, &e)) {
		free(rd);
		return 0; /* gone since the listing */
	}
	r = known(h, &ri, &reason, err);
	if (r == 1) {
		out->unchanged++;
		r = 0;
	} else if (r == 2) {
		r = push_skip(out, name, reason) ? il_err_oom(err) : 0;
	} else if (r == 0 && il_historyrun_read(rd, &ri, &ds, &e)) {
		/* a journal that cannot be read: said, remembered, never the end of the others */
		r = push_skip(out, name, e.msg) ? il_err_oom(err) :
						   remember_skip(h, &ri, e.msg, err);
	} else if (r == 0 && !(r = il_historyrun_write(h, &ri, &ds, err))) {
		out->added++;
	}
	il_dataset_release(&ds);
	free(reason);
	free(rd);
	return r;
}

/*
 * One nightly record into the table (the last verdict of a run wins: a
 * resumed night's); a delivered alert ("nightly-alert", the alert queue of
 * workflow/nightlyq.h) marks its run alerted.
 */
static int nightly_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	sqlite3_stmt **st = ctx;
	const char *run = json_string_value(json_object_get(rec, "run")), *v = json_string_value(json_object_get(rec, "verdict"));
	const char *type = json_string_value(json_object_get(rec, "type"));

	(void)line, (void)err;
	if (!strcmp(type, "nightly-alert") && run && json_is_true(json_object_get(rec, "delivered"))) {
		il_historydb_bind_text(st[1], 1, strrchr(run, '/') ? strrchr(run, '/') + 1 : run);
		sqlite3_step(st[1]);
		sqlite3_reset(st[1]);
		return 0;
	}
	if (strcmp(type, "nightly") || !run || !v)
		return 0;
	il_historydb_bind_text(*st, 1, strrchr(run, '/') ? strrchr(run, '/') + 1 : run);
	il_historydb_bind_text(*st, 2, v);
	sqlite3_bind_int(*st, 3, json_is_true(json_object_get(rec, "alerted")));
	sqlite3_bind_int(*st, 4, json_is_true(json_object_get(rec, "repeat")));
	sqlite3_step(*st);
	sqlite3_reset(*st);
	return 0;
}

/*
 * The nightly table made again from DIR/nightly.jsonl (small: a line a
 * night); a journal that cannot be read is a skip of its own, never the end.
 */
static int sync_nightly(struct il_history *h, const char *reports_dir, struct il_history_sync *out, struct il_err *err)
{
	char *jp = il_rundir_join(reports_dir, "nightly.jsonl");
	sqlite3_stmt *st[2] = { NULL, NULL };
	struct il_err e = { 0 };
	int r;

	if (!jp)
		return il_err_oom(err);
	if (!(r = il_historydb_exec(h, "DELETE FROM nightly", err)) && !access(jp, F_OK) &&
	    !(r = il_historydb_prep(h, "INSERT OR REPLACE INTO nightly (run_id, verdict, alerted, repeat) VALUES (?1, ?2, ?3, ?4)", &st[0],
		       err)) &&
	    !(r = il_historydb_prep(h, "UPDATE nightly SET alerted = 1 WHERE run_id = ?1", &st[1], err)) &&
	    il_journal_each(jp, nightly_rec, st, NULL, &e))
		r = push_skip(out, "nightly.jsonl", e.msg) ? il_err_oom(err) : 0;
	sqlite3_finalize(st[0]);
	sqlite3_finalize(st[1]);
	free(jp);
	return r;
}

static int sync_dir(struct il_history *h, const char *reports_dir, bool rebuild, struct il_history_sync *out,
		    struct il_err *err)
{
	static const char drop_sql[] = "DELETE FROM metrics; DELETE FROM run_hosts; DELETE FROM run_kernels; "
				       "DELETE FROM runs; DELETE FROM skipped;";
	struct il_strlist names = { 0 };
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = il_rundir_list(&names, reports_dir, err)))
		return r;
	if (!(r = il_historydb_exec(h, "BEGIN IMMEDIATE", err))) {
		if (rebuild)
			r = il_historydb_exec(h, drop_sql, err);
		for (size_t i = 0; !r && i < names.n; i++)
			r = sync_one(h, reports_dir, names.v[i], out, err);
		if (!r)
			r = sync_nightly(h, reports_dir, out, err);
		if (!r)
			r = il_historydb_exec(h, "COMMIT", err);
		else
			sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	}
	il_strlist_release(&names);
	return r;
}

int il_history_update(struct il_history *h, const char *reports_dir, struct il_history_sync *out, struct il_err *err)
{
	return sync_dir(h, reports_dir, false, out, err);
}

int il_history_rebuild(struct il_history *h, const char *reports_dir, struct il_history_sync *out, struct il_err *err)
{
	return sync_dir(h, reports_dir, true, out, err);
}
