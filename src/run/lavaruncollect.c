// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A finished LAVA job's samples (run/lavaruncollect.h): its log's target
 * lines (host/lavalog.h), the files armoured in them (run/lavajob.h), the
 * device's fingerprint from the job's probe, and each sample judged
 * (run/sample.h) and journaled with the job's id and device.
 */
#include "run/lavaruncollect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/lavalog.h"
#include "host/probe.h"
#include "util/json.h"
#include "run/lavajob.h"
#include "run/lease.h"
#include "run/record.h"
#include "run/rundir.h"
#include "run/sample.h"
#include "util/clock.h"
#include "util/jsonfile.h"

static const struct il_lavajob_file *file(const struct il_lavajob_file *f, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	return NULL;
}

/*
 * The device's fingerprint from the job's probe: a file of its own, and a
 * host record the first time (both as far as they can be written: a probe
 * is no sample). *name (caller frees): the file's name in the run
 * directory. IL_ENOMEM when the name or the record could not be made.
 */
static int fingerprint(struct il_lavarun_state *r, const char *device, const struct il_lavajob_file *probe, char **name,
		       struct il_err *err)
{
	char *label = il_str_dup_printf("%s@%s", r->host, device ? device : "?");
	json_t *fp = NULL;
	struct il_err e = { 0 };
	int rc = 0;

