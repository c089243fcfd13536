// SPDX-License-Identifier: GPL-2.0-or-later
/* A run's dataset split by governor (stats/datasplit.h), from its run-start record's variants. */
#include "stats/datasplit.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

static const json_t *variant_of(const json_t *vs, const char *label)
{
	const json_t *e;
	size_t i;

	json_array_foreach(vs, i, e)
		if (json_is_string(json_object_get(e, "label")) && !strcmp(json_string_value(json_object_get(e, "label")), label))
			return e;
	return NULL;
}

/* Whether a and b are the same governor with the same states disabled. */
static bool same_governor(const json_t *a, const json_t *b)
{
	return json_equal(json_object_get(a, "governor"), json_object_get(b, "governor")) &&
	       (json_equal(json_object_get(a, "disable"), json_object_get(b, "disable")) ||
		(!json_array_size(json_object_get(a, "disable")) && !json_array_size(json_object_get(b, "disable"))));
}

/* The variant's rows and residency entries, copied (the JSON shared: it is reference-counted). */
static int copy_rows(struct il_dataset *d, const struct il_dataset *s, const char *label)
{
	for (size_t i = 0; i < s->nrows; i++) {
		const struct il_row *r = &s->rows[i];
		struct il_row *nr;

		if (strcmp(r->variant, label))
			continue;
		if (!(nr = realloc(d->rows, (d->nrows + 1) * sizeof(*nr))))
			return IL_ENOMEM;
		d->rows = nr;
		nr = &d->rows[d->nrows];
		*nr = *r;
		nr->group = strdup(r->group);
		nr->variant = strdup(r->variant);
		json_incref(nr->idle);
		json_incref(nr->matrix);
		d->nrows++;
		d->counted++;
		if (!nr->group || !nr->variant)
			return IL_ENOMEM;
	}
	for (size_t i = 0; i < s->nres; i++) {
		const struct il_resid *r = &s->res[i];
		struct il_resid *nr;

		if (strcmp(r->variant, label))
			continue;
		if (!(nr = realloc(d->res, (d->nres + 1) * sizeof(*nr))))
			return IL_ENOMEM;
		d->res = nr;
		nr = &d->res[d->nres++];
		*nr = *r;
		nr->group = strdup(r->group);
		nr->variant = strdup(r->variant);
		nr->state = strdup(r->state);
		if (!nr->group || !nr->variant || !nr->state)
			return IL_ENOMEM;
	}
	return 0;
}

/* The part of governor g (the run-start variant entry gv): its variants, the reference on ref_kernel, its A/A partner. */
static int make_part(const struct il_dataset *src, const json_t *rs, const json_t *gv, const json_t *ref_kernel,
		     struct il_dataset_part *p)
{
	const json_t *vs = json_object_get(rs, "variants"), *e;
	struct il_buf name = IL_BUF_INIT;
	size_t i;
	int r = 0;

	il_buf_adds(&name, json_string_value(json_object_get(gv, "governor")));
	json_array_foreach(json_object_get(gv, "disable"), i, e)
		il_buf_printf(&name, " -%s", json_is_string(e) ? json_string_value(e) : "?");
	p->governor = il_buf_detach(&name);
	json_array_foreach(vs, i, e) {
		const char *l = json_string_value(json_object_get(e, "label"));

		if (!l || !same_governor(e, gv) || il_dataset_var(src, l) < 0)
			continue;
		if ((r = il_dataset_pick(&p->ds, src, l, l)) || (r = copy_rows(&p->ds, src, l)))
			break;
		if (json_equal(json_object_get(e, "kernel"), ref_kernel)) {
			if (!p->ds.reference && !(p->ds.reference = strdup(l)))
				r = IL_ENOMEM;
		} else if (!p->ds.aa && il_datajournal_same_kernel(rs, json_object_get(e, "kernel"), ref_kernel) &&
			   !(p->ds.aa = strdup(l))) {
			r = IL_ENOMEM;
		}
	}
	p->ds.title = src->title ? strdup(src->title) : NULL;
	p->ds.meta = json_incref(src->meta);
	p->ds.skipped = src->skipped;
	p->ds.looks = src->looks;
	p->ds.iter_max = src->iter_max;
	return r || !p->governor || (src->title && !p->ds.title) ? IL_ENOMEM : 0;
}

int il_datasplit_by_governor(const struct il_dataset *src, struct il_dataset_part **out, size_t *n, struct il_err *err)
{
	const json_t *rs = json_object_get(src->meta, "run_start"), *vs = json_object_get(rs, "variants"), *ref, *e;
	const json_t *ref_kernel;
	size_t i, cap = 0;

	*out = NULL;
	*n = 0;
	if (!src->reference || !(ref = variant_of(vs, src->reference)) || !json_is_string(json_object_get(ref, "kernel")))
		return 0;
	ref_kernel = json_object_get(ref, "kernel");
	json_array_foreach(vs, i, e) {
		struct il_dataset_part *np;
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = same_governor(json_array_get(vs, k), e);
		if (seen)
			continue;
		if (*n == cap) {
			if (!(np = realloc(*out, (cap = cap ? 2 * cap : 4) * sizeof(*np)))) {
				il_datasplit_parts_release(*out, *n);
				*out = NULL, *n = 0;
				return il_err_oom(err);
			}
			*out = np;
		}
		memset(&(*out)[*n], 0, sizeof(**out));
		if (make_part(src, rs, e, ref_kernel, &(*out)[(*n)++])) {
			il_datasplit_parts_release(*out, *n);
			*out = NULL, *n = 0;
			return il_err_oom(err);
		}
		/* a governor not measured on the reference's kernel, or on no other: nothing to compare */
		if (!(*out)[*n - 1].ds.reference || (*out)[*n - 1].ds.nvar < 2) {
			il_datasplit_parts_release(&(*out)[*n - 1], 1);
			(*n)--;
		}
	}
	/* one governor: the run itself */
	if (*n < 2) {
		il_datasplit_parts_release(*out, *n);
		*out = NULL, *n = 0;
	}
	return 0;
}

void il_datasplit_parts_release(struct il_dataset_part *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		free(p[i].governor);
		il_dataset_release(&p[i].ds);
	}
	free(p);
}
