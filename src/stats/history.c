// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The run history index (SQLite): its schema, indexing a run from its
 * journal, updating and rebuilding from a reports directory, and the series
 * of a plan. Every statement is a constant with bound parameters.
 */
#include "stats/history.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/journal.h"
#include "run/rundir.h"
#include "stats/dataset.h"
#include "stats/stats.h"
#include "util/buf.h"

/* PRAGMA application_id of an idlelab history: 'ILH1' */
#define APP_ID 1229735985
#define STR_(x) #x
#define STR(x) STR_(x)

struct il_history {
	sqlite3 *db;
	char *path;
};

/* ---- SQLite adapter: one place that turns its errors into il_err ---- */

/* SQLite's words; a damaged file is IL_EPARSE and a busy one IL_ETIMEOUT, so a caller can tell them apart. */
static int db_fail(struct il_history *h, const char *what, struct il_err *err)
{
	int rc = sqlite3_errcode(h->db);
	int code = rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB ? IL_EPARSE :
		   rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? IL_ETIMEOUT : rc == SQLITE_NOMEM ? IL_ENOMEM : IL_EIO;

	return il_err_set(err, code, "history '%s': %s: %s", h->path, what, sqlite3_errmsg(h->db));
}

/* A constant statement (no data in it), or several. */
static int exec(struct il_history *h, const char *sql, struct il_err *err)
{
	return sqlite3_exec(h->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : db_fail(h, "cannot write", err);
}

static int prep(struct il_history *h, const char *sql, sqlite3_stmt **st, struct il_err *err)
{
	return sqlite3_prepare_v2(h->db, sql, -1, st, NULL) == SQLITE_OK ? 0 : db_fail(h, "cannot prepare a query", err);
}

/* Bind s (NULL: SQL NULL) as parameter i. */
static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Bind v (NaN or infinite: SQL NULL) as parameter i. */
static int bind_num(sqlite3_stmt *st, int i, double v)
{
	return isfinite(v) ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

/* Run a bound statement that returns no rows, and reset it for the next binding. */
static int step_done(struct il_history *h, sqlite3_stmt *st, struct il_err *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : db_fail(h, "cannot write", err);
}

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
		return db_fail(h, "cannot read", err);
	}
	if (app == 0 && nobj == 0) {
		/* new (or empty): the schema; IF NOT EXISTS, as another idlelab may make it at the same time */
		if (sqlite3_exec(h->db, schema_sql, NULL, NULL, NULL) != SQLITE_OK) {
			int r = db_fail(h, "cannot create the schema", err);

			sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
			return r;
		}
		if (query_int(h, "PRAGMA application_id", &app, &rc) || query_int(h, "PRAGMA user_version", &ver, &rc))
			return db_fail(h, "cannot read", err);
	}
	if (app != APP_ID)
		return il_err_set(err, IL_EINVAL, "'%s' is an SQLite database but not an idlelab history (application_id "
				  "%lld): refused", h->path, (long long)app);
	if (ver == 1 && IL_HISTORY_SCHEMA == 2) {
		if (sqlite3_exec(h->db, upgrade1_sql, NULL, NULL, NULL) != SQLITE_OK) {
			int r = db_fail(h, "cannot upgrade the schema", err);

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
		return il_err_set(err, IL_ENOMEM, "out of memory");
	}
	if (sqlite3_open_v2(db_path, &h->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		r = h->db ? db_fail(h, "cannot open", err) : il_err_set(err, IL_ENOMEM, "out of memory");
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

/* ---- Indexing one run ---- */

/* What a run's rows are made of besides the dataset. */
struct runinfo {
	const char *run_id, *path;
	int64_t size, mtime_ns;
};

static const char *better_name(enum il_better b)
{
	return b == IL_BETTER_HIGHER ? "higher" : b == IL_BETTER_LOWER ? "lower" : "none";
}

/* The run-start record's entry of variant label (NULL when it has none). */
static const json_t *variant_of(const json_t *start, const char *label)
{
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(start, "variants"), i, v)
		if (json_is_string(json_object_get(v, "label")) && !strcmp(json_string_value(json_object_get(v, "label")), label))
			return v;
	return NULL;
}

/* The commit of kernel name from the run-start record's "kernels" (NULL: none, e.g. the running kernel). */
static const char *commit_of(const json_t *start, const char *name)
{
	size_t i;
	json_t *k;

	json_array_foreach(json_object_get(start, "kernels"), i, k)
		if (json_is_string(json_object_get(k, "name")) && !strcmp(json_string_value(json_object_get(k, "name")), name))
			return json_string_value(json_object_get(k, "commit"));
	return NULL;
}

/* The running kernel's release(s) by the hosts' fingerprints, space-separated into b ("" when none is recorded). */
static void running_release(const struct il_dataset *ds, struct il_buf *b)
{
	const char *host;
	json_t *fp;

	json_object_foreach(json_object_get(ds->meta, "fingerprints"), host, fp) {
		const char *rel = json_string_value(json_object_get(json_object_get(fp, "kernel"), "release"));

		if (rel && !strstr(il_buf_str(b), rel))
			il_buf_printf(b, "%s%s", b->len ? " " : "", rel);
	}
}

/* The hosts of a run: those with a host record, then the plan's "host" or "hosts". */
static int hosts_of(const struct il_dataset *ds, struct il_strlist *out)
{
	const json_t *plan = json_object_get(json_object_get(ds->meta, "run_start"), "plan");
	const char *host;
	json_t *v;
	size_t i;
	int r = 0;

	json_object_foreach(json_object_get(ds->meta, "fingerprints"), host, v)
		if (!r && !il_strlist_has(out, host))
			r = il_strlist_push(out, host);
	if (!r && json_is_string(json_object_get(plan, "host")) && !il_strlist_has(out, json_string_value(json_object_get(plan, "host"))))
		r = il_strlist_push(out, json_string_value(json_object_get(plan, "host")));
	json_array_foreach(json_object_get(plan, "hosts"), i, v)
		if (!r && json_is_string(v) && !il_strlist_has(out, json_string_value(v)))
			r = il_strlist_push(out, json_string_value(v));
	return r;
}

static int delete_run(struct il_history *h, const char *run_id, struct il_err *err)
{
	static const char *const sql[] = {
		"DELETE FROM metrics WHERE run IN (SELECT id FROM runs WHERE run_id = ?1)",
		"DELETE FROM run_hosts WHERE run IN (SELECT id FROM runs WHERE run_id = ?1)",
		"DELETE FROM run_kernels WHERE run IN (SELECT id FROM runs WHERE run_id = ?1)",
		"DELETE FROM runs WHERE run_id = ?1",
		"DELETE FROM skipped WHERE run_id = ?1",
	};
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(sql) / sizeof(sql[0]); i++) {
		sqlite3_stmt *st = NULL;

		if (!(r = prep(h, sql[i], &st, err))) {
			bind_text(st, 1, run_id);
			r = step_done(h, st, err);
		}
		sqlite3_finalize(st);
	}
	return r;
}

/* The runs row; its rowid in *id. */
static int insert_run(struct il_history *h, const struct runinfo *ri, const struct il_dataset *ds, int64_t *id,
		      struct il_err *err)
{
	const json_t *start = json_object_get(ds->meta, "run_start"), *planned = json_object_get(start, "samples");
	bool complete = json_object_get(ds->meta, "run_end") && json_is_integer(planned) &&
			(json_int_t)(ds->counted + ds->skipped) == json_integer_value(planned);
	sqlite3_stmt *st = NULL;
	int r;

	if ((r = prep(h, "INSERT INTO runs (run_id, path, plan, started, complete, planned, counted, not_counted, "
			 "journal_size, journal_mtime_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
		      &st, err)))
		return r;
	bind_text(st, 1, ri->run_id);
	bind_text(st, 2, ri->path);
	bind_text(st, 3, ds->title);
	bind_text(st, 4, json_string_value(json_object_get(start, "time")));
	sqlite3_bind_int(st, 5, complete);
	if (json_is_integer(planned))
		sqlite3_bind_int64(st, 6, json_integer_value(planned));
	sqlite3_bind_int64(st, 7, (sqlite3_int64)ds->counted);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)ds->skipped);
	sqlite3_bind_int64(st, 9, ri->size);
	sqlite3_bind_int64(st, 10, ri->mtime_ns);
	r = step_done(h, st, err);
	sqlite3_finalize(st);
	*id = sqlite3_last_insert_rowid(h->db);
	return r;
}

