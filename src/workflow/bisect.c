// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Noise-aware bisection: the endpoints, the step decisions, the walk over
 * the commits, the confirmation (see bisect.h; the journal and its setup
 * record: bisectjournal.c, the answer's JSON: bisectresult.c).
 */
#include "workflow/bisect.h"

#include "stats/decide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/dataset.h"
#include "stats/stats.h"
#include "workflow/bisectjournal.h"
#include "util/buf.h"

/* Everything known so far: the journal's records (commits, setup), the endpoints' pooled values. */
struct bs {
	const struct il_bisect_opts *o;
	const struct il_bisect_measurer *m;
	struct il_bisect_journal jn;
	struct il_strlist keys;     /* the metrics bisected on */
	json_t *good, *bad;         /* pooled endpoint values {key: [..]} */
};

static const char *mstatus_name(enum il_bisect_mstatus st)
{
	static const char *const names[] = {
		[IL_BM_OK] = "ok", [IL_BM_BUILD_FAILED] = "build_failed", [IL_BM_INFRA_FAILED] = "infra_failed",
	};

	return names[st];
}

/* Round k of commit (measured unless the journal has it); *rec borrowed from the state. */
static int round_of(struct bs *s, const char *c, size_t k, size_t n, json_t **rec, struct il_err *err)
{
	json_t *rounds = json_object_get(il_bisect_journal_commit(&s->jn, c), "rounds"), *e;
	struct il_bisect_round rd = { 0 };
	size_t i;
	int r;

	if (!rounds)
		return il_err_oom(err);
	json_array_foreach(rounds, i, e)
		if ((size_t)json_integer_value(json_object_get(e, "round")) == k) {
			*rec = e;
			return 0;
		}
	if ((r = s->m->measure(s->m->ctx, c, k, n, &rd, err)))
		goto out;
	r = il_bisect_journal_append(&s->jn,
				     json_pack("{s:s,s:s,s:I,s:I,s:s,s:o,s:o,s:o}", "type", "round", "commit", c, "round",
					       (json_int_t)k, "n", (json_int_t)n, "status", mstatus_name(rd.status), "reason",
					       rd.reason ? json_string(rd.reason) : json_null(), "values",
					       rd.values ? json_incref(rd.values) : json_object(), "run",
					       rd.run ? json_string(rd.run) : json_null()),
				     err);
	*rec = json_array_get(rounds, json_array_size(rounds) - 1);
out:
	json_decref(rd.values);
	free(rd.reason);
	free(rd.run);
	return r;
}

static bool round_ok(const json_t *rec)
{
	return !strcmp(json_string_value(json_object_get(rec, "status")) ?: "", "ok");
}

/* The samples round rec measured: its longest metric's. */
static size_t round_samples(const json_t *rec)
{
	const char *key;
	json_t *v;
	size_t n = 0;

	json_object_foreach(json_object_get(rec, "values"), key, v)
		if (json_array_size(json_object_get(v, "values")) > n)
			n = json_array_size(json_object_get(v, "values"));
	return n;
}

/* Append round rec's values into pool ({key: [..]}); *added (when not NULL): the samples it adds. IL_ENOMEM only. */
static int pool_add(json_t *pool, const json_t *rec, size_t *added)
{
	const char *key;
	json_t *v;

	if (!pool)
		return IL_ENOMEM;
	json_object_foreach(json_object_get(rec, "values"), key, v) {
		json_t *a = json_object_get(pool, key);

		if (!a && json_object_set_new(pool, key, a = json_array()))
			return IL_ENOMEM;
		if (json_array_extend(a, json_object_get(v, "values")) && json_is_array(json_object_get(v, "values")))
			return IL_ENOMEM;
	}
	if (added)
		*added = round_samples(rec);
	return 0;
}

/* The values of a JSON array as doubles (caller frees); *n their count. */
static double *vals(const json_t *a, size_t *n)
{
	double *x = calloc(json_array_size(a) + 1, sizeof(*x));
	const json_t *e;
	size_t i;

	*n = 0;
	json_array_foreach(a, i, e)
		if (x && json_is_number(e) && isfinite(json_number_value(e)))
			x[(*n)++] = json_number_value(e);
	return x;
}

static double median_of(const json_t *a)
{
	size_t n;
	double *x = vals(a, &n);
	struct il_desc d;

	il_stats_desc_compute(x, n, &d);
	free(x);
	return n ? d.median : NAN;
}

/* A step's looks: its samples double from n0 up to max_n, and each round is judged (alpha is spent over them). */
static size_t step_looks(const struct il_bisect_opts *o)
{
	size_t looks = 1;

	for (size_t n = o->n0 ? o->n0 : 1; n < o->max_n; n *= 2)
		looks++;
	return looks;
}

/*
 * Whether the samples x differ from ref beyond noise: the one decision code
 * (stats/decide.h) with Welch's p Bonferroni-adjusted over the family of
 * bisected metrics, at alpha / looks, the noise threshold max(floor, k x
 * ref's RSE). *p_out: the adjusted p (1 when no test was possible).
 */
static bool differs_from(const struct il_bisect_opts *o, const json_t *ref, const json_t *x, const char *better,
			 double floor, size_t looks, size_t family, double *p_out)
{
	size_t nr, nx;
	double *a = vals(ref, &nr), *b = vals(x, &nx), p = NAN;
	struct il_desc dr = { 0 }, dx = { 0 };
	struct il_decision d;
	struct il_test t;
	bool yes;

	if (nr >= 2 && nx >= 2 && !il_stats_welch(a, nr, b, nx, &t, NULL))
		p = isnan(t.p) ? 1 : fmin(1, t.p * (double)(family ? family : 1));
	if (nr)
		il_stats_desc_compute(a, nr, &dr);
	if (nx)
		il_stats_desc_compute(b, nx, &dx);
	il_decide(&(struct il_decide_in){ .r = a, .nr = nr, .x = b, .nx = nx, .p = p,
					  .alpha = il_decide_look_alpha(o->alpha, looks), .family = family,
					  .change_pct = dr.mean ? (dx.mean - dr.mean) / fabs(dr.mean) * 100 : NAN,
					  .threshold_pct = fmax(floor, dr.mean && nr > 1 ? o->k * dr.stdev / sqrt((double)nr) /
											       fabs(dr.mean) * 100 : 0),
					  .better = !better ? IL_BETTER_NONE : !strcmp(better, "higher") ? IL_BETTER_HIGHER :
													  IL_BETTER_LOWER,
					  .n_min = 2 },
		  &d);
	yes = il_decide_verdict_differs(d.v);
	*p_out = isfinite(p) ? p : 1;
	free(a), free(b);
	return yes;
}

/*
 * Measure an endpoint: rounds until `want` OK rounds of n0 (a lost round is
 * retried infra_retries times); a build failure or too many losses is an
 * error naming it. *pool gets the values; rounds[] the OK rounds.
 */
static int endpoint(struct bs *s, const char *role, const char *c, size_t want, json_t **ok_rounds, struct il_err *err)
{
	size_t k = 0, lost = 0;
	int r;

	if (!(*ok_rounds = json_array()))
		return il_err_oom(err);
	while (json_array_size(*ok_rounds) < want) {
		json_t *rec;

		if ((r = round_of(s, c, k++, s->o->n0, &rec, err)))
			return r;
		if (round_ok(rec)) {
			if (json_array_append(*ok_rounds, rec))
				return il_err_oom(err);
			continue;
		}
		if (!strcmp(json_string_value(json_object_get(rec, "status")), "build_failed") ||
		    ++lost > (size_t)s->o->infra_retries)
			return il_err_set(err, IL_ECHILD, "the %s endpoint %.12s could not be measured (%s): %s", role, c,
					  json_string_value(json_object_get(rec, "status")),
					  json_string_value(json_object_get(rec, "reason")) ?: "no reason recorded");
	}
	return 0;
}

/* The endpoints: good twice (A/A), bad once; the metrics they differ on go into s->keys. */
static int endpoints(struct bs *s, struct il_bisect_result *res, struct il_err *err)
{
	const struct il_bisect_opts *o = s->o;
	json_t *gr = NULL, *br = NULL, *g0 = json_object(), *g1 = json_object(), *meta, *v;
	const char *key;
	int r;

	s->good = json_object(), s->bad = json_object();
	if ((r = endpoint(s, "good", o->good, 2, &gr, err)) || (r = endpoint(s, "bad", o->bad, 1, &br, err)))
		goto out;
	if (pool_add(s->good, json_array_get(gr, 0), NULL) || pool_add(s->good, json_array_get(gr, 1), NULL) ||
	    pool_add(s->bad, json_array_get(br, 0), NULL) || pool_add(g0, json_array_get(gr, 0), NULL) ||
	    pool_add(g1, json_array_get(gr, 1), NULL) || !(res->endpoints = json_object())) {
		r = il_err_oom(err);
		goto out;
	}
	meta = json_object_get(json_array_get(br, 0), "values");
	json_object_foreach(meta, key, v) {
		const char *better = json_string_value(json_object_get(v, "better"));
		json_t *G = json_object_get(s->good, key), *B = json_object_get(s->bad, key);
		size_t ng, n0, n1;
		double *x = G ? vals(G, &ng) : NULL, *a0 = vals(json_object_get(g0, key), &n0);
		double *a1 = vals(json_object_get(g1, key), &n1);
		struct il_desc dg = { 0 }, d0 = { 0 }, d1 = { 0 };
		double mg, mb, change, p, aa, rse, floor;
		bool chosen = o->metrics.n ? il_dataset_metric_selected(key, key, &o->metrics) : better != NULL, differs;

		if (!G || !B || !chosen || !ng || !n0 || !n1) {
			free(x), free(a0), free(a1);
			continue;
		}
		il_stats_desc_compute(x, ng, &dg), il_stats_desc_compute(a0, n0, &d0), il_stats_desc_compute(a1, n1, &d1);
		mg = dg.median, mb = median_of(B);
		change = mg ? (mb / mg - 1) * 100 : NAN;
		aa = d0.mean ? fabs(d1.mean / d0.mean - 1) * 100 : 0;
		rse = dg.mean ? dg.stdev / sqrt((double)ng) / fabs(dg.mean) * 100 : 0;
		floor = fmax(o->floor_pct, fmax(aa, o->k * rse));
		/* the endpoints are measured once: one look, each metric its own question */
		differs = differs_from(o, G, B, better, floor, 1, 1, &p) && mg != mb;
		free(x), free(a0), free(a1);
		if (json_object_set_new(res->endpoints, key,
					json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:b,s:s?}", "good_median", mg, "bad_median", mb,
						  "change_pct", isfinite(change) ? change : 0.0, "p", p, "aa_change_pct", aa,
						  "floor_pct", floor, "bisected", differs, "better", better)) ||
		    (differs && il_strlist_push(&s->keys, key))) {
			r = il_err_oom(err);
			goto out;
		}
	}
