// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The table views (views.h): one builder per seed table shape, in the
 * views[] table, and their rendering. Builders read the dataset alone: its
 * rows (one per counted sample, with the sample's idle JSON and the
 * workload's matrix) and its metric series; the comparison gives the
 * reference and the verdicts. What every builder needs is viewkit.c's;
 * the latency view is viewlatency.c's, the durations view viewdurations.c's.
 */
#include "report/views.h"
#include "report/viewkit.h"
#include "util/jsonfile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- iterations: Loehle's per-iteration tables ---- */

/* The table an iterations row goes in: its matrix's base label, or "" for plain workloads. */
static const char *table_key(const struct il_row *r)
{
	const char *b = json_string_value(json_object_get(r->matrix, "base"));

	return b ? b : "";
}

static void iter_rows(const struct il_cmp *c, struct il_vout *o, struct il_vtab *t, const char *g,
		      const json_t *mparams)
{
	const struct il_dataset *ds = c->ds;
	const char *ref = ds->var[c->ref];
	const struct il_row *r0 = NULL;

	/* %change against the reference's first counted iteration of the same workload */
	for (size_t i = 0; i < ds->nrows; i++)
		if (il_viewkit_row_is(&ds->rows[i], g, ref) && (!r0 || ds->rows[i].iteration < r0->iteration))
			r0 = &ds->rows[i];
	if (!r0)
		il_vtable_note(o, "%s: no counted sample of the reference %s, so no %%change", g, ref);
	else if (r0->iteration)
		il_vtable_note(o, "%s: %%change is against %s's iteration %d, its first counted one", g, ref,
			     r0->iteration);
	for (size_t v = 0; v < ds->nvar; v++)
		for (size_t i = 0; i < ds->nrows; i++) {
			const struct il_row *r = &ds->rows[i];
			const char *name;
			json_t *val;
			char buf[128];

			if (!il_viewkit_row_is(r, g, ds->var[v]))
				continue;
			il_vtable_row(o, t);
			if (mparams) {
				json_object_foreach((json_t *)mparams, name, val)
					il_vtable_s(o, t, il_viewkit_value_text(buf, sizeof(buf),
								   json_object_get(json_object_get(r->matrix, "params"), name)));
			} else {
				il_vtable_s(o, t, g);
			}
			il_vtable_s(o, t, r->variant);
			il_vtable_n(o, t, r->iteration);
			il_vtable_n(o, t, r->score);
			il_vtable_n(o, t, il_viewkit_change(r->score, r0 ? r0->score : NAN));
			il_vtable_n(o, t, r->idles);
			il_vtable_n(o, t, r->idle_miss);
			il_vtable_n(o, t, r->ratio);
			il_vtable_n(o, t, r->belows);
			il_vtable_n(o, t, r->aboves);
		}
}

static int build_iterations(const struct il_cmp *c, struct il_vout *o)
{
	const struct il_dataset *ds = c->ds;
	struct il_strlist g = { 0 }, tkeys = { 0 };
	int r = il_viewkit_groups(ds, &g);

	for (size_t i = 0; !r && i < ds->nrows; i++)
		if (!il_strlist_has(&tkeys, table_key(&ds->rows[i])) && il_strlist_push(&tkeys, table_key(&ds->rows[i])))
			r = IL_ENOMEM;
	for (size_t k = 0; !r && k < tkeys.n; k++) {
		const char *key = tkeys.v[k], *score = NULL, *name;
		const json_t *mparams = NULL, *val;
		struct il_buf title = IL_BUF_INIT;
		struct il_vtab *t;
		bool same = true;

		/* the score column is named after the metric when every workload of the table has the same one */
		for (size_t i = 0; i < g.n; i++) {
			const struct il_row *first = NULL;
			const struct il_mseries *m = il_view_score(ds, g.v[i]);

			for (size_t x = 0; x < ds->nrows && !first; x++)
				if (il_viewkit_row_is(&ds->rows[x], g.v[i], NULL))
					first = &ds->rows[x];
			if (strcmp(table_key(first), key))
				continue;
			if (!mparams && *key)
				mparams = json_object_get(first->matrix, "params");
			if (m && score && strcmp(score, m->metric))
				same = false;
			if (m && !score)
				score = m->metric;
		}
		if (*key) {
			il_buf_printf(&title, "%s, one workload per", key);
			json_object_foreach((json_t *)mparams, name, val)
				il_buf_printf(&title, " %s", name);
			il_buf_printf(&title, ": %%change of %s vs %s's first iteration", same && score ? score : "the score",
				      ds->var[c->ref]);
		} else {
			il_buf_printf(&title, "per iteration: %%change of the score vs %s's first iteration of the same test",
				      ds->var[c->ref]);
		}
		t = il_vtable_table(o, *key ? key : "iterations", il_buf_str(&title));
		il_buf_release(&title);
		if (mparams) {
			json_object_foreach((json_t *)mparams, name, val)
				il_vtable_col(o, t, name, IL_VK_TEXT);
		} else {
			il_vtable_col(o, t, "test", IL_VK_TEXT);
		}
		il_vtable_col(o, t, "gov", IL_VK_TEXT);
		il_vtable_col(o, t, "iter", IL_VK_COUNT);
		il_vtable_col(o, t, same && score ? score : "score", IL_VK_NUM);
		il_vtable_col(o, t, "%change", IL_VK_CHG0);
		il_vtable_col(o, t, "idles", IL_VK_COUNT);
		il_vtable_col(o, t, "idle_miss", IL_VK_COUNT);
		il_vtable_col(o, t, "ratio", IL_VK_FIX3);
		il_vtable_col(o, t, "belows", IL_VK_COUNT);
		il_vtable_col(o, t, "aboves", IL_VK_COUNT);
		for (size_t i = 0; i < g.n; i++) {
			for (size_t x = 0; x < ds->nrows; x++)
				if (il_viewkit_row_is(&ds->rows[x], g.v[i], NULL)) {
					if (!strcmp(table_key(&ds->rows[x]), key))
						iter_rows(c, o, t, g.v[i], mparams);
					break;
				}
		}
	}
	if (!r && tkeys.n)
		il_vtable_note(o, "%%change = 100 x (score / the reference's first counted iteration of the same workload - "
			     "1), printed as %%.0f like the seed tables; ratio = idle_miss / idles; belows and aboves as "
			     "cpuidle_enter_state counts them (drivers/cpuidle/cpuidle.c)");
	il_strlist_release(&g);
	il_strlist_release(&tkeys);
	return r;
}

/* ---- states: Smythies' score, change, usage per state and package power ---- */

static int build_states(const struct il_cmp *c, struct il_vout *o)
{
	const struct il_dataset *ds = c->ds;
	struct il_strlist g = { 0 };
	struct il_view_keys ks = { 0 };
	const char *score = NULL;
	bool same = true, watts = false;
	struct il_vtab *t;
	int r = il_viewkit_groups(ds, &g);

	for (size_t i = 0; !r && i < ds->nrows; i++) {
		r = il_viewkit_keys_add(&ks, json_object_get(ds->rows[i].idle, "states"));
		watts |= isfinite(il_viewkit_jnum(json_object_get(ds->rows[i].idle, "energy"), "watts"));
	}
	for (size_t i = 0; i < g.n; i++) {
		const struct il_mseries *m = il_view_score(ds, g.v[i]);

		if (m && score && strcmp(score, m->metric))
			same = false;
		if (m && !score)
			score = m->metric;
	}
	t = il_viewkit_tg_table(o, "states",
			     "per variant: mean score, change vs the reference, idle state usage (% of entries), "
			     "package power");
	il_vtable_col(o, t, "n", IL_VK_COUNT);
	il_vtable_col(o, t, same && score ? score : "score", IL_VK_NUM);
	il_vtable_col(o, t, "%change", IL_VK_CHG1);
	il_vtable_col(o, t, "verdict", IL_VK_TEXT);
	for (size_t k = 0; k < ks.k.n; k++) {
		char col[96];

		snprintf(col, sizeof(col), "%s %%", ks.k.v[k]);
		il_vtable_col(o, t, col, IL_VK_FIX1);
	}
	il_vtable_col(o, t, "watts", IL_VK_FIX1);
	for (size_t i = 0; !r && i < g.n; i++) {
		const struct il_mseries *m = il_view_score(ds, g.v[i]);
		double ref = m ? il_viewkit_mean(&m->var[c->ref]) : NAN;

		for (size_t v = 0; v < ds->nvar; v++) {
			struct il_view_avg w = { 0 }, *use = calloc(ks.k.n + 1, sizeof(*use));
			size_t n = 0;

			if (!use) {
				r = IL_ENOMEM;
				break;
			}
			for (size_t x = 0; x < ds->nrows; x++) {
				const struct il_row *row = &ds->rows[x];

				if (!il_viewkit_row_is(row, g.v[i], ds->var[v]))
					continue;
				n++;
				il_viewkit_avg_add(&w, il_viewkit_jnum(json_object_get(row->idle, "energy"), "watts"));
				for (size_t k = 0; k < ks.k.n; k++) {
					const json_t *states = json_object_get(row->idle, "states");

					il_viewkit_avg_add(&use[k], 100 * il_viewkit_jnum(il_viewkit_state_in(states, ks.k.v[k]),
										     "usage_share"));
				}
			}
			if (n) {
				il_viewkit_tg_row(o, t, g.v[i], ds->var[v]);
				il_vtable_n(o, t, (double)n);
				il_vtable_n(o, t, m ? il_viewkit_mean(&m->var[v]) : NAN);
				il_vtable_n(o, t, (int)v == c->ref || !m ? NAN :
						il_viewkit_change(il_viewkit_mean(&m->var[v]), ref));
				il_vtable_s(o, t, il_viewkit_verdict(c, m, v));
				for (size_t k = 0; k < ks.k.n; k++)
					il_vtable_n(o, t, il_viewkit_avg_get(&use[k]));
				il_vtable_n(o, t, il_viewkit_avg_get(&w));
			}
			free(use);
		}
	}
	if (!r) {
		il_vtable_note(o, "state columns: the mean over the samples of the state's share of idle entries (usage); "
			     "%%change: of the mean score vs %s, verdict as in the comparison", ds->var[c->ref]);
		if (!watts)
			il_vtable_note(o, "no package power: the samples have no energy (no powercap package zone or hwmon "
				     "energy counter on the host)");
	}
	il_strlist_release(&ks.k);
	il_strlist_release(&g);
	return r;
}

/* ---- clusters: the Pixel 6 reply's per-cluster residency and misses ---- */

/* A cluster's label in the idle JSON: v2 "label", v1 "cluster<id>" (only when there are several). */
static const char *cluster_label(char *buf, size_t n, const json_t *clusters, const json_t *cl)
{
	const char *l = json_string_value(json_object_get(cl, "label"));

	if (l)
		return l;
	if (json_array_size(clusters) < 2 || !json_is_integer(json_object_get(cl, "cluster")))
		return NULL;
	snprintf(buf, n, "cluster%lld", (long long)json_integer_value(json_object_get(cl, "cluster")));
	return buf;
}

/* The cluster of a sample's idle JSON labelled l, or NULL. */
static const json_t *cluster_in(const json_t *idle, const char *l)
{
	const json_t *a = json_object_get(idle, "clusters"), *cl;
	char buf[48];
	size_t i;

	json_array_foreach(a, i, cl) {
		const char *x = cluster_label(buf, sizeof(buf), a, cl);

		if (x && !strcmp(x, l))
			return cl;
	}
	return NULL;
}

static int build_clusters(const struct il_cmp *c, struct il_vout *o)
{
	const struct il_dataset *ds = c->ds;
	struct il_strlist g = { 0 }, labels = { 0 };
	bool v1 = false;
	struct il_vtab *res, *mis;
	int r = il_viewkit_groups(ds, &g);

	for (size_t i = 0; !r && i < ds->nrows; i++) {
		const json_t *a = json_object_get(ds->rows[i].idle, "clusters"), *cl;
		char buf[48];
		size_t k;

		json_array_foreach(a, k, cl) {
			const char *l = cluster_label(buf, sizeof(buf), a, cl);

			v1 |= l && !json_object_get(cl, "label");
			if (l && !il_strlist_has(&labels, l) && il_strlist_push(&labels, l))
				r = IL_ENOMEM;
		}
	}
	if (!r && !labels.n) {
		il_vtable_note(o, "no clusters: the samples' idle JSON lists none, so the host is symmetric (one CPU "
			     "type; an x86 cluster_id is an L2 group, not a cluster) and there is no per-cluster table; "
			     "see the states view for the whole host");
		goto out;
	}
	res = il_viewkit_tg_table(o, "residency", "per cluster: residency per idle state (mean per sample)");
	il_vtable_col(o, res, "cluster", IL_VK_TEXT);
	il_vtable_col(o, res, "state", IL_VK_TEXT);
	il_vtable_col(o, res, "time_s", IL_VK_FIX3);
	il_vtable_col(o, res, "time %", IL_VK_FIX1);
	mis = il_viewkit_tg_table(o, "misses",
			       "per cluster: too deep % (aboves) and too shallow % (belows) of idle entries");
	il_vtable_col(o, mis, "cluster", IL_VK_TEXT);
	il_vtable_col(o, mis, "cpus", IL_VK_TEXT);
	il_vtable_col(o, mis, "idles", IL_VK_COUNT);
	il_vtable_col(o, mis, "too deep %", IL_VK_FIX2);
	il_vtable_col(o, mis, "too shallow %", IL_VK_FIX2);
	for (size_t i = 0; !r && i < g.n; i++)
		for (size_t v = 0; !r && v < ds->nvar; v++)
			for (size_t l = 0; !r && l < labels.n; l++) {
				struct il_view_keys ks = { 0 };
				double idles = 0, above = 0, below = 0;
				const char *cpus = NULL;
				size_t n = 0;

				for (size_t x = 0; !r && x < ds->nrows; x++) {
					const json_t *cl = cluster_in(ds->rows[x].idle, labels.v[l]);

					if (!cl || !il_viewkit_row_is(&ds->rows[x], g.v[i], ds->var[v]))
						continue;
					r = il_viewkit_keys_add(&ks, json_object_get(cl, "states"));
					cpus = cpus ? cpus : json_string_value(json_object_get(cl, "cpus"));
					/* pooled over the samples: the sums' ratio, as the kernel's counters add up */
					idles += il_viewkit_jnum(cl, "idles"), above += il_viewkit_jnum(cl, "aboves"),
					below += il_viewkit_jnum(cl, "belows");
					n++;
				}
				for (size_t k = 0; n && k < ks.k.n; k++) {
					struct il_view_avg ts = { 0 }, tt = { 0 };

					for (size_t x = 0; x < ds->nrows; x++) {
						const json_t *cx = cluster_in(ds->rows[x].idle, labels.v[l]);
						const json_t *st = il_viewkit_state_in(json_object_get(cx, "states"),
										    ks.k.v[k]);

						if (!st || !il_viewkit_row_is(&ds->rows[x], g.v[i], ds->var[v]))
							continue;
						il_viewkit_avg_add(&ts, il_viewkit_jnum(st, "time_us") / 1e6);
						il_viewkit_avg_add(&tt, 100 * il_viewkit_jnum(st, "time_share"));
					}
					il_viewkit_tg_row(o, res, g.v[i], ds->var[v]);
					il_vtable_s(o, res, labels.v[l]);
					il_vtable_s(o, res, ks.k.v[k]);
					il_vtable_n(o, res, il_viewkit_avg_get(&ts));
					il_vtable_n(o, res, il_viewkit_avg_get(&tt));
				}
				if (n) {
					il_viewkit_tg_row(o, mis, g.v[i], ds->var[v]);
					il_vtable_s(o, mis, labels.v[l]);
					il_vtable_s(o, mis, cpus);
					il_vtable_n(o, mis, idles / (double)n);
					il_vtable_n(o, mis, idles > 0 ? 100 * above / idles : NAN);
					il_vtable_n(o, mis, idles > 0 ? 100 * below / idles : NAN);
				}
				il_strlist_release(&ks.k);
			}
	if (!r) {
		il_vtable_note(o, "time_s: the state's residency summed over the cluster's CPUs, mean per sample; time %%: "
			     "its share of the cluster's idle time. too deep %% = 100 x aboves / idle entries, too "
			     "shallow %% = 100 x belows / idle entries, pooled over the samples (drivers/cpuidle/"
			     "cpuidle.c, cpuidle_enter_state)");
		if (v1)
			il_vtable_note(o, "idle JSON v1: its clusters are every cluster_id group (on x86 an L2 group), "
				     "not only the asymmetric CPU types the v2 JSON lists");
	}
out:
	il_strlist_release(&labels);
	il_strlist_release(&g);
	return r;
}

/* ---- misses: the pgbench patch's metrics and Above/Below usage ---- */

static int build_misses(const struct il_cmp *c, struct il_vout *o)
{
	const struct il_dataset *ds = c->ds;
	struct il_strlist g = { 0 };
	struct il_vtab *met, *use;
	bool poll = false;
	int r = il_viewkit_groups(ds, &g);

	for (size_t i = 0; i < ds->nrows; i++)
		poll |= isfinite(il_viewkit_jnum(json_object_get(ds->rows[i].idle, "total"), "poll_belows"));
	met = il_vtable_table(o, "metrics", "the workload's metrics: mean per variant, change vs the reference");
	il_vtable_col(o, met, "test", IL_VK_TEXT);
	il_vtable_col(o, met, "metric", IL_VK_TEXT);
	il_vtable_col(o, met, "gov", IL_VK_TEXT);
	il_vtable_col(o, met, "n", IL_VK_COUNT);
	il_vtable_col(o, met, "mean", IL_VK_NUM);
	il_vtable_col(o, met, "%change", IL_VK_CHG1);
	il_vtable_col(o, met, "verdict", IL_VK_TEXT);
	for (size_t i = 0; i < g.n; i++)
		for (size_t k = 0; k < ds->nmet; k++) {
			const struct il_mseries *m = &ds->met[k];

			if (m->idle || strcmp(m->group, g.v[i]))
				continue;
			for (size_t v = 0; v < ds->nvar; v++) {
				if (!m->var[v].n)
					continue;
				il_vtable_row(o, met);
				il_vtable_s(o, met, g.v[i]);
				il_vtable_s(o, met, m->metric);
				il_vtable_s(o, met, ds->var[v]);
				il_vtable_n(o, met, (double)m->var[v].n);
				il_vtable_n(o, met, il_viewkit_mean(&m->var[v]));
				il_vtable_n(o, met, (int)v == c->ref ? NAN :
						  il_viewkit_change(il_viewkit_mean(&m->var[v]),
								 il_viewkit_mean(&m->var[c->ref])));
				il_vtable_s(o, met, il_viewkit_verdict(c, m, v));
			}
		}
	use = il_viewkit_tg_table(o, "idle", "idle state usage (mean per sample) and misses (% of all entries)");
	il_vtable_col(o, use, "n", IL_VK_COUNT);
	il_vtable_col(o, use, "total", IL_VK_COUNT);
	il_vtable_col(o, use, "above", IL_VK_COUNT);
	il_vtable_col(o, use, "below", IL_VK_COUNT);
	if (poll)
		il_vtable_col(o, use, "poll_below", IL_VK_COUNT);
	il_vtable_col(o, use, "above %", IL_VK_FIX2);
	il_vtable_col(o, use, "below %", IL_VK_FIX2);
	il_vtable_col(o, use, "miss %", IL_VK_FIX2);
	for (size_t i = 0; !r && i < g.n; i++)
		for (size_t v = 0; v < ds->nvar; v++) {
			double tot = 0, ab = 0, be = 0;
			struct il_view_avg pt = { 0 };
			size_t n = 0;

			for (size_t x = 0; x < ds->nrows; x++) {
				const struct il_row *row = &ds->rows[x];

				if (!il_viewkit_row_is(row, g.v[i], ds->var[v]) || !isfinite(row->idles) ||
				    !isfinite(row->aboves) || !isfinite(row->belows))
					continue;
				tot += row->idles, ab += row->aboves, be += row->belows;
				il_viewkit_avg_add(&pt, il_viewkit_jnum(json_object_get(row->idle, "total"), "poll_belows"));
				n++;
			}
			if (!n)
				continue;
			il_viewkit_tg_row(o, use, g.v[i], ds->var[v]);
			il_vtable_n(o, use, (double)n);
			il_vtable_n(o, use, tot / (double)n);
			il_vtable_n(o, use, ab / (double)n);
			il_vtable_n(o, use, be / (double)n);
			if (poll)
				il_vtable_n(o, use, il_viewkit_avg_get(&pt));
			/* pooled: Above / Total of the columns beside them */
			il_vtable_n(o, use, tot > 0 ? 100 * ab / tot : NAN);
			il_vtable_n(o, use, tot > 0 ? 100 * be / tot : NAN);
			il_vtable_n(o, use, tot > 0 ? 100 * (ab + be) / tot : NAN);
		}
	if (!r) {
		il_vtable_note(o, "total = idle state entries (usage), above = entries that were too deep (left before the "
			     "target residency), below = entries that were too shallow (a deeper enabled state would "
			     "have fit), as cpuidle_enter_state counts them; above %% = above / total, below %% = below / "
			     "total, miss %% = their sum");
		il_vtable_note(o, poll ? "poll_below: the part of below counted by poll states (POLL, snooze): a poll "
				       "that outlasted the next enabled state's target residency, ended by its time "
				       "limit (cpuidle_poll_time()) or by a wakeup alike; the kernel counts it in below "
				       "and fires cpu_idle_miss for it (cpuidle.c)" :
				       "these samples carry no poll_belows (idle JSON v1): a poll state's below is in "
				       "below");
	}
	il_strlist_release(&g);
	return r;
}

/* ---- the views and their rendering ---- */

static const struct {
	const char *name, *seed;
	int (*build)(const struct il_cmp *c, struct il_vout *o);
} views[IL_NVIEW] = {
	[IL_VIEW_ITERATIONS] = { "iterations", "Loehle's per-iteration tables", build_iterations },
	[IL_VIEW_STATES] = { "states", "Smythies' ping-pong summary", build_states },
	[IL_VIEW_CLUSTERS] = { "clusters", "the Pixel 6 per-cluster residency", build_clusters },
	[IL_VIEW_MISSES] = { "misses", "the pgbench Above/Below tables", build_misses },
	[IL_VIEW_LATENCY] = { "latency", "the nohz_full cyclictest reply", il_viewlatency_build },
	[IL_VIEW_DURATIONS] = { "durations", "idle traces: durations and tick decisions", il_viewdurations_build },
};

static const char *view_name(int i)
{
	return views[i].name;
}

int il_views_parse(const char *s, enum il_view *out, struct il_err *err)
{
	int i, r = il_report_pick(s, view_name, IL_NVIEW, "view", &i, err);

	if (!r)
		*out = (enum il_view)i;
	return r;
}

const char *il_views_name(enum il_view v)
{
	return views[v].name;
}

int il_views_build(const struct il_cmp *c, enum il_view v, struct il_vout *out)
{
	int r = views[v].build(c, out);

	return r ? r : il_vtable_error(out);
}

static void header(const struct il_cmp *c, enum il_view v, struct il_buf *b, const char *pre)
{
	const struct il_dataset *ds = c->ds;
	struct il_buf h = IL_BUF_INIT;

	il_buf_printf(&h, "idlelab view %s (%s): %s; reference %s; %zu samples counted, %zu not (warmup/failed)",
		      views[v].name, views[v].seed, ds->title ? ds->title : "(numbers)", ds->var[c->ref], ds->counted,
		      ds->skipped);
	il_buf_adds(b, pre);
	il_report_wrap(b, il_buf_str(&h), 100 - strlen(pre), 2);
	il_buf_adds(b, "\n");
	il_buf_carry(b, &h);
	il_buf_release(&h);
	if (il_report_lab_caveat(ds)) {
		il_buf_adds(b, pre);
		il_report_wrap(b, il_report_lab_caveat(ds), 100 - strlen(pre), 2);
		il_buf_adds(b, "\n");
	}
}

int il_views_report(const struct il_cmp *c, enum il_view v, enum il_fmt f, struct il_buf *out, struct il_err *err)
{
	struct il_vout o = { 0 };
	struct il_buf s = IL_BUF_INIT;
	json_t *j = NULL;
	char *text;
	int r;

	if (f != IL_FMT_TEXT && f != IL_FMT_MD && f != IL_FMT_CSV && f != IL_FMT_JSON)
		return il_err_set(err, IL_EINVAL, "--view %s: the %s format has no table views (text, md, csv or json)",
				  views[v].name, il_report_fmt_name(f));
	if ((r = il_views_build(c, v, &o)))
		goto out;
	if (f == IL_FMT_TEXT || f == IL_FMT_MD) {
		header(c, v, out, f == IL_FMT_MD ? "> " : "");
		il_buf_adds(out, "\n");
		il_vtable_text(&o, f == IL_FMT_MD, out);
		il_buf_adds(&s, "Verdict: ");
		il_compare_sentence(c, &s);
		if (f == IL_FMT_MD) {
			il_buf_adds(out, "\n**Verdict:** ");
			il_report_md_cell(out, il_buf_str(&s) + strlen("Verdict: "));
		} else {
			il_buf_adds(out, "\n");
			il_report_wrap(out, il_buf_str(&s), 100, 2);
		}
		il_buf_adds(out, "\n");
	} else if (f == IL_FMT_CSV) {
		il_vtable_csv(&o, out);
	} else if ((j = json_pack("{s:s,s:s,s:o,s:s,s:{s:I,s:I}}", "schema", "idlelab-view/1", "view", views[v].name,
				  "title", c->ds->title ? json_string(c->ds->title) : json_null(), "reference",
				  c->ds->var[c->ref], "samples", "counted", (json_int_t)c->ds->counted, "not_counted",
				  (json_int_t)c->ds->skipped))) {
		json_t *body = il_vtable_json(&o);

		il_compare_sentence(c, &s);

		if (!body || json_object_update(j, body) ||
		    json_object_set_new(j, "summary", json_string(il_buf_str(&s))))
			r = IL_ENOMEM;
		json_decref(body);
		text = r ? NULL : il_json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		if (text) {
			il_buf_adds(out, text);
			il_buf_adds(out, "\n");
			free(text);
		} else {
			r = IL_ENOMEM;
		}
	} else {
		r = IL_ENOMEM;
	}
	il_buf_carry(out, &s);
	if (!r)
		r = il_buf_error(out);
out:
	json_decref(j);
	il_buf_release(&s);
	il_vtable_release(&o);
	return r ? il_err_set(err, r, "cannot render the %s view: %s", views[v].name, il_err_strerror(r)) : 0;
}
