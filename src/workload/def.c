// SPDX-License-Identifier: GPL-2.0-or-later
/* Workload definitions: loading, validation, parameters and argv templating. */
#include "workload/def.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/jsonfile.h"

const char *il_workloads_dir(const char *dir)
{
	return dir && *dir ? dir : "workloads";
}

void il_workload_release(struct il_workload *w)
{
	free(w->name);
	free(w->description);
	free(w->notes);
	json_decref(w->argv);
	for (size_t i = 0; i < w->nparams; i++) {
		free(w->params[i].name);
		json_decref(w->params[i].def);
		il_strlist_release(&w->params[i].choices);
		free(w->params[i].help);
	}
	free(w->params);
	il_strlist_release(&w->requires);
	free(w->parser);
	for (size_t i = 0; i < w->nmetrics; i++) {
		free(w->metrics[i].name);
		free(w->metrics[i].unit);
		free(w->metrics[i].help);
	}
	free(w->metrics);
	free(w->path);
	memset(w, 0, sizeof(*w));
}

static bool valid_ident(const char *s)
{
	return il_name_ok(s, "_-.", 64);
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

/* A string field: required or optional; *out owned. */
static int get_str(const json_t *j, const char *key, bool required, char **out, const char *label, const char *path,
		   struct il_err *err)
{
	json_t *v = json_object_get(j, key);

	*out = NULL;
	if (!v) {
		if (required)
			return il_err_set(err, IL_EPARSE, "%s: %s%s: missing (expected a string)", label, path, key);
		return 0;
	}
	if (!json_is_string(v))
		return il_err_set(err, IL_EPARSE, "%s: %s%s: expected a string", label, path, key);
	*out = strdup(json_string_value(v));
	return *out ? 0 : il_err_set(err, IL_ENOMEM, "out of memory");
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

static int parse_param(struct il_wl_param *p, const char *name, const json_t *j, const char *label,
		       struct il_err *err)
{
	char path[128], where[512];
	const char *t;
	json_t *v;
	int r;

	snprintf(path, sizeof(path), "params.%s.", name);
	if (!valid_ident(name))
		return il_err_set(err, IL_EPARSE, "%s: params: '%s' is not a valid parameter name", label, name);
	if (!json_is_object(j))
		return il_err_set(err, IL_EPARSE, "%s: params.%s: expected an object", label, name);
	if (!(p->name = strdup(name)))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	t = json_string_value(json_object_get(j, "type"));
	if (!t)
		return il_err_set(err, IL_EPARSE, "%s: %stype: expected \"integer\", \"number\", \"string\" or \"boolean\"",
				  label, path);
	if (!strcmp(t, "integer"))
		p->type = IL_PARAM_INT;
	else if (!strcmp(t, "number"))
		p->type = IL_PARAM_NUM;
	else if (!strcmp(t, "string"))
		p->type = IL_PARAM_STR;
	else if (!strcmp(t, "boolean"))
		p->type = IL_PARAM_BOOL;
	else
		return il_err_set(err, IL_EPARSE, "%s: %stype: '%s' is not integer, number, string or boolean", label,
				  path, t);
	if ((r = get_str(j, "help", false, &p->help, label, path, err)))
		return r;
	if ((v = json_object_get(j, "min"))) {
		if (!json_is_number(v))
			return il_err_set(err, IL_EPARSE, "%s: %smin: expected number", label, path);
		p->has_min = true, p->min = json_number_value(v);
	}
	if ((v = json_object_get(j, "max"))) {
		if (!json_is_number(v))
			return il_err_set(err, IL_EPARSE, "%s: %smax: expected number", label, path);
		p->has_max = true, p->max = json_number_value(v);
	}
	if ((v = json_object_get(j, "choices"))) {
		size_t i;
		json_t *c;

		if (!json_is_array(v) || p->type != IL_PARAM_STR)
			return il_err_set(err, IL_EPARSE, "%s: %schoices: expected an array of strings (string parameters only)",
					  label, path);
		json_array_foreach(v, i, c) {
			if (!json_is_string(c))
				return il_err_set(err, IL_EPARSE, "%s: %schoices[%zu]: expected string", label, path, i);
			if (il_strlist_push(&p->choices, json_string_value(c)))
				return il_err_set(err, IL_ENOMEM, "out of memory");
		}
	}
	v = json_object_get(j, "default");
	if (!v)
		return il_err_set(err, IL_EPARSE, "%s: %sdefault: missing (every parameter has a default)", label, path);
	snprintf(where, sizeof(where), "%s: params.%s.default", label, name);
	if ((r = check_value(p, v, where, err)))
		return r;
	p->def = json_incref(v);
	return 0;
}

static int parse_metric(struct il_wl_metric *m, const char *name, const json_t *j, const char *label,
			struct il_err *err)
{
	char path[128];
	const char *b;
	int r;

	snprintf(path, sizeof(path), "metrics.%s.", name);
	if (!valid_ident(name))
		return il_err_set(err, IL_EPARSE, "%s: metrics: '%s' is not a valid metric name", label, name);
	if (!json_is_object(j))
		return il_err_set(err, IL_EPARSE, "%s: metrics.%s: expected an object", label, name);
	if (!(m->name = strdup(name)))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	if ((r = get_str(j, "unit", true, &m->unit, label, path, err)) ||
	    (r = get_str(j, "help", false, &m->help, label, path, err)))
		return r;
	b = json_string_value(json_object_get(j, "better"));
	if (!b || (strcmp(b, "higher") && strcmp(b, "lower")))
		return il_err_set(err, IL_EPARSE, "%s: %sbetter: expected \"higher\" or \"lower\"", label, path);
	m->higher_better = !strcmp(b, "higher");
	return 0;
}

/* "{name}" -> name (borrowed in buf) or NULL if s is not exactly one placeholder. */
static const char *placeholder(const char *s, char *buf, size_t n)
{
	size_t len = strlen(s);

	if (len < 3 || s[0] != '{' || s[len - 1] != '}' || len - 2 >= n)
		return NULL;
	memcpy(buf, s + 1, len - 2);
	buf[len - 2] = 0;
	return strchr(buf, '{') || strchr(buf, '}') ? NULL : buf;
}

/* Validate a template array (recursively for if/then/else and concat); path like "argv[3]". */
static int check_template(const struct il_workload *w, const json_t *a, const char *label, const char *path,
			  struct il_err *err)
{
	size_t i;
	json_t *e;

	if (!json_is_array(a))
		return il_err_set(err, IL_EPARSE, "%s: %s: expected an array", label, path);
	json_array_foreach(a, i, e) {
		char sub[256], name[80];
		const struct il_wl_param *p;
		int r;

		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (json_is_string(e)) {
			const char *s = json_string_value(e);

			if (!strchr(s, '{') && !strchr(s, '}'))
				continue;
			if (!placeholder(s, name, sizeof(name)))
				return il_err_set(err, IL_EPARSE,
						  "%s: %s: '%s': a parameter must be a whole element (\"{name}\"); "
						  "use {\"concat\": [...]} for numeric values",
						  label, sub, s);
			if (!(p = find_param(w, name)))
				return il_err_set(err, IL_EPARSE, "%s: %s: unknown parameter '%s'", label, sub, name);
			if (p->type == IL_PARAM_BOOL)
				return il_err_set(err, IL_EPARSE, "%s: %s: boolean '%s' can only be used in \"if\"", label,
						  sub, name);
		} else if (json_is_object(e) && json_object_get(e, "if")) {
			const char *c = json_string_value(json_object_get(e, "if"));
			json_t *t = json_object_get(e, "then"), *f = json_object_get(e, "else");

			if (!c || !(p = find_param(w, c)) || p->type != IL_PARAM_BOOL)
				return il_err_set(err, IL_EPARSE, "%s: %s.if: expected the name of a boolean parameter",
						  label, sub);
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
				return il_err_set(err, IL_EPARSE, "%s: %s.concat: expected an array", label, sub);
			json_array_foreach(parts, k, pe) {
				const char *s = json_string_value(pe);

				if (!s)
					return il_err_set(err, IL_EPARSE, "%s: %s.concat[%zu]: expected a string", label, sub,
							  k);
				if (!strchr(s, '{'))
					continue;
				if (!placeholder(s, name, sizeof(name)) || !(p = find_param(w, name)) ||
				    (p->type != IL_PARAM_INT && p->type != IL_PARAM_NUM))
					return il_err_set(err, IL_EPARSE,
							  "%s: %s.concat[%zu]: only integer or number parameters can be "
							  "joined to text",
							  label, sub, k);
			}
		} else {
			return il_err_set(err, IL_EPARSE,
					  "%s: %s: expected a string, {\"if\": ..., \"then\": [...]} or {\"concat\": [...]}",
					  label, sub);
		}
	}
	return 0;
}

int il_workload_from_json(struct il_workload *out, const json_t *j, const char *name, const char *label,
			  struct il_err *err)
{
	const char *pname, *mname;
	json_t *v, *pv;
	size_t i;
	int r;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(j))
		return il_err_set(err, IL_EPARSE, "%s: expected a JSON object", label);
	if (!valid_ident(name))
		return il_err_set(err, IL_EINVAL, "'%s' is not a valid workload name", name);
	if (!(out->name = strdup(name)))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	json_object_foreach((json_t *)j, pname, v) {
		static const char *const known[] = { "description", "notes", "builtin", "argv", "params", "requires",
						     "parser", "metrics", NULL };
		bool ok = false;

		for (const char *const *k = known; *k; k++)
			ok |= !strcmp(*k, pname);
		if (!ok) {
			r = il_err_set(err, IL_EPARSE, "%s: %s: unknown field", label, pname);
			goto fail;
		}
	}
	if ((r = get_str(j, "description", true, &out->description, label, "", err)) ||
	    (r = get_str(j, "notes", false, &out->notes, label, "", err)) ||
	    (r = get_str(j, "parser", true, &out->parser, label, "", err)))
		goto fail;
	v = json_object_get(j, "builtin");
	if (v && !json_is_boolean(v)) {
		r = il_err_set(err, IL_EPARSE, "%s: builtin: expected true or false", label);
		goto fail;
	}
	out->builtin = json_is_true(v);
	v = json_object_get(j, "params");
	if (v && !json_is_object(v)) {
		r = il_err_set(err, IL_EPARSE, "%s: params: expected an object", label);
		goto fail;
	}
	if (v && json_object_size(v)) {
		out->params = calloc(json_object_size(v), sizeof(*out->params));
		if (!out->params) {
			r = il_err_set(err, IL_ENOMEM, "out of memory");
			goto fail;
		}
		json_object_foreach(v, pname, pv) {
			if ((r = parse_param(&out->params[out->nparams++], pname, pv, label, err)))
				goto fail;
		}
	}
	v = json_object_get(j, "metrics");
	if (!json_is_object(v) || !json_object_size(v)) {
		r = il_err_set(err, IL_EPARSE, "%s: metrics: expected an object with at least one metric", label);
		goto fail;
	}
	out->metrics = calloc(json_object_size(v), sizeof(*out->metrics));
	if (!out->metrics) {
		r = il_err_set(err, IL_ENOMEM, "out of memory");
		goto fail;
	}
	json_object_foreach(v, mname, pv) {
		if ((r = parse_metric(&out->metrics[out->nmetrics++], mname, pv, label, err)))
			goto fail;
	}
	v = json_object_get(j, "requires");
	if (v) {
		if (!json_is_array(v)) {
			r = il_err_set(err, IL_EPARSE, "%s: requires: expected an array of program names", label);
			goto fail;
		}
		json_array_foreach(v, i, pv) {
			if (!json_is_string(pv) || !valid_ident(json_string_value(pv))) {
				r = il_err_set(err, IL_EPARSE, "%s: requires[%zu]: expected a program name", label, i);
				goto fail;
			}
			if (il_strlist_push(&out->requires, json_string_value(pv))) {
				r = il_err_set(err, IL_ENOMEM, "out of memory");
				goto fail;
			}
		}
	}
	v = json_object_get(j, "argv");
	if ((r = check_template(out, v, label, "argv", err)))
		goto fail;
	if (!json_array_size(v) || !json_is_string(json_array_get(v, 0)) ||
	    strchr(json_string_value(json_array_get(v, 0)), '{')) {
		r = il_err_set(err, IL_EPARSE, "%s: argv[0]: expected the program name", label);
		goto fail;
	}
	out->argv = json_incref(v);
	return 0;
fail:
	il_workload_release(out);
	return r;
}

int il_workload_load(struct il_workload *out, const char *dir, const char *name, struct il_err *err)
{
	struct il_buf path = IL_BUF_INIT;
	json_t *j;
	int r;

	memset(out, 0, sizeof(*out));
	if (!valid_ident(name))
		return il_err_set(err, IL_EINVAL, "'%s' is not a valid workload name", name);
	if (il_buf_printf(&path, "%s/%s.json", il_workloads_dir(dir), name))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	if ((r = il_json_load(path.p, &j, err))) {
		if (r == IL_ENOTFOUND)
			r = il_err_set(err, IL_ENOTFOUND, "workload '%s': no definition '%s' (see 'idlelab workload list')",
				       name, path.p);
		il_buf_release(&path);
		return r;
	}
	r = il_workload_from_json(out, j, name, path.p, err);
	json_decref(j);
	if (!r)
		out->path = il_buf_detach(&path);
	il_buf_release(&path);
	return r;
}

int il_workload_list(struct il_strlist *out, const char *dir, struct il_err *err)
{
	dir = il_workloads_dir(dir);
	if (il_dir_names(out, dir, ".json", err))
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
			const struct il_wl_param *p = find_param(w, k);

			snprintf(sub, sizeof(sub), "%s.%s", path, k);
			if (!p)
				return il_err_set(err, IL_EPARSE, "%s: workload '%s' has no parameter '%s' (see 'idlelab "
						  "workload show %s')", sub, w->name, k, w->name);
			if ((r = check_value(p, v, sub, err)))
				return r;
		}
	}
	if (!(res = json_object()))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	for (size_t i = 0; i < w->nparams; i++) {
		json_t *o = overrides ? json_object_get(overrides, w->params[i].name) : NULL;

		if (json_object_set(res, w->params[i].name, o ? o : w->params[i].def)) {
			json_decref(res);
			return il_err_set(err, IL_ENOMEM, "out of memory");
		}
	}
	*out = res;
	return 0;
}