out:
	json_decref(gr), json_decref(br), json_decref(g0), json_decref(g1);
	return r;
}

/* A decided commit from its verdict record. */
static void step_from(struct bs *s, const char *c, const json_t *v, struct il_bisect_step *st)
{
	memset(st, 0, sizeof(*st));
	st->commit = strdup(c);
	st->subject = s->m->subject ? s->m->subject(s->m->ctx, c) : NULL;
	st->verdict = strdup(json_string_value(json_object_get(v, "verdict")) ?: "?");
	st->reason = json_string_value(json_object_get(v, "reason")) ? strdup(json_string_value(json_object_get(v, "reason"))) : NULL;
	st->n = (size_t)json_integer_value(json_object_get(v, "n"));
	st->p_wrong = json_is_number(json_object_get(v, "p_wrong")) ? json_number_value(json_object_get(v, "p_wrong")) : NAN;
	st->metrics = json_incref(json_object_get(v, "metrics"));
}

/* Rounds of commit c until a verdict (journalled); *verdict borrowed from the state. */
static int classify(struct bs *s, const char *c, json_t **verdict, struct il_err *err)
{
	const struct il_bisect_opts *o = s->o;
	json_t *st = il_bisect_journal_commit(&s->jn, c), *pool = json_object(), *metrics = NULL;
	size_t k = 0, n = 0, lost = 0;
	int r = 0;

	if (!st || !pool) {
		r = il_err_oom(err);
		goto out;
	}
	if ((*verdict = json_object_get(st, "verdict")))
		goto out;
	for (;;) {
		json_t *rec;
		size_t want = !n ? o->n0 : n < o->max_n - n ? n : o->max_n - n, added;
		bool all_good = true, all_bad = true;
		double p_g = 0, p_b = 0, tsum = 0;

		if ((r = round_of(s, c, k++, want, &rec, err)))
			goto out;
		if (!round_ok(rec)) {
			const char *why = json_string_value(json_object_get(rec, "reason")) ?: "no reason recorded";
			bool build = !strcmp(json_string_value(json_object_get(rec, "status")), "build_failed");
			struct il_buf b = IL_BUF_INIT;

			if (!build && ++lost <= (size_t)o->infra_retries)
				continue;
			il_buf_printf(&b, "%s: %s", build ? "does not build" : "host or boot failure, retried", why);
			r = il_bisect_journal_append(&s->jn,
						     json_pack("{s:s,s:s,s:s,s:s,s:I,s:n}", "type", "verdict", "commit", c,
							       "verdict", "skip", "reason", il_buf_str(&b), "n", (json_int_t)n,
							       "p_wrong"),
						     err);
			il_buf_release(&b);
			break;
		}
		json_decref(metrics);
		if (pool_add(pool, rec, &added) || !(metrics = json_object())) {
			r = il_err_oom(err);
			goto out;
		}
		n += added;
		for (size_t i = 0; i < s->keys.n; i++) {
			const char *key = s->keys.v[i];
			json_t *S = json_object_get(pool, key), *G = json_object_get(s->good, key), *B = json_object_get(s->bad, key);
			double ms = S ? median_of(S) : NAN, mg = median_of(G), mb = median_of(B);
			double t = (ms - mg) / (mb - mg), pg = 1, pb = 1;
			/* the one decision code, alpha spent over the step's looks, Bonferroni over its metrics */
			bool off_g = S && differs_from(o, G, S, NULL, o->floor_pct, step_looks(o), s->keys.n, &pg);
			bool off_b = S && differs_from(o, B, S, NULL, o->floor_pct, step_looks(o), s->keys.n, &pb);

			if (!isfinite(t))
				t = 0.5;
			/* a side is taken when the other is rejected and the samples sit in the side's third */
			all_good = all_good && off_b && t < 1.0 / 3;
			all_bad = all_bad && off_g && t > 2.0 / 3;
			p_g = fmax(p_g, pg), p_b = fmax(p_b, pb), tsum += t;
			if (json_object_set_new(metrics, key,
						json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}", "median", isfinite(ms) ? ms : 0.0,
							  "change_vs_good_pct", mg ? (ms / mg - 1) * 100 : 0.0,
							  "change_vs_bad_pct", mb ? (ms / mb - 1) * 100 : 0.0, "p_good", pg,
							  "p_bad", pb, "position", t))) {
				r = il_err_oom(err);
				goto out;
			}
		}
		if (all_good || all_bad || n >= o->max_n) {
			bool good = all_good || (!all_bad && tsum / (double)(s->keys.n ? s->keys.n : 1) < 0.5);
			const char *verd = all_good ? "good" : all_bad ? "bad" : good ? "weak-good" : "weak-bad";
			struct il_buf why = IL_BUF_INIT;

			if (!all_good && !all_bad)
				il_buf_printf(&why, "undecided after %zu samples (the cap): nearer %s, p against good %.3g, "
						    "against bad %.3g",
					      n, good ? "good" : "bad", p_g, p_b);
			r = il_bisect_journal_append(&s->jn,
						     json_pack("{s:s,s:s,s:s,s:o,s:I,s:f,s:O}", "type", "verdict", "commit", c,
							       "verdict", verd, "reason", why.len ? json_string(why.p) : json_null(),
							       "n", (json_int_t)n, "p_wrong", good ? p_b : p_g, "metrics", metrics),
						     err);
			il_buf_release(&why);
			break;
		}
	}
	if (!r)
		*verdict = json_object_get(st, "verdict");