	if (!label || !(*name = il_rundir_host_name(IL_RUNDIR_FINGERPRINT, label))) {
		rc = il_err_oom(err);
		goto out;
	}
	if (!probe || !probe->ok || il_probe_parse(probe->data.p, probe->data.len, label, &fp, NULL, &e)) {
		if (probe && !probe->ok)
			il_context_note(r->in->c, r->host, "LAVA device %s: probe not usable: %s", device ? device : "?",
				    probe->why);
		goto out;
	}
	if (!il_strlist_has(&r->fp_devices, label)) {
		char *path = il_rundir_join(r->in->c->dir, *name), *txt = il_json_dumps(fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		struct stat st;
		json_t *rec = il_record_new(IL_REC_HOST);

		if (path && txt && stat(path, &st))
			il_buf_write_file_atomic(path, txt, strlen(txt), &e);
		free(path);
		free(txt);
		if (json_object_set_new(fp, "transport", json_string(il_host_kind_name(IL_HOST_LAVA))) ||
		    json_object_set_new(fp, "lava_device", json_string(device ? device : "?")) ||
		    il_strlist_push(&r->fp_devices, label)) {
			json_decref(rec);
			rc = il_err_oom(err);
			goto out;
		}
		il_record_set(rec, IL_RF_HOST_HOST, json_string(label));
		il_record_set_copy(rec, IL_RF_HOST_FINGERPRINT, fp);
		il_record_set(rec, IL_RF_HOST_KIND, json_string(il_host_kind_name(IL_HOST_LAVA)));
		il_context_journal(r->in->c, rec, NULL);
	}
out:
	json_decref(fp);
	free(label);
	return rc;
}

/* Why a job's sample did not come back, for its record. */
static void job_reason(const struct il_lavafollow_job *j, const struct il_lava_tests *t,
		       const struct il_lavajob_file *f, size_t seq, char *out, size_t len)
{
	if (j->why[0])
		snprintf(out, len, "%s", j->why);
	else if (j->st.health != IL_LAVA_COMPLETE)
		snprintf(out, len, "LAVA job %ld %s%s%s%s%s%s", j->id, il_lava_health_name(j->st.health),
			 t && t->error_type ? " (" : "", t && t->error_type ? t->error_type : "",
			 t && t->error_type ? ")" : "", t && t->error_msg ? ": " : "", t && t->error_msg ? t->error_msg : "");
	else if (f)
		snprintf(out, len, "LAVA job %ld: sample %zu's output damaged on the console: %s", j->id, seq, f->why);
	else
		snprintf(out, len, "LAVA job %ld: sample %zu's output never came back", j->id, seq);
}

int il_lavarun_collect(struct il_lavarun_state *r, struct il_lavafollow_job *j, struct il_err *err)
{
	const struct il_plan *p = r->p;
	struct il_buf log = IL_BUF_INIT, text = IL_BUF_INIT;
	struct il_strlist lines = { 0 };
	struct il_lavajob_file *files = NULL;
	struct il_lava_tests tests = { 0 };
	size_t nfiles = 0;
	char *fp_name = NULL;
	struct il_err e = { 0 };
	int rc = 0;

	if (j->st.health == IL_LAVA_CANCELED && !j->why[0]) {
		/* someone canceled it in LAVA: the samples are interrupted (journaled, not final), the run stops */
		for (size_t i = 0; i < j->n && !rc; i++) {
			const struct il_spec *s = &r->in->specs[j->s[i].seq];
			struct il_sample_result oc = { .status = "interrupted", .retryable = true };
			struct il_lease h = { .name = r->host };
			char *variant = il_plan_variant(p, s);
			json_t *rec;

			snprintf(oc.reason, sizeof(oc.reason), "LAVA job %ld was canceled", j->id);
			rec = variant ? il_sample_record(r->in->c, &h, s, variant, j->s[i].attempt, false, &oc,
							 il_context_time_json(), il_clock_mono_s())
				      : NULL;
			if (rec)
				il_record_set(rec, IL_RF_SAMPLE_LAVA_JOB, json_integer(j->id));
			rc = rec ? il_context_journal(r->in->c, rec, err) : il_err_oom(err);
			free(variant);
		}
		return rc ? rc : il_err_set(err, IL_EINTR, "LAVA job %ld was canceled (in LAVA): the run stops as "
					    "interrupted; 'idlelab run --resume' submits its samples again", j->id);
	}
	if (j->st.health != IL_LAVA_COMPLETE && !j->why[0] && il_lava_job_tests(&r->conn, j->id, &tests, &e))
		il_context_note(r->in->c, r->host, "LAVA job %ld: results: %s", j->id, e.msg);
	il_buf_init(&log, (size_t)256 << 20);
	if (!j->why[0] && !il_lava_job_logs(&r->conn, j->id, 0, &log, &e) &&
	    !il_lavalog_target_text(log.p ? log.p : "", log.len, &text, "LAVA log", &e)) {
		char *save = NULL;

		for (char *l = strtok_r(text.p ? text.p : (char *)"", "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (il_strlist_push(&lines, l)) {
				rc = il_err_oom(err);
				goto out;
			}
		if ((rc = il_lavajob_unarmour((const char *const *)lines.v, lines.n, &files, &nfiles, err)))
			goto out;
	} else if (!j->why[0]) {
		il_context_note(r->in->c, r->host, "LAVA job %ld: log: %s", j->id, e.msg);
	}
	if ((rc = fingerprint(r, j->st.actual_device, file(files, nfiles, "probe"), &fp_name, err)))
		goto out;
	for (size_t i = 0; i < j->n && !rc; i++) {
		const struct il_spec *s = &r->in->specs[j->s[i].seq];
		char fname[64], ename[64];
		const struct il_lavajob_file *f, *fe;
		struct il_sample_result oc = { 0 };
		struct il_lease h = { .name = r->host, .fp_file = fp_name };
		char *variant = il_plan_variant(p, s);
		json_t *rec;
		bool final;

		if (r->in->t->final[s->seq] || !variant) {
			free(variant);
			continue;
		}
		snprintf(fname, sizeof(fname), "sample-%zu", s->seq);
		snprintf(ename, sizeof(ename), "sample-%zu.err", s->seq);
		f = file(files, nfiles, fname);
		fe = file(files, nfiles, ename);
		if (f && f->ok) {
			const char *want = r->release[j->kernel];

			il_sample_judge(r->in->c, s, j->s[i].nonce, r->host, f->data.p ? f->data.p : "", f->data.len, 0,
					fe && fe->ok ? il_buf_str(&fe->data) : "", &oc);
			/* a built kernel must be the one that ran: a template that deploys another is no measurement of it */
			if (want && oc.ro.release && strcmp(oc.ro.release, want) && strcmp(oc.status, "infra_failed")) {
				oc.status = "infra_failed";
				oc.retryable = false;
				snprintf(oc.reason, sizeof(oc.reason), "LAVA job %ld: the board ran %s, not the kernel built (%s): "
					 "does the job template deploy {idlelab.kernel_url}?", j->id, oc.ro.release, want);
			}
		} else {
			oc.status = "infra_failed";
			oc.retryable = true;
			job_reason(j, &tests, f, s->seq, oc.reason, sizeof(oc.reason));
		}
		final = il_tally_attempt(r->in->t, s->seq, oc.status, oc.retryable, p->retries);
		rec = il_sample_record(r->in->c, &h, s, variant, j->s[i].attempt, final, &oc, il_context_time_json(),
				       il_clock_mono_s());
		if (rec) {
			il_record_set(rec, IL_RF_SAMPLE_LAVA_JOB, json_integer(j->id));
			il_record_set(rec, IL_RF_SAMPLE_DEVICE, il_json_str(j->st.actual_device));
		}
		rc = rec ? il_context_journal(r->in->c, rec, err) : il_err_oom(err);
		if (!rc && final) {
			il_tally_final(r->in->t, s->seq);
			r->in->ran++;
		}
		if (!rc && r->in->emit) {
			struct il_run_event ev = { .kind = IL_EV_SAMPLE_END, .seq = s->seq, .host = r->host,
						   .variant = variant, .workload = p->wl[s->wl].label,
						   .iteration = s->iteration, .warmup = s->warmup, .status = oc.status,
						   .message = oc.reason[0] ? oc.reason : oc.note };

			r->in->emit(r->in->emit_ctx, &ev);
		}
		il_sample_result_release(&oc);
		free(variant);
	}
out:
	free(fp_name);
	il_lavajob_files_release(files, nfiles);
	il_strlist_release(&lines);
	il_lava_tests_release(&tests);
	il_buf_release(&log);
	il_buf_release(&text);
	return rc;
}
