// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The series of a plan from the history index: its runs, each key metric's
 * points per variant, and the change points of a variant's means (see
 * history.h).
 */
#include "workflow/history.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "stats/changepoint.h"
#include "stats/dataset.h"
#include "workflow/historydb.h"
#include "util/buf.h"

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

	if ((r = il_historydb_prep(h, "SELECT id, r.run_id, path, started, complete, planned, counted, not_counted, n.verdict, n.alerted, "
			 "n.repeat FROM runs r LEFT JOIN nightly n ON n.run_id = r.run_id "
			 "WHERE plan = ?1 AND (?2 IS NULL OR EXISTS (SELECT 1 FROM run_hosts WHERE run = r.id AND host = ?2)) "
			 "ORDER BY started, r.run_id",
		      &st, err)) ||
	    (r = il_historydb_prep(h, "SELECT host FROM run_hosts WHERE run = ?1 ORDER BY rowid", &hs, err)) ||
	    (r = il_historydb_prep(h, "SELECT kernel, commit_id, release FROM run_kernels WHERE run = ?1 ORDER BY rowid", &ks, err)))
		goto cleanup;
	il_historydb_bind_text(st, 1, plan);
	il_historydb_bind_text(st, 2, host);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *hl = json_array(), *kl = json_array(), *o;
		int bad = 0;

		/* a NULL list fails every append (and then the pack below) */
		sqlite3_bind_int64(hs, 1, sqlite3_column_int64(st, 0));
		while (sqlite3_step(hs) == SQLITE_ROW)
			bad |= json_array_append_new(hl, col_text(hs, 0));
		sqlite3_reset(hs);
		sqlite3_bind_int64(ks, 1, sqlite3_column_int64(st, 0));
		while (sqlite3_step(ks) == SQLITE_ROW)
			bad |= json_array_append_new(kl, json_pack("{s:o,s:o,s:o}", "name", col_text(ks, 0), "commit",
								   col_text(ks, 1), "release", col_text(ks, 2)));
		sqlite3_reset(ks);
		if (bad) {
			json_decref(hl), json_decref(kl);
			r = il_err_oom(err);
			goto cleanup;
		}
		o = json_pack("{s:o,s:o,s:o,s:b,s:o,s:I,s:I,s:o,s:o}", "run", col_text(st, 1), "path", col_text(st, 2),
			      "started", col_text(st, 3), "complete", sqlite3_column_int(st, 4),
			      "planned", sqlite3_column_type(st, 5) == SQLITE_NULL ? json_null() : json_integer(sqlite3_column_int64(st, 5)),
			      "counted", (json_int_t)sqlite3_column_int64(st, 6), "not_counted",
			      (json_int_t)sqlite3_column_int64(st, 7), "hosts", hl, "kernels", kl);
		if (o && sqlite3_column_type(st, 8) != SQLITE_NULL &&
		    json_object_set_new(o, "nightly", json_pack("{s:o,s:b,s:b}", "verdict", col_text(st, 8), "alerted",
								 sqlite3_column_int(st, 9), "repeat", sqlite3_column_int(st, 10)))) {
			json_decref(o);
			o = NULL;
		}
		if (!o || json_array_append_new(runs, o)) {
			r = il_err_oom(err);
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE)
		r = il_historydb_fail(h, "cannot read", err);
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
	if (json_object_set_new(m, "unit", col_text(st, 8)) || json_object_set_new(m, "better", col_text(st, 9)))
		return NULL;
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
		return il_err_oom(err);
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
			r = il_err_oom(err);
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

			r = pts && x ? variant_changes(m, var, q, pts, x, err) : il_err_oom(err);
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
		r = il_err_oom(err);
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
	if ((r = il_historydb_prep(h, "SELECT r.run_id, r.started, m.variant, m.kernel, m.commit_id, m.metric_key, m.workload, m.metric, "
			 "m.unit, m.better, m.idle, m.governor, m.n, m.mean, m.median, m.stdev, m.min, m.max "
			 "FROM metrics m JOIN runs r ON r.id = m.run WHERE r.plan = ?1 AND "
			 "(?2 IS NULL OR EXISTS (SELECT 1 FROM run_hosts WHERE run = r.id AND host = ?2)) "
			 "ORDER BY r.started, r.run_id, m.met_idx, m.var_idx",
		      &st, err)))
		goto cleanup;
	il_historydb_bind_text(st, 1, plan);
	il_historydb_bind_text(st, 2, host);
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
			r = il_err_oom(err);
			goto cleanup;
		}
	}
	if (rc != SQLITE_DONE)
		r = il_historydb_fail(h, "cannot read", err);
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