out:
	json_decref(pool);
	json_decref(metrics);
	return r;
}

/* Every counted sample of every round, the journalled ones included (a resume counts what came before). */
static size_t samples_measured(struct bs *s)
{
	const char *c;
	json_t *e, *rec;
	size_t n = 0, i;

	json_object_foreach(s->jn.commits, c, e)
		json_array_foreach(json_object_get(e, "rounds"), i, rec)
			if (round_ok(rec))
				n += round_samples(rec);
	return n;
}

static bool is_good(const char *v)
{
	return !strcmp(v, "good") || !strcmp(v, "weak-good");
}

static void bs_release(struct bs *s)
{
	il_bisect_journal_close(&s->jn);
	json_decref(s->good), json_decref(s->bad);
	il_strlist_release(&s->keys);
}

static int begin(struct bs *s, const struct il_bisect_opts *o, const struct il_bisect_measurer *m,
		 struct il_bisect_result *res, struct il_err *err)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->o = o, s->m = m;
	s->jn = (struct il_bisect_journal)IL_BISECT_JOURNAL_INIT;
	if (o->n0 < 3 || o->max_n < o->n0 || !(o->alpha > 0 && o->alpha < 1))
		return il_err_set(err, IL_EINVAL, "bisect: need at least 3 samples a round, a cap not below them and "
				  "0 < alpha < 1");
	if ((r = il_bisect_journal_open(&s->jn, o->dir, err)) || (r = il_bisect_journal_setup(&s->jn, o, err)) ||
	    (r = endpoints(s, res, err)))
		return r;
	return 0;
}

