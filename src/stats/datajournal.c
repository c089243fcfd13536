// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A dataset from a run directory's journal (il_datajournal_add_run), read and
 * checked by run/journalread.h: the run-start record's variants, reference,
 * A/A partner and workloads' metric directions, each counted sample's scores
 * and idle metrics, and the meta (fingerprints, stop) reports read.
 */
#include "stats/dataset.h"

#include "workload/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/journalread.h"
#include "run/plan.h"

/* ---- run journals ---- */

struct jctx {
	struct il_dataset *ds;
	const char *prefix;  /* "" or "run/" when several runs are merged */
	json_t *workloads;   /* from run-start (owned): label -> {metrics: [{name, unit, better}], key_metrics} */
};

static enum il_better better_of(const char *s)
{
	return !s ? IL_BETTER_NONE : !strcmp(s, "higher") ? IL_BETTER_HIGHER : !strcmp(s, "lower") ? IL_BETTER_LOWER :
											  IL_BETTER_NONE;
}

static int add_row(struct il_dataset *ds, const char *group, const char *variant, int iteration, double score,
		   json_t *idle, json_t *matrix)
{
	const json_t *total = json_object_get(idle, "total");
	struct il_row *nr = realloc(ds->rows, (ds->nrows + 1) * sizeof(*nr)), *row;

	if (!nr)
		return IL_ENOMEM;
	ds->rows = nr;
	row = &ds->rows[ds->nrows];
	row->group = strdup(group);
	row->variant = strdup(variant);
	if (!row->group || !row->variant) {
		free(row->group), free(row->variant);
		return IL_ENOMEM;
	}
	row->iteration = iteration;
	row->score = score;
	row->idle = json_is_object(idle) ? json_incref(idle) : NULL;
	row->matrix = json_is_object(matrix) ? json_incref(matrix) : NULL;
#define NUM(k) (json_is_number(json_object_get(total, k)) ? json_number_value(json_object_get(total, k)) : NAN)
	row->idles = NUM("idles");
	row->idle_miss = NUM("idle_miss");
	row->ratio = NUM("miss_ratio");
	row->belows = NUM("belows");
	row->aboves = NUM("aboves");
#undef NUM
	ds->nrows++;
	return 0;
}

static int add_resid(struct il_dataset *ds, const char *group, const char *variant, const char *state, double us,
		     double ts)
{
	struct il_resid *nr;

	for (size_t i = 0; i < ds->nres; i++) {
		struct il_resid *r = &ds->res[i];

		if (!strcmp(r->group, group) && !strcmp(r->variant, variant) && !strcmp(r->state, state)) {
			r->usage_share += us;
			r->time_share += ts;
			r->n++;
			return 0;
		}
	}
	if (!(nr = realloc(ds->res, (ds->nres + 1) * sizeof(*nr))))
		return IL_ENOMEM;
	ds->res = nr;
	nr = &ds->res[ds->nres];
	nr->group = strdup(group);
	nr->variant = strdup(variant);
	nr->state = strdup(state);
	if (!nr->group || !nr->variant || !nr->state) {
		free(nr->group), free(nr->variant), free(nr->state);
		return IL_ENOMEM;
	}
	nr->usage_share = us;
	nr->time_share = ts;
	nr->n = 1;
	ds->nres++;
	return 0;
}

/* A state's unique label: its v2 "key" (name@residency when two share a name), or its v1 "name". */
static const char *state_key(const json_t *st)
{
	const char *k = json_string_value(json_object_get(st, "key"));

	return k ? k : json_string_value(json_object_get(st, "name"));
}

/*
 * The number at key in o as metric PREFIX.key when present (absent in an
 * older idle JSON: no value, never a 0).
 */
struct idle_num {
	const char *key, *unit;
	enum il_better better;
};

/*
 * The absolute floor of an idle metric, by its unit (stats/decide.h): the
 * smallest change that can be a finding, whatever it is relative to a
 * reference near 0. A tenth of a percentage point of misses or shares of
 * entries, one event a sample, a thousandth of a ratio or share, one entry a
 * second; energy and power have none (their readings are not near 0).
 */
static const struct {
	const char *unit;
	double floor;
} idle_floors[] = {
	{ "%", 0.1 }, { "count", 1 }, { "ratio", 0.001 }, { "share", 0.001 }, { "1/s", 1 },
};

/* An idle metric's value, with its unit's absolute floor on its series. */
static int add_idle_value(struct il_dataset *ds, int var, const char *group, const char *metric, const char *unit,
			  enum il_better better, double v, int it)
{
	int r = il_dataset_add_value(ds, var, group, metric, unit, better, true, v, it);

