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
	free(c->unreliable);
	free(c->dropped);
	memset(c, 0, sizeof(*c));
}

const struct il_mres *il_cmp_res(const struct il_cmp *c, size_t i, size_t v)
{
	return &c->r[i * c->ds->nvar + v];
}

static bool wanted(const struct il_cmp_opts *o, const struct il_mseries *m)
{
	return il_dataset_metric_selected(m->key, m->metric, o->only);
}

/*
 * The noisiest variant of metric m when its CV is above the limit: a metric
 * whose samples scatter by more than a quarter of their mean (the demo's
 * limit) measures the host's noise more than the governor, so a report asked
 * to be clean (--max-cv) leaves it out and says so rather than print it.
 */
static bool too_noisy(const struct il_cmp_opts *o, const struct il_mseries *m, size_t nv, struct il_cmp_dropped *out)
{
	bool noisy = false;

	if (!(o->max_cv_pct > 0))
		return false;
	for (size_t v = 0; v < nv; v++) {
		struct il_desc d;

		if (m->var[v].n < 2)
			continue;
		il_desc_compute(m->var[v].v, m->var[v].n, &d);
		/* a mean of 0 with scatter has an infinite CV; all zeros is perfectly quiet */
		double cv = isnan(d.cv) ? (d.stdev > 0 ? INFINITY : 0) : d.cv;

		if (cv * 100 > o->max_cv_pct && (!noisy || cv > out->cv)) {
			noisy = true;
			out->var = v;
			out->cv = cv;
		}
	}
	return noisy;
}

bool il_compare_dropped_note(const struct il_cmp *c, struct il_buf *b)
{
	if (!c->ndropped)
		return false;
	il_buf_printf(b, "metrics left out, CV above %g%% (a metric of noise on this host):", c->o.max_cv_pct);
	for (size_t i = 0; i < c->ndropped; i++) {
		const struct il_cmp_dropped *d = &c->dropped[i];

		if (isfinite(d->cv))
			il_buf_printf(b, "%s %s (%s %.0f%%)", i ? "," : "", c->ds->met[d->met].key, c->ds->var[d->var],
				      d->cv * 100);
		else
			il_buf_printf(b, "%s %s (%s: mean 0)", i ? "," : "", c->ds->met[d->met].key, c->ds->var[d->var]);
	}
	return true;
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

/* Both sides one and the same constant (no idle misses at all, say): p = 1 by construction. */
static bool constant_pair(const struct il_mres *rr, const struct il_mres *x)
{
	return rr->d.min == rr->d.max && x->d.min == x->d.max && rr->d.min == x->d.min;
}

/*
 * Holm's step-down adjustment over the comparisons of the verdict: every
 * variant but the reference and its A/A partner, on every metric the A/A
 * pair did not make unreliable, where a p-value was computed. Comparisons
 * that cannot reach alpha whatever the data (too few samples: no p; both
 * sides the same constant) are left out, as Tarone's refinement of the
 * Bonferroni family does: counting them would only weaken the others.
 */
static int holm_family(struct il_cmp *c)
{
	size_t nv = c->ds->nvar, k = 0;
	double *p = malloc((c->nmet * nv + 1) * sizeof(*p));
	struct il_mres **ix = malloc((c->nmet * nv + 1) * sizeof(*ix));

	if (!p || !ix) {
		free(p);
		free(ix);
		return IL_ENOMEM;
	}
	for (size_t i = 0; i < c->nmet; i++)
		for (size_t v = 0; v < nv; v++) {
			struct il_mres *x = &c->r[i * nv + v];

			if ((int)v != c->ref && (int)v != c->aa && !c->unreliable[i] && isfinite(x->p) &&
			    !constant_pair(&c->r[i * nv + (size_t)c->ref], x))
				ix[k] = x, p[k++] = x->p;
		}
	il_holm(p, k);
	for (size_t j = 0; j < k; j++)
		ix[j]->p = p[j];
	c->nfamily = k;
	free(p);
	free(ix);
	return 0;
}

/* The verdict of one comparison x against the reference rr, counted when it is one of the verdict's. */
static void judge(struct il_cmp *c, const struct il_mseries *m, const struct il_mres *rr, struct il_mres *x,
		  bool unreliable, bool aa)
{
	const struct il_cmp_opts *o = &c->o;
	double ch = x->change_pct;
	bool sig = isfinite(x->p) && x->p < o->alpha && !isnan(ch) && fabs(ch) >= x->threshold_pct;

	if (unreliable) {
		/* not a finding either way: the A/A pair showed the host drifts on this metric */
		x->verdict = "unreliable";
		if (aa)
			snprintf(x->why, sizeof(x->why), "the A/A pair differs: p=%.3g < %g and |%+.1f%%| >= noise %.1f%%",
				 x->p_raw, o->alpha, ch, x->threshold_pct);
		else
			snprintf(x->why, sizeof(x->why), "the A/A pair differs on this metric: the host is not quiet");
		if (!aa)
			c->nunrel++;
		return;
	}
	if (!isfinite(x->p)) {
		if (!aa)
			c->nunknown++;
		return;
	}
	/* an infinite change (the reference's mean is 0) is beyond any noise threshold */
	if (sig) {
		bool up = ch > 0;

		x->verdict = m->better == IL_BETTER_NONE ? "changed" :
			     (up == (m->better == IL_BETTER_HIGHER)) ? "better" : "worse";
		snprintf(x->why, sizeof(x->why), "p=%.3g < %g and |%+.1f%%| >= noise %.1f%%", x->p, o->alpha, ch,
			 x->threshold_pct);
		if (aa)
			return;
		if (!strcmp(x->verdict, "changed"))
			c->nchanged++;
		else if (!strcmp(x->verdict, "better"))
			c->nbetter++;
		else
			c->nworse++;
		return;
	}
	x->verdict = "~";
	if (!aa)
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
	c->unreliable = calloc(ds->nmet, sizeof(*c->unreliable));
	c->dropped = calloc(ds->nmet, sizeof(*c->dropped));
	if (!c->met || !c->r || !c->unreliable || !c->dropped) {
		il_compare_release(c);
		return il_err_set(err, IL_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < ds->nmet; i++) {
		if (!wanted(o, &ds->met[i]))
			continue;
		if (too_noisy(o, &ds->met[i], nv, &c->dropped[c->ndropped]))
			c->dropped[c->ndropped++].met = i;
		else
			c->met[c->nmet++] = i;
	}
	if (!c->nmet) {
		r = il_err_set(err, IL_EINVAL, c->ndropped ? "every selected metric has a CV above %g%%" :
						       "no metric matches the --metric selection", o->max_cv_pct);
		il_compare_release(c);
		return r;
	}
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];
		const struct il_values *rv = &m->var[c->ref];
		struct il_mres *rr = &c->r[i * nv + (size_t)c->ref];
		double aa_change = NAN;

		il_desc_compute(rv->v, rv->n, &rr->d);
		rr->change_pct = rr->p = rr->p_raw = rr->ci_lo = rr->ci_hi = rr->threshold_pct = NAN;
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
			x->p = x->p_raw = x->ci_lo = x->ci_hi = NAN;
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
			x->p = x->p_raw = t.p;
			if (rr->d.mean != 0) {
				struct il_err e2 = { 0 };

				/* seeded by names, so a CI does not change with the --metric selection */
				il_ratio_ci(rv->v, rv->n, xv->v, xv->n, o->level, o->resamples,
					    o->seed ^ fnv1a(m->key) ^ (fnv1a(ds->var[v]) << 1), &x->ci_lo, &x->ci_hi,
					    &x->ci_method, &e2);
			}
		}
	}
	/* the A/A check, on the test's own p: adjusting it would hide a noisy host */
	for (size_t i = 0; c->aa >= 0 && i < c->nmet; i++) {
		const struct il_mres *x = &c->r[i * nv + (size_t)c->aa];

		if (isfinite(x->p_raw) && x->p_raw < o->alpha && !isnan(x->change_pct) &&
		    fabs(x->change_pct) >= x->threshold_pct) {
			c->unreliable[i] = true;
			c->nunreliable++;
		}
	}
	if (o->holm && (r = holm_family(c))) {
		il_compare_release(c);
		return il_err_set(err, r, "out of memory");
	}
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];
		const struct il_mres *rr = &c->r[i * nv + (size_t)c->ref];

		for (size_t v = 0; v < nv; v++)
			if ((int)v != c->ref)
				judge(c, m, rr, &c->r[i * nv + v], c->unreliable[i], (int)v == c->aa);
	}
	return 0;
}

