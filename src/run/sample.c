// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One sample: the workload argv from its definition, ONE exec of
 * runners/sample.sh on the host (writes, quiesce, snapshot, workload,
 * snapshot), the framed output split and judged into a result, and the
 * journal record built from it (run/record.h).
 */
#include "run/sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "host/hostlock.h"
#include "idle/diff.h"
#include "idle/diffjson.h"
#include "idle/pmqos.h"
#include "idle/snapshotjson.h"
#include "util/json.h"
#include "idle/trace.h"
#include "run/record.h"
#include "run/rundir.h"
#include "util/clock.h"
#include "util/jfields.h"
#include "version.h"
#include "workload/parse.h"
#include "util/str.h"
#include "util/jsonfile.h"

void il_sample_result_release(struct il_sample_result *oc)
{
	json_decref(oc->metrics);
	json_decref(oc->idle);
	free(oc->note);
	il_runner_out_release(&oc->ro);
	il_snapshot_release(&oc->pre);
	il_snapshot_release(&oc->post);
}

static void set_reason(struct il_sample_result *oc, const char *status, bool retryable, const char *msg)
{
	oc->status = status;
	oc->retryable = retryable;
	il_str_lcpy(oc->reason, msg, sizeof(oc->reason));
}

void il_sample_nonce(char nonce[IL_SAMPLE_NONCE_LEN])
{
	unsigned char rnd[8];

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		memset(rnd, 0x5a, sizeof(rnd));
	snprintf(nonce, IL_SAMPLE_NONCE_LEN, "IL%02x%02x%02x%02x%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3],
		 rnd[4], rnd[5], rnd[6], rnd[7]);
}

void il_sample_run(const struct il_run_ctx *c, struct il_lease *h, const char *script, const struct il_spec *s,
		   struct il_sample_result *oc)
{
	const struct il_plan *p = c->plan;
	const struct il_plan_wl *w = &p->wl[s->wl];
	const struct il_govcfg *g = &p->gov[s->gov];
	struct il_strlist wargv = { 0 }, args = { 0 };
	struct il_exec_result res = { 0 };
	struct il_exec_opts eo = { 0 };
	struct il_err e = { 0 };
	char id[IL_SAMPLE_NONCE_LEN], nonce[IL_SAMPLE_NONCE_LEN], input[IL_SAMPLE_NONCE_LEN + 1];
	char **av = NULL;
	int rc;

