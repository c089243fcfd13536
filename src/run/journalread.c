// SPDX-License-Identifier: GPL-2.0-or-later
/* A run's journal read back as a run, checked record by record (run/journalread.h). */
#include "run/journalread.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle/diffjson.h"
#include "run/journal.h"
#include "run/rundir.h"
#include "util/buf.h"
#include "util/jsonfile.h"

struct jread {
	const struct il_journal_reader *rd;
	void *ctx;
	struct il_journal_run run;
	json_t *run_start;   /* owned references of what run points to */
	json_t *workloads;
	json_t *variants;
	json_t *finals;      /* seq (as text) -> line of its final record: a second one is refused */
};

/* The run-start record: once, with workloads and labelled variants. */
static int run_start(struct jread *c, json_t *rec, size_t line, struct il_err *err)
{
	const char *path = c->run.path;
	json_t *e;
	size_t i;

	if (c->run_start)
		return il_err_set(err, IL_EPARSE, "%s:%zu: a second run-start record (the first is at line %zu): two "
				  "runs wrote this journal",
				  path, line, c->run.start_line);
	c->run_start = json_incref(rec);
	c->run.start_line = line;
	c->workloads = json_incref(json_object_get(rec, "workloads"));
	c->variants = json_incref(json_object_get(rec, "variants"));
	if (!json_is_object(c->workloads) || !json_is_array(c->variants))
		return il_err_set(err, IL_EPARSE, "%s:%zu: run-start record lacks workloads or variants", path, line);
	json_array_foreach(c->variants, i, e)
		if (!json_is_string(json_object_get(e, "label")))
			return il_err_set(err, IL_EPARSE, "%s:%zu: variants[%zu].label: expected a string", path, line, i);
	c->run.run_start = c->run_start;
	c->run.workloads = c->workloads;
	c->run.variants = c->variants;
	return c->rd->start ? c->rd->start(&c->run, c->ctx, err) : 0;
}

/* One final record per sample (a second would count the sample twice), and the run-start's parameters. */
static int sample_once(struct jread *c, const json_t *rec, size_t line, const char *workload, struct il_err *err)
{
	const char *path = c->run.path;
	json_t *want = json_object_get(json_object_get(c->workloads, workload), "params");
	json_t *got = json_object_get(rec, "params"), *first;
	char seq[32];
	int r;

	snprintf(seq, sizeof(seq), "%lld", (long long)json_integer_value(json_object_get(rec, "seq")));
	if ((first = json_object_get(c->finals, seq)))
		return il_err_set(err, IL_EPARSE, "%s:%zu: sample %s has a second final record (the first is at line "
				  "%lld): two runs wrote this journal; it cannot be counted",
				  path, line, seq, (long long)json_integer_value(first));
	if (json_object_set_new(c->finals, seq, json_integer((json_int_t)line)))
		return il_err_oom(err);
	/* one parameter set per workload label: the run-start record's */
	if (want && got && !json_equal(want, got)) {
		char *a = il_json_dumps(want, JSON_COMPACT | JSON_SORT_KEYS), *b = il_json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);

		r = il_err_set(err, IL_EPARSE, "%s:%zu: workload '%s' ran with params %.150s, but the run-start record "
			       "(line %zu) says %.150s: samples of two parameter sets under one label",
			       path, line, workload, b ? b : "null", c->run.start_line, a ? a : "null");
		free(a), free(b);
		return r;
	}
	return 0;
}

