// SPDX-License-Identifier: GPL-2.0-or-later
/* Comparison datasets: variants and metric series, and building them from number files (journals: datajournal.c). */
#include "stats/dataset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/parse.h"
#include "util/str.h"

void il_dataset_release(struct il_dataset *ds)
{
	for (size_t i = 0; i < ds->nmet; i++) {
		struct il_mseries *m = &ds->met[i];

		free(m->key), free(m->group), free(m->metric), free(m->unit);
		for (size_t v = 0; v < ds->nvar && m->var; v++)
			free(m->var[v].v), free(m->var[v].it);
		free(m->var);
	}
	free(ds->met);
	for (size_t i = 0; i < ds->nrows; i++) {
		free(ds->rows[i].group), free(ds->rows[i].variant);
		json_decref(ds->rows[i].idle), json_decref(ds->rows[i].matrix);
	}
	free(ds->rows);
	for (size_t i = 0; i < ds->nres; i++)
		IL_FREE_ALL(ds->res[i].group, ds->res[i].variant, ds->res[i].state);
	for (size_t i = 0; i < ds->nvar; i++)
		free(ds->var[i]);
	IL_FREE_ALL(ds->res, ds->var, ds->title, ds->reference, ds->aa);
	json_decref(ds->meta);
	memset(ds, 0, sizeof(*ds));
}

void il_dataset_file_direction(struct il_dataset *ds, enum il_better b)
{
	for (size_t i = 0; i < ds->nmet; i++)
		if (!*ds->met[i].group && !ds->met[i].idle)
			ds->met[i].better = b;
}

const char *il_dataset_better_name(enum il_better b)
{
	return b == IL_BETTER_HIGHER ? "higher" : b == IL_BETTER_LOWER ? "lower" : "none";
}

int il_dataset_var(const struct il_dataset *ds, const char *label)
{
	for (size_t i = 0; i < ds->nvar; i++)
		if (!strcmp(ds->var[i], label))
			return (int)i;
	return -1;
}

bool il_dataset_metric_selected(const char *key, const char *metric, const struct il_strlist *only)
{
	if (!only || !only->n)
		return true;
	for (size_t i = 0; i < only->n; i++) {
		const char *s = only->v[i];
		size_t ls = strlen(s), lk = strlen(key);

		if (!strcmp(key, s) || !strcmp(metric, s) || (lk > ls && key[lk - ls - 1] == '.' && !strcmp(key + lk - ls, s)))
			return true;
	}
	return false;
}

static int push_value(struct il_values *s, double v, int it)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		double *nv = realloc(s->v, cap * sizeof(*nv));
		int *ni;

		if (!nv)
			return IL_ENOMEM;
		s->v = nv;
		if (!(ni = realloc(s->it, cap * sizeof(*ni))))
			return IL_ENOMEM;
		s->it = ni;
		s->cap = cap;
	}
	s->it[s->n] = it;
	s->v[s->n++] = v;
	return 0;
}

int il_dataset_add_variant(struct il_dataset *ds, const char *label)
{
	char **nv;
	int i = il_dataset_var(ds, label);

	if (i >= 0)
		return i;
	if (!(nv = realloc(ds->var, (ds->nvar + 1) * sizeof(*nv))))
		return IL_ENOMEM;
	ds->var = nv;
	if (!(ds->var[ds->nvar] = strdup(label)))
		return IL_ENOMEM;
	for (size_t m = 0; m < ds->nmet; m++) {
		struct il_values *s = realloc(ds->met[m].var, (ds->nvar + 1) * sizeof(*s));

		if (!s)
			return IL_ENOMEM;
		memset(&s[ds->nvar], 0, sizeof(*s));
		ds->met[m].var = s;
	}
	return (int)ds->nvar++;
}

/* Whether key is "group.metric" (metric alone for no group), compared in place: every value of a
 * journal looks its series up, and formatting the key each time was a tenth of a compare's load. */
static bool key_is(const char *key, const char *group, const char *metric)
{
	size_t g = strlen(group);

	if (g && (strncmp(key, group, g) || key[g] != '.'))
		return false;
	return !strcmp(key + (g ? g + 1 : 0), metric);
}

/* The metric group.metric, created with unit and direction on first sight; NULL on OOM. */
static struct il_mseries *get_metric(struct il_dataset *ds, const char *group, const char *metric, const char *unit,
				     enum il_better better, bool idle)
{
	struct il_mseries *nm, *m;
	struct il_buf key = IL_BUF_INIT;