	memset(oc, 0, sizeof(*oc));
	/* the id names the sample's files on the host (the workload sees them); the nonce, on stdin, it never sees */
	il_sample_nonce(id);
	il_sample_nonce(nonce);
	if (il_workload_argv(&w->def, w->params, &wargv, &e)) {
		set_reason(oc, "infra_failed", false, e.msg);
		goto out;
	}
	/* the host lock went with a lost connection: take it again, or stop if another run has the host */
	if (h->workdir && !il_host_lock_held(h->t) && il_host_lock(h->t, h->workdir, c->holder, &e)) {
		set_reason(oc, "infra_failed", true, e.msg);
		goto out;
	}
	/* idlelab's own workloads by absolute path: nothing is added to the host's PATH */
	if (w->def.builtin && h->bindir && wargv.n) {
		struct il_buf abs = IL_BUF_INIT;

		if (il_buf_printf(&abs, "%s/%s", h->bindir, wargv.v[0])) {
			set_reason(oc, "infra_failed", true, il_err_strerror(IL_ENOMEM));
			goto out;
		}
		free(wargv.v[0]);
		wargv.v[0] = il_buf_detach(&abs);
	}
	{
		struct il_runner_args ra = { .root = h->root, .quiesce_s = h->quiesce_s, .cpus = p->cpus,
					     .governor = g->governor, .timeout_s = p->timeout_s, .workdir = h->workdir,
					     .trace_kb = w->trace ? p->trace_buffer_kb : 0, .writes = &h->writes[s->gov],
					     .argv = &wargv };

		if (il_runner_sample_argv(&args, id, &ra) || !(av = calloc(args.n + 1, sizeof(*av))) ||
		    !il_runner_sample_input(input, sizeof(input), nonce)) {
			set_reason(oc, "infra_failed", true, il_err_strerror(IL_ENOMEM));
			goto out;
		}
		memcpy(av, args.v, args.n * sizeof(*av));
	}
	eo.timeout_ms = (int)((p->timeout_s + h->quiesce_s + 60) * 1000);
	eo.max_out = (size_t)64 << 20;
	eo.privileged = true;
	eo.cancel = c->o->stop;
	eo.input = input;
	rc = il_transport_run_script(h->t, script, av, &eo, &res, &e);
	if (rc == IL_EINTR || rc == IL_ETIMEOUT) {
		/* closing the channel stops nothing on the host (sshd does not pass signals): stop it by its ids */
		struct il_err ce = { 0 };

		if (il_lease_cancel(h, id, NULL, &ce)) {
			size_t l = strlen(e.msg);

			snprintf(e.msg + l, sizeof(e.msg) - l, "; %s", ce.msg);
		}
	}
	if (rc == IL_EINTR) {
		set_reason(oc, "interrupted", true, "stopped by a signal; the sample will run again on resume");
		goto out;
	}
	if (rc) {
		set_reason(oc, "infra_failed", true, e.msg);
		goto out;
	}
	if (res.out.truncated) {
		set_reason(oc, "infra_failed", false, "runner output exceeded 64 MiB (workload too chatty)");
		goto out;
	}
	il_sample_judge(c, s, nonce, h->name, il_buf_str(&res.out), res.out.len, res.exit_code, il_buf_str(&res.err),
			oc);
out:
	il_transport_result_release(&res);
	il_strlist_release(&wargv);
	il_strlist_release(&args);
	free(av);
}

/*
 * The PM QoS scan taken while the workload ran (runners/sample.sh): a CPU
 * latency limit of 0 over the measured CPUs bypasses the governor, which the
 * sample's idle JSON says in its caveats and as governor_bypass (what
 * compare and the Tested-by read, stats/compare.c). A scan that cannot be
 * read is a caveat too, never a failed sample. 0, or -1 (memory).
 */
static int note_bypass(json_t *idle, const struct il_runner_out *ro, const struct il_cpuset *measured,
		       const char *host)
{
	struct il_pmqos q = { 0 };
	struct il_err e = { 0 };
	struct il_buf why = IL_BUF_INIT;
	json_t *cav = json_object_get(idle, "caveats"), *o = NULL, *hs = NULL;
	bool by = false;
	char *t;
	int bad = 0;

	if (!ro->has_qos || !json_is_array(cav))
		return 0;
	if (il_pmqos_parse(&q, il_buf_str(&ro->qos), ro->qos.len, host, &e)) {
		if (e.code == IL_ENOMEM)
			return -1;
		t = il_str_dup_printf("the PM QoS scan taken during the workload could not be read (%s): whether the "
				      "governor was bypassed is not known",
				      e.msg);
		if (!t)
			return -1;
		bad = json_array_append_new(cav, json_string(t));
		free(t);
		return bad ? -1 : 0;
	}
	if (il_pmqos_bypassed(&q, measured, &by, &why)) {
		bad = -1;
	} else if (by) {
		o = json_object();
		hs = json_array();
		for (size_t i = 0; o && hs && i < q.nholders; i++)
			bad |= json_array_append_new(hs, json_pack("{s:i, s:o}", "pid", q.holders[i].pid, "comm",
								    il_json_str(q.holders[i].comm)));
		bad |= !o || !hs;
		if (!o) {
			json_decref(hs);
		} else {
			bad |= json_object_set_new(o, "cpu_latency_us",
						   q.has_cpu_latency ? json_integer(q.cpu_latency_us) : json_null());
			bad |= json_object_set_new(o, "holders", hs ? hs : json_array());
			bad |= json_object_set_new(o, "why", json_string(il_buf_str(&why)));
		}
		bad |= json_array_append_new(cav, json_string(il_buf_str(&why)));
		bad |= json_object_set_new(idle, "governor_bypass", o);
	}
	il_buf_release(&why);
	il_pmqos_release(&q);
	return bad ? -1 : 0;
}

