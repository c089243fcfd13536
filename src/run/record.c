// SPDX-License-Identifier: GPL-2.0-or-later
/* The journal's record kinds and fields: one table, used by writers and readers. */
#include "run/record.h"

#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "kernel/kplan.h"
#include "run/plan.h"
#include "util/jfields.h"
#include "version.h"

static const char *const kind_names[IL_REC_NKINDS] = {
	[IL_REC_ANY] = "(any)",
#define IL_REC_KIND_NAME(kind, name) [IL_REC_##kind] = name,
	IL_RECORD_KINDS(IL_REC_KIND_NAME)
#undef IL_REC_KIND_NAME
};

static const struct {
	enum il_rec_kind kind;
	const char *key;
} fields[IL_RF_COUNT] = {
#define IL_REC_FIELD_ROW(kind, field, k) [IL_RF_##kind##_##field] = { IL_REC_##kind, k },
	IL_RECORD_FIELDS(IL_REC_FIELD_ROW)
#undef IL_REC_FIELD_ROW
};

const char *il_record_kind_name(enum il_rec_kind k)
{
	return k < IL_REC_NKINDS ? kind_names[k] : "?";
}

enum il_rec_kind il_record_kind_of(const json_t *rec)
{
	const char *type = json_string_value(json_object_get(rec, "type"));

	for (int k = IL_REC_ANY + 1; type && k < IL_REC_NKINDS; k++)
		if (!strcmp(type, kind_names[k]))
			return (enum il_rec_kind)k;
	return IL_REC_ANY;
}

