// SPDX-License-Identifier: GPL-2.0-or-later
/* What every table view's builder needs (report/viewkit.h). */
#include "report/viewkit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double il_viewkit_jnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

double il_viewkit_change(double v, double ref)
{
	return isfinite(v) && isfinite(ref) && ref != 0 ? (v - ref) / fabs(ref) * 100 : NAN;
}

double il_viewkit_mean(const struct il_values *s)
{
	double sum = 0;

	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	return s->n ? sum / (double)s->n : NAN;
}

void il_viewkit_avg_add(struct il_view_avg *a, double v)
{
	if (isfinite(v))
		a->sum += v, a->n++;
}

double il_viewkit_avg_get(const struct il_view_avg *a)
{
	return a->n ? a->sum / (double)a->n : NAN;
}

int il_viewkit_groups(const struct il_dataset *ds, struct il_strlist *g)
{
	for (size_t i = 0; i < ds->nrows; i++)
		if (!il_strlist_has(g, ds->rows[i].group) && il_strlist_push(g, ds->rows[i].group))
			return IL_ENOMEM;
	return 0;
}

bool il_viewkit_row_is(const struct il_row *r, const char *group, const char *variant)
{
	return !strcmp(r->group, group) && (!variant || !strcmp(r->variant, variant));
}

const struct il_mseries *il_viewkit_metric(const struct il_dataset *ds, const char *g, const char *metric)
{
	for (size_t i = 0; i < ds->nmet; i++)
		if (!ds->met[i].idle && !strcmp(ds->met[i].group, g) && (!metric || !strcmp(ds->met[i].metric, metric)))
			return &ds->met[i];
	return NULL;
}

const char *il_viewkit_verdict(const struct il_cmp *c, const struct il_mseries *m, size_t v)
{
	for (size_t i = 0; m && i < c->nmet; i++)
		if (&c->ds->met[c->met[i]] == m)
			return il_compare_res(c, i, v)->verdict;
	return "-";
}

const char *il_viewkit_value_text(char *buf, size_t n, const json_t *v)
{
	if (json_is_string(v))
		snprintf(buf, n, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
	else if (json_is_number(v))
		snprintf(buf, n, "%g", json_number_value(v));
	else
		snprintf(buf, n, "-");
	return buf;
}

const char *il_viewkit_state_key(const json_t *st)
{
	const char *k = json_string_value(json_object_get(st, "key"));

	return k ? k : json_string_value(json_object_get(st, "name"));
}

int il_viewkit_keys_add(struct il_view_keys *ks, const json_t *states)
{
	const json_t *st;
	size_t i;

	json_array_foreach(states, i, st) {
		const char *k = il_viewkit_state_key(st);
		size_t at;

		if (!k || il_strlist_has(&ks->k, k) || ks->k.n >= 256)
			continue;
		if (il_strlist_push(&ks->k, k))
			return IL_ENOMEM;
		/* keep the list ordered by the state's index (insertion, stable for equal ones) */
		{
			/* a state without a numeric index (a damaged journal) sorts last, never (int)NaN */
			double ix = il_viewkit_jnum(st, "index");

			ks->idx[ks->k.n - 1] = isfinite(ix) && ix >= 0 && ix < 1e6 ? (int)ix : 1000000;
		}
		for (at = ks->k.n - 1; at > 0 && ks->idx[at - 1] > ks->idx[at]; at--) {
			char *t = ks->k.v[at];
			int ti = ks->idx[at];

			ks->k.v[at] = ks->k.v[at - 1], ks->idx[at] = ks->idx[at - 1];
			ks->k.v[at - 1] = t, ks->idx[at - 1] = ti;
		}
	}
	return 0;
}

const json_t *il_viewkit_state_in(const json_t *states, const char *k)
{
	const json_t *st;
	size_t i;

	json_array_foreach(states, i, st)
		if (il_viewkit_state_key(st) && !strcmp(il_viewkit_state_key(st), k))
			return st;
	return NULL;
}

struct il_vtab *il_viewkit_tg_table(struct il_vout *o, const char *name, const char *title)
{
	struct il_vtab *t = il_vtable_table(o, name, title);

	il_vtable_col(o, t, "test", IL_VK_TEXT);
	il_vtable_col(o, t, "gov", IL_VK_TEXT);
	return t;
}

void il_viewkit_tg_row(struct il_vout *o, struct il_vtab *t, const char *group, const char *variant)
{
	il_vtable_row(o, t);
	il_vtable_s(o, t, group);
	il_vtable_s(o, t, variant);
}
