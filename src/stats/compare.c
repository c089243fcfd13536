// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-metric comparison against the reference, noise thresholds and verdicts. */
#include "stats/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void il_compare_release(struct il_cmp *c)
{
	free(c->met);
	free(c->r);
	memset(c, 0, sizeof(*c));
}

const struct il_mres *il_cmp_res(const struct il_cmp *c, size_t i, size_t v)
{
	return &c->r[i * c->ds->nvar + v];
}

static bool wanted(const struct il_cmp_opts *o, const struct il_mseries *m)
{
	if (!o->only || !o->only->n)
		return true;
	for (size_t i = 0; i < o->only->n; i++) {
		const char *s = o->only->v[i];
		size_t ls = strlen(s), lk = strlen(m->key);

		if (!strcmp(m->key, s) || !strcmp(m->metric, s) ||
		    (lk > ls && m->key[lk - ls - 1] == '.' && !strcmp(m->key + lk - ls, s)))
			return true;
	}
	return false;
}

/* Smallest equal n per side at which the two-sided exact U test can reach alpha. */
static size_t min_n_for(double alpha)
{
	for (size_t n = 2; n < 100; n++)
		if (il_mwu_min_p(n, n) < alpha)
			return n;
	return 100;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static double change_of(const struct il_desc *r, const struct il_desc *v)
{
	/* from a reference of 0 to anything else is an infinite change, not an unknown one */
	if (r->mean == 0)
		return v->mean == 0 ? NAN : v->mean > 0 ? INFINITY : -INFINITY;
	return (v->mean - r->mean) / fabs(r->mean) * 100;
}

int il_compare(struct il_cmp *c, const struct il_dataset *ds, const struct il_cmp_opts *o, struct il_err *err)
{
	const char *ref = o->ref ? o->ref : ds->reference;
	size_t nv = ds->nvar;
	int r = 0;

	memset(c, 0, sizeof(*c));
	c->o = *o;
	c->ds = ds;
	c->aa = -1;
	if (!nv || !ds->nmet)
		return il_err_set(err, IL_EINVAL, "nothing to compare: no counted samples");
	if (!ref || (c->ref = il_dataset_var(ds, ref)) < 0) {
		struct il_buf b = IL_BUF_INIT;

		for (size_t i = 0; i < nv; i++)
			il_buf_printf(&b, "%s%s", i ? ", " : "", ds->var[i]);
		r = il_err_set(err, IL_EINVAL, "reference '%s' is not one of the variants (%s)", ref ? ref : "",
			       il_buf_str(&b));
		il_buf_release(&b);
		return r;
	}
	if (!(o->alpha > 0 && o->alpha < 1) || !(o->floor_pct >= 0) || !(o->k >= 0) || !(o->level > 0 && o->level < 1))
		return il_err_set(err, IL_EINVAL, "alpha and level must be in (0, 1), min-change and k >= 0");
	if (ds->aa && (!o->ref || !strcmp(o->ref, ds->reference)))
		c->aa = il_dataset_var(ds, ds->aa);
	c->met = calloc(ds->nmet, sizeof(*c->met));
	c->r = calloc(ds->nmet * nv, sizeof(*c->r));
	if (!c->met || !c->r) {
		il_compare_release(c);
		return il_err_set(err, IL_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < ds->nmet; i++)
		if (wanted(o, &ds->met[i]))
			c->met[c->nmet++] = i;
	if (!c->nmet) {
		il_compare_release(c);
		return il_err_set(err, IL_EINVAL, "no metric matches the --metric selection");
	}
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];
		const struct il_values *rv = &m->var[c->ref];
		struct il_mres *rr = &c->r[i * nv + (size_t)c->ref];
		double aa_change = NAN;

		il_desc_compute(rv->v, rv->n, &rr->d);
		rr->change_pct = rr->p = rr->ci_lo = rr->ci_hi = rr->threshold_pct = NAN;
		rr->verdict = "ref";
		snprintf(rr->why, sizeof(rr->why), "reference");
		if (c->aa >= 0 && m->var[c->aa].n) {
			struct il_desc a;

			il_desc_compute(m->var[c->aa].v, m->var[c->aa].n, &a);
			aa_change = fabs(change_of(&rr->d, &a));
		}
		for (size_t v = 0; v < nv; v++) {
			struct il_mres *x = &c->r[i * nv + v];
			const struct il_values *xv = &m->var[v];
			struct il_test t;
			double floor = o->floor_pct, rse;

			if ((int)v == c->ref)
				continue;
			il_desc_compute(xv->v, xv->n, &x->d);
			x->change_pct = xv->n && rv->n ? change_of(&rr->d, &x->d) : NAN;
			x->p = x->ci_lo = x->ci_hi = NAN;
			x->ci_method = NULL;
			x->verdict = "?";
			if ((int)v != c->aa && isfinite(aa_change) && aa_change > floor)
				floor = aa_change;
			rse = rv->n > 1 && rr->d.mean != 0 ? rr->d.stdev / sqrt((double)rv->n) / fabs(rr->d.mean) * 100 : NAN;
			x->threshold_pct = isfinite(rse) && o->k * rse > floor ? o->k * rse : floor;
			if (xv->n < 2 || rv->n < 2) {
				snprintf(x->why, sizeof(x->why), "%zu vs %zu samples: at least 2 per side are needed", rv->n,
					 xv->n);
				continue;
			}
			if (o->test == IL_TEST_MWU && il_mwu_min_p(rv->n, xv->n) >= o->alpha) {
				snprintf(x->why, sizeof(x->why),
					 "%zu vs %zu can never give p < %g two-sided (smallest p %.3g); needs >= %zu per side",
					 rv->n, xv->n, o->alpha, il_mwu_min_p(rv->n, xv->n), min_n_for(o->alpha));
				continue;
			}
			r = o->test == IL_TEST_MWU ? il_mwu(rv->v, rv->n, xv->v, xv->n, &t, err) :
						     il_welch(rv->v, rv->n, xv->v, xv->n, &t, err);
			if (r) {
				il_err_prefix(err, "%s, %s: ", m->key, ds->var[v]);
				il_compare_release(c);
				return r;
			}
			x->p = t.p;
			if (rr->d.mean != 0) {
				struct il_err e2 = { 0 };

				/* seeded by names, so a CI does not change with the --metric selection */
				il_ratio_ci(rv->v, rv->n, xv->v, xv->n, o->level, o->resamples,
					    o->seed ^ fnv1a(m->key) ^ (fnv1a(ds->var[v]) << 1), &x->ci_lo, &x->ci_hi,
					    &x->ci_method, &e2);
			}
		}
	}
	if (o->holm) {
		double *p = malloc(c->nmet * sizeof(*p));
		size_t *ix = malloc(c->nmet * sizeof(*ix));

		for (size_t v = 0; p && ix && v < nv; v++) {
			size_t k = 0;

			for (size_t i = 0; i < c->nmet; i++)
				if (isfinite(c->r[i * nv + v].p))
					ix[k] = i, p[k++] = c->r[i * nv + v].p;
			il_holm(p, k);
			for (size_t j = 0; j < k; j++)
				c->r[ix[j] * nv + v].p = p[j];
		}
		free(p);
		free(ix);
	}
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];
		const struct il_mres *rr = &c->r[i * nv + (size_t)c->ref];

		for (size_t v = 0; v < nv; v++) {
			struct il_mres *x = &c->r[i * nv + v];
			double ch = x->change_pct;

			if ((int)v == c->ref)
				continue;
			if (!isfinite(x->p)) {
				c->nunknown++;
				continue;
			}
			/* an infinite change (the reference's mean is 0) is beyond any noise threshold */
			if (x->p < o->alpha && !isnan(ch) && fabs(ch) >= x->threshold_pct) {
				bool up = ch > 0;

				x->verdict = m->better == IL_BETTER_NONE ? "changed" :
					     (up == (m->better == IL_BETTER_HIGHER)) ? "better" : "worse";
				snprintf(x->why, sizeof(x->why), "p=%.3g < %g and |%+.1f%%| >= noise %.1f%%", x->p, o->alpha,
					 ch, x->threshold_pct);
				if (!strcmp(x->verdict, "changed"))
					c->nchanged++;
				else if (!strcmp(x->verdict, "better"))
					c->nbetter++;
				else
					c->nworse++;
				continue;
			}
			x->verdict = "~";
			c->nnoise++;
			if (x->p >= o->alpha)
				snprintf(x->why, sizeof(x->why), "p=%.3g >= %g", x->p, o->alpha);
			else
				snprintf(x->why, sizeof(x->why), "|%+.1f%%| < noise %.1f%%", ch, x->threshold_pct);
			{
				/* per side, for 80% power at alpha, MWU efficiency 0.955 vs the t-test */
				double sd = sqrt((rr->d.stdev * rr->d.stdev + x->d.stdev * x->d.stdev) / 2);
				double delta = fmax(isfinite(ch) ? fabs(ch) : 0, o->floor_pct) / 100 * fabs(rr->d.mean);
				double z = il_norm_isf(o->alpha / 2) + 0.8416212335729143;

				if (delta > 0 && isfinite(sd)) {
					double n = ceil(2 * z * z * sd * sd / (delta * delta) / 0.955);

					x->n_needed = n < 1e9 ? (size_t)(n < 2 ? 2 : n) : 1000000000;
				}
			}
		}
	}
	return 0;
}

