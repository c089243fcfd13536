// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The run engine: the loop over hosts and samples, and the retry policy.
 * A sample is one remote exec (run/sample.c) on a leased host
 * (run/lease.c), in blocks of one kernel (run/kstage.c); its record is
 * appended to the journal and fsync'd before the next starts, and the
 * journal is the only state resume needs: a sample is done when a record
 * with "final": true exists for its seq. The run directory is made whole
 * or not at all (run/rundir.c).
 */
#include "run/engine.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/kplan.h"
#include "run/context.h"
#include "host/hostkind.h"
#include "host/host.h"
#include "run/kstage.h"
#include "run/lavarun.h"
#include "run/lease.h"
#include "run/record.h"
#include "run/rundir.h"
#include "run/runner.h"
#include "run/sample.h"
#include "run/tally.h"
#include "util/clock.h"
#include "util/jsonfile.h"

struct run {
	char *dir;
	struct il_plan plan;
	struct il_spec *specs;
	struct il_tally t;           /* where each sample stands */
	struct il_journal j;
	const struct il_run_opts *o;
	char *script;                /* runners/sample.sh with its helpers */
	double busy_s;               /* wall time of samples run in this session */
	size_t ran;
	char *plan_dir;              /* where the plan's relative paths point */
	struct il_rundir_lock lock;  /* one writer per run directory */
	struct il_kvars kv;          /* the kernel variants (plan kernels, prepared) */
	struct il_run_ctx ctx;       /* what the stages borrow */
};

static void emit(struct run *r, struct il_run_event *ev)
{
	ev->done = r->t.done;
	ev->total = r->t.n;
	ev->eta_s = r->ran ? r->busy_s / (double)r->ran * (double)(r->t.n - r->t.done) : -1;
	if (r->o->cb)
		r->o->cb(ev, r->o->cb_ctx);
}

static void on_note(void *ctx, const char *host, const char *msg)
{
	emit(ctx, &(struct il_run_event){ .kind = IL_EV_NOTE, .host = host, .message = msg });
}

/* ---- the retry policy ---- */

/*
 * Run seq until it is final (or interrupted): a failure of the
 * infrastructure (connection, invalid counters) is retried up to the plan's
 * `retries`; a workload failure or a deterministic refusal is final at once.
 * Returns 0, IL_EINTR or a journal error.
 */
static int do_sample(struct run *r, struct il_lease *h, const struct il_spec *s, struct il_err *err)
{
	char *variant = il_plan_variant(&r->plan, s);
	int rc = 0;

	if (!variant)
		return il_err_oom(err);
	for (;;) {
		struct il_run_event ev = { .kind = IL_EV_SAMPLE_START, .seq = s->seq, .host = h->name, .variant = variant,
					   .workload = r->plan.wl[s->wl].label, .iteration = s->iteration,
					   .warmup = s->warmup };
		struct il_sample_result oc;
		int attempt = ++r->t.attempts[s->seq];
		json_t *started = il_context_time_json();
		double t0 = il_clock_mono_s();
		bool final;

		emit(r, &ev);
		il_sample_run(&r->ctx, h, r->script, s, &oc);
		final = il_tally_attempt(&r->t, s->seq, oc.status, oc.retryable, r->plan.retries);
		{
			json_t *rec = il_sample_record(&r->ctx, h, s, variant, attempt, final, &oc, started, t0);

			rc = rec ? il_journal_append(&r->j, rec, err) : il_err_oom(err);
			json_decref(rec);
		}
		r->busy_s += il_clock_mono_s() - t0;
		if (final) {
			il_tally_final(&r->t, s->seq);
			r->ran++;
		}
		ev.kind = IL_EV_SAMPLE_END;
		ev.status = oc.status;
		ev.message = oc.reason[0] ? oc.reason : oc.note;
		if (!rc)
			emit(r, &ev);
		il_sample_result_release(&oc);
		if (!rc && !strcmp(ev.status, "interrupted"))
			rc = IL_EINTR;
		if (rc || final)
			break;
	}
	free(variant);
	return rc;
}

