// SPDX-License-Identifier: GPL-2.0-or-later
/* Workload definitions: loading, validation (util/jfields), parameters and argv templates (util/template). */
#include "workload/def.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/jfields.h"
#include "util/jsonfile.h"
#include "util/search.h"
#include "util/template.h"
#include "util/str.h"

const char *il_workloads_dir(const char *dir)
{
	return dir && *dir ? dir : "workloads";
}

void il_workload_release(struct il_workload *w)
{
	json_decref(w->argv);
	for (size_t i = 0; i < w->nparams; i++) {
		IL_FREE_ALL(w->params[i].name, w->params[i].help);
		json_decref(w->params[i].def);
		il_strlist_release(&w->params[i].choices);
	}
	for (size_t i = 0; i < w->nmetrics; i++)
		IL_FREE_ALL(w->metrics[i].name, w->metrics[i].unit, w->metrics[i].help, w->metrics[i].count);
	il_strlist_release(&w->requires);
	il_strlist_release(&w->key_metrics);
	IL_FREE_ALL(w->name, w->description, w->notes, w->params, w->parser, w->metrics, w->path);
	memset(w, 0, sizeof(*w));
}

static bool valid_ident(const char *s)
{
	return il_str_name_ok(s, "_-.", 64);
}

static const struct il_wl_param *find_param(const struct il_workload *w, const char *name)
{
	for (size_t i = 0; i < w->nparams; i++)
		if (!strcmp(w->params[i].name, name))
			return &w->params[i];
	return NULL;
}

const struct il_wl_metric *il_workload_metric(const struct il_workload *w, const char *name)
{
	for (size_t i = 0; i < w->nmetrics; i++)
		if (!strcmp(w->metrics[i].name, name))
			return &w->metrics[i];
	return NULL;
}

static const char *type_name(enum il_param_type t)
{
	static const char *const names[] = { "integer", "number", "string", "boolean" };

	return names[t];
}

/* Check v against p; path names it in errors. */
static int check_value(const struct il_wl_param *p, const json_t *v, const char *where, struct il_err *err)
{
	double x;

	switch (p->type) {
	case IL_PARAM_INT:
		if (!json_is_integer(v))
			return il_err_set(err, IL_EPARSE, "%s: expected integer", where);
		x = (double)json_integer_value(v);
		break;
	case IL_PARAM_NUM:
		if (!json_is_number(v) || !isfinite(json_number_value(v)))
			return il_err_set(err, IL_EPARSE, "%s: expected number", where);
		x = json_number_value(v);
		break;
	case IL_PARAM_BOOL:
		if (!json_is_boolean(v))
			return il_err_set(err, IL_EPARSE, "%s: expected true or false", where);
		return 0;
	default: {
		const char *s;

		if (!json_is_string(v))
			return il_err_set(err, IL_EPARSE, "%s: expected string", where);
		s = json_string_value(v);
		if (strlen(s) != json_string_length(v))
			return il_err_set(err, IL_EPARSE, "%s: contains a NUL byte", where);
		if (p->choices.n && !il_strlist_has(&p->choices, s)) {
			struct il_buf b = IL_BUF_INIT;
			int r;

			il_strlist_join(&p->choices, &b);
			r = il_err_set(err, IL_EPARSE, "%s: '%s' is not one of: %s", where, s, il_buf_str(&b));
			il_buf_release(&b);
			return r;
		}
		return 0;
	}
	}
	if (p->has_min && x < p->min)
		return il_err_set(err, IL_EPARSE, "%s: %g is below the minimum %g", where, x, p->min);
	if (p->has_max && x > p->max)
		return il_err_set(err, IL_EPARSE, "%s: %g is above the maximum %g", where, x, p->max);
	return 0;
}