/*
 * The sample's idle trace (runners/trace.sh) reduced over the same window as
 * its counters (idle/trace.h) into idle.trace; a disagreement with the
 * counters is a caveat. 0; 1 with oc's reason set (a trace that lost events
 * or cannot be read makes the sample invalid: measured again, never kept
 * with a short trace); -1 (memory).
 */
static int add_trace(struct il_sample_result *oc, const struct il_diff *d, const char *host)
{
	struct il_err e = { 0 };
	char *incomplete = NULL, msg[600];
	json_t *t = NULL, *chk, *mm, *v;
	size_t i;
	int r;

	r = il_trace_reduce(il_buf_str(&oc->ro.trace), oc->ro.trace.len, d, host, &t, &incomplete, &e);
	if (r == IL_ENOMEM)
		return -1;
	if (r || !t) {
		snprintf(msg, sizeof(msg), "idle trace: %s", r ? e.msg : incomplete ? incomplete : "empty");
		free(incomplete);
		set_reason(oc, "invalid", true, msg);
		return 1;
	}
	/* a CPU the trace does not see is the host's tracing, not this sample: its caveat, the sample valid */
	json_array_foreach(json_object_get(t, "caveats"), i, v)
		if (json_array_append(json_object_get(oc->idle, "caveats"), v)) {
			json_decref(t);
			return -1;
		}
	chk = json_object_get(t, "check");
	/* a difference the kernel explains (a driver's demotion, idle outside cpuidle): said, not a disagreement */
	json_array_foreach(json_object_get(chk, "notes"), i, v)
		if (json_array_append(json_object_get(oc->idle, "caveats"), v)) {
			json_decref(t);
			return -1;
		}
	mm = json_object_get(chk, "mismatches");
	json_array_foreach(mm, i, v) {
		char *why = il_str_dup_printf("the idle trace disagrees with the counters: %s", json_string_value(v));

		if (!why || json_array_append_new(json_object_get(oc->idle, "caveats"), json_string(why))) {
			free(why);
			json_decref(t);
			return -1;
		}
		free(why);
	}
	return json_object_set_new(oc->idle, "trace", t) ? -1 : 0;
}