/* A sample whose kernel did not build or boot: final, never data. */
static int record_fail(struct run *r, const char *host, const struct il_spec *s, const char *reason, struct il_err *err)
{
	char *variant = il_plan_variant(&r->plan, s);
	json_t *rec = il_sample_fail_record(&r->ctx, host, s, variant ? variant : "?", ++r->t.attempts[s->seq], reason);
	int rc = rec ? il_journal_append(&r->j, rec, err) : il_err_oom(err);

	json_decref(rec);
	free(variant);
	if (!rc)
		il_tally_final(&r->t, s->seq);
	return rc;
}

/* ---- the loop over hosts ---- */

static bool host_pending(const struct run *r, size_t hi)
{
	for (size_t i = 0; i < r->t.n; i++)
		if (r->specs[i].host == (int)hi && !r->t.final[i])
			return true;
	return false;
}

static void journal_interrupted(struct run *r, const char *host, struct il_err *err)
{
	size_t next = 0;
	json_t *rec = il_record_new(IL_REC_INTERRUPTED);

	while (next < r->t.n && r->t.final[next])
		next++;
	il_record_set(rec, IL_RF_INTERRUPTED_HOST, json_string(host ? host : ""));
	il_record_set(rec, IL_RF_INTERRUPTED_NEXT_SEQ, json_integer((json_int_t)next));
	il_context_journal(&r->ctx, rec, NULL);
	il_err_set(err, IL_EINTR, "interrupted: %zu of %zu samples done; continue with 'idlelab run --resume %s'", r->t.done,
		   r->t.n, r->dir);
}

/*
 * An adaptive run's stop: the record, and the rounds not run marked done
 * (never run: no sample record), so resume knows the run ended here.
 */
static int journal_stop(struct run *r, int rounds, int judged, const char *why, struct il_err *err)
{
	size_t skipped = il_tally_stop(&r->t, r->specs, rounds);
	json_t *rec = il_record_new(IL_REC_STOP);

	r->t.stop_rounds = rounds;
	il_record_set(rec, IL_RF_STOP_ROUNDS, json_integer(rounds));
	/* 1: decided; 2: futile (the rest needs more than the maximum); 0: the maximum reached */
	il_record_set(rec, IL_RF_STOP_REASON, json_string(judged == 1 ? "decided" : judged == 2 ? "futile" : "max"));
	il_record_set(rec, IL_RF_STOP_WHY, why && *why ? json_string(why) : json_null());
	il_record_set(rec, IL_RF_STOP_SKIPPED, json_integer((json_int_t)skipped));
	emit(r, &(struct il_run_event){ .kind = IL_EV_NOTE,
					.message = judged == 1 ? "every key comparison decided: stopping" :
						   judged == 2 ? "the undecided comparisons need more rounds than the maximum: stopping" :
								 "the maximum of rounds reached" });
	return il_context_journal(&r->ctx, rec, err);
}

/*
 * Whether spec i opens counted round k, k a look (the plan's min, every step
 * after it: run/plan.h), with every sample before it final: the moment an
 * adaptive run judges its rounds 0..k-1. In a stage of several kernels only
 * the stage's first spec opens it (the one before it is of an earlier round).
 */
static bool round_opens(const struct run *r, size_t i)
{
	const struct il_spec *s = &r->specs[i];

	if (!r->plan.iter_min || s->warmup ||
	    !il_plan_adaptive_look_at(r->plan.iter_min, r->plan.iterations, il_plan_step(&r->plan), s->iteration) ||
	    (i && !r->specs[i - 1].warmup && r->specs[i - 1].iteration >= s->iteration))
		return false;
	for (size_t k = 0; k < i; k++)
		if (!r->t.final[k])
			return false;
	return true;
}

