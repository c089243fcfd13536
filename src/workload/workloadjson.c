// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A workload definition read from its JSON (workloads/<name>.json) and
 * validated field by field (util/jfields): the parameters and their
 * defaults, the metrics and their patterns, the key metrics, the argv
 * template's placeholders (util/template), and the directory's names. What
 * is done with a definition once read is workload/workload.c's.
 */
#include "workload/workloadjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jfields.h"
#include "util/jsonfile.h"
#include "util/search.h"
#include "util/template.h"

static bool valid_ident(const char *s)
{
	return il_str_name_ok(s, "_-.", 64);
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

	il_jfields_path(path, pathsz, section, name, 0);
	/* a metric pattern's "{n}" stands for digits: the name must be valid with them */
	if (n && !strcmp(section, "metrics") && !strstr(n + 3, "{n}"))
		snprintf(probe, sizeof(probe), "%.*s0%s", (int)(n - name), name, n + 3);
	else
		snprintf(probe, sizeof(probe), "%s", name);
	if (strlen(name) > 64 || !valid_ident(probe))
		return il_jfields_bad(err, label, section, NULL, "%s names of letters, digits, '_', '-', '.' (not '%s')", noun,
				 name);
	if (!(*name_out = strdup(name)))
		return il_err_oom(err);
	return il_jfields_read_as(j, fields, nfields, obj, label, path, "field", err);
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
		return il_jfields_bad(err, label, path, "type", "%s", param_fields[0].what);
	p->type = (enum il_param_type)k;
	p->has_min = il_jfields_get(j, "min") != NULL;
	p->has_max = il_jfields_get(j, "max") != NULL;
	if (p->choices.n && p->type != IL_PARAM_STR)
		return il_jfields_bad(err, label, path, "choices", "%s", param_fields[4].what);
	snprintf(where, sizeof(where), "%s: %s.default", label, path);
	if ((r = il_workload_value_check(p, il_jfields_get(j, "default"), where, err)))
		return r;
	p->def = json_incref((json_t *)il_jfields_get(j, "default"));
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
		return il_jfields_bad(err, label, path, "better", "%s", metric_fields[1].what);
	m->higher_better = k == 1;
	/* a pattern and its count go together; that count names an integer parameter is checked by the caller */
	if (!m->count != !strstr(m->name, "{n}"))
		return il_jfields_bad(err, label, path, "count", "%s", m->count ? "a metric name with \"{n}\" where the number goes" :
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
	const struct il_wl_param *p = il_workload_param(c->w, name);

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
		return il_jfields_bad(err, label, path, NULL, "an array");
	json_array_foreach(a, i, e) {
		char sub[256], name[80];
		struct tpl_check tc = { w, label, sub, false };
		const struct il_wl_param *p;
		int r;

		il_jfields_path(sub, sizeof(sub), path, NULL, i);
		if (json_is_string(e)) {
			if ((r = il_template_check(json_string_value(e), check_placeholder, &tc, label, sub, err)))
				return r;
		} else if (json_is_object(e) && json_object_get(e, "if")) {
			const char *c = json_string_value(json_object_get(e, "if"));
			json_t *t = json_object_get(e, "then"), *f = json_object_get(e, "else");

			if (!c || !(p = il_workload_param(w, c)))
				return il_jfields_bad(err, label, sub, "if", "the name of a parameter (true when it is true, "
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
				return il_jfields_bad(err, label, sub, "concat", "an array");
			tc.joined = true;
			json_array_foreach(parts, k, pe) {
				snprintf(sub, sizeof(sub), "%s[%zu].concat[%zu]", path, i, k);
				if (!json_is_string(pe))
					return il_jfields_bad(err, label, sub, NULL, "a string");
				if ((r = il_template_check(json_string_value(pe), check_placeholder, &tc, label, sub, err)))
					return r;
			}
		} else {
			return il_jfields_bad(err, label, sub, NULL,
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
			return il_jfields_bad(err, label, il_jfields_path(path, sizeof(path), "key_metrics", NULL, i), NULL,
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
	if ((r = il_jfields_read_as(j, def_fields, IL_JF_COUNT(def_fields), out, label, NULL, "field", err)))
		goto fail;
	if ((v = il_jfields_get(j, "params")) && json_object_size(v)) {
		r = parse_entries(v, sizeof(*out->params), parse_param, &mem, &out->nparams, label, err);
		out->params = mem;
		if (r)
			goto fail;
	}
	v = il_jfields_get(j, "metrics");
	if (!json_object_size(v)) {
		r = il_jfields_bad(err, label, NULL, "metrics", "%s", def_fields[7].what);
		goto fail;
	}
	r = parse_entries(v, sizeof(*out->metrics), parse_metric, &mem, &out->nmetrics, label, err);
	out->metrics = mem;
	if (r)
		goto fail;
	for (size_t i = 0; i < out->nmetrics; i++) {
		const struct il_wl_param *p = out->metrics[i].count ? il_workload_param(out, out->metrics[i].count) : NULL;
		char path[128];

		if (out->metrics[i].count && (!p || p->type != IL_PARAM_INT)) {
			r = il_jfields_bad(err, label, il_jfields_path(path, sizeof(path), "metrics", out->metrics[i].name, 0), "count",
				      "%s", metric_fields[3].what);
			goto fail;
		}
	}
	if ((r = check_keys(out, label, err)))
		goto fail;
	for (size_t i = 0; i < out->requires.n; i++)
		if (!valid_ident(out->requires.v[i])) {
			r = il_jfields_bad(err, label, "requires", NULL, "program names ('%s' is not one)", out->requires.v[i]);
			goto fail;
		}
	v = il_jfields_get(j, "argv");
	if ((r = check_template(out, v, label, "argv", err)))
		goto fail;
	if (!json_array_size(v) || !json_is_string(json_array_get(v, 0)) ||
	    !il_template_is_plain(json_string_value(json_array_get(v, 0)))) {
		r = il_jfields_bad(err, label, "argv[0]", NULL, "the program name");
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
	if ((r = il_json_load_named(il_workload_dir(dir), name, "workload", "definition", &j, &path, err)))
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
	dir = il_workload_dir(dir);
	if (il_search_names(out, dir, ".json", err))
		return il_err_prefix(err, "workloads: ");
	return 0;
}
