// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-metric comparison against the reference, noise thresholds and verdicts
 * (stats/compare.h; the stop rule over them: stats/comparejudge.c; what
 * they say in words: stats/comparewords.c).
 */
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
	free(c->aa_floor);
	free(c->key);
	free(c->aa_secondary);
	free(c->dropped);
	free(c->nbypass);
	memset(c, 0, sizeof(*c));
}

const struct il_mres *il_compare_res(const struct il_cmp *c, size_t i, size_t v)
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
		il_stats_desc_compute(m->var[v].v, m->var[v].n, &d);
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

/* Smallest equal n per side at which the two-sided exact U test can reach alpha. */
static size_t min_n_for(double alpha)
{
	for (size_t n = 2; n < 100; n++)
		if (il_stats_mwu_min_p(n, n) < alpha)
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

/* A comparison whose p takes part in an adjustment: a test was possible and the data vary. */
static bool testable(const struct il_mres *rr, const struct il_mres *x)
{
	return isfinite(x->p_raw) && !constant_pair(rr, x);
}

/*
 * Adjust the p of the comparisons of variant v (or of every variant but the
 * reference and its A/A partner when v < 0) over metrics of one kind (key
 * or not): Holm for a key family, Benjamini-Hochberg for the secondary
 * ones. Comparisons that cannot reach alpha whatever the data (no test;
 * both sides the same constant) are left out, as Tarone's refinement of the
 * Bonferroni family does: counting them would only weaken the others.
 * *family: how many were adjusted.
 */
static int adjust(struct il_cmp *c, int v, bool key, bool bh, size_t *family)
{
	size_t nv = c->ds->nvar, k = 0;
	double *p = malloc((c->nmet * nv + 1) * sizeof(*p));
	struct il_mres **ix = malloc((c->nmet * nv + 1) * sizeof(*ix));
	int r;

	if (!p || !ix) {
		free(p);
		free(ix);
		return IL_ENOMEM;
	}
	for (size_t i = 0; i < c->nmet; i++) {
		/* a metric with a raised A/A floor stays in the family: a change beyond the floor is a finding */
		if (c->key[i] != key)
			continue;
		for (size_t w = 0; w < nv; w++) {
			struct il_mres *x = &c->r[i * nv + w];

			if (v >= 0 ? (int)w != v : ((int)w == c->ref || (int)w == c->aa))
				continue;
			if (testable(&c->r[i * nv + (size_t)c->ref], x))
				ix[k] = x, p[k++] = x->p_raw;
		}
	}
	r = bh ? il_stats_bh(p, k) : il_stats_holm(p, k);
	for (size_t j = 0; !r && j < k; j++) {
		ix[j]->p = p[j];
		ix[j]->family = k;
	}
	*family = k;
	free(p);
	free(ix);
	return r;
}

bool il_compare_row_bypassed(const struct il_row *row)
{
	return json_is_object(json_object_get(row->idle, "governor_bypass"));
}

/* Variant v of workload group has a counted sample whose governor was bypassed. */
static bool bypassed(const struct il_cmp *c, const char *group, size_t v)
{
	const struct il_dataset *ds = c->ds;

	if (!c->nbypass[v])
		return false;
	for (size_t i = 0; i < ds->nrows; i++)
		if (il_compare_row_bypassed(&ds->rows[i]) && !strcmp(ds->rows[i].group, group) &&
		    !strcmp(ds->rows[i].variant, ds->var[v]))
			return true;
	return false;
}

/* Decide x against the reference rr of metric m at the comparison's level (il_decide). */
static void decide(struct il_cmp *c, const struct il_mseries *m, const struct il_mres *rr, struct il_mres *x, size_t v)
{
	const struct il_values *rv = &m->var[c->ref], *xv = &m->var[v];
	size_t fam = x->key && c->o.holm && x->family ? x->family : 1;
	struct il_decide_in in = { .r = rv->v, .nr = rv->n, .x = xv->v, .nx = xv->n,
				   .p = c->o.holm || !isfinite(x->p) ? x->p : x->p_raw, .alpha = c->alpha_look,
				   .family = fam, .change_pct = x->change_pct, .threshold_pct = x->threshold_pct,
				   .better = m->better, .n_min = 2, .governor_metric = m->idle, .abs_floor = m->abs_floor,
				   .bypassed = bypassed(c, m->group, (size_t)c->ref) || bypassed(c, m->group, v) };
	struct il_decision d;

	if (c->o.test == IL_TEST_MWU)
		in.n_min = min_n_for(c->alpha_look / (double)fam);
	if (!isfinite(in.p) && testable(rr, x))
		in.p = x->p_raw;
	il_decide(&in, &d);
	x->vk = d.v;
	x->eq_lo = d.eq_lo;
	x->eq_hi = d.eq_hi;
	x->n_needed = d.n_needed;
	memcpy(x->why, d.why, sizeof(x->why));
}

/*
 * x on key metric i, on which the A/A pair differs: decided against the A/A
 * floor (the noise threshold raised to it). A change beyond it keeps its
 * verdict, the why saying so; one within it, or none measurable, is
 * unreliable: that much the host does by itself today.
 */
static void decide_beyond_aa(struct il_cmp *c, const struct il_mseries *m, const struct il_mres *rr, struct il_mres *x,
			     size_t v, size_t i)
{
	const struct il_mres *a = &c->r[i * c->ds->nvar + (size_t)c->aa];
	double floor = c->aa_floor[i];
	char why[sizeof(x->why)];

	if (!(x->threshold_pct >= floor))
		x->threshold_pct = floor;
	decide(c, m, rr, x, v);
	if (il_decide_verdict_differs(x->vk) && isfinite(floor)) {
		snprintf(why, sizeof(why), "%s; beyond the A/A floor %.1f%% (the A/A pair differs by %+.1f%%)", x->why, floor,
			 a->change_pct);
		memcpy(x->why, why, sizeof(why));
	} else if (!il_decide_verdict_differs(x->vk) && (!isfinite(x->change_pct) || fabs(x->change_pct) < floor)) {
		x->vk = IL_VERDICT_UNRELIABLE;
		x->n_needed = 0;
		if (isfinite(floor))
			snprintf(x->why, sizeof(x->why), "within the A/A floor %.1f%%: the A/A pair differs by %+.1f%% on "
				 "this metric, the host is not quiet", floor, a->change_pct);
		else
			snprintf(x->why, sizeof(x->why), "the A/A pair differs on this metric and its change has no interval: "
				 "the host is not quiet");
	}
}

/* The key flag of every kept metric: --metric's list, else the workloads' declared key metrics. */
static void mark_key(struct il_cmp *c)
{
	for (size_t i = 0; i < c->nmet; i++) {
		c->key[i] = c->o.only ? true : c->ds->met[c->met[i]].key_metric;
		c->nkey += c->key[i];
	}
	/* no declared key metric among those kept (numbers, a metric selection's leftovers): all are */
	if (!c->nkey)
		for (size_t i = 0; i < c->nmet; i++)
			c->key[i] = true, c->nkey++;
}

/* Per-metric descriptive statistics, change, threshold, the test's p and the ratio CI. */
static int measure(struct il_cmp *c, struct il_err *err)
{
	const struct il_dataset *ds = c->ds;
	const struct il_cmp_opts *o = &c->o;
	size_t nv = ds->nvar;
	int r;

	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];
		const struct il_values *rv = &m->var[c->ref];
		struct il_mres *rr = &c->r[i * nv + (size_t)c->ref];
		double aa_change = NAN;

		il_stats_desc_compute(rv->v, rv->n, &rr->d);
		rr->change_pct = rr->p = rr->p_raw = rr->ci_lo = rr->ci_hi = rr->threshold_pct = NAN;
		rr->eq_lo = rr->eq_hi = NAN;
		rr->vk = IL_VERDICT_REF;
		rr->key = c->key[i];
		snprintf(rr->why, sizeof(rr->why), "reference");
		if (c->aa >= 0 && m->var[c->aa].n) {
			struct il_desc a;

			il_stats_desc_compute(m->var[c->aa].v, m->var[c->aa].n, &a);
			aa_change = fabs(change_of(&rr->d, &a));
		}
		for (size_t v = 0; v < nv; v++) {
			struct il_mres *x = &c->r[i * nv + v];
			const struct il_values *xv = &m->var[v];
			struct il_test t;
			double floor = o->floor_pct, rse;

			if ((int)v == c->ref)
				continue;
			il_stats_desc_compute(xv->v, xv->n, &x->d);
			x->change_pct = xv->n && rv->n ? change_of(&rr->d, &x->d) : NAN;
			x->p = x->p_raw = x->ci_lo = x->ci_hi = x->eq_lo = x->eq_hi = NAN;
			x->ci_method = NULL;
			x->key = c->key[i];
			x->vk = IL_VERDICT_UNKNOWN;
			if ((int)v != c->aa && isfinite(aa_change) && aa_change > floor)
				floor = aa_change;
			rse = rv->n > 1 && rr->d.mean != 0 ? rr->d.stdev / sqrt((double)rv->n) / fabs(rr->d.mean) * 100 : NAN;
			x->threshold_pct = isfinite(rse) && o->k * rse > floor ? o->k * rse : floor;
			if (xv->n < 2 || rv->n < 2)
				continue;
			r = o->test == IL_TEST_MWU ? il_stats_mwu(rv->v, rv->n, xv->v, xv->n, &t, err) :
						     il_stats_welch(rv->v, rv->n, xv->v, xv->n, &t, err);
			if (r)
				return il_err_prefix(err, "%s, %s: ", m->key, ds->var[v]), r;
			/* Welch's t of two constants is undefined; equal constants are p = 1, unequal p = 0 */
			if (isnan(t.p))
				t.p = x->d.mean == rr->d.mean ? 1 : 0;
			x->p = x->p_raw = t.p;
			if (rr->d.mean != 0) {
				struct il_err e2 = { 0 };

				/* seeded by names, so a CI does not change with the --metric selection */
				il_stats_ratio_ci(rv->v, rv->n, xv->v, xv->n, o->level, o->resamples,
					    o->seed ^ fnv1a(m->key) ^ (fnv1a(ds->var[v]) << 1), &x->ci_lo, &x->ci_hi,
					    &x->ci_method, &e2);
			}
		}
	}
	return 0;
}

