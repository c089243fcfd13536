// SPDX-License-Identifier: GPL-2.0-or-later
/* Plan loading/validation and matrix expansion. */
#include "run/plan.h"
#include "run/pmatrix.h"
#include "util/buf.h"
#include "util/str.h"
#include "util/jfields.h"
#include "util/jsonfile.h"
#include "workload/workloadjson.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void il_plan_release(struct il_plan *p)
{
	free(p->name);
	il_strlist_release(&p->hosts);
	il_strlist_release(&p->kernels);
	for (size_t i = 0; i < p->ngov; i++) {
		free(p->gov[i].label);
		free(p->gov[i].governor);
		il_strlist_release(&p->gov[i].disable);
	}
	free(p->gov);
	for (size_t i = 0; i < p->nwl; i++) {
		free(p->wl[i].label);
		free(p->wl[i].name);
		json_decref(p->wl[i].params);
		json_decref(p->wl[i].matrix);
		il_workload_release(&p->wl[i].def);
	}
	IL_FREE_ALL(p->wl, p->cpus, p->reference, p->cpufreq_governor, p->idle_cpus, p->trace);
	il_cpuset_release(&p->idle_cpuset);
	json_decref(p->json);
	memset(p, 0, sizeof(*p));
}

/* Labels and names: what can safely appear in file names, tables and CSV. */
static bool plain_word(const char *s)
{
	return il_str_name_ok(s, "-_.+", 64);
}

#define FAIL(...) do { r = il_err_set(err, IL_EPARSE, __VA_ARGS__); goto fail; } while (0)
#define OOM() do { r = il_err_oom(err); goto fail; } while (0)

/* a as a non-empty array (else an error naming key) and *mem zeroed room for n elements of size bytes. */
static int array_room(const json_t *a, const char *key, size_t n, size_t size, void **mem, const char *label,
		      struct il_err *err)
{
	if (!json_is_array(a) || !json_array_size(a))
		return il_err_set(err, IL_EPARSE, "%s: %s: expected a non-empty array", label, key);
	*mem = calloc(n, size);
	return *mem ? 0 : il_err_oom(err);
}

static int parse_govs(struct il_plan *p, const json_t *a, const char *label, struct il_err *err)
{
	size_t i;
	json_t *e;
	void *mem;
	int r = 0;

	if (!a) {
		/* no governors: measure whatever the host runs, without switching */
		if (!(p->gov = calloc(1, sizeof(*p->gov))) || !(p->gov[0].label = strdup("current")))
			return il_err_oom(err);
		p->ngov = 1;
		return 0;
	}
	if ((r = array_room(a, "governors", json_array_size(a), sizeof(*p->gov), &mem, label, err)))
		return r;
	p->gov = mem;
	json_array_foreach(a, i, e) {
		struct il_govcfg *g = &p->gov[p->ngov++];
		const char *gov = NULL, *lab = NULL;

		if (json_is_string(e)) {
			gov = lab = json_string_value(e);
		} else if (json_is_object(e)) {
			const char *k;
			json_t *v, *d;
			size_t n;

			json_object_foreach(e, k, v) {
				if (strcmp(k, "governor") && strcmp(k, "label") && strcmp(k, "disable"))
					FAIL("%s: governors[%zu].%s: unknown field (governor, label, disable)", label, i, k);
			}
			gov = json_string_value(json_object_get(e, "governor"));
			lab = json_string_value(json_object_get(e, "label"));
			if (json_object_get(e, "governor") && !gov)
				FAIL("%s: governors[%zu].governor: expected a string", label, i);
			if (json_object_get(e, "label") && !lab)
				FAIL("%s: governors[%zu].label: expected a string", label, i);
			if (!gov && !lab)
				FAIL("%s: governors[%zu]: needs \"governor\" or \"label\"", label, i);
			if (!lab)
				lab = gov;
			d = json_object_get(e, "disable");
			if (d && !json_is_array(d))
				FAIL("%s: governors[%zu].disable: expected an array of state names or indices", label, i);
			json_array_foreach(d, n, v) {
				char num[32];
				const char *s = json_string_value(v);

				if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) < 64) {
					snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
					s = num;
				}
				if (!s || !*s || strlen(s) > 64 || strpbrk(s, "/\n\t"))
					FAIL("%s: governors[%zu].disable[%zu]: expected a state name or index", label, i, n);
				if (il_strlist_push(&g->disable, s))
					OOM();
			}
		} else {
			FAIL("%s: governors[%zu]: expected a governor name or an object", label, i);
		}
		if (gov && !plain_word(gov))
			FAIL("%s: governors[%zu]: '%s' is not a governor name", label, i, gov);
		if (!plain_word(lab))
			FAIL("%s: governors[%zu]: label '%s' must be letters, digits, '-', '_', '.', '+'", label, i, lab);
		for (size_t k = 0; k + 1 < p->ngov; k++)
			if (!strcmp(p->gov[k].label, lab))
				FAIL("%s: governors[%zu]: label '%s' is used twice (give an A/A pair distinct labels)",
				     label, i, lab);
		if (!(g->label = strdup(lab)) || (gov && !(g->governor = strdup(gov))))
			OOM();
	}
	return 0;