static int insert_hosts_kernels(struct il_history *h, int64_t id, const struct il_dataset *ds, struct il_err *err)
{
	const json_t *start = json_object_get(ds->meta, "run_start"), *v;
	struct il_strlist hosts = { 0 }, kernels = { 0 };
	struct il_buf rel = IL_BUF_INIT;
	sqlite3_stmt *hs = NULL, *ks = NULL;
	size_t i;
	int r;

	if (hosts_of(ds, &hosts))
		r = il_err_set(err, IL_ENOMEM, "out of memory");
	else if (!(r = prep(h, "INSERT INTO run_hosts (run, host) VALUES (?1, ?2)", &hs, err)) &&
		 !(r = prep(h, "INSERT INTO run_kernels (run, kernel, commit_id, release) VALUES (?1, ?2, ?3, ?4)", &ks, err)))
		for (i = 0; !r && i < hosts.n; i++) {
			sqlite3_bind_int64(hs, 1, id);
			bind_text(hs, 2, hosts.v[i]);
			r = step_done(h, hs, err);
		}
	running_release(ds, &rel);
	json_array_foreach(json_object_get(start, "variants"), i, v) {
		const char *k = json_string_value(json_object_get(v, "kernel"));
		bool running;

		if (r || !k || il_strlist_has(&kernels, k))
			continue;
		if (il_strlist_push(&kernels, k)) {
			r = il_err_set(err, IL_ENOMEM, "out of memory");
			break;
		}
		running = !commit_of(start, k) && rel.len;
		sqlite3_bind_int64(ks, 1, id);
		bind_text(ks, 2, k);
		bind_text(ks, 3, commit_of(start, k));
		bind_text(ks, 4, running ? il_buf_str(&rel) : NULL);
		r = step_done(h, ks, err);
	}
	sqlite3_finalize(hs);
	sqlite3_finalize(ks);
	il_strlist_release(&hosts);
	il_strlist_release(&kernels);
	il_buf_release(&rel);
	return r;
}