void il_sample_judge(const struct il_run_ctx *c, const struct il_spec *s, const char *nonce, const char *host,
		     const char *text, size_t len, int exit_code, const char *stderr_text, struct il_sample_result *oc)
{
	const struct il_plan *p = c->plan;
	const struct il_plan_wl *w = &p->wl[s->wl];
	const struct il_govcfg *g = &p->gov[s->gov];
	struct il_err e = { 0 };
	char label[64];

	if (il_runner_parse(text, len, nonce, &oc->ro, &e)) {
		char msg[600];

		snprintf(msg, sizeof(msg), "%s (exit %d; stderr: %.200s)", e.msg, exit_code, stderr_text ? stderr_text : "");
		set_reason(oc, "infra_failed", true, msg);
		return;
	}
	if (exit_code) {
		char msg[600];

		/*
		 * whole frames, but not from a runner that ran to its end (it prints them last and exits 0):
		 * a workload that killed its runner after printing frames of its own must not be a sample
		 */
		snprintf(msg, sizeof(msg), "the runner exited %d after its frames (killed?): its output is not taken "
			 "(stderr: %.200s)", exit_code, stderr_text ? stderr_text : "");
		set_reason(oc, "infra_failed", true, msg);
		return;
	}
	if (oc->ro.fail) {
		/* the runner checks deterministic things (program missing, write refused): retrying won't help */
		set_reason(oc, "infra_failed", false, oc->ro.fail);
		return;
	}
	if (il_snapshot_parse(&oc->pre, oc->ro.pre.p ? oc->ro.pre.p : "", oc->ro.pre.len, host, &e) ||
	    il_snapshot_parse(&oc->post, oc->ro.post.p ? oc->ro.post.p : "", oc->ro.post.len, host, &e)) {
		set_reason(oc, "invalid", true, e.msg);
		return;
	}
	oc->have_snaps = true;
	if (g->governor && (!oc->pre.governor || strcmp(oc->pre.governor, g->governor))) {
		char msg[300];

		snprintf(msg, sizeof(msg), "governor read back as '%s' after setting '%s'",
			 oc->pre.governor ? oc->pre.governor : "(none)", g->governor);
		set_reason(oc, "infra_failed", true, msg);
		return;
	}
	if (oc->ro.status == 137 && p->timeout_s) {
		char msg[128];

		snprintf(msg, sizeof(msg), "workload killed (timeout_s %d reached, or SIGKILL)", p->timeout_s);
		set_reason(oc, "infra_failed", true, msg);
		return;
	}
	if (oc->ro.status) {
		char msg[600];

		snprintf(msg, sizeof(msg), "workload exited with status %d: %.400s", oc->ro.status,
			 il_buf_str(&oc->ro.err));
		set_reason(oc, "workload_failed", false, msg);
		return;
	}
	{
		struct il_diff d = { 0 };
		struct il_diff_opts o;

		/* the plan's idle_cpus, min_sample_s and min_idles (docs/plan.md) */
		il_plan_diff_opts(p, &o);
		if (il_diff_compute_opts(&d, &oc->pre, &oc->post, &o, &e)) {
			set_reason(oc, "invalid", true, e.msg);
			il_diff_release(&d);
			return;
		}
		oc->has_interval = d.has_interval;
		oc->interval_s = d.interval_s;
		if (d.invalid) {
			/* suspend, idle time beyond the interval, too short, too few idles: measure again */
			set_reason(oc, "invalid", true, d.invalid);
			il_diff_release(&d);
			return;
		}
		if (w->trace && !oc->ro.has_trace) {
			set_reason(oc, "infra_failed", true, "the runner sent no idle trace although the plan asks for one");
			il_diff_release(&d);
			return;
		}
		if (!il_snapshot_nstates(&oc->pre))
			oc->note = strdup(w->trace ? "no idle states on host: idle counters are absent, workload metrics "
						     "only; the idle trace is not used (nothing to check it against)"
						   : "no idle states on host: idle counters are absent, workload metrics only");
		else if (!(oc->idle = il_diff_summary_json(&d)) ||
			 note_bypass(oc->idle, &oc->ro, &d.measured, host)) {
			set_reason(oc, "infra_failed", true, il_err_strerror(IL_ENOMEM));
			il_diff_release(&d);
			return;
		}
		if (oc->idle && oc->ro.has_trace) {
			int t = add_trace(oc, &d, host);

			if (t) {
				if (t < 0)
					set_reason(oc, "infra_failed", true, il_err_strerror(IL_ENOMEM));
				il_diff_release(&d);
				return;
			}
		}
		il_diff_release(&d);
	}
	snprintf(label, sizeof(label), "sample %zu output", s->seq);
	if (il_workload_parse(&w->def, il_buf_str(&oc->ro.out), oc->ro.out.len, label, &oc->metrics, &e)) {
		set_reason(oc, "workload_failed", false, e.msg);
		return;
	}
	oc->status = s->warmup ? "warmup" : "ok";
}