int il_compare_sentence(const struct il_cmp *c, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	size_t total = c->nbetter + c->nworse + c->nchanged + c->nnoise, listed = 0;
	size_t others = ds->nvar > 1 ? ds->nvar - 1 : 0;
	const char *unit = others > 1 ? "comparisons" : "metrics";
	int r = 0;

	if (total)
		r |= il_buf_printf(b, "no difference above noise in %zu of %zu %s", c->nnoise, total, unit);
	else
		r |= il_buf_adds(b, "no metric could be tested");
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];

		for (size_t v = 0; v < ds->nvar; v++) {
			const struct il_mres *x = il_cmp_res(c, i, v);

			if (strcmp(x->verdict, "better") && strcmp(x->verdict, "worse") && strcmp(x->verdict, "changed"))
				continue;
			if (listed++ == 8) {
				r |= il_buf_adds(b, "; and more (see the table)");
				goto done;
			}
			if (!strcmp(x->verdict, "changed"))
				r |= il_buf_printf(b, "; %s changed %+.1f%% for %s (p=%.2g)", m->key, x->change_pct, ds->var[v],
						   x->p);
			else
				r |= il_buf_printf(b, "; %s %.1f%% %s for %s (p=%.2g)", m->key, fabs(x->change_pct), x->verdict,
						   ds->var[v], x->p);
		}
	}
done:
	if (c->nunknown)
		r |= il_buf_printf(b, "; %zu %s could not be tested (too few samples)", c->nunknown, unit);
	r |= il_buf_adds(b, ".");
	return r ? IL_ENOMEM : 0;
}