/*
 * The A/A pair, decided as any variant is (its key family Holm-adjusted, its
 * secondary metrics by BH): a key metric on which it differs is unreliable
 * for every variant; a secondary one is listed as exploratory.
 */
static int aa_check(struct il_cmp *c)
{
	size_t nv = c->ds->nvar, fam;
	int r;

	if (c->aa < 0)
		return 0;
	if (c->o.holm && ((r = adjust(c, c->aa, true, false, &fam)) || (r = adjust(c, c->aa, false, true, &fam))))
		return r;
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &c->ds->met[c->met[i]];
		struct il_mres *x = &c->r[i * nv + (size_t)c->aa];

		decide(c, m, &c->r[i * nv + (size_t)c->ref], x, (size_t)c->aa);
		if (!il_decide_verdict_differs(x->vk))
			continue;
		if (c->key[i]) {
			const struct il_values *rv = &m->var[c->ref], *av = &m->var[c->aa];
			double a_fam = c->alpha_look / (double)(c->o.holm && x->family ? x->family : 1), lo, hi;

			c->unreliable[i] = true;
			c->nunreliable++;
			/* the A/A floor: the largest change the A/A change's interval allows (no interval: all of it) */
			c->aa_floor[i] = il_decide_change_interval(rv->v, rv->n, av->v, av->n, 1 - 2 * a_fam, &lo, &hi) ?
						 fmax(fabs(lo), fabs(hi)) : INFINITY;
			x->vk = IL_VERDICT_UNRELIABLE;
		} else {
			c->aa_secondary[i] = true;
			c->naa_secondary++;
		}
	}
	return 0;
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
	if (!il_decide_alpha_ok(o->alpha))
		return il_err_set(err, IL_EINVAL, "alpha %g: expected a significance level in (0, 0.5)", o->alpha);
	if (!(o->floor_pct >= 0) || !(o->k >= 0) || !(o->level > 0 && o->level < 1))
		return il_err_set(err, IL_EINVAL, "level must be in (0, 1), min-change and k >= 0");
	c->looks = o->looks ? o->looks : ds->looks ? ds->looks : 1;
	c->iter_max = o->iter_max ? o->iter_max : ds->iter_max;
	c->alpha_look = il_decide_look_alpha(o->alpha, c->looks);
	if (ds->aa && (!o->ref || !strcmp(o->ref, ds->reference)))
		c->aa = il_dataset_var(ds, ds->aa);
	c->met = calloc(ds->nmet, sizeof(*c->met));
	c->r = calloc(ds->nmet * nv, sizeof(*c->r));
	c->unreliable = calloc(ds->nmet, sizeof(*c->unreliable));
	c->aa_floor = calloc(ds->nmet, sizeof(*c->aa_floor));
	c->key = calloc(ds->nmet, sizeof(*c->key));
	c->aa_secondary = calloc(ds->nmet, sizeof(*c->aa_secondary));
	c->dropped = calloc(ds->nmet, sizeof(*c->dropped));
	c->nbypass = calloc(nv, sizeof(*c->nbypass));
	if (!c->met || !c->r || !c->unreliable || !c->aa_floor || !c->key || !c->aa_secondary || !c->dropped || !c->nbypass) {
		il_compare_release(c);
		return il_err_oom(err);
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
	for (size_t i = 0; i < ds->nrows; i++) {
		int v = il_dataset_var(ds, ds->rows[i].variant);

		if (v >= 0 && il_compare_row_bypassed(&ds->rows[i]))
			c->nbypass[v]++, c->nbypass_all++;
	}
	mark_key(c);
	if ((r = measure(c, err)) || (r = aa_check(c))) {
		il_compare_release(c);
		return r == IL_ENOMEM ? il_err_oom(err) : r;
	}
	/* the families: each variant's key comparisons (Holm), every secondary one together (BH) */
	for (size_t v = 0; o->holm && v < nv; v++) {
		size_t fam;

		if ((int)v == c->ref || (int)v == c->aa)
			continue;
		if ((r = adjust(c, (int)v, true, false, &fam))) {
			il_compare_release(c);
			return il_err_oom(err);
		}
		if (fam > c->family_max)
			c->family_max = fam;
	}
	if (o->holm && (r = adjust(c, -1, false, true, &c->nsecondary_family))) {
		il_compare_release(c);
		return il_err_oom(err);
	}
	for (size_t i = 0; i < c->nmet; i++) {
		const struct il_mseries *m = &ds->met[c->met[i]];
		const struct il_mres *rr = &c->r[i * nv + (size_t)c->ref];

		for (size_t v = 0; v < nv; v++) {
			struct il_mres *x = &c->r[i * nv + v];

			if ((int)v == c->ref || (int)v == c->aa) {
				x->verdict = il_decide_verdict_name(x->vk);
				continue;
			}
			if (c->unreliable[i])
				decide_beyond_aa(c, m, rr, x, v, i);
			else
				decide(c, m, rr, x, v);
			x->verdict = il_decide_verdict_name(x->vk);
			if (c->key[i]) {
				c->n[x->vk]++;
				if (x->vk == IL_VERDICT_UNKNOWN && x->n_needed > c->n_needed_max)
					c->n_needed_max = x->n_needed;
				if (x->vk == IL_VERDICT_UNKNOWN && c->iter_max && x->n_needed > 2 * c->iter_max)
					c->nfutile++;
			} else {
				c->n2[x->vk]++;
			}
		}
	}
	return 0;
}