/* The fields every sample record starts with, in journal order. */
static json_t *record_head(const struct il_run_ctx *c, const char *host, const struct il_spec *s, const char *variant,
			   int attempt, bool final, const char *status, const char *reason)
{
	const struct il_plan *p = c->plan;
	json_t *rec = il_record_new(IL_REC_SAMPLE);

	if (!rec)
		return NULL;
	il_record_set(rec, IL_RF_SAMPLE_SEQ, json_integer((json_int_t)s->seq));
	il_record_set(rec, IL_RF_SAMPLE_ATTEMPT, json_integer(attempt));
	il_record_set(rec, IL_RF_SAMPLE_FINAL, json_boolean(final));
	il_record_set(rec, IL_RF_SAMPLE_STATUS, json_string(status));
	il_record_set(rec, IL_RF_SAMPLE_REASON, reason && *reason ? json_string(reason) : json_null());
	il_record_set(rec, IL_RF_SAMPLE_HOST, json_string(host));
	il_record_set(rec, IL_RF_SAMPLE_KERNEL, json_string(p->kernels.v[s->kernel]));
	il_record_set(rec, IL_RF_SAMPLE_VARIANT, json_string(variant));
	il_record_set(rec, IL_RF_SAMPLE_GOVERNOR, p->gov[s->gov].governor ? json_string(p->gov[s->gov].governor) : json_null());
	return rec;
}

/* What ran: the workload, its parameters and the iteration. */
static void record_workload(json_t *rec, const struct il_plan *p, const struct il_spec *s)
{
	il_record_set(rec, IL_RF_SAMPLE_WORKLOAD, json_string(p->wl[s->wl].label));
	il_record_set(rec, IL_RF_SAMPLE_WORKLOAD_NAME, json_string(p->wl[s->wl].name));
	il_record_set_copy(rec, IL_RF_SAMPLE_PARAMS, p->wl[s->wl].params);
	il_record_set(rec, IL_RF_SAMPLE_ITERATION, json_integer(s->iteration));
	il_record_set(rec, IL_RF_SAMPLE_WARMUP, json_boolean(s->warmup));
}

/* samples/NAME (file f of the sample) written whole; its name, or NULL when it could not be (caller frees). */
static char *sample_file(const char *dir, size_t seq, int attempt, enum il_rundir_sample_file f, const char *text,
			 size_t len)
{
	char name[64], *fp = il_rundir_join(dir, il_rundir_sample_name(name, sizeof(name), seq, attempt, f));
	struct il_err fe = { 0 };
	int r = fp ? il_buf_write_file_atomic(fp, text ? text : "", len, &fe) : -1;

	free(fp);
	return r ? NULL : strdup(name);
}

/* The workload's output next to the journal; the record is the commit point, so files go first. */
static void record_output(json_t *rec, const char *dir, size_t seq, int attempt, const struct il_sample_result *oc)
{
	static const enum il_rec_field field[2] = { IL_RF_SAMPLE_OUTPUT, IL_RF_SAMPLE_ERRORS };
	static const enum il_rundir_sample_file file[2] = { IL_RUNDIR_SAMPLE_OUT, IL_RUNDIR_SAMPLE_ERR };
	const struct il_buf *text[2] = { &oc->ro.out, &oc->ro.err };

	for (int i = 0; i < 2; i++) {
		char *name = sample_file(dir, seq, attempt, file[i], text[i]->p, text[i]->len);

		if (name)
			il_record_set(rec, field[i], json_string(name));
		free(name);
	}
}

/*
 * keep_trace: the raw trace frame and the snapshot pair it was reduced over,
 * so that `idlelab diff BEFORE AFTER --trace FRAME` reduces it again offline
 * (docs/formats.md); their names in the record's trace_files. A file that
 * cannot be written leaves trace_files out, never the sample.
 */
static void record_trace(json_t *rec, const char *dir, size_t seq, int attempt, const struct il_sample_result *oc)
{
	const struct il_snapshot *snap[2] = { &oc->pre, &oc->post };
	char *name[3] = { NULL, NULL, NULL };
	json_t *files = NULL;

	name[0] = sample_file(dir, seq, attempt, IL_RUNDIR_SAMPLE_TRACE, oc->ro.trace.p, oc->ro.trace.len);
	for (int i = 0; i < 2 && name[0]; i++) {
		json_t *j = il_snapshot_to_json(snap[i]);
		char *text = j ? il_json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;

		if (text)
			name[i + 1] = sample_file(dir, seq, attempt, i ? IL_RUNDIR_SAMPLE_AFTER : IL_RUNDIR_SAMPLE_BEFORE, text,
						  strlen(text));
		free(text);
		json_decref(j);
	}
	if (name[0] && name[1] && name[2])
		files = json_pack("{s:s, s:s, s:s}", "frame", name[0], "before", name[1], "after", name[2]);
	if (files)
		il_record_set(rec, IL_RF_SAMPLE_TRACE_FILES, files);
	for (int i = 0; i < 3; i++)
		free(name[i]);
}