/* One row per variant and metric with values. */
static int insert_metrics(struct il_history *h, int64_t id, const struct il_dataset *ds, struct il_err *err)
{
	const json_t *start = json_object_get(ds->meta, "run_start");
	sqlite3_stmt *st = NULL;
	int r;

	if ((r = prep(h, "INSERT INTO metrics (run, variant, var_idx, kernel, commit_id, gov_label, governor, workload, "
			 "metric_key, metric, met_idx, n, mean, median, stdev, min, max, unit, better, idle) VALUES "
			 "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
		      &st, err)))
		return r;
	for (size_t v = 0; !r && v < ds->nvar; v++) {
		const json_t *var = variant_of(start, ds->var[v]);
		const char *kernel = json_string_value(json_object_get(var, "kernel"));
		size_t lv = strlen(ds->var[v]), lk = kernel ? strlen(kernel) : 0;
		/* the plan's governor label: the variant label without its "@kernel" */
		int gl = kernel && lv > lk + 1 && ds->var[v][lv - lk - 1] == '@' && !strcmp(ds->var[v] + lv - lk, kernel) ?
				 (int)(lv - lk - 1) : (int)lv;
		char *gov_label = il_strndup(ds->var[v], (size_t)gl);

		if (!gov_label)
			return il_err_set(err, IL_ENOMEM, "out of memory");
		for (size_t m = 0; !r && m < ds->nmet; m++) {
			const struct il_mseries *ms = &ds->met[m];
			struct il_desc d;

			if (!ms->var[v].n)
				continue;
			il_desc_compute(ms->var[v].v, ms->var[v].n, &d);
			sqlite3_bind_int64(st, 1, id);
			bind_text(st, 2, ds->var[v]);
			sqlite3_bind_int64(st, 3, (sqlite3_int64)v);
			bind_text(st, 4, kernel ? kernel : "unknown");
			bind_text(st, 5, kernel ? commit_of(start, kernel) : NULL);
			bind_text(st, 6, gov_label);
			bind_text(st, 7, json_string_value(json_object_get(var, "governor")));
			bind_text(st, 8, ms->group);
			bind_text(st, 9, ms->key);
			bind_text(st, 10, ms->metric);
			sqlite3_bind_int64(st, 11, (sqlite3_int64)m);
			sqlite3_bind_int64(st, 12, (sqlite3_int64)d.n);
			bind_num(st, 13, d.mean);
			bind_num(st, 14, d.median);
			bind_num(st, 15, d.stdev);
			bind_num(st, 16, d.min);
			bind_num(st, 17, d.max);
			bind_text(st, 18, ms->unit);
			bind_text(st, 19, better_name(ms->better));
			sqlite3_bind_int(st, 20, ms->idle);
			r = step_done(h, st, err);
		}
		free(gov_label);
	}
	sqlite3_finalize(st);
	return r;
}

