// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A workload definition in use: its parameters checked and resolved, its
 * pattern metrics bound, its argv template expanded (util/template), and the
 * definition as JSON. Reading and validating a definition file is
 * workload/workloadjson.c's.
 */
#include "workload/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/template.h"
#include "util/str.h"

const char *il_workload_dir(const char *dir)
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

const struct il_wl_param *il_workload_param(const struct il_workload *w, const char *name)
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

int il_workload_value_check(const struct il_wl_param *p, const json_t *v, const char *where, struct il_err *err)
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

bool il_workload_key_default(const char *metric, long idx)
{
	return idx == 0 || !strcmp(metric, "idle.miss_pct") || !strcmp(metric, "idle.idle_miss") ||
	       !strcmp(metric, "idle.energy_j");
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
	const struct il_wl_param *p = il_workload_param(w, name);

	if (!p)
		return il_err_set(err, IL_EPARSE, "%s: workload '%s' has no parameter '%s' (see 'idlelab workload show %s')",
				  where, w->name, name, w->name);
	return il_workload_value_check(p, v, where, err);
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
			r = il_template_expand(json_string_value(e), param_text, c, &b, err);
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
				if ((r = il_template_expand(json_string_value(pe), param_text, c, &b, err)))
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

/* One parameter's entry of il_workload_to_json, or NULL when memory ran out. */
static json_t *param_json(const struct il_wl_param *p)
{
	json_t *o = json_object();
	int bad = !o;

	/* json_object_set_new takes the value even when it fails, so a NULL o leaks nothing */
	bad |= json_object_set_new(o, "type", json_string(type_name(p->type)));
	bad |= json_object_set(o, "default", p->def);
	if (p->has_min)
		bad |= json_object_set_new(o, "min", json_real(p->min));
	if (p->has_max)
		bad |= json_object_set_new(o, "max", json_real(p->max));
	if (p->help)
		bad |= json_object_set_new(o, "help", json_string(p->help));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* One metric's entry of il_workload_to_json, or NULL when memory ran out. */
static json_t *metric_json(const struct il_wl_metric *m)
{
	json_t *o = json_object();
	int bad = !o;

	bad |= json_object_set_new(o, "unit", json_string(m->unit));
	bad |= json_object_set_new(o, "better", json_string(m->higher_better ? "higher" : "lower"));
	if (m->count)
		bad |= json_object_set_new(o, "count", json_string(m->count));
	if (m->help)
		bad |= json_object_set_new(o, "help", json_string(m->help));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *il_workload_to_json(const struct il_workload *w)
{
	json_t *j = json_object(), *ps = json_object(), *ms = json_object(), *req = json_array();
	int bad = 0;

	/* each set_new takes its value even when it fails (a NULL container too): nothing leaks on the way */
	bad |= json_object_set_new(j, "name", json_string(w->name));
	bad |= json_object_set_new(j, "description", json_string(w->description));
	if (w->notes)
		bad |= json_object_set_new(j, "notes", json_string(w->notes));
	bad |= json_object_set_new(j, "builtin", json_boolean(w->builtin));
	bad |= json_object_set(j, "argv", w->argv);
	for (size_t i = 0; i < w->nparams; i++)
		bad |= json_object_set_new(ps, w->params[i].name, param_json(&w->params[i]));
	bad |= json_object_set_new(j, "params", ps);
	for (size_t i = 0; i < w->requires.n; i++)
		bad |= json_array_append_new(req, json_string(w->requires.v[i]));
	bad |= json_object_set_new(j, "requires", req);
	bad |= json_object_set_new(j, "parser", json_string(w->parser));
	for (size_t i = 0; i < w->nmetrics; i++)
		bad |= json_object_set_new(ms, w->metrics[i].name, metric_json(&w->metrics[i]));
	bad |= json_object_set_new(j, "metrics", ms);
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}
