// SPDX-License-Identifier: GPL-2.0-or-later
/* A nightly's drift over the last nightlies (see nightlydrift.h). */
#include "workflow/nightlydrift.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/changepoint.h"
#include "workflow/history.h"
#include "stats/stats.h"
#include "util/buf.h"
#include "util/jfields.h"
#include "util/str.h"

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The run ids of this plan's nightlies since the epoch (the baseline record), then the tip's; NULL when memory ran out. */
static json_t *nightly_runs(const struct il_nightly_drift_in *n)
{
	json_t *ids = json_object();
	bool on = !n->epoch;
	int bad = !ids;
	size_t i;
	json_t *r;

	json_array_foreach(n->past, i, r) {
		if (r == n->epoch)
			on = true;
		if (!bad && on && !strcmp(str(r, "type"), "nightly") && strcmp(str(r, "verdict") ?: "", "failed") &&
		    str(r, "run"))
			bad |= json_object_set_new(ids, strrchr(str(r, "run"), '/') ? strrchr(str(r, "run"), '/') + 1 :
										  str(r, "run"),
						   json_true());
	}
	if (bad || json_object_set_new(ids, strrchr(n->run, '/') + 1, json_true())) {
		json_decref(ids);
		return NULL;
	}
	return ids;
}

/*
 * Drift: over the last window nightlies since the epoch, per key metric and
 * variant, the last change point of the means (stats/changepoint.h); one
 * for the worse whose new level the tip is on, beyond the floor, is a
 * regression of kind "drift" unless the comparison with the baseline found
 * that metric already.
 */
static int drift(const struct il_nightly_drift_in *n, json_t *regs, struct il_err *err)
{
	struct il_history *h = NULL;
	struct il_history_sync sync = { 0 };
	struct il_buf db = IL_BUF_INIT;
	struct il_history_query q = { .plan = n->plan, .host = n->host,
				      .metrics = n->metrics };
	struct il_cp_opts cpo = IL_CP_OPTS_INIT;
	json_t *series = NULL, *ids = nightly_runs(n), *m, *v;
	size_t i, j;
	int r;

	if (n->db)
		il_buf_adds(&db, n->db);
	else
		il_buf_printf(&db, "%s/history.sqlite", n->dir);
	if (!ids || il_buf_error(&db)) {
		r = il_err_oom(err);
		goto out;
	}
	cpo.alpha = n->alpha;
	cpo.floor_pct = n->floor_pct;
	q.cp = cpo;
	q.window = (size_t)n->window;
	if ((r = il_history_open(&h, db.p, err)) || (r = il_history_update(h, n->dir, &sync, err)))
		goto out;
	if ((r = il_history_series(h, &q, &series, err))) {
		if (r == IL_ENOTFOUND)
			r = 0; /* no key metric has points yet: nothing to drift */
		goto out;
	}
	json_array_foreach(json_object_get(series, "metrics"), i, m) {
		const char *better = str(m, "better");

		if (!better || !strcmp(better, "none"))
			continue;
		json_array_foreach(json_object_get(m, "variants"), j, v) {
			const json_t *pts = json_object_get(v, "points"), *pt, *already;
			const json_t *used[1000];
			double x[1000];
			size_t k, nx = 0, from = 0, ncp = 0, a;
			struct il_cp *cp = NULL;
			bool found = false;
			int bad = 0;

			json_array_foreach(pts, k, pt)
				if (json_object_get(ids, str(pt, "run")) && json_is_number(json_object_get(pt, "mean")))
					nx++;
			if (nx > (size_t)n->window)
				from = nx - (size_t)n->window;
			nx = 0;
			a = 0;
			json_array_foreach(pts, k, pt)
				if (json_object_get(ids, str(pt, "run")) && json_is_number(json_object_get(pt, "mean")) && a++ >= from) {
					used[nx] = pt;
					x[nx++] = json_number_value(json_object_get(pt, "mean"));
				}
			/* the tip must be the last point: the drift is about where the branch is now */
			if (!nx || strcmp(str(used[nx - 1], "run"), strrchr(n->run, '/') + 1))
				continue;
			json_array_foreach(regs, k, already)
				found |= !strcmp(str(already, "variant"), str(v, "variant")) && !strcmp(str(already, "key"), str(m, "key"));
			if (found || il_changepoint_find(x, nx, &cpo, &cp, &ncp, NULL) || !ncp) {
				free(cp);
				continue;
			}
			{
				const struct il_cp *c = &cp[ncp - 1];
				bool worse = !strcmp(better, "lower") ? c->change_pct > 0 : c->change_pct < 0;

				if (worse) {
					struct il_desc db4, da;

					il_stats_desc_compute(x + (ncp > 1 ? cp[ncp - 2].at : 0), c->at - (ncp > 1 ? cp[ncp - 2].at : 0), &db4);
					il_stats_desc_compute(x + c->at, nx - c->at, &da);
					bad = json_array_append_new(
						regs, json_pack("{s:s,s:O,s:O,s:O,s:O,s:s,s:o,s:o,s:I,s:o,s:o,s:I,s:f,s:f,s:s,s:O,s:O}",
								"variant", str(v, "variant"), "key", json_object_get(m, "key"),
								"workload", json_object_get(m, "workload"), "metric",
								json_object_get(m, "metric"), "unit", json_object_get(m, "unit"),
								"better", better, "baseline_mean", il_jfields_num(c->before), "baseline_stdev",
								il_jfields_num(db4.n > 1 ? db4.stdev : 0), "n_baseline", (json_int_t)db4.n,
								"mean", il_jfields_num(c->after), "stdev", il_jfields_num(da.n > 1 ? da.stdev : 0), "n",
								(json_int_t)da.n, "change_pct", c->change_pct, "p", c->p, "kind",
								"drift", "since", json_object_get(used[c->at], "commit"),
								"since_run", json_object_get(used[c->at], "run")));
				}
			}
			free(cp);
			if (bad) {
				r = il_err_oom(err);
				goto out;
			}
		}
	}
out:
	json_decref(series);
	json_decref(ids);
	il_history_sync_release(&sync);
	il_history_close(h);
	il_buf_release(&db);
	return r;
}

int il_nightly_drift(const struct il_nightly_drift_in *n, json_t *regs, char **note, struct il_err *err)
{
	struct il_err e = { 0 };
	struct il_buf db = IL_BUF_INIT, aside = IL_BUF_INIT;
	int r;

	*note = NULL;
	r = drift(n, regs, &e);

	if (r == IL_EPARSE && !n->db) {
		il_buf_printf(&db, "%s/history.sqlite", n->dir);
		il_buf_printf(&aside, "%s/history.sqlite.damaged", n->dir);
		if (!il_buf_error(&db) && !il_buf_error(&aside) && !rename(db.p, aside.p)) {
			char *was = strdup(e.msg);

			il_err_clear(&e);
			if (!(r = drift(n, regs, &e)) && was)
				*note = il_str_dup_printf("the history index was damaged (%s): moved to %s and made "
								      "again from the runs", was, aside.p);
			free(was);
		}
	}
	il_buf_release(&db), il_buf_release(&aside);
	if (r == IL_ENOMEM || r == IL_EINTR)
		return il_err_set(err, r, "%s", e.msg);
	if (r && !(*note = il_str_dup_printf("the drift over the last nightlies was not judged (%s); the "
							 "verdict is the comparison with the baseline alone", e.msg)))
		return il_err_oom(err);
	return 0;
}