/* The journal of run_dir: its size and mtime (ns), what tells a changed run from a known one. */
static int journal_stat(const char *run_dir, int64_t *size, int64_t *mtime_ns, struct il_err *err)
{
	char *j = il_rundir_path(run_dir, IL_RUNDIR_JOURNAL);
	struct stat st;
	int r = 0;

	if (!j)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	if (stat(j, &st))
		r = il_err_set(err, IL_ENOTFOUND, "'%s' has no %s (not a run directory)", run_dir,
			       il_rundir_name(IL_RUNDIR_JOURNAL));
	else
		*size = (int64_t)st.st_size, *mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	free(j);
	return r;
}

/* Write the rows of a read run in one savepoint (inside a rebuild's transaction, or one of its own). */
static int write_run(struct il_history *h, const struct runinfo *ri, const struct il_dataset *ds, struct il_err *err)
{
	int64_t id = 0;
	int r;

	if ((r = exec(h, "SAVEPOINT il_run", err)))
		return r;
	if ((r = delete_run(h, ri->run_id, err)) || (r = insert_run(h, ri, ds, &id, err)) ||
	    (r = insert_hosts_kernels(h, id, ds, err)) || (r = insert_metrics(h, id, ds, err))) {
		sqlite3_exec(h->db, "ROLLBACK TO il_run; RELEASE il_run", NULL, NULL, NULL);
		return r;
	}
	return exec(h, "RELEASE il_run", err);
}

/*
 * Read run_dir (ri->path: its absolute path) into ds, with its journal's
 * size and mtime into *ri: what makes a run worth indexing. ds: released by
 * the caller, also on failure.
 */
static int read_run(const char *run_dir, struct runinfo *ri, struct il_dataset *ds, struct il_err *err)
{
	const json_t *start;
	int r;

	if ((r = journal_stat(run_dir, &ri->size, &ri->mtime_ns, err)) || (r = il_dataset_add_run(ds, ri->path, NULL, err)))
		return r;
	start = json_object_get(ds->meta, "run_start");
	if (!ds->title)
		return il_err_set(err, IL_EPARSE, "%s: the run-start record has no plan_name", run_dir);
	if (!json_is_string(json_object_get(start, "time")))
		return il_err_set(err, IL_EPARSE, "%s: the run-start record has no time", run_dir);
	return 0;
}

int il_history_add_run(struct il_history *h, const char *run_dir, struct il_err *err)
{
	char abs[PATH_MAX], *copy;
	struct runinfo ri = { 0 };
	struct il_dataset ds = { 0 };
	int r;

	if (!realpath(run_dir, abs))
		return il_err_set(err, IL_ENOTFOUND, "cannot find run directory '%s': %s", run_dir, strerror(errno));
	if (!(copy = strdup(abs)))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	ri.run_id = basename(copy);
	ri.path = abs;
	if (!(r = read_run(run_dir, &ri, &ds, err)))
		r = write_run(h, &ri, &ds, err);
	il_dataset_release(&ds);
	free(copy);
	return r;
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
static int known(struct il_history *h, const struct runinfo *ri, char **reason, struct il_err *err)
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

		if ((found = prep(h, sql[i], &st, err)))
			return found;
		bind_text(st, 1, ri->run_id);
		bind_text(st, 2, ri->path);
		sqlite3_bind_int64(st, 3, ri->size);
		sqlite3_bind_int64(st, 4, ri->mtime_ns);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			found = (int)i + 1;
		else if (rc != SQLITE_DONE)
			found = db_fail(h, "cannot read", err);
		if (found == 2 && !(*reason = strdup((const char *)sqlite3_column_text(st, 0))))
			found = il_err_set(err, IL_ENOMEM, "out of memory");
		sqlite3_finalize(st);
	}
	return found;
}