fail:
	return r;
}

/*
 * One workload of entry i: label lab, the entry's params overrides (NULL:
 * none) with a matrix combination's values on top (NULL: none), its
 * definition loaded and its pattern metrics bound to the resolved params.
 */
static int add_workload(struct il_plan *p, size_t i, const char *name, const char *lab, const json_t *over,
			const json_t *values, const char *wl_dir, const char *label, struct il_err *err)
{
	struct il_plan_wl *w = &p->wl[p->nwl++];
	/* params that are not an object stay as given: il_workload_params names the mistake */
	json_t *all = !over ? json_object() : json_is_object(over) ? json_deep_copy(over) : json_incref((json_t *)over);
	char path[64];
	int r = 0;

	if (!plain_word(lab))
		r = il_err_set(err, IL_EPARSE, "%s: workloads[%zu]: label '%s' must be letters, digits, '-', '_', '.', '+'",
			       label, i, lab);
	for (size_t n = 0; !r && n + 1 < p->nwl; n++)
		if (!strcmp(p->wl[n].label, lab))
			r = il_err_set(err, IL_EPARSE, "%s: workloads[%zu]: label '%s' is used twice", label, i, lab);
	if (!r && (!all || (values && json_is_object(all) && json_object_update(all, (json_t *)values)) ||
		   !(w->label = strdup(lab)) || !(w->name = strdup(name))))
		r = il_err_oom(err);
	snprintf(path, sizeof(path), "workloads[%zu].params", i);
	if (!r && (r = il_workload_load(&w->def, wl_dir, name, err)))
		il_err_prefix(err, "%s: workloads[%zu]: ", label, i);
	else if (!r && ((r = il_workload_params(&w->def, all, path, &w->params, err)) ||
			(r = il_workload_bind_metrics(&w->def, w->params, path, err))))
		il_err_prefix(err, "%s: ", label);
	json_decref(all);
	return r;
}

/* The values of entry i's matrix against workload name's definition, with their own JSON paths. */
static int check_matrix(const json_t *matrix, const json_t *over, const char *name, size_t i, const char *wl_dir,
			const char *label, struct il_err *err)
{
	struct il_workload def;
	int r;

	if ((r = il_workload_load(&def, wl_dir, name, err)))
		return il_err_prefix(err, "%s: workloads[%zu]: ", label, i);
	r = il_pmatrix_check(matrix, over, &def, label, i, err);
	il_workload_release(&def);
	return r;
}

/* A "trace" value (the plan's, or workload entry i's when i != SIZE_MAX) into *on. */
static int trace_kind(const json_t *v, bool *on, const char *label, size_t i, struct il_err *err)
{
	const char *s = json_string_value(v);
	char where[48] = "trace";

	if (i != SIZE_MAX)
		snprintf(where, sizeof(where), "workloads[%zu].trace", i);
	if (!s || (strcmp(s, "idle") && strcmp(s, "none")))
		return il_err_set(err, IL_EPARSE, "%s: %s: expected \"idle\" (an idle trace of each sample) or \"none\"",
				  label, where);
	*on = !strcmp(s, "idle");
	return 0;
}

