// SPDX-License-Identifier: GPL-2.0-or-later
/* A plan workload's parameter matrix: its shape, its values, and one combination at a time. */
#include "run/pmatrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jfields.h"
#include "util/str.h"

int il_pmatrix_count(const json_t *matrix, const char *label, size_t entry, size_t *n, struct il_err *err)
{
	char path[96];
	const char *name;
	json_t *vals, *v;
	size_t k;

	*n = 1;
	if (!matrix)
		return 0;
	snprintf(path, sizeof(path), "workloads[%zu].matrix", entry);
	if (!json_is_object(matrix) || !json_object_size(matrix))
		return il_jfields_bad(err, label, path, NULL, "an object of parameter name -> array of values");
	json_object_foreach((json_t *)matrix, name, vals) {
		if (!json_is_array(vals) || !json_array_size(vals))
			return il_jfields_bad(err, label, path, name, "a non-empty array of values");
		json_array_foreach(vals, k, v)
			if (!json_is_string(v) && !json_is_number(v))
				return il_err_set(err, IL_EPARSE, "%s: %s.%s[%zu]: expected a string or a number", label, path,
						  name, k);
		/* a plan is read before anything runs: a runaway product is a typo, not a wish */
		if (*n * json_array_size(vals) > IL_PMATRIX_MAX)
			return il_jfields_bad(err, label, path, name, "at most %d workloads from one matrix (the product of "
					 "the arrays' lengths)", IL_PMATRIX_MAX);
		*n *= json_array_size(vals);
	}
	return 0;
}

/* The label part of a matrix value: its text, or the last path component of a path. */
static void part_of(const json_t *v, struct il_buf *b)
{
	if (json_is_string(v)) {
		const char *s = json_string_value(v), *slash = strrchr(s, '/');

		il_buf_adds(b, slash ? slash + 1 : s);
	} else if (json_is_integer(v)) {
		il_buf_printf(b, "%lld", (long long)json_integer_value(v));
	} else {
		il_buf_printf(b, "%g", json_number_value(v));
	}
}

int il_pmatrix_check(const json_t *matrix, const json_t *params, const struct il_workload *w, const char *label,
		     size_t entry, struct il_err *err)
{
	const char *name;
	json_t *vals, *v;
	size_t k;
	int r = 0;

	json_object_foreach((json_t *)matrix, name, vals) {
		char where[256];

		if (json_object_get(params, name))
			return il_err_set(err, IL_EPARSE, "%s: workloads[%zu].matrix.%s: also given in params (give it in "
					  "one place)", label, entry, name);
		json_array_foreach(vals, k, v) {
			struct il_buf part = IL_BUF_INIT;

			snprintf(where, sizeof(where), "%s: workloads[%zu].matrix.%s[%zu]", label, entry, name, k);
			if ((r = il_workload_param_check(w, name, v, where, err)))
				return r;
			for (size_t j = 0; j < k; j++)
				if (json_equal(json_array_get(vals, j), v))
					return il_err_set(err, IL_EPARSE, "%s: the same value as [%zu]", where, j);
			part_of(v, &part);
			if (il_buf_error(&part))
				r = il_err_oom(err);
			else if (!il_str_name_ok(il_buf_str(&part), "-_.+", 64))
				r = il_err_set(err, IL_EPARSE, "%s: '%s' cannot be part of a workload label (letters, digits, "
					       "'-', '_', '.', '+')", where, il_buf_str(&part));
			il_buf_release(&part);
			if (r)
				return r;
		}
	}
	return 0;
}

int il_pmatrix_combo(const json_t *matrix, size_t k, json_t **values, struct il_buf *suffix)
{
	size_t n = json_object_size(matrix), i = n;
	const char **names = calloc(n ? n : 1, sizeof(*names));
	size_t *pick = calloc(n ? n : 1, sizeof(*pick));
	const char *name;
	json_t *vals;
	int r = 0;

	*values = json_object();
	if (!names || !pick || !*values) {
		r = IL_ENOMEM;
		goto out;
	}
	json_object_foreach((json_t *)matrix, name, vals)
		names[n - i--] = name;
	/* mixed radix, the last parameter fastest: nested loops in the order the plan lists them */
	for (i = n; i-- > 0;) {
		size_t len = json_array_size(json_object_get(matrix, names[i]));

		pick[i] = k % len;
		k /= len;
	}
	for (i = 0; i < n; i++) {
		json_t *v = json_array_get(json_object_get(matrix, names[i]), pick[i]);

		il_buf_adds(suffix, "-");
		part_of(v, suffix);
		if (json_object_set(*values, names[i], v))
			r = IL_ENOMEM;
	}
	if (il_buf_error(suffix))
		r = IL_ENOMEM;
out:
	free(names);
	free(pick);
	if (r) {
		json_decref(*values);
		*values = NULL;
	}
	return r;
}