	for (size_t i = 0; !r && i < sizeof(idle_floors) / sizeof(idle_floors[0]); i++)
		if (!strcmp(unit, idle_floors[i].unit))
			il_dataset_set_floor(ds, group, metric, idle_floors[i].floor);
	return r;
}

static int add_nums(struct il_dataset *ds, int var, const char *group, const char *prefix, const json_t *o,
		    const struct idle_num *t, size_t n, int it)
{
	char m[200];
	int r;

	for (size_t i = 0; i < n; i++) {
		json_t *v = json_object_get(o, t[i].key);

		snprintf(m, sizeof(m), "%s.%s", prefix, t[i].key);
		if (json_is_number(v) &&
		    (r = add_idle_value(ds, var, group, m, t[i].unit, t[i].better, json_number_value(v), it)))
			return r;
	}
	return 0;
}

/*
 * A percentage of two counts at keys part and rest of a JSON object:
 * 100 x part / (part + rest), no value when the sum is 0 or a count is absent.
 */
struct idle_pct {
	const char *key, *part, *rest, *unit;
	enum il_better better;
};

static int add_pcts(struct il_dataset *ds, int var, const char *group, const char *prefix, const json_t *o,
		    const struct idle_pct *t, size_t n, int it)
{
	char m[200];
	int r;

	for (size_t i = 0; i < n; i++) {
		json_t *p = json_object_get(o, t[i].part), *q = json_object_get(o, t[i].rest);
		double sum;

		if (!json_is_number(p) || !json_is_number(q) || !((sum = json_number_value(p) + json_number_value(q)) > 0))
			continue;
		snprintf(m, sizeof(m), "%s.%s", prefix, t[i].key);
		if ((r = add_idle_value(ds, var, group, m, t[i].unit, t[i].better, 100 * json_number_value(p) / sum, it)))
			return r;
	}
	return 0;
}

/*
 * A traced sample's idle.trace (docs/formats.md; the reduction is
 * idle/trace.c): the tick decisions as compared metrics. Only the shallow
 * share has a direction: a tick stopped before a shallow state is the
 * governor betting on a long idle period it then spends in a state meant for
 * short ones (the tick's wake-up would have let it pick again); the overall
 * and per-state shares depend on the workload's idle periods as much as on
 * the governor, so they are shown, not judged.
 */
static int add_trace(struct il_dataset *ds, int var, const char *group, const json_t *trace, int it)
{
	static const struct idle_num tot[] = {
		{ "tick_stopped_pct", "%", IL_BETTER_NONE },
		{ "tick_stopped_shallow_pct", "%", IL_BETTER_LOWER },
	};
	static const struct idle_pct state[] = {
		{ "tick_stopped_pct", "tick_stopped", "tick_retained", "%", IL_BETTER_NONE },
	};
	const json_t *e;
	char m[200];
	size_t i;
	int r;

	if ((r = add_nums(ds, var, group, "idle.trace", trace, tot, sizeof(tot) / sizeof(tot[0]), it)))
		return r;
	json_array_foreach(json_object_get(trace, "states"), i, e) {
		if (!state_key(e))
			continue;
		snprintf(m, sizeof(m), "idle.trace.state.%s", state_key(e));
		if ((r = add_pcts(ds, var, group, m, e, state, sizeof(state) / sizeof(state[0]), it)))
			return r;
	}
	return 0;
}

/*
 * Idle metrics of one sample (docs/report.md "Metrics"): totals, per state,
 * per cluster, energy. The idle JSON v2 (docs/formats.md) adds too-deep /
 * too-shallow / miss percentages (100 x aboves, belows, idle_miss over
 * usage, cpuidle_enter_state's meaning of above and below), rejected and
 * poll belows (a v2 journal's poll_timeouts, il_diff_json_upgrade), state keys, and clusters with labels listed only on
 * asymmetric hosts; a v1 journal's clusters (cluster_id groups) keep their
 * idle.clusterN.miss_ratio. A traced sample adds its idle.trace's tick
 * decisions (add_trace).
 */
