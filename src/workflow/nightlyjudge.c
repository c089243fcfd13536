// SPDX-License-Identifier: GPL-2.0-or-later
/* A nightly's judgement of the measured tip: the comparison, the drift, the alert input (see nightlyjudge.h). */
#include "workflow/nightlyjudge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/quote.h"
#include "run/journal.h"
#include "run/rundir.h"
#include "stats/compare.h"
#include "stats/dataset.h"
#include "workflow/nightlydrift.h"
#include "util/buf.h"
#include "util/jfields.h"

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* "VARIANT|KEY": what a regression is, for "reported already" */
static json_t *reg_key(const char *variant, const char *key)
{
	struct il_buf b = IL_BUF_INIT;
	json_t *j;

	il_buf_printf(&b, "%s|%s", variant, key);
	j = il_buf_error(&b) ? NULL : json_string(b.p);
	il_buf_release(&b);
	return j;
}

/*
 * Variant v of the tip against the baseline: a dataset of the two (and the
 * baseline's A/A partner when v is its reference), compared by compare's
 * rules (its decision family: the key metrics, or track.metrics); each key
 * metric appended to res->compared, the worse ones to regs.
 */
static int compare_variant(const struct il_nightly_judge_in *in, struct il_nightly_result *res,
			   const struct il_dataset *base, const struct il_dataset *tip, const char *v, json_t *regs,
			   struct il_err *err)
{
	struct il_cmp_opts co = IL_CMP_OPTS_INIT;
	struct il_dataset pair = { 0 };
	struct il_cmp c = { 0 };
	int r = 0;

	if (il_dataset_pick(&pair, base, v, "baseline") || il_dataset_pick(&pair, tip, v, "tip"))
		goto out; /* a variant new since the baseline: nothing to compare it with */
	if (base->aa && base->reference && !strcmp(base->reference, v) && !il_dataset_pick(&pair, base, base->aa, "baseline-again"))
		pair.aa = strdup("baseline-again");
	pair.reference = strdup("baseline");
	co.only = in->metrics;
	co.alpha = in->alpha;
	co.floor_pct = in->floor_pct;
	if ((r = il_compare(&c, &pair, &co, err))) {
		if (r == IL_EINVAL && co.only)
			il_err_prefix(err, "%s: track.metrics: ", in->plan_path);
		goto out;
	}
	for (size_t i = 0; i < c.nmet; i++) {
		const struct il_mseries *m = &pair.met[c.met[i]];
		const struct il_mres *b = il_compare_res(&c, i, (size_t)il_dataset_var(&pair, "baseline"));
		const struct il_mres *x = il_compare_res(&c, i, (size_t)il_dataset_var(&pair, "tip"));
		json_t *e;

		if (!c.key[i])
			continue; /* secondary metrics: context (exploratory), never an alert */
		e = json_pack("{s:s,s:s,s:s,s:s,s:s?,s:s,s:o,s:o,s:I,s:o,s:o,s:I,s:o,s:o,s:o,s:s}", "variant", v, "key",
			      m->key, "workload", m->group, "metric", m->metric, "unit", *m->unit ? m->unit : NULL, "better",
			      il_dataset_better_name(m->better), "baseline_mean", il_jfields_num(b->d.mean), "baseline_stdev", il_jfields_num(b->d.stdev),
			      "n_baseline", (json_int_t)b->d.n, "mean", il_jfields_num(x->d.mean), "stdev", il_jfields_num(x->d.stdev), "n",
			      (json_int_t)x->d.n, "change_pct", il_jfields_num(x->change_pct), "p", il_jfields_num(x->p), "threshold_pct",
			      il_jfields_num(x->threshold_pct), "verdict", x->verdict);
		/* e stays alive in compared while regs takes its own reference */
		if (json_array_append_new(res->compared, e) ||
		    (!strcmp(x->verdict, "worse") && isfinite(x->p) && json_array_append(regs, e))) {
			r = il_err_oom(err);
			goto out;
		}
	}
out:
	il_compare_release(&c);
	il_dataset_release(&pair);
	return r;
}