/*
 * The confirmation: the culprit reverted on bad, measured and classified
 * like a step (journalled like one, so a resume measures it once). Not
 * counted in p_wrong: it checks the answer, it does not make it.
 */
static int confirm(struct bs *s, struct il_bisect_result *res, struct il_err *err)
{
	struct il_err e = { 0 };
	char hex[41];
	json_t *v;
	int r;

	if (!s->m->revert) {
		res->confirm_note = strdup("no way to revert here");
		return 0;
	}
	if ((r = s->m->revert(s->m->ctx, res->first_bad, s->o->bad, hex, &e))) {
		if (r != IL_EINVAL)
			return il_err_set(err, r, "%s", e.msg);
		res->confirm_note = strdup(e.msg);
		return 0;
	}
	if ((r = classify(s, hex, &v, err)))
		return r;
	if (!(res->confirm = calloc(1, sizeof(*res->confirm))))
		return il_err_oom(err);
	step_from(s, hex, v, res->confirm);
	return 0;
}

int il_bisect_run(const struct il_bisect_opts *o, const struct il_bisect_measurer *m, struct il_bisect_result *res,
		  struct il_err *err)
{
	struct bs s;
	size_t nc = o->commits.n;
	long lo = -1, hi = (long)nc - 1;
	char *skipped = calloc(nc + 1, 1);
	int r;