static int add_idle(struct il_dataset *ds, int var, const char *group, const json_t *idle, int it)
{
	static const struct idle_num tot[] = {
		{ "idles", "count", IL_BETTER_NONE },
		{ "aboves", "count", IL_BETTER_LOWER },
		{ "belows", "count", IL_BETTER_LOWER },
		{ "idle_miss", "count", IL_BETTER_LOWER },
		{ "miss_ratio", "ratio", IL_BETTER_LOWER },
		{ "idles_per_s", "1/s", IL_BETTER_NONE },
		{ "too_deep_pct", "%", IL_BETTER_LOWER },
		{ "too_shallow_pct", "%", IL_BETTER_LOWER },
		{ "miss_pct", "%", IL_BETTER_LOWER },
		{ "rejected", "count", IL_BETTER_NONE },
		{ "poll_belows", "count", IL_BETTER_NONE },
	};
	static const struct idle_num state[] = {
		{ "usage_share", "share", IL_BETTER_NONE },
		{ "time_share", "share", IL_BETTER_NONE },
		{ "too_deep_pct", "%", IL_BETTER_LOWER },
		{ "too_shallow_pct", "%", IL_BETTER_LOWER },
	};
	static const struct idle_num cluster[] = {
		{ "miss_ratio", "ratio", IL_BETTER_LOWER },
		{ "too_deep_pct", "%", IL_BETTER_LOWER },
		{ "too_shallow_pct", "%", IL_BETTER_LOWER },
	};
	const json_t *a, *e, *st;
	char m[200];
	size_t i, k;
	int r;

	if ((r = add_nums(ds, var, group, "idle", json_object_get(idle, "total"), tot, sizeof(tot) / sizeof(tot[0]), it)))
		return r;
	a = json_object_get(idle, "states");
	json_array_foreach(a, i, e) {
		const char *key = state_key(e);
		json_t *us = json_object_get(e, "usage_share"), *ts = json_object_get(e, "time_share");

		if (!key || !json_is_number(us) || !json_is_number(ts))
			continue;
		snprintf(m, sizeof(m), "idle.state.%s", key);
		if ((r = add_nums(ds, var, group, m, e, state, sizeof(state) / sizeof(state[0]), it)) ||
		    (r = add_resid(ds, group, ds->var[var], key, json_number_value(us), json_number_value(ts))))
			return r;
	}
	a = json_object_get(idle, "clusters");
	json_array_foreach(a, i, e) {
		const char *label = json_string_value(json_object_get(e, "label"));
		json_t *cl = json_object_get(e, "cluster"), *mr = json_object_get(e, "miss_ratio");

		if (!label) {
			/* v1: every cluster_id group, worth a metric only when there are several */
			if (json_array_size(a) < 2 || !json_is_integer(cl) || !json_is_number(mr))
				continue;
			snprintf(m, sizeof(m), "idle.cluster%lld.miss_ratio", (long long)json_integer_value(cl));
			if ((r = add_idle_value(ds, var, group, m, "ratio", IL_BETTER_LOWER, json_number_value(mr), it)))
				return r;
			continue;
		}
		snprintf(m, sizeof(m), "idle.cluster.%s", label);
		if ((r = add_nums(ds, var, group, m, e, cluster, sizeof(cluster) / sizeof(cluster[0]), it)))
			return r;
		json_array_foreach(json_object_get(e, "states"), k, st) {
			json_t *ts = json_object_get(st, "time_share");

			if (!state_key(st) || !json_is_number(ts))
				continue;
			snprintf(m, sizeof(m), "idle.cluster.%s.state.%s.time_share", label, state_key(st));
			if ((r = add_idle_value(ds, var, group, m, "share", IL_BETTER_NONE, json_number_value(ts), it)))
				return r;
		}
	}
	e = json_object_get(idle, "energy");
	if (json_is_object(e)) {
		json_t *j = json_object_get(e, "joules"), *w = json_object_get(e, "watts");

		if (json_is_number(j) &&
		    (r = il_dataset_add_value(ds, var, group, "idle.energy_j", "J", IL_BETTER_LOWER, true, json_number_value(j), it)))
			return r;
		if (json_is_number(w) &&
		    (r = il_dataset_add_value(ds, var, group, "idle.power_w", "W", IL_BETTER_LOWER, true, json_number_value(w), it)))
			return r;
	}
	e = json_object_get(idle, "trace");
	if (json_is_object(e) && (r = add_trace(ds, var, group, e, it)))
		return r;
	return 0;
}

/*
 * Whether two variants' kernels are one kernel: the same name, or two
 * built kernels of the same commit (idlelab try's base and its A/A copy
 * base-aa: the same build, booted again).
 */