/* Remember that run could not be indexed, and why (tried again when its journal changes). */
static int remember_skip(struct il_history *h, const struct runinfo *ri, const char *reason, struct il_err *err)
{
	sqlite3_stmt *st = NULL;
	int r;

	if ((r = delete_run(h, ri->run_id, err)) ||
	    (r = prep(h, "INSERT INTO skipped (run_id, path, journal_size, journal_mtime_ns, reason) VALUES (?1, ?2, ?3, ?4, ?5)",
		      &st, err)))
		return r;
	bind_text(st, 1, ri->run_id);
	bind_text(st, 2, ri->path);
	sqlite3_bind_int64(st, 3, ri->size);
	sqlite3_bind_int64(st, 4, ri->mtime_ns);
	bind_text(st, 5, reason);
	r = step_done(h, st, err);
	sqlite3_finalize(st);
	return r;
}

/* One run directory of a reports directory: unchanged, indexed, or skipped with its reason. */
static int sync_one(struct il_history *h, const char *dir, const char *name, struct il_history_sync *out,
		    struct il_err *err)
{
	char *rd = il_rundir_join(dir, name), abs[PATH_MAX], *reason = NULL;
	struct runinfo ri = { .run_id = name, .path = abs };
	struct il_dataset ds = { 0 };
	struct il_err e = { 0 };
	int r;

	if (!rd)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	if (!realpath(rd, abs) || journal_stat(rd, &ri.size, &ri.mtime_ns, &e)) {
		free(rd);
		return 0; /* gone since the listing */
	}
	r = known(h, &ri, &reason, err);
	if (r == 1) {
		out->unchanged++;
		r = 0;
	} else if (r == 2) {
		r = push_skip(out, name, reason) ? il_err_set(err, IL_ENOMEM, "out of memory") : 0;
	} else if (r == 0 && read_run(rd, &ri, &ds, &e)) {
		/* a journal that cannot be read: said, remembered, never the end of the others */
		r = push_skip(out, name, e.msg) ? il_err_set(err, IL_ENOMEM, "out of memory") :
						   remember_skip(h, &ri, e.msg, err);
	} else if (r == 0 && !(r = write_run(h, &ri, &ds, err))) {
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
 * stats/nightlyq.h) marks its run alerted.
 */
static int nightly_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	sqlite3_stmt **st = ctx;
	const char *run = json_string_value(json_object_get(rec, "run")), *v = json_string_value(json_object_get(rec, "verdict"));
	const char *type = json_string_value(json_object_get(rec, "type"));