static const struct il_jfield param_fields[] = {
	{ .key = "type", .type = IL_JF_STRING, .required = true,
	  .what = "\"integer\", \"number\", \"string\" or \"boolean\"" },
	{ .key = "default", .type = IL_JF_ANY, .required = true, .what = "a value (every parameter has a default)" },
	IL_JF_AT("min", IL_JF_NUMBER, struct il_wl_param, min),
	IL_JF_AT("max", IL_JF_NUMBER, struct il_wl_param, max),
	{ .key = "choices", .type = IL_JF_STRINGS, .what = "an array of strings (string parameters only)", .store = true,
	  .off = offsetof(struct il_wl_param, choices) },
	IL_JF_AT("help", IL_JF_STRING, struct il_wl_param, help),
};

/* The index of s in names[0..n), or -1. */
static int name_index(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

/*
 * What a parameter and a metric entry start with: path gets "SECTION.NAME"
 * (for messages), NAME must be a valid identifier (else the error names
 * NOUNs), *name_out a copy of it, and fields are read into obj.
 */
static int parse_entry(const char *section, const char *noun, const char *name, const json_t *j,
		       const struct il_jfield *fields, size_t nfields, void *obj, char **name_out, char *path,
		       size_t pathsz, const char *label, struct il_err *err)
{
	char probe[80];
	const char *n = strstr(name, "{n}");

	il_jf_path(path, pathsz, section, name, 0);
	/* a metric pattern's "{n}" stands for digits: the name must be valid with them */
	if (n && !strcmp(section, "metrics") && !strstr(n + 3, "{n}"))
		snprintf(probe, sizeof(probe), "%.*s0%s", (int)(n - name), name, n + 3);
	else
		snprintf(probe, sizeof(probe), "%s", name);
	if (strlen(name) > 64 || !valid_ident(probe))
		return il_jf_bad(err, label, section, NULL, "%s names of letters, digits, '_', '-', '.' (not '%s')", noun,
				 name);
	if (!(*name_out = strdup(name)))
		return il_err_oom(err);
	return il_jf_read_as(j, fields, nfields, obj, label, path, "field", err);
}

static int parse_param(void *entry, const char *name, const json_t *j, const char *label, struct il_err *err)
{
	struct il_wl_param *p = entry;
	static const char *const types[] = {
		[IL_PARAM_INT] = "integer", [IL_PARAM_NUM] = "number", [IL_PARAM_STR] = "string", [IL_PARAM_BOOL] = "boolean",
	};
	char path[128], where[512];
	int r, k;

	if ((r = parse_entry("params", "parameter", name, j, param_fields, IL_JF_COUNT(param_fields), p, &p->name, path,
			     sizeof(path), label, err)))
		return r;
	if ((k = name_index(json_string_value(json_object_get(j, "type")), types, IL_PARAM_BOOL + 1)) < 0)
		return il_jf_bad(err, label, path, "type", "%s", param_fields[0].what);
	p->type = (enum il_param_type)k;
	p->has_min = il_jf_get(j, "min") != NULL;
	p->has_max = il_jf_get(j, "max") != NULL;
	if (p->choices.n && p->type != IL_PARAM_STR)
		return il_jf_bad(err, label, path, "choices", "%s", param_fields[4].what);
	snprintf(where, sizeof(where), "%s: %s.default", label, path);
	if ((r = check_value(p, il_jf_get(j, "default"), where, err)))
		return r;
	p->def = json_incref((json_t *)il_jf_get(j, "default"));
	return 0;
}

static const struct il_jfield metric_fields[] = {
	{ .key = "unit", .type = IL_JF_STRING, .required = true, .store = true, .off = offsetof(struct il_wl_metric, unit) },
	{ .key = "better", .type = IL_JF_STRING, .required = true, .what = "\"higher\" or \"lower\"" },
	IL_JF_AT("help", IL_JF_STRING, struct il_wl_metric, help),
	{ .key = "count", .type = IL_JF_STRING, .what = "the name of an integer parameter (one metric per n below it)",
	  .store = true, .off = offsetof(struct il_wl_metric, count) },
};

static int parse_metric(void *entry, const char *name, const json_t *j, const char *label, struct il_err *err)
{
	struct il_wl_metric *m = entry;
	static const char *const better[] = { "lower", "higher" };
	char path[128];
	int r, k;

	if ((r = parse_entry("metrics", "metric", name, j, metric_fields, IL_JF_COUNT(metric_fields), m, &m->name, path,
			     sizeof(path), label, err)))
		return r;
	if ((k = name_index(json_string_value(json_object_get(j, "better")), better, 2)) < 0)
		return il_jf_bad(err, label, path, "better", "%s", metric_fields[1].what);
	m->higher_better = k == 1;
	/* a pattern and its count go together; that count names an integer parameter is checked by the caller */
	if (!m->count != !strstr(m->name, "{n}"))
		return il_jf_bad(err, label, path, "count", "%s", m->count ? "a metric name with \"{n}\" where the number goes" :
				 "\"count\" beside a metric name with \"{n}\"");
	return 0;
}

/* What a placeholder of an argv template may name, checked when the definition is read. */
struct tpl_check {
	const struct il_workload *w;
	const char *label, *path;
	bool joined; /* inside {"concat": [...]}: numbers only */
};

static int check_placeholder(void *ctx, const char *s, const char *name, bool whole, struct il_err *err)
{
	const struct tpl_check *c = ctx;
	const struct il_wl_param *p = find_param(c->w, name);

	if (!p)
		return il_err_set(err, IL_EPARSE, "%s: %s: unknown parameter '%s'", c->label, c->path, name);
	if (p->type == IL_PARAM_BOOL)
		return il_err_set(err, IL_EPARSE, "%s: %s: boolean '%s' can only be used in \"if\"", c->label, c->path,
				  name);
	if (p->type != IL_PARAM_STR)
		return 0;
	if (c->joined)
		return il_err_set(err, IL_EPARSE, "%s: %s: only integer or number parameters can be joined to text",
				  c->label, c->path);
	if (!whole)
		return il_err_set(err, IL_EPARSE,
				  "%s: %s: '%s': a parameter must be a whole element (\"{%s}\") unless it is an integer "
				  "or number",
				  c->label, c->path, s, name);
	return 0;
}

/* Validate a template array (recursively for if/then/else and concat); path like "argv[3]". */
static int check_template(const struct il_workload *w, const json_t *a, const char *label, const char *path,
			  struct il_err *err)
{
	size_t i;
	json_t *e;

	if (!json_is_array(a))
		return il_jf_bad(err, label, path, NULL, "an array");
	json_array_foreach(a, i, e) {
		char sub[256], name[80];
		struct tpl_check tc = { w, label, sub, false };
		const struct il_wl_param *p;
		int r;

		il_jf_path(sub, sizeof(sub), path, NULL, i);
		if (json_is_string(e)) {
			if ((r = il_tpl_check(json_string_value(e), check_placeholder, &tc, label, sub, err)))
				return r;
		} else if (json_is_object(e) && json_object_get(e, "if")) {
			const char *c = json_string_value(json_object_get(e, "if"));
			json_t *t = json_object_get(e, "then"), *f = json_object_get(e, "else");

			if (!c || !(p = find_param(w, c)))
				return il_jf_bad(err, label, sub, "if", "the name of a parameter (true when it is true, "
						 "a non-zero number or a non-empty string)");
			snprintf(name, sizeof(name), "%.60s.then", sub);
			if (t && (r = check_template(w, t, label, name, err)))
				return r;
			snprintf(name, sizeof(name), "%.60s.else", sub);
			if (f && (r = check_template(w, f, label, name, err)))
				return r;
		} else if (json_is_object(e) && json_object_get(e, "concat")) {
			json_t *parts = json_object_get(e, "concat"), *pe;
			size_t k;

			if (!json_is_array(parts))
				return il_jf_bad(err, label, sub, "concat", "an array");
			tc.joined = true;
			json_array_foreach(parts, k, pe) {
				snprintf(sub, sizeof(sub), "%s[%zu].concat[%zu]", path, i, k);
				if (!json_is_string(pe))
					return il_jf_bad(err, label, sub, NULL, "a string");
				if ((r = il_tpl_check(json_string_value(pe), check_placeholder, &tc, label, sub, err)))
					return r;
			}
		} else {
			return il_jf_bad(err, label, sub, NULL,
					 "a string, {\"if\": ..., \"then\": [...]} or {\"concat\": [...]}");
		}
	}
	return 0;
}

#define DEF_AT(k, t, m) IL_JF_AT(k, t, struct il_workload, m)
static const struct il_jfield def_fields[] = {
	{ .key = "description", .type = IL_JF_STRING, .required = true, .store = true,
	  .off = offsetof(struct il_workload, description) },
	DEF_AT("notes", IL_JF_STRING, notes),
	DEF_AT("builtin", IL_JF_BOOL, builtin),
	{ .key = "argv", .type = IL_JF_ARRAY, .required = true, .what = "an array (the program and its arguments)" },
	IL_JF("params", IL_JF_OBJECT),
	{ .key = "requires", .type = IL_JF_STRINGS, .what = "an array of program names", .store = true,
	  .off = offsetof(struct il_workload, requires) },
	{ .key = "parser", .type = IL_JF_STRING, .required = true, .store = true,
	  .off = offsetof(struct il_workload, parser) },
	{ .key = "metrics", .type = IL_JF_OBJECT, .required = true, .what = "an object with at least one metric" },
	{ .key = "key_metrics", .type = IL_JF_STRINGS, .what = "an array of metric names (the workload's, or idle.*)",
	  .store = true, .off = offsetof(struct il_workload, key_metrics) },
};

/* idle metrics a workload may name as key metrics: dataset.c's totals that carry a direction, and energy */
static const char *const idle_keys[] = {
	"idle.miss_pct", "idle.idle_miss", "idle.miss_ratio", "idle.too_deep_pct", "idle.too_shallow_pct",
	"idle.aboves", "idle.belows", "idle.energy_j",
};
#define NIDLE_KEYS (sizeof(idle_keys) / sizeof(idle_keys[0]))

bool il_workload_key_default(const char *metric, long idx)
{
	return idx == 0 || !strcmp(metric, "idle.miss_pct") || !strcmp(metric, "idle.idle_miss") ||
	       !strcmp(metric, "idle.energy_j");
}

/* key_metrics: named metrics of the workload's (patterns by their name) or of the idle ones; default filled in */
static int check_keys(struct il_workload *w, const char *label, struct il_err *err)
{
	char path[64];

	for (size_t i = 0; i < w->key_metrics.n; i++) {
		const char *k = w->key_metrics.v[i];
		bool ok = il_workload_metric(w, k) != NULL;

		for (size_t j = 0; !ok && j < NIDLE_KEYS; j++)
			ok = !strcmp(k, idle_keys[j]);
		if (!ok)
			return il_jf_bad(err, label, il_jf_path(path, sizeof(path), "key_metrics", NULL, i), NULL,
					 "one of the workload's metrics or %s, ... (docs/workloads.md), not '%s'", idle_keys[0], k);
	}
	if (w->key_metrics.n)
		return 0;
	for (size_t i = 0; i < w->nmetrics; i++)
		if (il_workload_key_default(w->metrics[i].name, (long)i) && il_strlist_push(&w->key_metrics, w->metrics[i].name))
			return il_err_oom(err);
	for (size_t j = 0; j < NIDLE_KEYS; j++)
		if (il_workload_key_default(idle_keys[j], -1) && il_strlist_push(&w->key_metrics, idle_keys[j]))
			return il_err_oom(err);
	return 0;
}

/*
 * Each member of the object v through parse, into *arr: one entry of size
 * bytes per member, *n counting those begun (so a release frees what a
 * failed one holds). *arr is the caller's even on error.
 */
static int parse_entries(const json_t *v, size_t size,
			 int (*parse)(void *entry, const char *name, const json_t *j, const char *label, struct il_err *err),
			 void **arr, size_t *n, const char *label, struct il_err *err)
{
	const char *name;
	json_t *e;
	int r;

	if (!(*arr = calloc(json_object_size(v), size)))
		return il_err_oom(err);
	json_object_foreach((json_t *)v, name, e)
		if ((r = parse((char *)*arr + size * (*n)++, name, e, label, err)))
			return r;
	return 0;
}

int il_workload_from_json(struct il_workload *out, const json_t *j, const char *name, const char *label,
			  struct il_err *err)
{
	const json_t *v;
	void *mem;
	int r;

	memset(out, 0, sizeof(*out));
	if (!valid_ident(name))
		return il_err_set(err, IL_EINVAL, "'%s' is not a valid workload name", name);
	if (!(out->name = strdup(name)))
		return il_err_oom(err);
	if ((r = il_jf_read_as(j, def_fields, IL_JF_COUNT(def_fields), out, label, NULL, "field", err)))
		goto fail;
	if ((v = il_jf_get(j, "params")) && json_object_size(v)) {
		r = parse_entries(v, sizeof(*out->params), parse_param, &mem, &out->nparams, label, err);
		out->params = mem;
		if (r)
			goto fail;
	}
	v = il_jf_get(j, "metrics");
	if (!json_object_size(v)) {
		r = il_jf_bad(err, label, NULL, "metrics", "%s", def_fields[7].what);
		goto fail;
	}
	r = parse_entries(v, sizeof(*out->metrics), parse_metric, &mem, &out->nmetrics, label, err);
	out->metrics = mem;
	if (r)
		goto fail;
	for (size_t i = 0; i < out->nmetrics; i++) {
		const struct il_wl_param *p = out->metrics[i].count ? find_param(out, out->metrics[i].count) : NULL;
		char path[128];

		if (out->metrics[i].count && (!p || p->type != IL_PARAM_INT)) {
			r = il_jf_bad(err, label, il_jf_path(path, sizeof(path), "metrics", out->metrics[i].name, 0), "count",
				      "%s", metric_fields[3].what);
			goto fail;
		}
	}
	if ((r = check_keys(out, label, err)))
		goto fail;
	for (size_t i = 0; i < out->requires.n; i++)
		if (!valid_ident(out->requires.v[i])) {
			r = il_jf_bad(err, label, "requires", NULL, "program names ('%s' is not one)", out->requires.v[i]);
			goto fail;
		}
	v = il_jf_get(j, "argv");
	if ((r = check_template(out, v, label, "argv", err)))
		goto fail;
	if (!json_array_size(v) || !json_is_string(json_array_get(v, 0)) ||
	    !il_tpl_is_plain(json_string_value(json_array_get(v, 0)))) {
		r = il_jf_bad(err, label, "argv[0]", NULL, "the program name");
		goto fail;
	}
	out->argv = json_incref((json_t *)v);
	return 0;
fail:
	il_workload_release(out);
	return r;
}

int il_workload_load(struct il_workload *out, const char *dir, const char *name, struct il_err *err)
{
	char *path;
	json_t *j;
	int r;

	memset(out, 0, sizeof(*out));
	if (!valid_ident(name))
		return il_err_set(err, IL_EINVAL, "'%s' is not a valid workload name", name);
	if ((r = il_json_load_named(il_workloads_dir(dir), name, "workload", "definition", &j, &path, err)))
		return r;
	if (!(r = il_workload_from_json(out, j, name, path, err)))
		out->path = path;
	else
		free(path);
	json_decref(j);
	return r;
}

int il_workload_list(struct il_strlist *out, const char *dir, struct il_err *err)
{
	dir = il_workloads_dir(dir);
	if (il_search_names(out, dir, ".json", err))
		return il_err_prefix(err, "workloads: ");
	return 0;
}

int il_workload_params(const struct il_workload *w, const json_t *overrides, const char *path, json_t **out,
		       struct il_err *err)
{
	const char *k;
	json_t *v, *res;
	char sub[256];
	int r;

	*out = NULL;
	if (overrides && !json_is_object(overrides))
		return il_err_set(err, IL_EPARSE, "%s: expected an object of parameter values", path);
	if (overrides) {
		json_object_foreach((json_t *)overrides, k, v) {
			snprintf(sub, sizeof(sub), "%s.%s", path, k);
			if ((r = il_workload_param_check(w, k, v, sub, err)))
				return r;
		}
	}
	if (!(res = json_object()))
		return il_err_oom(err);
	for (size_t i = 0; i < w->nparams; i++) {
		json_t *o = overrides ? json_object_get(overrides, w->params[i].name) : NULL;

		if (json_object_set(res, w->params[i].name, o ? o : w->params[i].def)) {
			json_decref(res);
			return il_err_oom(err);
		}
	}
	*out = res;
	return 0;
}

int il_workload_param_check(const struct il_workload *w, const char *name, const json_t *v, const char *where,
			    struct il_err *err)
{
	const struct il_wl_param *p = find_param(w, name);

	if (!p)
		return il_err_set(err, IL_EPARSE, "%s: workload '%s' has no parameter '%s' (see 'idlelab workload show %s')",
				  where, w->name, name, w->name);
	return check_value(p, v, where, err);
}

bool il_workload_metric_matches(const struct il_wl_metric *m, const char *key)
{
	const char *n = m->count ? strstr(m->name, "{n}") : NULL;
	size_t pre, post, len = strlen(key), k;

	if (!n)
		return !strcmp(m->name, key);
	pre = (size_t)(n - m->name);
	post = strlen(n + 3);
	if (len <= pre + post || strncmp(key, m->name, pre) || strcmp(key + len - post, n + 3))
		return false;
	for (k = pre; k < len - post; k++)
		if (key[k] < '0' || key[k] > '9')
			return false;
	return true;
}

int il_workload_bind_metrics(struct il_workload *w, const json_t *params, const char *path, struct il_err *err)
{
	size_t total = 0, k = 0;
	struct il_wl_metric *nm;

	for (size_t i = 0; i < w->nmetrics; i++) {
		const struct il_wl_metric *m = &w->metrics[i];
		json_int_t n = m->count ? json_integer_value(json_object_get(params, m->count)) : 1;

		if (n < 0 || n > IL_WL_MAX_EACH)
			return il_err_set(err, IL_EPARSE, "%s.%s: %lld would declare %lld metrics %s; at most %d", path,
					  m->count, (long long)n, (long long)n, m->name, IL_WL_MAX_EACH);
		total += (size_t)n;
	}
	if (!(nm = calloc(total ? total : 1, sizeof(*nm))))
		return il_err_oom(err);
	for (size_t i = 0; i < w->nmetrics; i++) {
		struct il_wl_metric *m = &w->metrics[i];
		const char *at = m->count ? strstr(m->name, "{n}") : NULL;
		json_int_t n = m->count ? json_integer_value(json_object_get(params, m->count)) : 1;

		for (json_int_t x = 0; x < n; x++, k++) {
			struct il_buf b = IL_BUF_INIT;

			if (at)
				il_buf_printf(&b, "%.*s%lld%s", (int)(at - m->name), m->name, (long long)x, at + 3);
			else
				il_buf_adds(&b, m->name);
			nm[k].name = il_buf_detach(&b);
			nm[k].unit = strdup(m->unit);
			nm[k].help = m->help ? strdup(m->help) : NULL;
			nm[k].higher_better = m->higher_better;
			if (!nm[k].name || !nm[k].unit || (m->help && !nm[k].help)) {
				k++;
				goto oom;
			}
		}
	}
	for (size_t i = 0; i < w->nmetrics; i++)
		IL_FREE_ALL(w->metrics[i].name, w->metrics[i].unit, w->metrics[i].help, w->metrics[i].count);
	free(w->metrics);
	w->metrics = nm;
	w->nmetrics = total;
	return 0;
oom:
	for (size_t i = 0; i < k; i++)
		IL_FREE_ALL(nm[i].name, nm[i].unit, nm[i].help);
	free(nm);
	return il_err_oom(err);
}

struct tpl_values {
	const struct il_workload *w;
	const json_t *params;
};

/* il_tpl_value_fn: a parameter's value as text. */
static int param_text(void *ctx, const char *name, struct il_buf *b, struct il_err *err)
{
	const struct tpl_values *c = ctx;
	const json_t *v = json_object_get(c->params, name);

	if (!v)
		return il_err_set(err, IL_EINVAL, "workload '%s': parameter '%s' has no value", c->w->name, name);
	if (json_is_integer(v))
		il_buf_printf(b, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		il_buf_printf(b, "%.15g", json_real_value(v));
	else
		il_buf_adds(b, json_string_value(v) ? json_string_value(v) : "");
	return 0;
}

static int expand(struct tpl_values *c, const json_t *tpl, struct il_strlist *out, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	size_t i;
	json_t *e;
	int r = 0;

	json_array_foreach(tpl, i, e) {
		il_buf_reset(&b);
		if (json_is_string(e)) {
			r = il_tpl_expand(json_string_value(e), param_text, c, &b, err);
		} else if (json_object_get(e, "if")) {
			json_t *v = json_object_get(c->params, json_string_value(json_object_get(e, "if")));
			/* true, a non-zero number, a non-empty string: an option given only when set */
			bool on = json_is_true(v) || (json_is_number(v) && json_number_value(v) != 0) ||
				  (json_is_string(v) && *json_string_value(v));
			json_t *branch = json_object_get(e, on ? "then" : "else");

			if (branch && (r = expand(c, branch, out, err)))
				break;
			continue;
		} else {
			json_t *pe;
			size_t k;

			json_array_foreach(json_object_get(e, "concat"), k, pe)
				if ((r = il_tpl_expand(json_string_value(pe), param_text, c, &b, err)))
					break;
		}
		if (r)
			break;
		if (il_buf_error(&b) || il_strlist_push(out, il_buf_str(&b))) {
			r = il_err_oom(err);
			break;
		}
	}
	il_buf_release(&b);
	return r;
}

int il_workload_argv(const struct il_workload *w, const json_t *params, struct il_strlist *out, struct il_err *err)
{
	struct tpl_values c = { w, params };

	return expand(&c, w->argv, out, err);
}

json_t *il_workload_to_json(const struct il_workload *w)
{
	json_t *j = json_object(), *ps = json_object(), *ms = json_object(), *req = json_array();

	if (!j || !ps || !ms || !req) {
		json_decref(j), json_decref(ps), json_decref(ms), json_decref(req);
		return NULL;
	}
	json_object_set_new(j, "name", json_string(w->name));
	json_object_set_new(j, "description", json_string(w->description));
	if (w->notes)
		json_object_set_new(j, "notes", json_string(w->notes));
	json_object_set_new(j, "builtin", json_boolean(w->builtin));
	json_object_set(j, "argv", w->argv);
	for (size_t i = 0; i < w->nparams; i++) {
		const struct il_wl_param *p = &w->params[i];
		json_t *o = json_object();

		json_object_set_new(o, "type", json_string(type_name(p->type)));
		json_object_set(o, "default", p->def);
		if (p->has_min)
			json_object_set_new(o, "min", json_real(p->min));
		if (p->has_max)
			json_object_set_new(o, "max", json_real(p->max));
		if (p->help)
			json_object_set_new(o, "help", json_string(p->help));
		json_object_set_new(ps, p->name, o);
	}
	json_object_set_new(j, "params", ps);
	for (size_t i = 0; i < w->requires.n; i++)
		json_array_append_new(req, json_string(w->requires.v[i]));
	json_object_set_new(j, "requires", req);
	json_object_set_new(j, "parser", json_string(w->parser));
	for (size_t i = 0; i < w->nmetrics; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "unit", json_string(w->metrics[i].unit));
		json_object_set_new(o, "better", json_string(w->metrics[i].higher_better ? "higher" : "lower"));
		if (w->metrics[i].count)
			json_object_set_new(o, "count", json_string(w->metrics[i].count));
		if (w->metrics[i].help)
			json_object_set_new(o, "help", json_string(w->metrics[i].help));
		json_object_set_new(ms, w->metrics[i].name, o);
	}
	json_object_set_new(j, "metrics", ms);
	return j;
}