bool il_datajournal_same_kernel(const json_t *run_start, const json_t *a, const json_t *b)
{
	const json_t *e, *ca = NULL, *cb = NULL;
	size_t i;

	if (json_equal(a, b))
		return true;
	if (!json_is_string(a) || !json_is_string(b))
		return false;
	json_array_foreach(json_object_get(run_start, "kernels"), i, e) {
		if (json_equal(json_object_get(e, "name"), a))
			ca = json_object_get(e, "commit");
		if (json_equal(json_object_get(e, "name"), b))
			cb = json_object_get(e, "commit");
	}
	return json_is_string(ca) && json_equal(ca, cb);
}

/* The release a final sample's kernel ran on, the first one seen: what a Tested-by names as measured. */
static int note_release(struct il_dataset *ds, const json_t *rec, struct il_err *err)
{
	json_t *rels = json_object_get(ds->meta, "kernel_releases"), *rel = json_object_get(rec, "kernel_release");
	const char *k = json_string_value(json_object_get(rec, "kernel"));

	if (!k || !json_is_string(rel) || !json_string_length(rel))
		return 0;
	if (!rels && json_object_set_new(ds->meta, "kernel_releases", rels = json_object()))
		return il_err_oom(err);
	if (!json_object_get(rels, k) && json_object_set(rels, k, rel))
		return il_err_oom(err);
	return 0;
}

/* The meta object, made on first need. */
static json_t *meta(struct il_dataset *ds)
{
	if (!ds->meta)
		ds->meta = json_object();
	return ds->meta;
}

/* The plan's reference and its A/A partner: the same governor, states and kernel (or commit) under another label. */
static int reference(struct jctx *c, const json_t *rec, const json_t *variants)
{
	struct il_dataset *ds = c->ds;
	const char *ref = json_string_value(json_object_get(rec, "reference"));
	const json_t *rv = NULL, *e;
	char label[200];
	size_t i;

	if (ds->reference || !ref)
		return 0;
	snprintf(label, sizeof(label), "%s%s", c->prefix, ref);
	if (!(ds->reference = strdup(label)))
		return IL_ENOMEM;
	json_array_foreach(variants, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "label")), ref))
			rv = e;
	json_array_foreach(variants, i, e) {
		if (!rv || e == rv || ds->aa)
			continue;
		if (json_equal(json_object_get(e, "governor"), json_object_get(rv, "governor")) &&
		    json_equal(json_object_get(e, "disable"), json_object_get(rv, "disable")) &&
		    il_datajournal_same_kernel(rec, json_object_get(e, "kernel"), json_object_get(rv, "kernel"))) {
			snprintf(label, sizeof(label), "%s%s", c->prefix, json_string_value(json_object_get(e, "label")));
			if (!(ds->aa = strdup(label)))
				return IL_ENOMEM;
		}
	}
	return 0;
}

/* The run-start record: its variants (labels prefixed), reference and A/A partner, planned looks, title. */
static int on_start(const struct il_journal_run *run, void *ctx, struct il_err *err)
{
	struct jctx *c = ctx;
	struct il_dataset *ds = c->ds;
	json_t *rec = run->run_start;
	const json_t *e;
	char label[200];
	size_t i;

	c->workloads = json_incref(run->workloads);
	json_array_foreach(run->variants, i, e) {
		snprintf(label, sizeof(label), "%s%s", c->prefix, json_string_value(json_object_get(e, "label")));
		if (il_dataset_add_variant(ds, label) < 0)
			return il_err_oom(err);
	}
	if (reference(c, rec, run->variants))
		return il_err_oom(err);
	/* adaptive iterations {"min", "max"[, "step"]}: every look tests at alpha / its planned looks */
	{
		json_t *its = json_object_get(rec, "adaptive"), *st = json_object_get(its, "step");
		json_int_t lo = json_integer_value(json_object_get(its, "min")),
			   hi = json_integer_value(json_object_get(its, "max")), step = st ? json_integer_value(st) : 1;
		size_t looks;

		if (json_is_object(its) && lo >= 1 && hi >= lo && hi <= 100000 && step >= 1 && step <= 100000 &&
		    (looks = il_plan_adaptive_looks((int)lo, (int)hi, (int)step)) > ds->looks)
			ds->looks = looks, ds->iter_max = (size_t)hi;
	}
	if (!ds->title && json_is_string(json_object_get(rec, "plan_name")) &&
	    !(ds->title = strdup(json_string_value(json_object_get(rec, "plan_name")))))
		return il_err_oom(err);
	if (!meta(ds) || json_object_set(ds->meta, "run_start", rec))
		return il_err_oom(err);
	return 0;
}