json_t *il_record_new(enum il_rec_kind k)
{
	json_t *rec = json_object();

	if (rec && json_object_set_new(rec, "type", json_string(il_record_kind_name(k)))) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

static int allowed(enum il_rec_kind k, enum il_rec_field f)
{
	return f < IL_RF_COUNT && (fields[f].kind == IL_REC_ANY || fields[f].kind == k);
}

int il_record_set(json_t *rec, enum il_rec_field f, json_t *v)
{
	if (!allowed(il_record_kind_of(rec), f)) {
		json_decref(v);
		return IL_EINVAL;
	}
	return v && json_object_set_new(rec, fields[f].key, v) ? IL_ENOMEM : 0;
}

int il_record_set_copy(json_t *rec, enum il_rec_field f, json_t *v)
{
	return il_record_set(rec, f, json_incref(v));
}

int il_record_check(const json_t *rec, const char *path, size_t line, struct il_err *err)
{
	enum il_rec_kind k = il_record_kind_of(rec);
	const char *key;
	json_t *v;

	if (k == IL_REC_ANY)
		return 0;
	json_object_foreach((json_t *)rec, key, v) {
		size_t f = 0;

		while (f < IL_RF_COUNT && !(allowed(k, (enum il_rec_field)f) && !strcmp(fields[f].key, key)))
			f++;
		if (f == IL_RF_COUNT)
			return il_err_set(err, IL_EPARSE,
					  "%s:%zu: unknown field '%s' in a %s record (written by another idlelab version?)",
					  path, line, key, kind_names[k]);
	}
	return 0;
}

static json_t *variants_json(const struct il_plan *p)
{
	json_t *vars = json_array();
	int bad = !vars;

	for (size_t k = 0; !bad && k < p->kernels.n; k++)
		for (size_t g = 0; g < p->ngov; g++) {
			struct il_spec s = { .kernel = (int)k, .gov = (int)g };
			char *label = il_plan_variant(p, &s);

			bad |= !label;
			bad |= json_array_append_new(vars, json_pack("{s:s,s:s,s:o,s:o}", "label", label ? label : "?",
								     "kernel", p->kernels.v[k], "governor",
								     p->gov[g].governor ? json_string(p->gov[g].governor) : json_null(),
								     "disable", il_jfields_strlist_json(&p->gov[g].disable)));
			free(label);
		}
	return il_json_whole(vars, bad);
}

static json_t *workloads_json(const struct il_plan *p)
{
	json_t *wls = json_object();
	int bad = !wls;

	for (size_t i = 0; !bad && i < p->nwl; i++) {
		const struct il_workload *w = &p->wl[i].def;
		json_t *ms = json_array(), *o;

		for (size_t m = 0; m < w->nmetrics; m++)
			bad |= json_array_append_new(ms, json_pack("{s:s,s:s,s:s}", "name", w->metrics[m].name, "unit",
								   w->metrics[m].unit, "better",
								   w->metrics[m].higher_better ? "higher" : "lower"));
		o = json_pack("{s:s,s:O,s:o,s:o}", "workload", w->name, "params", p->wl[i].params, "metrics", ms,
			      "key_metrics", il_jfields_strlist_json(&w->key_metrics));
		/* which parameters a matrix varied: reports print them as columns */
		if (o && p->wl[i].matrix)
			bad |= json_object_set(o, "matrix", p->wl[i].matrix);
		bad |= json_object_set_new(wls, p->wl[i].label, o);
	}
	return il_json_whole(wls, bad);
}

/* The reference governor on the first kernel: variant labels carry "@kernel" when there are several. */
static json_t *reference_json(const struct il_plan *p)
{
	struct il_spec ref = { 0 };
	char *label;
	json_t *j;

	for (size_t g = 0; g < p->ngov; g++)
		if (!strcmp(p->gov[g].label, p->reference))
			ref.gov = (int)g;
	label = il_plan_variant(p, &ref);
	j = json_string(label ? label : p->reference);
	free(label);
	return j;
}

json_t *il_record_run_start(const struct il_plan *p, const char *run_dir, size_t samples, const struct il_kvars *kv)
{
	json_t *rec = il_record_new(IL_REC_RUN_START), *vars = variants_json(p), *wls = workloads_json(p);

	/* what reports are regenerated from: a record without them would be no run-start */
	if (!rec || !vars || !wls) {
		json_decref(rec), json_decref(vars), json_decref(wls);
		return NULL;
	}
	il_record_set(rec, IL_RF_RUN_START_RUN_DIR, json_string(run_dir));
	il_record_set(rec, IL_RF_RUN_START_PLAN_NAME, json_string(p->name));
	il_record_set(rec, IL_RF_RUN_START_SAMPLES, json_integer((json_int_t)samples));
	il_record_set(rec, IL_RF_RUN_START_REFERENCE, reference_json(p));
	il_record_set(rec, IL_RF_RUN_START_VARIANTS, vars);
	il_record_set(rec, IL_RF_RUN_START_WORKLOADS, wls);
	il_record_set(rec, IL_RF_RUN_START_ITERATIONS, json_integer(p->iterations));
	/* the step only when a look is not every round: a one-kernel run's record as it always was */
	if (p->iter_min && il_plan_step(p) > 1)
		il_record_set(rec, IL_RF_RUN_START_ADAPTIVE, json_pack("{s:i,s:i,s:i}", "min", p->iter_min, "max", p->iterations,
								    "step", il_plan_step(p)));
	else if (p->iter_min)
		il_record_set(rec, IL_RF_RUN_START_ADAPTIVE, json_pack("{s:i,s:i}", "min", p->iter_min, "max", p->iterations));
	il_record_set(rec, IL_RF_RUN_START_WARMUP, json_integer(p->warmup));
	il_record_set(rec, IL_RF_RUN_START_ORDER, json_string(il_plan_order_name(p->order)));
	il_record_set_copy(rec, IL_RF_RUN_START_PLAN, p->json);
	if (kv->n)
		il_record_set(rec, IL_RF_RUN_START_KERNELS, il_kplan_vars_to_json(kv));
	il_record_set(rec, IL_RF_RUN_START_VERSION, json_string(IL_VERSION));
	return rec;
}
