// SPDX-License-Identifier: GPL-2.0-or-later
/* The JSON report (schema in docs/report.md). */
#include "report/render.h"

#include <math.h>
#include <stdlib.h>

#include "util/json.h"
#include "util/jfields.h"
#include "util/jsonfile.h"

/* Metrics left out by --max-cv: [{key, variant, cv}] (cv null when the mean was 0). */
static json_t *dropped_json(const struct il_cmp *c)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < c->ndropped; i++) {
		const struct il_cmp_dropped *d = &c->dropped[i];

		if (json_array_append_new(a, json_pack("{s:s,s:s,s:o}", "key", c->ds->met[d->met].key, "variant",
						   c->ds->var[d->var], "cv", isfinite(d->cv) ? json_real(d->cv) : json_null()))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* The keys of the metrics the A/A pair made unreliable. */
static json_t *unreliable_keys(const struct il_cmp *c)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < c->nmet; i++)
		if (c->unreliable[i] && json_array_append_new(a, json_string(c->ds->met[c->met[i]].key))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* {"better": N, ...}: comparisons by verdict (the reference's own row is not one) */
static json_t *counts(const size_t *n)
{
	json_t *o = json_object();

	for (int v = 0; o && v < IL_NVERDICTS; v++)
		if (v != IL_VERDICT_REF && json_object_set_new(o, il_decide_verdict_name((enum il_verdict)v),
								json_integer((json_int_t)n[v]))) {
			json_decref(o);
			return NULL;
		}
	return o;
}

/* Metric i's result for variant v: the decision and its inputs, with the values; NULL when memory ran out. */
static json_t *variant_json(const struct il_cmp *c, size_t i, size_t v)
{
	const struct il_mseries *m = &c->ds->met[c->met[i]];
	const struct il_mres *x = il_compare_res(c, i, v);
	json_t *values = json_array(), *e;
	int bad = !values;

	for (size_t k = 0; !bad && k < m->var[v].n; k++)
		bad |= json_array_append_new(values, json_real(m->var[v].v[k]));
	if (bad) {
		json_decref(values);
		return NULL;
	}
	/* json_pack takes values (an "o") even when it fails */
	e = json_pack("{s:s,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:s,s:o,s:o}",
		      "variant", c->ds->var[v], "n", (json_int_t)x->d.n, "mean", il_jfields_num(x->d.mean),
		      "median", il_jfields_num(x->d.median), "stdev", il_jfields_num(x->d.stdev), "cv", il_jfields_num(x->d.cv), "min",
		      il_jfields_num(x->d.min), "max", il_jfields_num(x->d.max), "change_pct", il_jfields_num(x->change_pct),
		      "p_value", il_jfields_num(x->p), "p_raw", il_jfields_num(x->p_raw), "ci_low", il_jfields_num(x->ci_lo), "ci_high",
		      il_jfields_num(x->ci_hi), "ci_method", x->ci_method ? json_string(x->ci_method) : json_null(),
		      "threshold_pct", il_jfields_num(x->threshold_pct), "verdict", x->verdict, "why", x->why,
		      "n_needed", x->n_needed ? json_integer((json_int_t)x->n_needed) : json_null(),
		      "values", values);
	/* the decision's inputs beside its verdict (schema 2); set_new on a NULL e fails and frees the value */
	bad |= json_object_set_new(e, "adjustment",
				   json_string(!c->o.holm || !isfinite(x->p) || (int)v == c->ref ? "none" :
					       c->key[i]					 ? "holm" :
												   "bh"));
	bad |= json_object_set_new(e, "family", json_integer((json_int_t)x->family));
	bad |= json_object_set_new(e, "eq_low_pct", il_jfields_num(x->eq_lo));
	bad |= json_object_set_new(e, "eq_high_pct", il_jfields_num(x->eq_hi));
	bad |= json_object_set_new(e, "exploratory", json_boolean(!c->key[i] && (int)v != c->ref));
	if (bad) {
		json_decref(e);
		return NULL;
	}
	return e;
}

/* Compared metric i: what it is and its result for each variant; NULL when memory ran out. */
static json_t *metric_json(const struct il_cmp *c, size_t i)
{
	const struct il_mseries *m = &c->ds->met[c->met[i]];
	json_t *mo = json_object(), *va = json_array();
	int bad = 0;

	/* each set_new or append_new takes its value even when it fails (a NULL mo or va too) */
	bad |= json_object_set_new(mo, "key", json_string(m->key));
	bad |= json_object_set_new(mo, "group", json_string(m->group));
	bad |= json_object_set_new(mo, "metric", json_string(m->metric));
	bad |= json_object_set_new(mo, "unit", json_string(m->unit));
	bad |= json_object_set_new(mo, "better", json_string(il_dataset_better_name(m->better)));
	bad |= json_object_set_new(mo, "idle", json_boolean(m->idle));
	bad |= json_object_set_new(mo, "key_metric", json_boolean(c->key[i]));
	for (size_t v = 0; !bad && v < c->ds->nvar; v++)
		bad |= json_array_append_new(va, variant_json(c, i, v));
	bad |= json_object_set_new(mo, "variants", va);
	if (bad) {
		json_decref(mo);
		return NULL;
	}
	return mo;
}

json_t *il_report_json(const struct il_cmp *c)
{
	const struct il_dataset *ds = c->ds;
	json_t *o = json_object(), *vars = json_array(), *mets = json_array(), *res = json_array(), *sum;
	struct il_buf s = IL_BUF_INIT;
	int bad = 0;

	if (!il_json_all((json_t *[]){ o, vars, mets, res }, 4))
		return NULL;
	/* each set_new or append_new takes its value even when it fails: vars, mets, res are o's or freed */
	bad |= json_object_set_new(o, "schema", json_string("idlelab-compare/2"));
	bad |= json_object_set_new(o, "title", ds->title ? json_string(ds->title) : json_null());
	bad |= json_object_set_new(o, "reference", json_string(ds->var[c->ref]));
	bad |= json_object_set_new(o, "test", json_string(c->o.test == IL_TEST_MWU ? "mann-whitney-u" : "welch-t"));
	bad |= json_object_set_new(o, "alpha", json_real(c->o.alpha));
	bad |= json_object_set_new(o, "holm", json_boolean(c->o.holm));
	bad |= json_object_set_new(o, "looks", json_integer((json_int_t)c->looks));
	bad |= json_object_set_new(o, "alpha_look", json_real(c->alpha_look));
	bad |= json_object_set_new(o, "key_family_max", json_integer((json_int_t)c->family_max));
	bad |= json_object_set_new(o, "secondary_family", json_integer((json_int_t)c->nsecondary_family));
	bad |= json_object_set_new(o, "stop", json_incref(json_object_get(ds->meta, "stop")) ?: json_null());
	bad |= json_object_set_new(o, "ci_level", json_real(c->o.level));
	bad |= json_object_set_new(o, "noise",
				   json_pack("{s:f,s:f,s:o,s:o}", "floor_pct", c->o.floor_pct, "k", c->o.k, "aa_pair",
					     c->aa >= 0 ? json_pack("[s,s]", ds->var[c->ref], ds->var[c->aa]) : json_null(),
					     "unreliable", unreliable_keys(c)));
	bad |= json_object_set_new(o, "max_cv_pct", c->o.max_cv_pct > 0 ? json_real(c->o.max_cv_pct) : json_null());
	bad |= json_object_set_new(o, "dropped", dropped_json(c));
	bad |= json_object_set_new(o, "samples", json_pack("{s:I,s:I}", "counted", (json_int_t)ds->counted,
							   "not_counted", (json_int_t)ds->skipped));
	for (size_t v = 0; !bad && v < ds->nvar; v++)
		bad |= json_array_append_new(vars, json_string(ds->var[v]));
	bad |= json_object_set_new(o, "variants", vars);
	for (size_t i = 0; !bad && i < c->nmet; i++)
		bad |= json_array_append_new(mets, metric_json(c, i));
	bad |= json_object_set_new(o, "metrics", mets);
	for (size_t i = 0; !bad && i < ds->nres; i++) {
		const struct il_resid *r = &ds->res[i];

		bad |= json_array_append_new(res, json_pack("{s:s,s:s,s:s,s:f,s:f,s:I}", "group", r->group, "variant",
							     r->variant, "state", r->state, "usage_share",
							     r->usage_share / (double)r->n, "time_share",
							     r->time_share / (double)r->n, "n", (json_int_t)r->n));
	}
	bad |= json_object_set_new(o, "residency", res);
	il_compare_sentence(c, &s);
	sum = json_pack("{s:o,s:o,s:b,s:I,s:s}", "key", counts(c->n), "secondary", counts(c->n2), "decided",
			il_compare_decided(c), "n_needed_max", (json_int_t)c->n_needed_max, "sentence", il_buf_str(&s));
	bad |= json_object_set_new(o, "summary", sum);
	if (bad || !il_buf_ok(&s)) {
		json_decref(o);
		o = NULL;
	}
	il_buf_release(&s);
	return o;
}

int il_report_json_text(const struct il_cmp *c, struct il_buf *out)
{
	json_t *j = il_report_json(c);
	char *s = j ? il_json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : NULL;

	json_decref(j);
	if (!s)
		return IL_ENOMEM;
	il_buf_adds(out, s);
	il_buf_adds(out, "\n");
	free(s);
	return il_buf_error(out);
}