static int parse_workloads(struct il_plan *p, const json_t *a, const char *wl_dir, const char *label,
			   struct il_err *err)
{
	size_t i, total = 0, n;
	json_t *e;
	void *mem;
	int r = 0;

	/* an entry with a matrix becomes one workload per combination: count them first */
	json_array_foreach(a, i, e) {
		if ((r = il_pmatrix_count(json_is_object(e) ? json_object_get(e, "matrix") : NULL, label, i, &n, err)))
			return r;
		total += n;
	}
	if ((r = array_room(a, "workloads", total, sizeof(*p->wl), &mem, label, err)))
		return r;
	p->wl = mem;
	json_array_foreach(a, i, e) {
		const char *name, *lab, *k;
		const json_t *over = NULL, *matrix = NULL;
		json_t *v;
		bool trace = p->trace && !strcmp(p->trace, "idle");
		size_t first = p->nwl;

		if (json_is_string(e)) {
			name = lab = json_string_value(e);
		} else if (json_is_object(e)) {
			json_object_foreach(e, k, v) {
				if (strcmp(k, "workload") && strcmp(k, "label") && strcmp(k, "params") && strcmp(k, "matrix") &&
				    strcmp(k, "trace"))
					FAIL("%s: workloads[%zu].%s: unknown field (workload, label, params, matrix, trace)",
					     label, i, k);
			}
			name = json_string_value(json_object_get(e, "workload"));
			if (!name)
				FAIL("%s: workloads[%zu].workload: expected a workload name", label, i);
			lab = json_string_value(json_object_get(e, "label"));
			if (json_object_get(e, "label") && !lab)
				FAIL("%s: workloads[%zu].label: expected a string", label, i);
			if (!lab)
				lab = name;
			over = json_object_get(e, "params");
			matrix = json_object_get(e, "matrix");
			if ((v = json_object_get(e, "trace")) && (r = trace_kind(v, &trace, label, i, err)))
				goto fail;
		} else {
			FAIL("%s: workloads[%zu]: expected a workload name or an object", label, i);
		}
		if (!matrix) {
			if ((r = add_workload(p, i, name, lab, over, NULL, wl_dir, label, err)))
				goto fail;
			p->wl[first].trace = trace;
			continue;
		}
		if (!plain_word(lab))
			FAIL("%s: workloads[%zu]: label '%s' must be letters, digits, '-', '_', '.', '+'", label, i, lab);
		if ((r = check_matrix(matrix, over, name, i, wl_dir, label, err)))
			goto fail;
		il_pmatrix_count(matrix, label, i, &n, err);
		for (size_t c = 0; c < n; c++) {
			struct il_buf wl_label = IL_BUF_INIT;
			json_t *values = NULL;

			il_buf_adds(&wl_label, lab);
			if (il_pmatrix_combo(matrix, c, &values, &wl_label)) {
				il_buf_release(&wl_label);
				OOM();
			}
			r = add_workload(p, i, name, il_buf_str(&wl_label), over, values, wl_dir, label, err);
			if (!r && !(p->wl[p->nwl - 1].matrix = json_pack("{s:s,s:O}", "base", lab, "params", values)))
				r = il_err_oom(err);
			json_decref(values);
			il_buf_release(&wl_label);
			if (r)
				goto fail;
			p->wl[p->nwl - 1].trace = trace;
		}
	}
	return 0;
fail:
	return r;
}

/*
 * A CPU list key (*s, NULL when absent) checked and put in canonical form
 * (what the runner passes to taskset); the parsed set is kept in *set when
 * given.
 */
static int canon_cpus(char **s, struct il_cpuset *set, const char *key, const char *label, struct il_err *err)
{
	struct il_cpuset cs = { 0 };
	struct il_buf b = IL_BUF_INIT;
	int r;

	if (!*s)
		return 0;
	if ((r = il_cpuset_parse(&cs, *s, err)))
		return il_err_prefix(err, "%s: %s: ", label, key);
	if (!cs.n || il_cpuset_format(&cs, &b)) {
		il_cpuset_release(&cs);
		il_buf_release(&b);
		return il_err_set(err, IL_EPARSE, "%s: %s: expected a non-empty CPU list", label, key);
	}
	free(*s);
	*s = il_buf_detach(&b);
	if (set)
		*set = cs;
	else
		il_cpuset_release(&cs);
	return *s ? 0 : il_err_oom(err);
}