int il_compare_sentence(const struct il_cmp *c, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	size_t total = c->nbetter + c->nworse + c->nchanged + c->nnoise, listed = 0;
	size_t others = ds->nvar > 1 + (c->aa >= 0) ? ds->nvar - 1 - (c->aa >= 0) : 0;
	const char *unit = others > 1 ? "comparisons" : "metrics";
	int r = 0;

	if (total)
		r |= il_buf_printf(b, "no difference above noise in %zu of %zu %s", c->nnoise, total, unit);
	else
		r |= il_buf_adds(b, "no metric could be tested");
	if (total && c->o.holm && c->nfamily == total)
		r |= il_buf_printf(b, " (p Holm-adjusted over all %zu)", total);
	else if (total && c->o.holm)
		r |= il_buf_printf(b, " (p Holm-adjusted over the %zu whose values vary)", c->nfamily);
	else if (total)
		r |= il_buf_adds(b, " (p not adjusted for multiple comparisons)");
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];

		for (size_t v = 0; v < ds->nvar; v++) {
			const struct il_mres *x = il_cmp_res(c, i, v);

			if ((int)v == c->aa ||
			    (strcmp(x->verdict, "better") && strcmp(x->verdict, "worse") && strcmp(x->verdict, "changed")))
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
	if (c->nunreliable)
		r |= il_buf_printf(b, "; %zu metric%s unreliable (the A/A pair %s / %s differs: host not quiet)",
				   c->nunreliable, c->nunreliable > 1 ? "s" : "", ds->var[c->ref], ds->var[c->aa]);
	if (c->nunknown)
		r |= il_buf_printf(b, "; %zu %s could not be tested (too few samples)", c->nunknown, unit);
	r |= il_buf_adds(b, ".");
	return r ? IL_ENOMEM : 0;
}

bool il_compare_aa_warning(const struct il_cmp *c, struct il_buf *b)
{
	const struct il_dataset *ds = c->ds;
	size_t listed = 0;

	if (!c->nunreliable)
		return false;
	il_buf_printf(b, "host not quiet: %s / %s differ on", ds->var[c->ref], ds->var[c->aa]);
	for (size_t i = 0; i < c->nmet; i++) {
		if (!c->unreliable[i])
			continue;
		if (listed++ == 6) {
			il_buf_printf(b, " and %zu more", c->nunreliable - 6);
			break;
		}
		il_buf_printf(b, "%s %s (p=%.2g)", listed > 1 ? "," : "", ds->met[c->met[i]].key,
			      il_cmp_res(c, i, (size_t)c->aa)->p_raw);
	}
	il_buf_printf(b, "; %s marked unreliable", c->nunreliable > 1 ? "those metrics are" : "that metric is");
	return true;
}