/* meta[key][name] = v (meta[key] made on first need); v NULL: nothing. -1: no memory left. */
static int meta_set(struct il_dataset *ds, const char *key, const char *name, json_t *v)
{
	json_t *o;

	if (!meta(ds))
		return -1;
	if (!(o = json_object_get(ds->meta, key)) && json_object_set_new(ds->meta, key, o = json_object()))
		return -1;
	return v && json_object_set(o, name, v) ? -1 : 0;
}

/*
 * A host record: its fingerprint and kind ("local", "ssh", "lab"; absent in
 * journals older than the field). A stop or run-end record as it is.
 */
static int on_meta(const struct il_journal_run *run, json_t *rec, enum il_rec_kind kind, void *ctx,
		   struct il_err *err)
{
	struct jctx *c = ctx;
	struct il_dataset *ds = c->ds;
	const char *host = json_string_value(json_object_get(rec, "host"));
	json_t *k = json_object_get(rec, "kind");
	int bad;

	(void)run;
	if (kind == IL_REC_HOST) {
		bad = meta_set(ds, "fingerprints", host ? host : "", host ? json_object_get(rec, "fingerprint") : NULL);
		if (!bad && host && json_is_string(k))
			bad = meta_set(ds, "host_kinds", host, k);
	} else {
		bad = !meta(ds) || json_object_set(ds->meta, kind == IL_REC_STOP ? "stop" : "run_end", rec);
	}
	return bad ? il_err_oom(err) : 0;
}

/* A final sample: counted when ok (its metrics, idle metrics and row), else skipped; its release noted either way. */
static int on_sample(const struct il_journal_run *run, const struct il_journal_sample *s, void *ctx, struct il_err *err)
{
	struct jctx *c = ctx;
	struct il_dataset *ds = c->ds;
	const json_t *e;
	char label[200];
	double score = NAN;
	int var, r;
	size_t i;

	(void)run;
	if ((r = note_release(ds, s->rec, err)))
		return r;
	if (!s->ok) {
		ds->skipped++;
		return 0;
	}
	snprintf(label, sizeof(label), "%s%s", c->prefix, s->variant);
	if ((var = il_dataset_add_variant(ds, label)) < 0)
		return il_err_oom(err);
	json_array_foreach(s->defs, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		double v = json_number_value(json_object_get(s->metrics, name));

		if (i == 0)
			score = v;
		if (il_dataset_add_value(ds, var, s->workload, name, json_string_value(json_object_get(e, "unit")) ?: "",
					 better_of(json_string_value(json_object_get(e, "better"))), false, v, s->iteration))
			return il_err_oom(err);
	}
	if (s->idle && add_idle(ds, var, s->workload, s->idle, s->iteration))
		return il_err_oom(err);
	if (add_row(ds, s->workload, label, s->iteration, score, s->idle, json_object_get(s->wdef, "matrix")))
		return il_err_oom(err);
	ds->counted++;
	return 0;
}

/*
 * The decision family of one run: each workload's key_metrics from its
 * run-start record (il_workload_key_default for journals older than them).
 * A metric is key when any run merged into ds declares it so.
 */
static void mark_keys(struct il_dataset *ds, const json_t *workloads)
{
	for (size_t i = 0; i < ds->nmet; i++) {
		struct il_mseries *m = &ds->met[i];
		const json_t *w = json_object_get(workloads, m->group), *keys = json_object_get(w, "key_metrics"), *e;
		size_t k;

		if (!w || m->key_metric)
			continue;
		if (json_is_array(keys)) {
			json_array_foreach(keys, k, e)
				if (json_is_string(e) && !strcmp(json_string_value(e), m->metric))
					m->key_metric = true;
			continue;
		}
		if (m->idle) {
			m->key_metric = il_workload_key_default(m->metric, -1);
			continue;
		}
		json_array_foreach(json_object_get(w, "metrics"), k, e)
			if (!strcmp(json_string_value(json_object_get(e, "name")) ?: "", m->metric))
				m->key_metric = il_workload_key_default(m->metric, (long)k);
	}
}

int il_datajournal_add_run(struct il_dataset *ds, const char *run_dir, const char *prefix, struct il_err *err)
{
	static const struct il_journal_reader rd = { .start = on_start, .meta = on_meta, .sample = on_sample };
	struct jctx c = { .ds = ds, .prefix = prefix ? prefix : "" };
	int r = il_journal_read_run(run_dir, &rd, &c, err);

	if (!r)
		mark_keys(ds, c.workloads);
	json_decref(c.workloads);
	return r;
}
