// SPDX-License-Identifier: GPL-2.0-or-later
/* Indexing one run of the history: its rows from its journal (see historydb.h). */
#include "workflow/history.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run/rundir.h"
#include "stats/dataset.h"
#include "workflow/historydb.h"
#include "stats/stats.h"
#include "util/buf.h"
#include "util/str.h"

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

int il_historyrun_delete(struct il_history *h, const char *run_id, struct il_err *err)
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

		if (!(r = il_historydb_prep(h, sql[i], &st, err))) {
			il_historydb_bind_text(st, 1, run_id);
			r = il_historydb_step_done(h, st, err);
		}
		sqlite3_finalize(st);
	}
	return r;
}

/* The runs row; its rowid in *id. */
static int insert_run(struct il_history *h, const struct il_hrun *ri, const struct il_dataset *ds, int64_t *id,
		      struct il_err *err)
{
	const json_t *start = json_object_get(ds->meta, "run_start"), *planned = json_object_get(start, "samples");
	bool complete = json_object_get(ds->meta, "run_end") && json_is_integer(planned) &&
			(json_int_t)(ds->counted + ds->skipped) == json_integer_value(planned);
	sqlite3_stmt *st = NULL;
	int r;

	if ((r = il_historydb_prep(h, "INSERT INTO runs (run_id, path, plan, started, complete, planned, counted, not_counted, "
			 "journal_size, journal_mtime_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
		      &st, err)))
		return r;
	il_historydb_bind_text(st, 1, ri->run_id);
	il_historydb_bind_text(st, 2, ri->path);
	il_historydb_bind_text(st, 3, ds->title);
	il_historydb_bind_text(st, 4, json_string_value(json_object_get(start, "time")));
	sqlite3_bind_int(st, 5, complete);
	if (json_is_integer(planned))
		sqlite3_bind_int64(st, 6, json_integer_value(planned));
	sqlite3_bind_int64(st, 7, (sqlite3_int64)ds->counted);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)ds->skipped);
	sqlite3_bind_int64(st, 9, ri->size);
	sqlite3_bind_int64(st, 10, ri->mtime_ns);
	r = il_historydb_step_done(h, st, err);
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
		r = il_err_oom(err);
	else if (!(r = il_historydb_prep(h, "INSERT INTO run_hosts (run, host) VALUES (?1, ?2)", &hs, err)) &&
		 !(r = il_historydb_prep(h, "INSERT INTO run_kernels (run, kernel, commit_id, release) VALUES (?1, ?2, ?3, ?4)", &ks, err)))
		for (i = 0; !r && i < hosts.n; i++) {
			sqlite3_bind_int64(hs, 1, id);
			il_historydb_bind_text(hs, 2, hosts.v[i]);
			r = il_historydb_step_done(h, hs, err);
		}
	running_release(ds, &rel);
	json_array_foreach(json_object_get(start, "variants"), i, v) {
		const char *k = json_string_value(json_object_get(v, "kernel"));
		bool running;

		if (r || !k || il_strlist_has(&kernels, k))
			continue;
		if (il_strlist_push(&kernels, k)) {
			r = il_err_oom(err);
			break;
		}
		running = !commit_of(start, k) && rel.len;
		sqlite3_bind_int64(ks, 1, id);
		il_historydb_bind_text(ks, 2, k);
		il_historydb_bind_text(ks, 3, commit_of(start, k));
		il_historydb_bind_text(ks, 4, running ? il_buf_str(&rel) : NULL);
		r = il_historydb_step_done(h, ks, err);
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

	if ((r = il_historydb_prep(h, "INSERT INTO metrics (run, variant, var_idx, kernel, commit_id, gov_label, governor, workload, "
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
		char *gov_label = il_str_ndup(ds->var[v], (size_t)gl);

		if (!gov_label)
			return il_err_oom(err);
		for (size_t m = 0; !r && m < ds->nmet; m++) {
			const struct il_mseries *ms = &ds->met[m];
			struct il_desc d;

			if (!ms->var[v].n)
				continue;
			il_stats_desc_compute(ms->var[v].v, ms->var[v].n, &d);
			sqlite3_bind_int64(st, 1, id);
			il_historydb_bind_text(st, 2, ds->var[v]);
			sqlite3_bind_int64(st, 3, (sqlite3_int64)v);
			il_historydb_bind_text(st, 4, kernel ? kernel : "unknown");
			il_historydb_bind_text(st, 5, kernel ? commit_of(start, kernel) : NULL);
			il_historydb_bind_text(st, 6, gov_label);
			il_historydb_bind_text(st, 7, json_string_value(json_object_get(var, "governor")));
			il_historydb_bind_text(st, 8, ms->group);
			il_historydb_bind_text(st, 9, ms->key);
			il_historydb_bind_text(st, 10, ms->metric);
			sqlite3_bind_int64(st, 11, (sqlite3_int64)m);
			sqlite3_bind_int64(st, 12, (sqlite3_int64)d.n);
			il_historydb_bind_num(st, 13, d.mean);
			il_historydb_bind_num(st, 14, d.median);
			il_historydb_bind_num(st, 15, d.stdev);
			il_historydb_bind_num(st, 16, d.min);
			il_historydb_bind_num(st, 17, d.max);
			il_historydb_bind_text(st, 18, ms->unit);
			il_historydb_bind_text(st, 19, il_dataset_better_name(ms->better));
			sqlite3_bind_int(st, 20, ms->idle);
			r = il_historydb_step_done(h, st, err);
		}
		free(gov_label);
	}
	sqlite3_finalize(st);
	return r;
}

/* The journal of run_dir: its size and mtime (ns), what tells a changed run from a known one. */
int il_historyrun_stat(const char *run_dir, int64_t *size, int64_t *mtime_ns, struct il_err *err)
{
	char *j = il_rundir_path(run_dir, IL_RUNDIR_JOURNAL);
	struct stat st;
	int r = 0;

	if (!j)
		return il_err_oom(err);
	if (stat(j, &st))
		r = il_err_set(err, IL_ENOTFOUND, "'%s' has no %s (not a run directory)", run_dir,
			       il_rundir_name(IL_RUNDIR_JOURNAL));
	else
		*size = (int64_t)st.st_size, *mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	free(j);
	return r;
}

/* Write the rows of a read run in one savepoint (inside a rebuild's transaction, or one of its own). */
int il_historyrun_write(struct il_history *h, const struct il_hrun *ri, const struct il_dataset *ds, struct il_err *err)
{
	int64_t id = 0;
	int r;

	if ((r = il_historydb_exec(h, "SAVEPOINT il_run", err)))
		return r;
	if ((r = il_historyrun_delete(h, ri->run_id, err)) || (r = insert_run(h, ri, ds, &id, err)) ||
	    (r = insert_hosts_kernels(h, id, ds, err)) || (r = insert_metrics(h, id, ds, err))) {
		sqlite3_exec(h->db, "ROLLBACK TO il_run; RELEASE il_run", NULL, NULL, NULL);
		return r;
	}
	return il_historydb_exec(h, "RELEASE il_run", err);
}

/*
 * Read run_dir (ri->path: its absolute path) into ds, with its journal's
 * size and mtime into *ri: what makes a run worth indexing. ds: released by
 * the caller, also on failure.
 */
int il_historyrun_read(const char *run_dir, struct il_hrun *ri, struct il_dataset *ds, struct il_err *err)
{
	const json_t *start;
	int r;

	if ((r = il_historyrun_stat(run_dir, &ri->size, &ri->mtime_ns, err)) || (r = il_datajournal_add_run(ds, ri->path, NULL, err)))
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
	struct il_hrun ri = { 0 };
	struct il_dataset ds = { 0 };
	int r;

	if (!realpath(run_dir, abs))
		return il_err_set(err, IL_ENOTFOUND, "cannot find run directory '%s': %s", run_dir, strerror(errno));
	if (!(copy = strdup(abs)))
		return il_err_oom(err);
	ri.run_id = basename(copy);
	ri.path = abs;
	if (!(r = il_historyrun_read(run_dir, &ri, &ds, err)))
		r = il_historyrun_write(h, &ri, &ds, err);
	il_dataset_release(&ds);
	free(copy);
	return r;
}