/* The plan's top-level keys (docs/plan.md); what a table cannot say is checked below. */
#define PLAN_STR(k, m) IL_JF_AT(k, IL_JF_STRING, struct il_plan, m)
#define PLAN_INT(k, lo, hi, m) IL_JF_RANGE(k, IL_JF_INT, lo, hi, struct il_plan, m)
static const struct il_jfield plan_fields[] = {
	{ .key = "name", .type = IL_JF_STRING, .required = true, .what = "a run name", .store = true,
	  .off = offsetof(struct il_plan, name) },
	{ .key = "host", .type = IL_JF_STRING, .what = "a host name" },
	{ .key = "hosts", .type = IL_JF_ARRAY, .what = "a non-empty array of host names" },
	{ .key = "kernels", .type = IL_JF_ARRAY, .what = "a non-empty array" },
	IL_JF("governors", IL_JF_ANY),
	IL_JF("workloads", IL_JF_ANY),
	{ .key = "iterations", .type = IL_JF_ANY },
	PLAN_INT("warmup", 0, 1000, warmup),
	{ .key = "order", .type = IL_JF_STRING, .what = "\"interleave\", \"blocked\" or \"random\"" },
	{ .key = "seed", .type = IL_JF_INT64, .ranged = true, .min = 0, .max = 9.2e18, .what = "a non-negative integer" },
	{ .key = "quiesce_s", .type = IL_JF_NUMBER, .ranged = true, .min = 0, .max = 3600, .what = "seconds in [0, 3600]",
	  .store = true, .off = offsetof(struct il_plan, quiesce_s) },
	PLAN_STR("cpus", cpus),
	PLAN_STR("reference", reference),
	PLAN_INT("retries", 0, 100, retries),
	PLAN_STR("cpufreq_governor", cpufreq_governor),
	PLAN_INT("timeout_s", 1, 7 * 86400, timeout_s),
	{ .key = "min_sample_s", .type = IL_JF_NUMBER, .ranged = true, .min = 0, .max = 86400,
	  .what = "seconds in [0, 86400]", .store = true, .off = offsetof(struct il_plan, min_sample_s) },
	IL_JF_RANGE("min_idles", IL_JF_INT64, 0, 1e15, struct il_plan, min_idles),
	PLAN_STR("idle_cpus", idle_cpus),
	{ .key = "trace", .type = IL_JF_STRING, .what = "\"idle\" or \"none\"", .store = true,
	  .off = offsetof(struct il_plan, trace) },
	PLAN_INT("trace_buffer_kb", 64, 4 << 20, trace_buffer_kb),
	IL_JF_AT("keep_trace", IL_JF_BOOL, struct il_plan, keep_trace),
	IL_JF("description", IL_JF_ANY),
	IL_JF("build", IL_JF_ANY),
	{ .key = "track", .type = IL_JF_OBJECT, .what = "an object (docs/nightly.md)" },
};

int il_plan_from_json(struct il_plan *out, const json_t *j, const char *wl_dir, const char *label,
		      struct il_err *err)
{
	json_t *v;
	size_t i;
	int r = 0;