	memset(res, 0, sizeof(*res));
	if (!nc || strcmp(o->commits.v[nc - 1], o->bad)) {
		free(skipped);
		return il_err_set(err, IL_EINVAL, "bisect: the commit list must end with the bad commit");
	}
	if ((r = begin(&s, o, m, res, err)))
		goto out;
	if (!s.keys.n) {
		res->state = strdup("no-difference");
		goto done;
	}
	while (hi - lo > 1) {
		long mid = (lo + hi) / 2, pick = -1;
		json_t *v;

		/* the untested commit nearest the middle, skipped ones passed over */
		for (long d = 0; pick < 0 && (mid - d > lo || mid + d < hi); d++) {
			if (mid - d > lo && !skipped[mid - d])
				pick = mid - d;
			else if (mid + d + 1 < hi && !skipped[mid + d + 1])
				pick = mid + d + 1;
		}
		if (pick < 0)
			break;
		if ((r = classify(&s, o->commits.v[pick], &v, err)))
			goto out;
		{
			struct il_bisect_step *n = realloc(res->steps, (res->nsteps + 1) * sizeof(*res->steps));

			if (!n) {
				r = il_err_oom(err);
				goto out;
			}
			res->steps = n;
		}
		step_from(&s, o->commits.v[pick], v, &res->steps[res->nsteps++]);
		if (!strcmp(res->steps[res->nsteps - 1].verdict, "skip"))
			skipped[pick] = 1;
		else if (is_good(res->steps[res->nsteps - 1].verdict))
			lo = pick;
		else
			hi = pick;
	}
	if (hi - lo == 1) {
		res->state = strdup("found");
		res->first_bad = strdup(o->commits.v[hi]);
	} else {
		res->state = strdup("range");
		for (long i = lo + 1; i <= hi; i++)
			if (il_strlist_push(&res->range, o->commits.v[i])) {
				r = il_err_oom(err);
				goto out;
			}
	}
	if (res->first_bad && o->confirm && (r = confirm(&s, res, err)))
		goto out;
done:
	res->samples = samples_measured(&s);
	for (size_t i = 0; i < res->nsteps; i++) {
		if (isfinite(res->steps[i].p_wrong))
			res->p_wrong += res->steps[i].p_wrong;
		if (!strncmp(res->steps[i].verdict, "weak", 4))
			res->weak = true;
	}
	res->p_wrong = fmin(1, res->p_wrong);
	r = il_bisect_journal_append(&s.jn,
				     json_pack("{s:s,s:s,s:s?,s:f,s:I,s:s?,s:s?}", "type", "result", "state", res->state,
					       "first_bad", res->first_bad, "p_wrong", res->p_wrong, "samples",
					       (json_int_t)res->samples, "confirm", res->confirm ? res->confirm->verdict : NULL,
					       "confirm_note", res->confirm_note),
				     err);
out:
	bs_release(&s);
	free(skipped);
	return r;
}

int il_bisect_classify(const struct il_bisect_opts *o, const struct il_bisect_measurer *m, const char *commit,
		       struct il_bisect_step *out, struct il_err *err)
{
	struct il_bisect_result res = { 0 };
	struct bs s;
	json_t *v;
	int r;

	memset(out, 0, sizeof(*out));
	if (!(r = begin(&s, o, m, &res, err))) {
		if (!s.keys.n)
			r = il_err_set(err, IL_EINVAL, "bisect: the endpoints do not differ on any chosen metric");
		else if (!(r = classify(&s, commit, &v, err)))
			step_from(&s, commit, v, out);
	}
	bs_release(&s);
	il_bisect_result_release(&res);
	return r;
}