/* A regression of the alert input (docs/alerts.md) from a compared entry. */
static json_t *alert_reg(const json_t *e)
{
	json_t *a = json_object();
	static const char *const keys[] = { "workload", "metric", "variant", "unit", "better", "baseline_mean",
					    "baseline_stdev", "mean", "stdev", "change_pct", "p", "n_baseline", "n",
					    "kind", "since" };
	int bad = !a;

	for (size_t i = 0; !bad && i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(e, keys[i]);

		if (v && !json_is_null(v))
			bad |= json_object_set(a, keys[i], v);
	}
	/* a single sample has no stdev: 0 keeps the table honest about n */
	if (!bad && !json_object_get(a, "stdev"))
		bad |= json_object_set_new(a, "stdev", json_real(0));
	if (!bad && !json_object_get(a, "baseline_stdev"))
		bad |= json_object_set_new(a, "baseline_stdev", json_real(0));
	if (bad) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* The keys reported already against this baseline (the last regression record with it), or NULL. */
static const json_t *reported_before(const struct il_nightly_judge_in *in, const char *base_run)
{
	for (size_t i = json_array_size(in->past); i-- > 0;) {
		const json_t *r = json_array_get(in->past, i);

		if (strcmp(str(r, "type"), "nightly") || !strcmp(str(r, "verdict") ?: "", "failed"))
			continue;
		if (strcmp(str(r, "verdict") ?: "", "regression") ||
		    strcmp(str(json_object_get(r, "baseline"), "run") ?: "", base_run))
			return NULL;
		return json_object_get(r, "reported");
	}
	return NULL;
}

static bool has_string(const json_t *a, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return true;
	return false;
}

static json_t *alert_input(const struct il_nightly_judge_in *in, const struct il_nightly_result *res, const json_t *regs)
{
	struct il_buf range = IL_BUF_INIT, repro = IL_BUF_INIT, bis = IL_BUF_INIT, plan = IL_BUF_INIT, good = IL_BUF_INIT,
		      bad = IL_BUF_INIT;
	const json_t *worst = NULL, *e;
	json_t *a, *list = json_array();
	size_t i;

	json_array_foreach(regs, i, e) {
		if (list && json_array_append_new(list, alert_reg(e))) {
			json_decref(list);
			list = NULL; /* the pack below fails: NULL */
		}
		if (!worst || fabs(json_number_value(json_object_get(e, "change_pct"))) >
				      fabs(json_number_value(json_object_get(worst, "change_pct"))))
			worst = e;
	}
	il_buf_printf(&range, "%.12s..%.12s", res->base_commit, res->tip);
	il_buf_printf(&plan, "%s/plan.json", res->run);
	il_buf_printf(&good, "%.12s", res->base_commit);
	il_buf_printf(&bad, "%.12s", res->tip);
	{
		char *run[] = { "idlelab", "run", plan.p, NULL };
		/* the label as the plan has it: a variant label may carry "@kernel" */
		char *label = strdup(str(worst, "variant")), *at = label ? strchr(label, '@') : NULL;
		char *bisect[] = { "idlelab", "bisect", plan.p, "--good", good.p, "--bad", bad.p, "--metric",
				   (char *)str(worst, "key"), "--variant", label, NULL };

		if (at)
			*at = 0;
		if (json_array_size(json_object_get(in->plan, "governors")) < 2 || !label)
			bisect[9] = NULL;
		il_quote_shown(&repro, run);
		il_quote_shown(&bis, bisect);
		free(label);
	}
	a = json_pack("{s:s,s:s,s:s,s:s,s:s?,s:{s:s,s:s},s:s,s:s,s:o,s:s,s:s}", "plan", res->plan, "host", res->host,
		      "branch", res->branch, "commit", res->tip, "subject", res->subject, "baseline", "commit",
		      res->base_commit, "run", strrchr(res->base_run, '/') ? strrchr(res->base_run, '/') + 1 : res->base_run,
		      "run", strrchr(res->run, '/') + 1, "range", range.p, "regressions", list, "reproduce", repro.p,
		      "bisect", bis.p);
	il_buf_release(&range), il_buf_release(&repro), il_buf_release(&bis), il_buf_release(&plan);
	il_buf_release(&good), il_buf_release(&bad);
	return a;
}

int il_nightly_judge(const struct il_nightly_judge_in *in, struct il_nightly_result *res, struct il_err *err)
{
	struct il_dataset base = { 0 }, tip = { 0 };
	const json_t *good = in->baseline, *before;
	json_t *regs = json_array(), *e;
	bool repeat = true;
	size_t i;
	int r;

	if (!regs)
		return il_err_oom(err);
	if ((r = il_datajournal_add_run(&tip, res->run, NULL, err)))
		goto out;
	if (!tip.counted) {
		char *jp = il_rundir_path(res->run, IL_RUNDIR_JOURNAL);

		il_journal_first_failure(jp, &res->reason, &res->build_failed);
		free(jp);
		if (!res->reason)
			res->reason = strdup("no sample was counted");
		res->verdict = IL_NIGHTLY_FAILED;
		goto out;
	}
	if (!good) {
		res->verdict = IL_NIGHTLY_BASELINE;
		goto out;
	}
	res->base_run = strdup(str(good, "run"));
	snprintf(res->base_commit, sizeof(res->base_commit), "%s", str(good, "commit") ?: "");
	if ((r = il_datajournal_add_run(&base, res->base_run, NULL, err)))
		goto out;
	for (i = 0; i < tip.nvar; i++)
		if ((!tip.aa || strcmp(tip.var[i], tip.aa)) &&
		    (r = compare_variant(in, res, &base, &tip, tip.var[i], regs, err)))
			goto out;
	{
		struct il_nightly_drift_in din = { .dir = in->dir, .db = in->db, .plan = res->plan, .host = res->host,
						   .run = res->run, .metrics = in->metrics, .alpha = in->alpha,
						   .floor_pct = in->floor_pct, .window = in->window, .past = in->past,
						   .epoch = in->epoch };

		if ((r = il_nightly_drift(&din, regs, &res->drift_note, err)))
			goto out;
	}
	if (!json_array_size(regs)) {
		res->verdict = IL_NIGHTLY_GOOD;
		goto out;
	}
	res->verdict = IL_NIGHTLY_REGRESSION;
	res->alert = alert_input(in, res, regs);
	before = reported_before(in, res->base_run);
	res->reported = before ? json_deep_copy(before) : json_array();
	res->reported_before = before ? json_deep_copy(before) : json_array();
	if (!res->alert || !res->reported || !res->reported_before) {
		r = il_err_oom(err);
		goto out;
	}
	json_array_foreach(regs, i, e) {
		json_t *k = reg_key(str(e, "variant"), str(e, "key"));
		int bad = !k;

		if (k) {
			repeat &= has_string(before, json_string_value(k));
			if (!has_string(res->reported, json_string_value(k)))
				bad = json_array_append(res->reported, k);
		}
		json_decref(k);
		if (bad) {
			r = il_err_oom(err);
			goto out;
		}
	}
	res->repeat = before && repeat;
out:
	json_decref(regs);
	il_dataset_release(&base);
	il_dataset_release(&tip);
	return r;
}