	*out = (struct il_plan){ .iterations = 5, .retries = 2, .timeout_s = 600, .order = IL_ORDER_BALANCED,
				 .seed = 1, .quiesce_s = -1, .min_sample_s = -1 };
	if ((r = il_jfields_read_as(j, plan_fields, IL_JF_COUNT(plan_fields), out, label, NULL, "field", err)))
		goto fail;
	if (!plain_word(out->name))
		FAIL("%s: name: '%s' must be letters, digits, '-', '_', '.', '+' (it names the run directory)", label,
		     out->name);
	/* hosts */
	if (json_object_get(j, "host") && json_object_get(j, "hosts"))
		FAIL("%s: host/hosts: give one of them", label);
	if ((v = json_object_get(j, "host"))) {
		if (il_strlist_push(&out->hosts, json_string_value(v)))
			OOM();
	} else if ((v = json_object_get(j, "hosts"))) {
		if (!json_is_array(v) || !json_array_size(v))
			FAIL("%s: hosts: expected a non-empty array of host names", label);
		for (i = 0; i < json_array_size(v); i++) {
			const char *h = json_string_value(json_array_get(v, i));

			if (!h)
				FAIL("%s: hosts[%zu]: expected a host name", label, i);
			if (il_strlist_has(&out->hosts, h))
				FAIL("%s: hosts[%zu]: '%s' is listed twice", label, i, h);
			if (il_strlist_push(&out->hosts, h))
				OOM();
		}
	}
	/*
	 * kernels: "running", or built variants (docs/kernels.md) whose final
	 * names (a series expands "%d") are known once the kernel stage has
	 * prepared them: il_plan_set_kernels() puts them in.
	 */
	if ((v = json_object_get(j, "kernels"))) {
		if (!json_is_array(v) || !json_array_size(v))
			FAIL("%s: kernels: expected a non-empty array", label);
		for (i = 0; i < json_array_size(v); i++) {
			json_t *e = json_array_get(v, i);
			const char *n = json_string_value(json_object_get(e, "name"));

			if (!json_is_object(e) || !n)
				FAIL("%s: kernels[%zu].name: expected a string", label, i);
			if (strcmp(n, "running") || json_object_size(e) != 1)
				out->built_kernels = true;
			if (il_strlist_has(&out->kernels, n))
				FAIL("%s: kernels[%zu]: '%s' is listed twice", label, i, n);
			if (il_strlist_push(&out->kernels, n))
				OOM();
		}
	} else if (il_strlist_push(&out->kernels, "running")) {
		OOM();
	}
	if (out->trace) {
		bool on;

		if ((r = trace_kind(json_object_get(j, "trace"), &on, label, SIZE_MAX, err)))
			goto fail;
	}
	if (!out->trace_buffer_kb)
		out->trace_buffer_kb = 8192;
	if ((r = parse_govs(out, json_object_get(j, "governors"), label, err)) ||
	    (r = parse_workloads(out, json_object_get(j, "workloads"), wl_dir, label, err)))
		goto fail;
	if ((v = json_object_get(j, "order"))) {
		const char *o = json_string_value(v);
		int k = IL_NORDERS;

		while (o && k-- > 0 && strcmp(o, il_plan_order_name((enum il_order)k)))
			;
		if (!o || k < 0)
			FAIL("%s: order: expected \"interleave\", \"blocked\", \"random\" or \"balanced\"", label);
		out->order = (enum il_order)k;
	}
	/*
	 * iterations: a count, or {"min", "max"[, "step"]}: rounds until every key comparison is
	 * decided, looked at after min rounds and every step rounds after it (docs/plan.md)
	 */
	if ((v = json_object_get(j, "iterations"))) {
		json_t *lo = json_object_get(v, "min"), *hi = json_object_get(v, "max"), *st = json_object_get(v, "step");

		if (json_is_integer(v) && json_integer_value(v) >= 1 && json_integer_value(v) <= 100000) {
			out->iterations = (int)json_integer_value(v);
		} else if (json_is_object(v) && json_object_size(v) == 2 + !!st && json_is_integer(lo) && json_is_integer(hi) &&
			   json_integer_value(lo) >= 2 && json_integer_value(hi) >= json_integer_value(lo) &&
			   json_integer_value(hi) <= 100000) {
			out->iter_min = (int)json_integer_value(lo);
			out->iterations = (int)json_integer_value(hi);
			if (st && (!json_is_integer(st) || json_integer_value(st) < 1 || json_integer_value(st) > 100000))
				FAIL("%s: iterations.step: expected an integer from 1 to 100000 (rounds between looks)", label);
			out->iter_step = st ? (int)json_integer_value(st) : 0;
		} else {
			FAIL("%s: iterations: expected an integer from 1 to 100000, or {\"min\": N, \"max\": M} with "
			     "2 <= N <= M <= 100000 (and optionally \"step\": rounds between looks)",
			     label);
		}
	}
	if (out->iter_min && (out->order == IL_ORDER_BLOCKED || out->hosts.n > 1))
		FAIL("%s: iterations: {\"min\", \"max\"} (adaptive) needs one host and order interleave, random or balanced: "
		     "the run is judged when every variant's rounds of a stage are complete",
		     label);
	if ((v = json_object_get(j, "seed")))
		out->seed = (uint64_t)json_integer_value(v);
	if ((r = canon_cpus(&out->cpus, NULL, "cpus", label, err)) ||
	    (r = canon_cpus(&out->idle_cpus, &out->idle_cpuset, "idle_cpus", label, err)))
		goto fail;
	if (out->cpufreq_governor && !plain_word(out->cpufreq_governor))
		FAIL("%s: cpufreq_governor: '%s' is not a governor name", label, out->cpufreq_governor);
	if (out->reference) {
		bool found = false;

		for (i = 0; i < out->ngov; i++)
			found |= !strcmp(out->gov[i].label, out->reference);
		if (!found)
			FAIL("%s: reference: '%s' is not one of the governors' labels", label, out->reference);
	} else if (!(out->reference = strdup(out->gov[0].label))) {
		OOM();
	}
	out->json = json_deep_copy(j);
	if (!out->json)
		OOM();
	return 0;
fail:
	il_plan_release(out);
	return r;
}