/* Judge the rounds done (adaptive runs): 1 stopped here (journaled), 0 go on, < 0 an error. */
static int judge_rounds(struct run *r, int rounds, bool last, struct il_err *err)
{
	struct il_buf why = IL_BUF_INIT;
	int d = r->o->judge ? r->o->judge(r->o->judge_ctx, r->dir, &why, err) : 0, rc;

	if (d < 0) {
		il_buf_release(&why);
		return d;
	}
	if (!d && !last) {
		il_buf_release(&why);
		return 0;
	}
	/* at the last round it is the maximum that stops the run, whatever more would have needed */
	rc = journal_stop(r, rounds, last && d == 2 ? 0 : d, il_buf_str(&why), err);
	il_buf_release(&why);
	return rc ? rc : 1;
}

/* All pending samples of host hi, kernel block by kernel block; the host is restored at the end. */
static int run_host(struct run *r, size_t hi, struct il_err *err)
{
	const char *host = r->plan.hosts.v[hi];
	struct il_lease h = { 0 };
	struct il_kstage ks;
	struct il_err rerr = { 0 };
	int rc, rr;

	emit(r, &(struct il_run_event){ .kind = IL_EV_HOST, .host = host });
	if ((rc = il_kstage_init(&ks, &r->ctx, &r->kv, r->plan.kernels.n, err)))
		return rc;
	rc = il_lease_take(&h, &r->ctx, host, err);
	for (size_t i = 0; i < r->t.n && !rc; i++) {
		const struct il_spec *sp = &r->specs[i];
		const char *why;

		if (sp->host != (int)hi || r->t.final[i])
			continue;
		if (il_context_stopped(&r->ctx)) {
			rc = IL_EINTR;
			break;
		}
		if (round_opens(r, i) && (rc = judge_rounds(r, sp->iteration, false, err))) {
			rc = rc > 0 ? 0 : rc;
			break;
		}
		why = il_kstage_enter(&ks, &h, host, sp->kernel);
		rc = why ? record_fail(r, host, sp, why, err) : do_sample(r, &h, sp, err);
	}
	/* an adaptive run that ran every round: its last judgement, and the stop record */
	if (!rc && r->plan.iter_min && r->t.stop_rounds < 0 && !host_pending(r, hi)) {
		rc = judge_rounds(r, r->plan.iterations, true, err);
		rc = rc > 0 ? 0 : rc;
	}
	if (rc != IL_EINTR)
		il_kstage_leave(&ks, &h, host);
	il_kstage_release(&ks);
	if (rc == IL_EINTR)
		journal_interrupted(r, h.name, err);
	rr = il_lease_restore(&h, &r->ctx, &rerr);
	if (rr && !rc) {
		rc = rr;
		*err = rerr;
	} else if (rr) {
		il_context_note(&r->ctx, h.name, "%s", rerr.msg);
	}
	il_lease_release(&h);
	return rc;
}

static void lava_emit(void *ctx, struct il_run_event *ev)
{
	emit(ctx, ev);
}

/* A host not reached by commands (LAVA's) has its samples go through LAVA jobs (run/lavarun.c), not a lease. */
static bool is_lava(const struct run *r, const char *host)
{
	struct il_host_cfg cfg;
	struct il_err e = { 0 };
	bool lava = !il_host_load(&cfg, r->o->paths, host, &e) && !il_host_kinds[cfg.kind].commands;

	if (!e.code)
		il_host_release(&cfg);
	return lava;
}

static int run_lava(struct run *r, size_t hi, struct il_err *err)
{
	const char *host = r->plan.hosts.v[hi];
	struct il_lavarun lr = { .c = &r->ctx, .specs = r->specs, .t = &r->t, .kv = &r->kv, .host = (int)hi,
				 .emit = lava_emit, .emit_ctx = r };
	int rc;

	emit(r, &(struct il_run_event){ .kind = IL_EV_HOST, .host = host });
	rc = il_lavarun_host(&lr, err);
	r->ran += lr.ran;
	if (rc == IL_EINTR) {
		struct il_err why = *err;

		journal_interrupted(r, host, err);
		if (why.msg[0] && strcmp(why.msg, "stopped: LAVA jobs canceled"))
			il_context_note(&r->ctx, host, "%s", why.msg);
	}
	return rc;
}