	(void)line, (void)err;
	if (!strcmp(type, "nightly-alert") && run && json_is_true(json_object_get(rec, "delivered"))) {
		bind_text(st[1], 1, strrchr(run, '/') ? strrchr(run, '/') + 1 : run);
		sqlite3_step(st[1]);
		sqlite3_reset(st[1]);
		return 0;
	}
	if (strcmp(type, "nightly") || !run || !v)
		return 0;
	bind_text(*st, 1, strrchr(run, '/') ? strrchr(run, '/') + 1 : run);
	bind_text(*st, 2, v);
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
	if (!(r = exec(h, "DELETE FROM nightly", err)) && !access(jp, F_OK) &&
	    !(r = prep(h, "INSERT OR REPLACE INTO nightly (run_id, verdict, alerted, repeat) VALUES (?1, ?2, ?3, ?4)", &st[0],
		       err)) &&
	    !(r = prep(h, "UPDATE nightly SET alerted = 1 WHERE run_id = ?1", &st[1], err)) &&
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
	if (!(r = exec(h, "BEGIN IMMEDIATE", err))) {
		if (rebuild)
			r = exec(h, drop_sql, err);
		for (size_t i = 0; !r && i < names.n; i++)
			r = sync_one(h, reports_dir, names.v[i], out, err);
		if (!r)
			r = sync_nightly(h, reports_dir, out, err);
		if (!r)
			r = exec(h, "COMMIT", err);
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

/* ---- The series of a plan ---- */

static json_t *col_text(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? json_null() : json_string((const char *)sqlite3_column_text(st, i));
}

static json_t *col_num(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? json_null() : json_real(sqlite3_column_double(st, i));
}

/* The plan's runs (on host) in start order: [{run, path, started, complete, hosts, kernels}]. */
static int runs_json(struct il_history *h, const char *plan, const char *host, json_t *runs, struct il_err *err)
{
	sqlite3_stmt *st = NULL, *hs = NULL, *ks = NULL;
	int r, rc;

	if ((r = prep(h, "SELECT id, r.run_id, path, started, complete, planned, counted, not_counted, n.verdict, n.alerted, "
			 "n.repeat FROM runs r LEFT JOIN nightly n ON n.run_id = r.run_id "
			 "WHERE plan = ?1 AND (?2 IS NULL OR EXISTS (SELECT 1 FROM run_hosts WHERE run = r.id AND host = ?2)) "
			 "ORDER BY started, r.run_id",
		      &st, err)) ||
	    (r = prep(h, "SELECT host FROM run_hosts WHERE run = ?1 ORDER BY rowid", &hs, err)) ||
	    (r = prep(h, "SELECT kernel, commit_id, release FROM run_kernels WHERE run = ?1 ORDER BY rowid", &ks, err)))
		goto cleanup;
	bind_text(st, 1, plan);
	bind_text(st, 2, host);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *hl = json_array(), *kl = json_array(), *o;

		sqlite3_bind_int64(hs, 1, sqlite3_column_int64(st, 0));
		while (sqlite3_step(hs) == SQLITE_ROW)
			json_array_append_new(hl, col_text(hs, 0));
		sqlite3_reset(hs);
		sqlite3_bind_int64(ks, 1, sqlite3_column_int64(st, 0));
		while (sqlite3_step(ks) == SQLITE_ROW)
			json_array_append_new(kl, json_pack("{s:o,s:o,s:o}", "name", col_text(ks, 0), "commit", col_text(ks, 1),
							    "release", col_text(ks, 2)));
		sqlite3_reset(ks);
		o = json_pack("{s:o,s:o,s:o,s:b,s:o,s:I,s:I,s:o,s:o}", "run", col_text(st, 1), "path", col_text(st, 2),
			      "started", col_text(st, 3), "complete", sqlite3_column_int(st, 4),
			      "planned", sqlite3_column_type(st, 5) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(st, 5)),
			      "counted", (json_int_t)sqlite3_column_int64(st, 6), "not_counted",
			      (json_int_t)sqlite3_column_int64(st, 7), "hosts", hl, "kernels", kl);
		if (o && sqlite3_column_type(st, 8) != SQLITE_NULL)
			json_object_set_new(o, "nightly", json_pack("{s:o,s:b,s:b}", "verdict", col_text(st, 8), "alerted",
								     sqlite3_column_int(st, 9), "repeat", sqlite3_column_int(st, 10)));
		if (!o || json_array_append_new(runs, o)) {
			r = il_err_set(err, IL_ENOMEM, "out of memory");
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE)
		r = db_fail(h, "cannot read", err);
cleanup:
	sqlite3_finalize(st);
	sqlite3_finalize(hs);
	sqlite3_finalize(ks);
	return r;
}

/* The plans the index has, for a message ("a, b"; "none"). */
static void plans_known(struct il_history *h, struct il_buf *b)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(h->db, "SELECT DISTINCT plan FROM runs ORDER BY plan", -1, &st, NULL) == SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW && b->len < 300)
			il_buf_printf(b, "%s%s", b->len ? ", " : "", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (!b->len)
		il_buf_adds(b, "none");
}

/* The metric object for key in metrics (made on first sight; index by key in idx). */
static json_t *metric_obj(json_t *metrics, json_t *idx, sqlite3_stmt *st)
{
	const char *key = (const char *)sqlite3_column_text(st, 5);
	json_t *i = json_object_get(idx, key), *m;

	if (i)
		m = json_array_get(metrics, (size_t)json_integer_value(i));
	else if (!(m = json_pack("{s:s,s:o,s:o,s:o,s:o,s:b,s:[]}", "key", key, "workload", col_text(st, 6), "metric",
				 col_text(st, 7), "unit", col_text(st, 8), "better", col_text(st, 9), "idle",
				 sqlite3_column_int(st, 10), "variants")) ||
		 json_object_set_new(idx, key, json_integer((json_int_t)json_array_size(metrics))) ||
		 json_array_append_new(metrics, m))
		return NULL;
	/* unit and direction as the latest run says */
	json_object_set_new(m, "unit", col_text(st, 8));
	json_object_set_new(m, "better", col_text(st, 9));
	return m;
}

/* The points array of variant label in metric m (made on first sight). */
static json_t *variant_points(json_t *m, const char *label)
{
	json_t *vars = json_object_get(m, "variants"), *v;
	size_t i;

	json_array_foreach(vars, i, v)
		if (!strcmp(json_string_value(json_object_get(v, "variant")), label))
			return json_object_get(v, "points");
	v = json_pack("{s:s,s:[]}", "variant", label, "points");
	if (!v || json_array_append_new(vars, v))
		return NULL;
	return json_object_get(v, "points");
}

/* The change of the mean in column i against the last point of pts, in percent (null: no previous point or a 0 mean). */
static json_t *change_pct(const json_t *pts, sqlite3_stmt *st, int i)
{
	const json_t *prev = json_object_get(json_array_get(pts, json_array_size(pts) - 1), "mean");
	double p = json_is_number(prev) ? json_number_value(prev) : NAN, v = sqlite3_column_double(st, i);

	if (sqlite3_column_type(st, i) == SQLITE_NULL || !isfinite(p) || p == 0)
		return json_null();
	return json_real((v - p) / fabs(p) * 100);
}

/* ---- Change points of a variant's means ---- */

/* Whether a change of pct is worse in a metric whose better is better (null: no direction). */
static json_t *worse(const char *better, double pct)
{
	if (!strcmp(better, "higher"))
		return json_boolean(pct < 0);
	if (!strcmp(better, "lower"))
		return json_boolean(pct > 0);
	return json_null();
}

/*
 * The "changes" of variant var of metric m: the change points of the means
 * of its last q->window points that have one. pts[] and x[] are scratch of
 * the points' size.
 */
static int variant_changes(json_t *m, json_t *var, const struct il_history_query *q, const json_t **pts, double *x,
			   struct il_err *err)
{
	json_t *changes = json_array(), *pt;
	struct il_cp *cps = NULL;
	struct il_err e = { 0 };
	size_t n = 0, first, ncp = 0, i;
	int r;