int il_plan_load(struct il_plan *out, const char *path, const char *wl_dir, struct il_err *err)
{
	json_t *j;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = il_json_load(path, &j, err)))
		return r == IL_ENOTFOUND ? il_err_prefix(err, "cannot read plan: ") : r;
	r = il_plan_from_json(out, j, wl_dir, path, err);
	json_decref(j);
	return r;
}

void il_plan_diff_opts(const struct il_plan *p, struct il_diff_opts *o)
{
	*o = (struct il_diff_opts){ .cpus = p->idle_cpus ? &p->idle_cpuset : NULL, .min_sample_s = p->min_sample_s,
				    .min_idles = p->min_idles > 0 ? (uint64_t)p->min_idles : 0 };
}

int il_plan_set_kernels(struct il_plan *p, const struct il_strlist *names, struct il_err *err)
{
	il_strlist_release(&p->kernels);
	for (size_t i = 0; i < names->n; i++)
		if (il_strlist_push(&p->kernels, names->v[i]))
			return il_err_oom(err);
	return 0;
}

char *il_plan_variant(const struct il_plan *p, const struct il_spec *s)
{
	struct il_buf b = IL_BUF_INIT;

	if (p->kernels.n > 1)
		il_buf_printf(&b, "%s@%s", p->gov[s->gov].label, p->kernels.v[s->kernel]);
	else
		il_buf_adds(&b, p->gov[s->gov].label);
	return il_buf_detach(&b);
}

/* p relative to dir made absolute (dir itself absolute); caller frees */
static char *absolute(const char *dir, const char *p)
{
	struct il_buf b = IL_BUF_INIT;

	if (p[0] == '/')
		il_buf_adds(&b, p);
	else
		il_buf_printf(&b, "%s/%s", dir, p);
	return il_buf_detach(&b);
}

/* o[key], a string, made absolute against dir; -1: no memory left (o[key] as it was) */
static int absolute_at(json_t *o, const char *key, const char *dir)
{
	const char *v = json_string_value(json_object_get(o, key));
	char *a = v ? absolute(dir, v) : NULL;
	int bad = v && (!a || json_object_set_new(o, key, json_string(a)));

	free(a);
	return bad ? -1 : 0;
}

int il_plan_absolutize(json_t *plan, const char *dir)
{
	json_t *build = json_object_get(plan, "build"), *frags = json_object_get(build, "config_fragments"), *f, *k;
	const char *cfg = json_string_value(json_object_get(build, "config"));
	size_t i;
	int bad = 0;

	/* "config" is a file when it has a '/' or is not a make target like "defconfig" */
	if (cfg && (strchr(cfg, '/') || !strstr(cfg, "config")))
		bad |= absolute_at(build, "config", dir);
	json_array_foreach(frags, i, f)
		if (json_is_string(f)) {
			char *a = absolute(dir, json_string_value(f));

			bad |= !a || json_array_set_new(frags, i, json_string(a));
			free(a);
		}
	json_array_foreach(json_object_get(plan, "kernels"), i, k)
		bad |= absolute_at(k, "repo", dir);
	bad |= absolute_at(json_object_get(plan, "track"), "repo", dir);
	return bad ? IL_ENOMEM : 0;
}
