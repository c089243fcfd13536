// SPDX-License-Identifier: GPL-2.0-or-later
/* A run directory's summary: planned and finished samples, by status, from the journal. */
#include "run/engine.h"

#include <stdlib.h>
#include <string.h>

#include "run/journal.h"
#include "run/kstage.h"
#include "run/plan.h"
#include "run/record.h"
#include "run/rundir.h"

struct sum {
	json_t *counts;
	size_t attempts, interrupted;
	bool ended;
	json_t *hosts;
	json_t *stop;        /* an adaptive run's stop record (owned), or NULL */
};

static int sum_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct sum *s = ctx;
	enum il_rec_kind kind = il_record_kind_of(rec);

	(void)line;
	if (kind == IL_REC_RUN_END)
		s->ended = true;
	else if (kind == IL_REC_STOP)
		json_decref(s->stop), s->stop = json_incref(rec);
	else if (kind == IL_REC_INTERRUPTED)
		s->interrupted++;
	if (kind != IL_REC_SAMPLE)
		return 0;
	s->attempts++;
	if (json_is_true(json_object_get(rec, "final"))) {
		const char *st = json_string_value(json_object_get(rec, "status"));
		json_t *c = json_object_get(s->counts, st ? st : "?");

		if (json_object_set_new(s->counts, st ? st : "?", json_integer(c ? json_integer_value(c) + 1 : 1)))
			return il_err_oom(err);
	}
	if (json_is_string(json_object_get(rec, "host")) && !json_object_get(s->hosts, json_string_value(json_object_get(rec, "host"))) &&
	    json_object_set_new(s->hosts, json_string_value(json_object_get(rec, "host")), json_true()))
		return il_err_oom(err);
	return 0;
}

int il_run_summary(const char *run_dir, const char *workloads_dir, const char *cache_dir, json_t **out,
		   struct il_err *err)
{
	struct il_plan plan;
	struct il_spec *specs = NULL;
	size_t n = 0, torn = 0, done = 0;
	char *pp = il_rundir_path(run_dir, IL_RUNDIR_PLAN), *jp = il_rundir_path(run_dir, IL_RUNDIR_JOURNAL);
	struct sum s = { json_object(), 0, 0, false, json_object(), NULL };
	const char *k;
	json_t *v, *o, *hl;
	int rc, bad = 0;

	*out = NULL;
	if ((rc = il_plan_load(&plan, pp, workloads_dir, err)))
		goto fail;
	{
		struct il_kvars kv = { 0 };
		char *pd = NULL;

		rc = il_kstage_plan(&plan, run_dir, cache_dir, &kv, &pd, err);
		il_kplan_vars_release(&kv);
		free(pd);
	}
	if (rc || (rc = il_plan_matrix(&plan, &specs, &n, err)) || (rc = il_journal_each(jp, sum_rec, &s, &torn, err))) {
		il_plan_release(&plan);
		goto fail;
	}
	json_object_foreach(s.counts, k, v)
		done += (size_t)json_integer_value(v);
	/* an adaptive run that stopped early: the rounds it did not run are done, never run */
	if (s.stop)
		done += (size_t)json_integer_value(json_object_get(s.stop, "skipped"));
	hl = json_array();
	for (size_t i = 0; i < plan.hosts.n; i++)
		bad |= json_array_append_new(hl, json_string(plan.hosts.v[i]));
	if (bad)
		json_decref(hl), hl = NULL;
	o = json_pack("{s:s,s:s,s:o,s:I,s:I,s:I,s:o,s:I,s:b,s:I}", "run_dir", run_dir, "plan", plan.name, "hosts", hl,
		      "planned", (json_int_t)n, "done", (json_int_t)done, "attempts", (json_int_t)s.attempts, "by_status",
		      s.counts, "interruptions", (json_int_t)s.interrupted, "complete", s.ended && done == n,
		      "torn_bytes", (json_int_t)torn);
	if (o && s.stop) {
		json_t *rounds = json_object_get(s.stop, "rounds"), *reason = json_object_get(s.stop, "reason"),
		       *why = json_object_get(s.stop, "why");

		/* a stop record without them (not the engine's) says nothing here */
		if (rounds && reason && why &&
		    json_object_set_new(o, "stop", json_pack("{s:O,s:O,s:O}", "rounds", rounds, "reason", reason, "why", why)))
			json_decref(o), o = NULL;
	}
	json_decref(s.stop);
	s.counts = NULL;
	il_plan_release(&plan);
	free(specs);
	json_decref(s.hosts);
	free(pp);
	free(jp);
	*out = o;
	return o ? 0 : il_err_oom(err);
fail:
	free(specs);
	json_decref(s.stop);
	json_decref(s.counts);
	json_decref(s.hosts);
	free(pp);
	free(jp);
	return rc;
}