	if (!changes || json_object_set_new(var, "changes", changes))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	json_array_foreach(json_object_get(var, "points"), i, pt)
		if (json_is_number(json_object_get(pt, "mean")))
			pts[n] = pt, x[n++] = json_number_value(json_object_get(pt, "mean"));
	first = q->window && n > q->window ? n - q->window : 0;
	r = il_changepoint_find(x + first, n - first, &q->cp, &cps, &ncp, &e);
	if (r == IL_EINVAL)
		return 0; /* a level of 0 before a change (the options were checked): no percent, no change point */
	if (r)
		return il_err_set(err, r, "%s", e.msg);
	for (i = 0; !r && i < ncp; i++) {
		const json_t *a = pts[first + cps[i].at], *b = pts[first + cps[i].at - 1];

		if (json_array_append_new(changes, json_pack("{s:O,s:O,s:O,s:O,s:f,s:f,s:f,s:f,s:o}", "run",
							     json_object_get(a, "run"), "commit", json_object_get(a, "commit"),
							     "since_run", json_object_get(b, "run"), "since_commit",
							     json_object_get(b, "commit"), "before", cps[i].before, "after",
							     cps[i].after, "change_pct", cps[i].change_pct, "p", cps[i].p,
							     "worse", worse(json_string_value(json_object_get(m, "better")),
									    cps[i].change_pct))))
			r = il_err_set(err, IL_ENOMEM, "out of memory");
	}
	free(cps);
	return r;
}

/* The "changes" of every variant of every metric of mets. */
static int add_changes(json_t *mets, const struct il_history_query *q, struct il_err *err)
{
	json_t *m, *var;
	size_t i, k;
	int r = 0;

	json_array_foreach(mets, i, m)
		json_array_foreach(json_object_get(m, "variants"), k, var) {
			size_t np = json_array_size(json_object_get(var, "points"));
			const json_t **pts = malloc((np + 1) * sizeof(*pts));
			double *x = malloc((np + 1) * sizeof(*x));

			r = pts && x ? variant_changes(m, var, q, pts, x, err) : il_err_set(err, IL_ENOMEM, "out of memory");
			free(pts);
			free(x);
			if (r)
				return r;
		}
	return 0;
}

/* ---- The series ---- */

int il_history_series(struct il_history *h, const struct il_history_query *q, json_t **out, struct il_err *err)
{
	const char *plan = q->plan, *host = q->host;
	const struct il_strlist *metrics = q->metrics;
	json_t *o = json_pack("{s:s,s:s,s:o,s:[],s:[]}", "schema", "idlelab-history/1", "plan", plan, "host",
			      host ? json_string(host) : json_null(), "runs", "metrics");
	json_t *idx = json_object(), *mets = json_object_get(o, "metrics");
	struct il_cp *none = NULL;
	sqlite3_stmt *st = NULL;
	size_t nnone;
	int r, rc;

	*out = NULL;
	/* the options first, so that a series' IL_EINVAL below can only be its level of 0 */
	if ((r = il_changepoint_find(NULL, 0, &q->cp, &none, &nnone, err)))
		goto cleanup;
	if (!o || !idx) {
		r = il_err_set(err, IL_ENOMEM, "out of memory");
		goto cleanup;
	}
	if ((r = runs_json(h, plan, host, json_object_get(o, "runs"), err)))
		goto cleanup;
	if (!json_array_size(json_object_get(o, "runs"))) {
		struct il_buf b = IL_BUF_INIT;

		plans_known(h, &b);
		r = il_err_set(err, IL_ENOTFOUND, "no run of plan '%s'%s%s%s in history '%s' (plans: %s)", plan,
			       host ? " on host '" : "", host ? host : "", host ? "'" : "", h->path, il_buf_str(&b));
		il_buf_release(&b);
		goto cleanup;
	}
	if ((r = prep(h, "SELECT r.run_id, r.started, m.variant, m.kernel, m.commit_id, m.metric_key, m.workload, m.metric, "
			 "m.unit, m.better, m.idle, m.governor, m.n, m.mean, m.median, m.stdev, m.min, m.max "
			 "FROM metrics m JOIN runs r ON r.id = m.run WHERE r.plan = ?1 AND "
			 "(?2 IS NULL OR EXISTS (SELECT 1 FROM run_hosts WHERE run = r.id AND host = ?2)) "
			 "ORDER BY r.started, r.run_id, m.met_idx, m.var_idx",
		      &st, err)))
		goto cleanup;
	bind_text(st, 1, plan);
	bind_text(st, 2, host);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *m, *pts;

		if (!il_dataset_metric_selected((const char *)sqlite3_column_text(st, 5),
						(const char *)sqlite3_column_text(st, 7), metrics))
			continue;
		if (!(m = metric_obj(mets, idx, st)) ||
		    !(pts = variant_points(m, (const char *)sqlite3_column_text(st, 2))) ||
		    json_array_append_new(pts, json_pack("{s:o,s:o,s:o,s:o,s:o,s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "run",
							 col_text(st, 0), "started", col_text(st, 1), "kernel",
							 col_text(st, 3), "commit", col_text(st, 4), "governor",
							 col_text(st, 11), "n", (json_int_t)sqlite3_column_int64(st, 12),
							 "mean", col_num(st, 13), "median", col_num(st, 14), "stdev",
							 col_num(st, 15), "min", col_num(st, 16), "max", col_num(st, 17),
							 "change_pct", change_pct(pts, st, 13)))) {
			r = il_err_set(err, IL_ENOMEM, "out of memory");
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE)
		r = db_fail(h, "cannot read", err);
	else if (!json_array_size(mets) && metrics && metrics->n)
		r = il_err_set(err, IL_ENOTFOUND, "no metric of plan '%s' matches --metric", plan);
	else if (!json_array_size(mets))
		r = il_err_set(err, IL_ENOTFOUND, "the runs of plan '%s' in history '%s' have no counted sample", plan,
			       h->path);
	else
		r = add_changes(mets, q, err);
cleanup:
	sqlite3_finalize(st);
	json_decref(idx);
	if (r)
		json_decref(o);
	else
		*out = o;
	return r;
}