/* An "ok" sample: its metrics, each one the run-start declares a finite number, its iteration, its idle. */
static int sample_ok(struct jread *c, struct il_journal_sample *s, json_t *rec, struct il_err *err)
{
	const char *path = c->run.path;
	json_t *e;
	size_t i;

	s->metrics = json_object_get(rec, "metrics");
	if (!json_is_object(s->metrics))
		return il_err_set(err, IL_EPARSE, "%s:%zu: metrics: expected an object in an ok sample", path, s->line);
	s->wdef = json_object_get(c->workloads, s->workload);
	s->defs = json_object_get(s->wdef, "metrics");
	if (!json_is_array(s->defs))
		return il_err_set(err, IL_EPARSE, "%s:%zu: workload '%s' is not in the run-start record", path, s->line,
				  s->workload);
	if (!json_is_integer(json_object_get(rec, "iteration")))
		return il_err_set(err, IL_EPARSE, "%s:%zu: iteration: expected integer", path, s->line);
	s->iteration = (int)json_integer_value(json_object_get(rec, "iteration"));
	json_array_foreach(s->defs, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		json_t *v = json_object_get(s->metrics, name ? name : "");

		if (!name)
			return il_err_set(err, IL_EPARSE, "%s: run-start: workloads.%s.metrics[%zu].name: expected a string",
					  path, s->workload, i);
		if (!json_is_number(v) || !isfinite(json_number_value(v)))
			return il_err_set(err, IL_EPARSE, "%s:%zu: metrics.%s: expected a finite number", path, s->line, name);
	}
	/* a version 2 sample kept poll states' below apart: read it as the kernel counts */
	if (il_diff_json_upgrade(json_object_get(rec, "idle")))
		return il_err_oom(err);
	if (json_is_object(json_object_get(rec, "idle")))
		s->idle = json_object_get(rec, "idle");
	return 0;
}

static int sample(struct jread *c, json_t *rec, size_t line, struct il_err *err)
{
	struct il_journal_sample s = { .rec = rec, .line = line };
	int r;

	if (!c->run_start)
		return il_err_set(err, IL_EPARSE, "%s:%zu: sample before the run-start record", c->run.path, line);
	if (!json_is_true(json_object_get(rec, "final")))
		return 0;
	s.variant = json_string_value(json_object_get(rec, "variant"));
	s.workload = json_string_value(json_object_get(rec, "workload"));
	s.status = json_string_value(json_object_get(rec, "status"));
	if (!s.variant || !s.workload || !s.status || !json_is_integer(json_object_get(rec, "seq")))
		return il_err_set(err, IL_EPARSE, "%s:%zu: sample record: seq must be an integer, variant, workload and "
				  "status strings",
				  c->run.path, line);
	if ((r = sample_once(c, rec, line, s.workload, err)))
		return r;
	s.ok = !strcmp(s.status, "ok");
	if (s.ok && (r = sample_ok(c, &s, rec, err)))
		return r;
	return c->rd->sample ? c->rd->sample(&c->run, &s, c->ctx, err) : 0;
}

static int journal_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct jread *c = ctx;
	enum il_rec_kind kind = il_record_kind_of(rec);
	int r;

	if ((r = il_record_check(rec, c->run.path, line, err)))
		return r;
	switch (kind) {
	case IL_REC_RUN_START:
		return run_start(c, rec, line, err);
	case IL_REC_HOST:
	case IL_REC_RUN_END:
	case IL_REC_STOP:
		return c->rd->meta ? c->rd->meta(&c->run, rec, kind, c->ctx, err) : 0;
	case IL_REC_SAMPLE:
		return sample(c, rec, line, err);
	default:
		return 0;
	}
}

int il_journal_read_run(const char *run_dir, const struct il_journal_reader *rd, void *ctx, struct il_err *err)
{
	struct il_buf path = IL_BUF_INIT;
	struct jread c = { .rd = rd, .ctx = ctx, .run = { .run_dir = run_dir }, .finals = json_object() };
	size_t torn = 0;
	int r;

	if (!c.finals || il_buf_printf(&path, "%s/%s", run_dir, il_rundir_name(IL_RUNDIR_JOURNAL))) {
		json_decref(c.finals);
		return il_err_oom(err);
	}
	c.run.path = path.p;
	r = il_journal_each(path.p, journal_rec, &c, &torn, err);
	if (!r && torn)
		r = il_err_set(err, IL_EPARSE,
			       "%s: the last line is truncated (%zu bytes without a newline: the run was killed while "
			       "writing it); 'idlelab run --resume %s' repairs it",
			       path.p, torn, run_dir);
	if (!r && !c.run_start)
		r = il_err_set(err, IL_EPARSE, "%s: no run-start record (not an idlelab journal?)", path.p);
	json_decref(c.run_start);
	json_decref(c.workloads);
	json_decref(c.variants);
	json_decref(c.finals);
	il_buf_release(&path);
	return r;
}
