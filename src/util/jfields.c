// SPDX-License-Identifier: GPL-2.0-or-later
/* The JSON field-table validator: one message shape for every config parser. */
#include "util/jfields.h"
#include "util/buf.h"
#include "util/strlist.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *il_jfields_path(char *buf, size_t size, const char *path, const char *key, size_t idx)
{
	bool top = !path || !*path;

	if (key)
		snprintf(buf, size, "%s%s%s", top ? "" : path, top ? "" : ".", key);
	else
		snprintf(buf, size, "%s[%zu]", top ? "" : path, idx);
	return buf;
}

int il_jfields_bad(struct il_err *err, const char *label, const char *path, const char *key, const char *fmt, ...)
{
	char where[256], what[320];
	va_list ap;

	if (key)
		il_jfields_path(where, sizeof(where), path, key, 0);
	else
		snprintf(where, sizeof(where), "%s", path && *path ? path : "(top level)");
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return il_err_set(err, IL_EPARSE, "%s: %s: expected %s", label, where, what);
}

const json_t *il_jfields_get(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	return v && !json_is_null(v) ? v : NULL;
}

json_t *il_jfields_find(const json_t *arr, const char *key, const char *val)
{
	size_t i;
	json_t *e;

	json_array_foreach(arr, i, e) {
		const char *s = json_string_value(json_object_get(e, key));

		if (s && val && !strcmp(s, val))
			return e;
	}
	return NULL;
}

static const char *type_words(enum il_jf_type t)
{
	static const char *const words[] = {
		[IL_JF_STRING] = "a non-empty string",
		[IL_JF_INT] = "an integer",
		[IL_JF_INT64] = "an integer",
		[IL_JF_NUMBER] = "a number",
		[IL_JF_BOOL] = "true or false",
		[IL_JF_STRINGS] = "an array of non-empty strings",
		[IL_JF_OBJECT] = "an object",
		[IL_JF_ARRAY] = "an array",
		[IL_JF_ANY] = "a value",
	};

	return words[t];
}

/* What a field expects, in words: the table's own words, or the type's with its range. */
static const char *expected(const struct il_jfield *f, char *buf, size_t size)
{
	if (f->what)
		return f->what;
	if (f->ranged && (f->type == IL_JF_INT || f->type == IL_JF_INT64))
		snprintf(buf, size, "an integer from %.0f to %.0f", f->min, f->max);
	else if (f->ranged)
		snprintf(buf, size, "a number from %g to %g", f->min, f->max);
	else
		return type_words(f->type);
	return buf;
}

static bool valid_string(const json_t *v)
{
	return json_is_string(v) && json_string_length(v) && strlen(json_string_value(v)) == json_string_length(v);
}

static bool valid(const struct il_jfield *f, const json_t *v)
{
	double x;

	switch (f->type) {
	case IL_JF_STRING:
		return valid_string(v);
	case IL_JF_INT:
	case IL_JF_INT64:
		if (!json_is_integer(v))
			return false;
		x = (double)json_integer_value(v);
		if (f->type == IL_JF_INT && (x < INT32_MIN || x > INT32_MAX))
			return false;
		return !f->ranged || (x >= f->min && x <= f->max);
	case IL_JF_NUMBER:
		if (!json_is_number(v) || !isfinite(x = json_number_value(v)))
			return false;
		return !f->ranged || (x >= f->min && x <= f->max);
	case IL_JF_BOOL:
		return json_is_boolean(v);
	case IL_JF_STRINGS:
		if (!json_is_array(v))
			return false;
		for (size_t i = 0; i < json_array_size(v); i++)
			if (!valid_string(json_array_get(v, i)))
				return false;
		return true;
	case IL_JF_OBJECT:
		return json_is_object(v);
	case IL_JF_ARRAY:
		return json_is_array(v);
	case IL_JF_ANY:
		return true;
	}
	return false;
}

static int unknown_key(const char *key, const struct il_jfield *table, size_t n, const char *label, const char *path,
		       const char *noun, struct il_err *err)
{
	struct il_buf known = IL_BUF_INIT;
	char where[256];
	int r;

	for (size_t i = 0; i < n; i++)
		il_buf_printf(&known, "%s%s", i ? ", " : "", table[i].key);
	r = il_err_set(err, il_buf_error(&known) ? IL_ENOMEM : IL_EPARSE, "%s: %s: unknown %s (known: %s)", label,
		       il_jfields_path(where, sizeof(where), path, key, 0), noun, il_buf_str(&known));
	il_buf_release(&known);
	return r;
}

static int store(const struct il_jfield *f, const json_t *v, void *out, struct il_err *err)
{
	char *at = (char *)out + f->off, *s;

	switch (f->type) {
	case IL_JF_STRING:
		if (!(s = strdup(json_string_value(v))))
			return il_err_oom(err);
		free(*(char **)at);
		*(char **)at = s;
		return 0;
	case IL_JF_INT:
		*(int *)at = (int)json_integer_value(v);
		return 0;
	case IL_JF_INT64:
		*(long long *)at = (long long)json_integer_value(v);
		return 0;
	case IL_JF_NUMBER:
		*(double *)at = json_number_value(v);
		return 0;
	case IL_JF_BOOL:
		*(bool *)at = json_is_true(v);
		return 0;
	case IL_JF_STRINGS:
		for (size_t i = 0; i < json_array_size(v); i++)
			if (il_strlist_push((struct il_strlist *)at, json_string_value(json_array_get(v, i))))
				return il_err_oom(err);
		return 0;
	case IL_JF_OBJECT:
	case IL_JF_ARRAY:
	case IL_JF_ANY:
		*(const json_t **)at = v;
		return 0;
	}
	return 0;
}

int il_jfields_read(const json_t *obj, const struct il_jfield *table, size_t n, void *out, const char *label,
	       const char *path, struct il_err *err)
{
	return il_jfields_read_as(obj, table, n, out, label, path, "key", err);
}

int il_jfields_read_as(const json_t *obj, const struct il_jfield *table, size_t n, void *out, const char *label,
		  const char *path, const char *noun, struct il_err *err)
{
	const char *key;
	const json_t *v;
	char buf[128];
	int r;

	if (!json_is_object(obj))
		return il_jfields_bad(err, label, path, NULL, "an object");
	json_object_foreach((json_t *)obj, key, v) {
		size_t i = 0;

		while (i < n && strcmp(table[i].key, key))
			i++;
		if (i == n)
			return unknown_key(key, table, n, label, path, noun, err);
	}
	for (size_t i = 0; i < n; i++) {
		const struct il_jfield *f = &table[i];

		if (!(v = il_jfields_get(obj, f->key))) {
			if (f->required)
				return il_jfields_bad(err, label, path, f->key, "%s (required)", expected(f, buf, sizeof(buf)));
			continue;
		}
		if (!valid(f, v))
			return il_jfields_bad(err, label, path, f->key, "%s", expected(f, buf, sizeof(buf)));
		if (f->store && out && (r = store(f, v, out, err)))
			return r;
	}
	return 0;
}

int il_jfields_check(const json_t *obj, const struct il_jfield *table, size_t n, const char *label, const char *path,
		struct il_err *err)
{
	return il_jfields_read(obj, table, n, NULL, label, path, err);
}

json_t *il_jfields_strlist_json(const struct il_strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < l->n; i++) {
		if (json_array_append_new(a, json_string(l->v[i]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *il_jfields_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}