	for (size_t i = 0; i < ds->nmet; i++)
		if (key_is(ds->met[i].key, group, metric))
			return &ds->met[i];
	if (*group)
		il_buf_printf(&key, "%s.%s", group, metric);
	else
		il_buf_adds(&key, metric);
	if (!(nm = realloc(ds->met, (ds->nmet + 1) * sizeof(*nm)))) {
		il_buf_release(&key);
		return NULL;
	}
	ds->met = nm;
	m = &ds->met[ds->nmet];
	memset(m, 0, sizeof(*m));
	m->key = il_buf_detach(&key);
	m->group = strdup(group);
	m->metric = strdup(metric);
	m->unit = strdup(unit);
	m->better = better;
	m->idle = idle;
	m->var = calloc(ds->nvar + 1, sizeof(*m->var));
	if (!m->key || !m->group || !m->metric || !m->unit || !m->var) {
		free(m->key), free(m->group), free(m->metric), free(m->unit), free(m->var);
		return NULL;
	}
	ds->nmet++;
	return m;
}

int il_dataset_add_value(struct il_dataset *ds, int var, const char *group, const char *metric, const char *unit,
			 enum il_better better, bool idle, double v, int it)
{
	struct il_mseries *m = get_metric(ds, group, metric, unit, better, idle);

	return m ? push_value(&m->var[var], v, it) : IL_ENOMEM;
}

void il_dataset_set_floor(struct il_dataset *ds, const char *group, const char *metric, double abs_floor)
{
	for (size_t i = 0; i < ds->nmet; i++)
		if (key_is(ds->met[i].key, group, metric))
			ds->met[i].abs_floor = abs_floor;
}

int il_dataset_pick(struct il_dataset *out, const struct il_dataset *src, const char *label, const char *as)
{
	int from = il_dataset_var(src, label), to;

	if (from < 0)
		return IL_ENOTFOUND;
	if ((to = il_dataset_add_variant(out, as)) < 0)
		return IL_ENOMEM;
	for (size_t i = 0; i < src->nmet; i++) {
		const struct il_mseries *m = &src->met[i];
		const struct il_values *v = &m->var[from];

		struct il_mseries *o;

		for (size_t j = 0; j < v->n; j++)
			if (il_dataset_add_value(out, to, m->group, m->metric, m->unit, m->better, m->idle, v->v[j], v->it[j]))
				return IL_ENOMEM;
		/* the family and the floor travel with the metric (a nightly's baseline and tip) */
		if (v->n && (o = get_metric(out, m->group, m->metric, m->unit, m->better, m->idle))) {
			o->key_metric |= m->key_metric;
			o->abs_floor = m->abs_floor;
		}
	}
	if (src->looks > out->looks)
		out->looks = src->looks, out->iter_max = src->iter_max;
	return 0;
}

int il_dataset_add_file(struct il_dataset *ds, const char *path, const char *name, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	const char *p, *end;
	size_t line = 0;
	int var, r;

	if ((r = il_buf_read_file(&b, path, (size_t)1 << 30, err)))
		return r;
	if ((var = il_dataset_add_variant(ds, name)) < 0) {
		il_buf_release(&b);
		return il_err_oom(err);
	}
	if (!ds->reference && !(ds->reference = strdup(name))) {
		il_buf_release(&b);
		return il_err_oom(err);
	}
	if (!get_metric(ds, "", "value", "", IL_BETTER_NONE, false)) {
		il_buf_release(&b);
		return il_err_oom(err);
	}
	p = il_buf_str(&b);
	end = p + b.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *s = p;
		size_t n = (size_t)((nl ? nl : end) - p);
		double v;

		line++;
		p = nl ? nl + 1 : end;
		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
			n--;
		if (!n || *s == '#')
			continue;
		if (il_parse_double(s, n, &v) || !isfinite(v)) {
			r = il_err_set(err, IL_EPARSE, "%s:%zu: '%.*s' is not a finite number", path, line, (int)(n > 40 ? 40 : n),
				       s);
			break;
		}
		if ((r = il_dataset_add_value(ds, var, "", "value", "", IL_BETTER_NONE, false, v, (int)line))) {
			r = il_err_oom(err);
			break;
		}
		ds->counted++;
	}
	il_buf_release(&b);
	if (!r && !ds->met[0].var[var].n)
		r = il_err_set(err, IL_EPARSE, "%s: no numbers in the file", path);
	return r;
}