static int value_text(const json_t *v, struct il_buf *b)
{
	if (json_is_integer(v))
		return il_buf_printf(b, "%lld", (long long)json_integer_value(v));
	if (json_is_real(v))
		return il_buf_printf(b, "%.15g", json_real_value(v));
	return il_buf_adds(b, json_string_value(v) ? json_string_value(v) : "");
}

static int expand(const struct il_workload *w, const json_t *tpl, const json_t *params, struct il_strlist *out,
		  struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	size_t i;
	json_t *e;
	int r = 0;

	json_array_foreach(tpl, i, e) {
		char name[80];

		il_buf_reset(&b);
		if (json_is_string(e)) {
			const char *s = json_string_value(e);
			const char *p = strchr(s, '{') ? placeholder(s, name, sizeof(name)) : NULL;

			if (p) {
				json_t *v = json_object_get(params, p);

				if (!v) {
					r = il_err_set(err, IL_EINVAL, "workload '%s': parameter '%s' has no value", w->name,
						       p);
					break;
				}
				r = value_text(v, &b);
			} else {
				r = il_buf_adds(&b, s);
			}
		} else if (json_object_get(e, "if")) {
			json_t *c = json_object_get(params, json_string_value(json_object_get(e, "if")));
			json_t *branch = json_object_get(e, json_is_true(c) ? "then" : "else");

			if (branch && (r = expand(w, branch, params, out, err)))
				break;
			continue;
		} else {
			json_t *parts = json_object_get(e, "concat"), *pe;
			size_t k;

			json_array_foreach(parts, k, pe) {
				const char *s = json_string_value(pe);
				const char *p = strchr(s, '{') ? placeholder(s, name, sizeof(name)) : NULL;

				if ((r = p ? value_text(json_object_get(params, p), &b) : il_buf_adds(&b, s)))
					break;
			}
		}
		if (r || il_strlist_push(out, il_buf_str(&b))) {
			r = il_err_set(err, IL_ENOMEM, "out of memory");
			break;
		}
	}
	il_buf_release(&b);
	return r;
}

int il_workload_argv(const struct il_workload *w, const json_t *params, struct il_strlist *out, struct il_err *err)
{
	return expand(w, w->argv, params, out, err);
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
		if (w->metrics[i].help)
			json_object_set_new(o, "help", json_string(w->metrics[i].help));
		json_object_set_new(ms, w->metrics[i].name, o);
	}
	json_object_set_new(j, "metrics", ms);
	return j;
}