static int run_exec(struct run *r, struct il_err *err)
{
	json_t *rec;
	int rc = 0;

	if (!(r->script = il_runner_sample_script()))
		return il_err_oom(err);
	for (size_t hi = 0; hi < r->plan.hosts.n && !rc; hi++) {
		bool lava;

		if (!host_pending(r, hi))
			continue;
		lava = is_lava(r, r->plan.hosts.v[hi]);
		if (lava && r->plan.iter_min)
			return il_err_set(err, IL_EINVAL, "host '%s': adaptive iterations {\"min\", \"max\"} are not for LAVA "
					  "hosts (a LAVA job runs a block of samples, not a round): give iterations a count",
					  r->plan.hosts.v[hi]);
		rc = lava ? run_lava(r, hi, err) : run_host(r, hi, err);
	}
	if (rc || r->t.done != r->t.n)
		return rc;
	rec = il_record_new(IL_REC_RUN_END);
	il_record_set(rec, IL_RF_RUN_END_SAMPLES, json_integer((json_int_t)r->t.n));
	return il_context_journal(&r->ctx, rec, err);
}

/* ---- the run directory ---- */

static void run_release(struct run *r)
{
	il_rundir_unlock(&r->lock);
	il_journal_close(&r->j);
	il_plan_release(&r->plan);
	free(r->specs);
	il_tally_release(&r->t);
	free(r->script);
	free(r->dir);
	free(r->plan_dir);
	il_kplan_vars_release(&r->kv);
}

static void run_init(struct run *r, const struct il_run_opts *o)
{
	*r = (struct run){ .o = o, .lock.fd = -1, .j.fd = -1 };
	r->ctx = (struct il_run_ctx){ .j = &r->j, .plan = &r->plan, .o = o, .holder = r->lock.holder,
				      .note = on_note, .note_ctx = r };
}

/* The plan, its kernels and matrix from dir, and what the journal (if any) says is done. */
static int run_load(struct run *r, const char *dir, size_t *torn, struct il_err *err)
{
	char *plan = il_rundir_path(dir, IL_RUNDIR_PLAN), *jpath = il_rundir_path(dir, IL_RUNDIR_JOURNAL);
	size_t n = 0;
	int rc;

	r->ctx.dir = r->dir = strdup(dir);
	if (!plan || !jpath || !r->dir)
		rc = il_err_oom(err);
	else if (!(rc = il_plan_load(&r->plan, plan, r->o->workloads_dir, err)) &&
		 !(rc = il_kstage_plan(&r->plan, dir, il_paths_cache_dir(r->o->paths), &r->kv, &r->plan_dir, err)) &&
		 !(rc = il_plan_matrix(&r->plan, &r->specs, &n, err)) && !(rc = il_tally_init(&r->t, n, err)))
		rc = il_tally_scan(&r->t, jpath, &r->plan, r->specs, torn, err);
	free(plan);
	free(jpath);
	return rc;
}

/* Make the run directory whole in DIR.tmp.XXXXXX, then rename it to DIR (run/rundir.h). */
static int run_create(struct run *r, const char *plan_path, const struct il_plan *plan, const char *dir,
		      struct il_err *err)
{
	char *tmp = NULL, *txt = il_json_dumps(plan->json, JSON_INDENT(2) | JSON_PRESERVE_ORDER), *jpath = NULL;
	size_t torn;
	int rc;

