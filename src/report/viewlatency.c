// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The latency view (views.h, `--view latency`): cyclictest's average and
 * maximum per variant, and the maxima per measured thread, as the nohz_full
 * cyclictest reply tabulates them (seed 003).
 */
#include "report/views.h"
#include "report/viewkit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- latency: cyclictest's average and maximum, and per thread ---- */

/* N of a per-thread maximum "lat_max_tN_us", or -1. */
static int thread_of(const char *metric)
{
	int n, len = 0;

	if (sscanf(metric, "lat_max_t%d_us%n", &n, &len) != 1 || (size_t)len != strlen(metric) || n < 0)
		return -1;
	return n;
}

static double max_of(const struct il_values *s)
{
	double m = NAN;

	for (size_t i = 0; i < s->n; i++)
		if (isnan(m) || s->v[i] > m)
			m = s->v[i];
	return m;
}

int il_viewlatency_build(const struct il_cmp *c, struct il_vout *o)
{
	const struct il_dataset *ds = c->ds;
	struct il_strlist g = { 0 };
	struct il_vtab *lat = NULL, *thr = NULL;
	int r = il_viewkit_groups(ds, &g);

	for (size_t i = 0; !r && i < g.n; i++) {
		const struct il_mseries *avg = il_viewkit_metric(ds, g.v[i], "lat_avg_us");
		const struct il_mseries *max = il_viewkit_metric(ds, g.v[i], "lat_max_us");
		int maxt = -1;

		if (!avg && !max)
			continue;
		if (!lat) {
			lat = il_viewkit_tg_table(o, "latency",
					       "wakeup latency (us): mean per variant, change vs the reference");
			il_vtable_col(o, lat, "n", IL_VK_COUNT);
			il_vtable_col(o, lat, "avg", IL_VK_FIX3);
			il_vtable_col(o, lat, "%change", IL_VK_CHG1);
			il_vtable_col(o, lat, "max", IL_VK_FIX3);
			il_vtable_col(o, lat, "%change", IL_VK_CHG1);
			il_vtable_col(o, lat, "worst", IL_VK_FIX3);
		}
		for (size_t v = 0; v < ds->nvar; v++) {
			const struct il_values *a = avg ? &avg->var[v] : NULL, *m = max ? &max->var[v] : NULL;

			if (!(a && a->n) && !(m && m->n))
				continue;
			il_viewkit_tg_row(o, lat, g.v[i], ds->var[v]);
			il_vtable_n(o, lat, (double)(a && a->n ? a->n : m->n));
			il_vtable_n(o, lat, a ? il_viewkit_mean(a) : NAN);
			il_vtable_n(o, lat, a && (int)v != c->ref ?
					  il_viewkit_change(il_viewkit_mean(a), il_viewkit_mean(&avg->var[c->ref])) : NAN);
			il_vtable_n(o, lat, m ? il_viewkit_mean(m) : NAN);
			il_vtable_n(o, lat, m && (int)v != c->ref ?
					  il_viewkit_change(il_viewkit_mean(m), il_viewkit_mean(&max->var[c->ref])) : NAN);
			il_vtable_n(o, lat, m ? max_of(m) : NAN);
		}
		for (size_t k = 0; k < ds->nmet; k++)
			if (!ds->met[k].idle && !strcmp(ds->met[k].group, g.v[i]) && thread_of(ds->met[k].metric) > maxt)
				maxt = thread_of(ds->met[k].metric);
		if (maxt < 0)
			continue;
		if (!thr) {
			thr = il_vtable_table(o, "threads", "maximum latency per thread (us): mean over the samples, change "
					    "vs the reference");
			il_vtable_col(o, thr, "test", IL_VK_TEXT);
			il_vtable_col(o, thr, "thread", IL_VK_COUNT);
			for (size_t v = 0; v < ds->nvar; v++)
				il_vtable_col(o, thr, ds->var[v], IL_VK_FIX3);
			for (size_t v = 0; v < ds->nvar; v++) {
				char col[200];

				if ((int)v == c->ref)
					continue;
				snprintf(col, sizeof(col), "%%change %s", ds->var[v]);
				il_vtable_col(o, thr, col, IL_VK_CHG1);
			}
		}
		for (int n = 0; n <= maxt; n++) {
			char name[48];
			const struct il_mseries *m;

			snprintf(name, sizeof(name), "lat_max_t%d_us", n);
			if (!(m = il_viewkit_metric(ds, g.v[i], name)))
				continue;
			il_vtable_row(o, thr);
			il_vtable_s(o, thr, g.v[i]);
			il_vtable_n(o, thr, n);
			for (size_t v = 0; v < ds->nvar; v++)
				il_vtable_n(o, thr, il_viewkit_mean(&m->var[v]));
			for (size_t v = 0; v < ds->nvar; v++)
				if ((int)v != c->ref)
					il_vtable_n(o, thr,
						  il_viewkit_change(il_viewkit_mean(&m->var[v]),
								 il_viewkit_mean(&m->var[c->ref])));
		}
	}
	if (!r && !lat)
		il_vtable_note(o, "no latency metrics: no workload of this run has lat_avg_us or lat_max_us (cyclictest's, "
			     "workloads/cyclictest.json)");
	else if (!r)
		il_vtable_note(o, "avg: the mean of the threads' averages; max: the largest thread maximum of a sample, "
			     "mean over the samples; worst: the largest over the samples. cyclictest runs with --nsecs: "
			     "microseconds with nanosecond resolution");
	il_strlist_release(&g);
	return r;
}