json_t *il_sample_record(const struct il_run_ctx *c, const struct il_lease *h, const struct il_spec *s,
			 const char *variant, int attempt, bool final, const struct il_sample_result *oc, json_t *started,
			 double t0)
{
	const struct il_plan *p = c->plan;
	json_t *rec = record_head(c, h->name, s, variant, attempt, final, oc->status, oc->reason);

	if (!rec) {
		json_decref(started);
		return NULL;
	}
	il_record_set(rec, IL_RF_SAMPLE_GOVERNOR_READ, oc->have_snaps ? il_json_str(oc->pre.governor) : json_null());
	il_record_set(rec, IL_RF_SAMPLE_DISABLE, il_jfields_strlist_json(&p->gov[s->gov].disable));
	record_workload(rec, p, s);
	il_record_set(rec, IL_RF_SAMPLE_METRICS, oc->metrics ? json_incref(oc->metrics) : json_null());
	il_record_set(rec, IL_RF_SAMPLE_IDLE, oc->idle ? json_incref(oc->idle) : json_null());
	if (oc->note)
		il_record_set(rec, IL_RF_SAMPLE_NOTE, json_string(oc->note));
	il_record_set(rec, IL_RF_SAMPLE_INTERVAL_S, oc->has_interval ? json_real(oc->interval_s) : json_null());
	il_record_set(rec, IL_RF_SAMPLE_KERNEL_RELEASE, il_json_str(oc->ro.release));
	il_record_set(rec, IL_RF_SAMPLE_MACHINE, il_json_str(oc->ro.machine));
	il_record_set(rec, IL_RF_SAMPLE_BOOT_ID, oc->have_snaps ? il_json_str(oc->pre.boot_id) : json_null());
	il_record_set(rec, IL_RF_SAMPLE_DRIVER, oc->have_snaps ? il_json_str(oc->pre.driver) : json_null());
	il_record_set(rec, IL_RF_SAMPLE_EXIT_STATUS, oc->ro.has_status ? json_integer(oc->ro.status) : json_null());
	il_record_set(rec, IL_RF_SAMPLE_FINGERPRINT, h->fp_file ? json_string(h->fp_file) : json_null());
	if (oc->ro.has_status)
		record_output(rec, c->dir, s->seq, attempt, oc);
	if (p->keep_trace && oc->ro.has_trace && oc->have_snaps)
		record_trace(rec, c->dir, s->seq, attempt, oc);
	il_record_set(rec, IL_RF_SAMPLE_STARTED, started);
	il_record_set(rec, IL_RF_SAMPLE_ENDED, il_context_time_json());
	il_record_set(rec, IL_RF_SAMPLE_ELAPSED_S, json_real(il_clock_mono_s() - t0));
	il_record_set(rec, IL_RF_SAMPLE_VERSION, json_string(IL_VERSION));
	return rec;
}

json_t *il_sample_fail_record(const struct il_run_ctx *c, const char *host, const struct il_spec *s,
			      const char *variant, int attempt, const char *reason)
{
	json_t *rec = record_head(c, host, s, variant, attempt, true, "infra_failed", reason);

	if (!rec)
		return NULL;
	record_workload(rec, c->plan, s);
	il_record_set(rec, IL_RF_SAMPLE_METRICS, json_null());
	il_record_set(rec, IL_RF_SAMPLE_IDLE, json_null());
	il_record_set(rec, IL_RF_SAMPLE_ENDED, il_context_time_json());
	il_record_set(rec, IL_RF_SAMPLE_VERSION, json_string(IL_VERSION));
	return rec;
}