	if (!txt)
		return il_err_oom(err);
	if ((rc = il_rundir_prepare(dir, txt, plan_path, &tmp, err)) || (rc = il_rundir_lock(&r->lock, tmp, dir, err)) ||
	    (rc = run_load(r, tmp, &torn, err)))
		goto out;
	free(r->dir);
	r->ctx.dir = r->dir = strdup(dir);
	if (!r->dir || !(jpath = il_rundir_path(tmp, IL_RUNDIR_JOURNAL))) {
		rc = il_err_oom(err);
		goto out;
	}
	if ((rc = il_journal_open(&r->j, jpath, err)) ||
	    (rc = il_context_journal(&r->ctx, il_record_run_start(&r->plan, dir, r->t.n, &r->kv), err)))
		goto out;
	il_journal_close(&r->j);
	if (!(rc = il_rundir_commit(tmp, dir, err))) {
		free(tmp);
		tmp = NULL;
	}
out:
	il_rundir_discard(tmp);
	free(tmp);
	free(txt);
	free(jpath);
	return rc;
}

int il_engine_start(const char *plan_path, const char *out_dir, const struct il_run_opts *o, char **run_dir,
		 struct il_err *err)
{
	struct run r;
	struct il_plan plan;
	char *dir = NULL, *jpath = NULL;
	int rc, bad = 0;

	*run_dir = NULL;
	run_init(&r, o);
	if ((rc = il_plan_load(&plan, plan_path, o->workloads_dir, err)))
		return rc;
	if (o->host) {
		json_object_del(plan.json, "hosts");
		bad |= json_object_set_new(plan.json, "host", json_string(o->host));
	} else if (!plan.hosts.n) {
		/* the built-in lab host is the default */
		bad |= json_object_set_new(plan.json, "host", json_string("labvm"));
	}
	/* --until-decided: the plan's iterations become the first look, the option's count the last */
	if (o->until_decided > 0 && !plan.iter_min) {
		int lo = plan.iterations < 2 ? 2 : plan.iterations, hi = o->until_decided > lo ? o->until_decided : lo;

		bad |= json_object_set_new(plan.json, "iterations", json_pack("{s:i,s:i}", "min", lo, "max", hi));
	}
	if (bad || !(dir = out_dir ? strdup(out_dir) : il_rundir_default(plan.name))) {
		rc = il_err_oom(err);
		goto out;
	}
	if ((rc = run_create(&r, plan_path, &plan, dir, err)))
		goto out;
	*run_dir = strdup(dir);
	if (!(jpath = il_rundir_path(dir, IL_RUNDIR_JOURNAL)))
		rc = il_err_oom(err);
	if (!rc && !(rc = il_journal_open(&r.j, jpath, err)))
		rc = run_exec(&r, err);
out:
	run_release(&r);
	il_plan_release(&plan);
	free(dir);
	free(jpath);
	return rc;
}

int il_engine_resume(const char *run_dir, const struct il_run_opts *o, struct il_err *err)
{
	struct run r;
	char *jpath = il_rundir_path(run_dir, IL_RUNDIR_JOURNAL);
	size_t torn = 0;
	json_t *rec;
	int rc;

	run_init(&r, o);
	if (!jpath)
		return il_err_oom(err);
	if (o->host) {
		free(jpath);
		return il_err_set(err, IL_EINVAL, "--host cannot change the host of an existing run (%s)", run_dir);
	}
	if ((rc = il_rundir_lock(&r.lock, run_dir, run_dir, err)) || (rc = run_load(&r, run_dir, &torn, err)))
		goto out;
	/* opening cuts the torn last line run_load skipped */
	if ((rc = il_journal_open(&r.j, jpath, err)) || (r.t.done == r.t.n && r.t.ended))
		goto out;
	rec = il_record_new(IL_REC_RESUME);
	il_record_set(rec, IL_RF_RESUME_DONE, json_integer((json_int_t)r.t.done));
	il_record_set(rec, IL_RF_RESUME_PENDING, json_integer((json_int_t)(r.t.n - r.t.done)));
	il_record_set(rec, IL_RF_RESUME_TORN_BYTES, json_integer((json_int_t)r.j.torn));
	if (!(rc = il_context_journal(&r.ctx, rec, err)))
		rc = run_exec(&r, err);
out:
	run_release(&r);
	free(jpath);
	return rc;
}
