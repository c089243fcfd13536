// SPDX-License-Identifier: GPL-2.0-or-later
/* A plan's samples on a LAVA host (run/lavarun.h). */
#include "run/lavarun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/inventory.h"
#include "host/lava.h"
#include "host/lavalog.h"
#include "host/probe.h"
#include "idle/snapjson.h"
#include "idle/snapshot.h"
#include "run/kstage.h"
#include "run/lavajob.h"
#include "run/lease.h"
#include "run/record.h"
#include "run/rundir.h"
#include "run/sample.h"
#include "util/clock.h"
#include "util/sha256.h"

/* One sample in a job. */
struct jsample {
	size_t seq;
	int attempt;
	char nonce[IL_SAMPLE_NONCE_LEN];
};

/* One submitted job, followed to its end. */
struct job {
	long id;
	int kernel;
	struct jsample *s;
	size_t n;
	double submitted;           /* il_mono_s(), for the queue time-out */
	double running;             /* il_mono_s() when first seen running, for job_timeout_s; 0: not yet */
	double failing;             /* il_mono_s() of the first failed poll in a row; 0: the last poll was answered */
	struct il_lava_job st;
	bool done;
	char why[600];              /* set when idlelab itself gave up on it (deadline()) */
};

struct lr {
	struct il_lavarun *in;
	const struct il_plan *p;
	const char *host;
	struct il_host_cfg cfg;
	struct il_lava_conn conn;
	struct il_strlist union_dis;   /* every state name the plan disables */
	struct il_strlist fp_devices;  /* devices whose fingerprint is journaled */
	struct job *jobs;
	size_t njobs;
	struct il_buf *dry;            /* il_lavarun_jobdefs: the jobs are written here, never submitted */
	char **release;                /* per plan kernel: the release a built one boots as (checked per sample) */
};

static void job_release(struct job *j)
{
	free(j->s);
	il_lava_job_release(&j->st);
	memset(j, 0, sizeof(*j));
}

static void jobs_clear(struct lr *r)
{
	for (size_t i = 0; i < r->njobs; i++)
		job_release(&r->jobs[i]);
	free(r->jobs);
	r->jobs = NULL;
	r->njobs = 0;
}

/* ---- the images a job deploys ---- */

static bool is_url(const char *s)
{
	return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8) || !strncmp(s, "file://", 7);
}

/*
 * path as the worker sees it: a URL as it is; a local file copied (once,
 * content-addressed) into the host's artifact_dir/<sha256 prefix>/ and
 * named under its artifact_url (dry: only named). *url is the caller's.
 */
static int publish(const struct il_lava_cfg *lc, const char *path, bool dry, char **url, struct il_err *err)
{
	char hex[65], *dir = NULL, *dst = NULL;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct il_buf data = IL_BUF_INIT;
	struct stat st;
	int rc;

	*url = NULL;
	if (is_url(path))
		return (*url = strdup(path)) ? 0 : il_err_set(err, IL_ENOMEM, "out of memory");
	if (!lc->artifact_dir)
		return il_err_set(err, IL_EINVAL, "'%s' is a local file, and the LAVA host has no artifact_dir to publish "
				  "it from (or give the image as a URL the worker can fetch)", path);
	if ((rc = il_sha256_file(path, hex, err)))
		return rc;
	hex[16] = 0;
	if (dry)
		return (*url = il_strdup_printf("%s/%s/%s", lc->artifact_url, hex, base)) ? 0
											 : il_err_set(err, IL_ENOMEM, "out of memory");
	if (!(dir = il_strdup_printf("%s/%s", lc->artifact_dir, hex)) ||
	    !(dst = il_strdup_printf("%s/%s", dir, base))) {
		rc = il_err_set(err, IL_ENOMEM, "out of memory");
		goto out;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		rc = il_err_set(err, IL_EIO, "artifact directory '%s': %s", dir, strerror(errno));
		goto out;
	}
	/* idlelab runs as root on shared machines: what LAVA deploys must not be another user's to swap */
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		rc = il_err_set(err, IL_EPERM, "artifact directory '%s' is not a directory of ours that only we can "
				"write (owner, mode 0755): another user could swap the kernel LAVA deploys", dir);
		goto out;
	}
	/* content-addressed: a copy already there is used when its bytes are still these (an
	 * interrupted or tampered copy is replaced) */
	if (!stat(dst, &st)) {
		char have[65];
		struct il_err e2 = { 0 };

		have[0] = 0;
		if (il_sha256_file(dst, have, &e2) || strncmp(have, hex, 16))
			st.st_size = -1;
	} else {
		st.st_size = -1;
	}
	if (st.st_size < 0 && (rc = il_buf_read_file(&data, path, (size_t)1 << 31, err)) == 0)
		rc = il_write_file_mode(dst, data.p ? data.p : "", data.len, 0644, err);
	if (!rc && !(*url = il_strdup_printf("%s/%s/%s", lc->artifact_url, hex, base)))
		rc = il_err_set(err, IL_ENOMEM, "out of memory");
out:
	il_buf_release(&data);
	free(dir);
	free(dst);
	return rc;
}

struct urls {
	char *kernel, *ramdisk, *dtb, *modules;
};

static void urls_release(struct urls *u)
{
	IL_FREE_ALL(u->kernel, u->ramdisk, u->dtb, u->modules);
}

/* The images of plan kernel k: the host's own, with a built variant's image (and modules) in their place. */
static int images(struct lr *r, int k, struct urls *u, bool *unbuilt, struct il_err *err)
{
	const struct il_lava_cfg *lc = &r->cfg.lava;
	const struct il_kvar *kv = r->in->kv->n ? &r->in->kv->v[k] : NULL;
	char *image = NULL, *modules = NULL;
	int rc = 0;

	memset(u, 0, sizeof(*u));
	*unbuilt = false;
	if (r->dry && r->p->built_kernels) {
		/* not built for a job definition: named as what it will be */
		if (!(u->kernel = il_strdup_printf("%s/<kernel %s, published when the run builds it>",
						   lc->artifact_url ? lc->artifact_url : "", r->p->kernels.v[k])))
			return il_err_set(err, IL_ENOMEM, "out of memory");
	} else if (kv && !kv->running) {
		/* a kernel that does not build is untestable: its samples become final failures (*unbuilt) */
		if (r->release[k]) {
			free(r->release[k]);
			r->release[k] = NULL;
		}
		if ((rc = il_kstage_build(r->in->c, kv, &image, &modules, &r->release[k], err))) {
			*unbuilt = true;
			return rc;
		}
	} else if (!lc->images.kernel) {
		return il_err_set(err, IL_EINVAL, "LAVA host '%s' has no lava.images.kernel to deploy for the plan's "
				  "kernel '%s'", r->host, r->p->kernels.v[k]);
	}
	bool dry = r->dry != NULL;

	if (!u->kernel)
		rc = publish(lc, image ? image : lc->images.kernel, dry, &u->kernel, err);
	if (!rc && lc->images.ramdisk)
		rc = publish(lc, lc->images.ramdisk, dry, &u->ramdisk, err);
	if (!rc && lc->images.dtb)
		rc = publish(lc, lc->images.dtb, dry, &u->dtb, err);
	if (!rc && (modules || lc->images.modules))
		rc = publish(lc, modules ? modules : lc->images.modules, dry, &u->modules, err);
	free(image);
	free(modules);
	if (rc)
		urls_release(u);
	return rc;
}

/* ---- building and submitting a job ---- */

static int submit(struct lr *r, int kernel, const struct urls *u, const size_t *seqs, size_t n, size_t part,
		  size_t parts, struct il_err *err)
{
	const struct il_plan *p = r->p;
	const struct il_lava_cfg *lc = &r->cfg.lava;
	struct il_lavajob_sample *ls = calloc(n, sizeof(*ls));
	struct il_strlist *argv = calloc(n, sizeof(*argv));
	struct il_buf yaml = IL_BUF_INIT, name = IL_BUF_INIT, tpl = IL_BUF_INIT;
	struct job j = { .kernel = kernel, .s = calloc(n, sizeof(*j.s)), .n = n };
	char **cases = calloc(n, sizeof(*cases)), prio[16];
	long *ids = NULL;
	size_t nids = 0;
	json_t *rec = NULL, *js = NULL, *ja = NULL, *jn = NULL;
	int rc = 0;

	if (!ls || !argv || !j.s || !cases) {
		rc = il_err_set(err, IL_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		const struct il_spec *s = &r->in->specs[seqs[i]];
		const struct il_plan_wl *w = &p->wl[s->wl];
		char *variant = il_plan_variant(p, s);

		j.s[i].seq = s->seq;
		j.s[i].attempt = r->dry ? 1 : ++r->in->t->attempts[s->seq];
		il_sample_nonce(j.s[i].nonce);
		if ((rc = il_workload_argv(&w->def, w->params, &argv[i], err)))
			break;
		/* idlelab's own workloads by absolute path, where the deployed image has them */
		if (w->def.builtin && argv[i].n && lc->bindir) {
			char *abs = il_strdup_printf("%s/%s", lc->bindir, argv[i].v[0]);

			if (!abs) {
				rc = il_err_set(err, IL_ENOMEM, "out of memory");
				break;
			}
			free(argv[i].v[0]);
			argv[i].v[0] = abs;
		}
		cases[i] = variant ? il_strdup_printf("%s-%s", variant, w->label) : NULL;
		free(variant);
		ls[i] = (struct il_lavajob_sample){ .seq = s->seq, .nonce = j.s[i].nonce, .case_name = cases[i],
						    .governor = p->gov[s->gov].governor, .disable = &p->gov[s->gov].disable,
						    .quiesce_s = p->quiesce_s >= 0 ? p->quiesce_s : r->cfg.quiesce_s,
						    .cpus = p->cpus, .timeout_s = p->timeout_s, .argv = &argv[i] };
	}
	if (rc)
		goto out;
	if (lc->job_template && (rc = il_buf_read_file(&tpl, lc->job_template, 1 << 20, err)))
		goto out;
	snprintf(prio, sizeof(prio), "%d", lc->priority);
	il_buf_printf(&name, "idlelab %s: %s, kernel %s, %zu samples", p->name ? p->name : "plan", r->host,
		      p->kernels.v[kernel], n);
	if (parts > 1)
		il_buf_printf(&name, " (part %zu of %zu)", part + 1, parts);
	{
		struct il_lavajob lj = { .job_name = il_buf_str(&name), .device_type = lc->device_type, .tags = &lc->tags,
					 .priority = prio, .visibility = lc->visibility,
					 .template_text = lc->job_template ? il_buf_str(&tpl) : NULL,
					 .template_label = lc->job_template, .kernel_url = u->kernel,
					 .ramdisk_url = u->ramdisk, .dtb_url = u->dtb, .modules_url = u->modules,
					 .disable_union = &r->union_dis, .samples = ls, .nsamples = n };

		if ((rc = il_lavajob_render(&lj, &yaml, err)))
			goto out;
	}
	if (r->dry) {
		il_buf_printf(r->dry, "# %s\n", il_buf_str(&name));
		il_buf_add(r->dry, yaml.p, yaml.len);
		goto out;
	}
	if ((rc = il_lava_submit(&r->conn, il_buf_str(&yaml), &ids, &nids, err)))
		goto out;
	if (nids != 1) {
		rc = il_err_set(err, IL_EPARSE, "LAVA answered %zu job ids for one job", nids);
		goto out;
	}
	j.id = ids[0];
	j.submitted = il_mono_s();
	/* journaled before it is followed: a resumed run follows this job instead of submitting again */
	rec = il_rec_new(IL_REC_LAVA_JOB);
	js = json_array(), ja = json_array(), jn = json_array();
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(js, json_integer((json_int_t)j.s[i].seq));
		json_array_append_new(ja, json_integer(j.s[i].attempt));
		json_array_append_new(jn, json_string(j.s[i].nonce));
	}
	il_rec_set(rec, IL_RF_LAVA_JOB_HOST, json_string(r->host));
	il_rec_set(rec, IL_RF_LAVA_JOB_KERNEL, json_string(p->kernels.v[kernel]));
	il_rec_set(rec, IL_RF_LAVA_JOB_JOB, json_integer(j.id));
	{
		char *url = il_strdup_printf("%s/scheduler/job/%ld", lc->url, j.id);

		il_rec_set(rec, IL_RF_LAVA_JOB_URL, url ? json_string(url) : json_null());
		il_run_note(r->in->c, r->host, "LAVA job %ld submitted: %zu samples, kernel %s (%s)", j.id, n,
			    p->kernels.v[kernel], url ? url : "");
		free(url);
	}
	il_rec_set(rec, IL_RF_LAVA_JOB_SEQS, js);
	il_rec_set(rec, IL_RF_LAVA_JOB_ATTEMPTS, ja);
	il_rec_set(rec, IL_RF_LAVA_JOB_NONCES, jn);
	if ((rc = il_run_journal(r->in->c, rec, err)))
		goto out;
	{
		struct job *nj = realloc(r->jobs, (r->njobs + 1) * sizeof(*nj));

		if (!nj) {
			rc = il_err_set(err, IL_ENOMEM, "out of memory");
			goto out;
		}
		r->jobs = nj;
		r->jobs[r->njobs++] = j;
		j.s = NULL;
	}
out:
	for (size_t i = 0; i < n; i++) {
		if (argv)
			il_strlist_release(&argv[i]);
		if (cases)
			free(cases[i]);
	}
	free(argv);
	free(cases);
	free(ls);
	free(ids);
	free(j.s);
	il_buf_release(&yaml);
	il_buf_release(&name);
	il_buf_release(&tpl);
	return rc;
}

/* ---- following jobs ---- */

static bool sleep_or_stop(struct lr *r, int seconds)
{
	for (int i = 0; i < seconds * 10; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		if (il_run_stopped(r->in->c))
			return true;
		nanosleep(&ts, NULL);
	}
	return il_run_stopped(r->in->c);
}

/*
 * A cancel when idlelab gives up on a job or the user stops the run: one
 * bounded try (a server that stopped answering must not hold the run for
 * the request's full time-out per job), its failure a note.
 */
#define CANCEL_TIMEOUT_S 15

static void cancel(struct lr *r, const struct job *j)
{
	long was = r->conn.timeout_s;
	struct il_err e = { 0 };

	if (r->conn.timeout_s > CANCEL_TIMEOUT_S)
		r->conn.timeout_s = CANCEL_TIMEOUT_S;
	if (il_lava_job_cancel(&r->conn, j->id, &e))
		il_run_note(r->in->c, r->host, "LAVA job %ld: cancel: %s", j->id, e.msg);
	r->conn.timeout_s = was;
}

/*
 * When idlelab gives up on j (il_mono_s()), 0 for never: queue_timeout_s
 * after its submission until it is seen running, job_timeout_s after that.
 * Every poll counts against it, answered or not: a server that stopped
 * answering (or answers errors) must not keep an unattended run forever.
 */
static double deadline(const struct job *j, const struct il_lava_cfg *lc)
{
	if (j->running)
		return lc->job_timeout_s > 0 ? j->running + lc->job_timeout_s : 0;
	return lc->queue_timeout_s > 0 ? j->submitted + lc->queue_timeout_s : 0;
}

/* j past its deadline at now: canceled, its samples infrastructure failures (j->why); last: the last poll's error */
static void give_up(struct lr *r, struct job *j, double now, const char *last)
{
	const struct il_lava_cfg *lc = &r->cfg.lava;
	const char *key = j->running ? "job_timeout_s" : "queue_timeout_s";
	int limit = j->running ? lc->job_timeout_s : lc->queue_timeout_s;

	if (last)
		snprintf(j->why, sizeof(j->why), "LAVA job %ld: no usable answer from the server for %.0f s, past its %s (%d s): "
			 "canceled; the last poll: %.400s", j->id, now - j->failing, key, limit, last);
	else if (j->running)
		snprintf(j->why, sizeof(j->why), "LAVA job %ld ran more than %d s (job_timeout_s): canceled", j->id,
			 limit);
	else
		snprintf(j->why, sizeof(j->why), "LAVA job %ld waited more than %d s for a %s device (queue_timeout_s): "
			 "canceled", j->id, limit, lc->device_type);
	cancel(r, j);
	j->done = true;
}

/* One poll of j, its request never running past the deadline dl (0: none) by more than a second. */
static int poll_job(struct lr *r, struct job *j, double dl, struct il_err *e)
{
	long was = r->conn.timeout_s;
	int rc;

	if (dl > 0) {
		double left = dl - il_mono_s();

		r->conn.timeout_s = left < 1 ? 1 : left < (double)was ? (long)left + 1 : was;
	}
	rc = il_lava_job_get(&r->conn, j->id, &j->st, e);
	r->conn.timeout_s = was;
	return rc;
}

/*
 * Poll every job until each has finished or is given up (deadline());
 * IL_EINTR (jobs canceled) when the user stops the run, IL_EPARSE when the
 * server answers something that is not LAVA's (the jobs are left to a
 * resume: what else the server says cannot be trusted either).
 */
static int follow(struct lr *r, struct il_err *err)
{
	const struct il_lava_cfg *lc = &r->cfg.lava;

	for (;;) {
		size_t left = 0;

		for (size_t i = 0; i < r->njobs; i++) {
			struct job *j = &r->jobs[i];
			enum il_lava_state was = j->st.state;
			double dl = deadline(j, lc), asked = il_mono_s(), now;
			struct il_err e = { 0 };
			int rc;

			if (j->done)
				continue;
			rc = poll_job(r, j, dl, &e);
			now = il_mono_s();
			if (rc == IL_EPARSE)
				return il_err_set(err, IL_EPARSE, "LAVA job %ld: the server's answer is not LAVA's, the run stops "
						  "(the job is left in LAVA; 'idlelab run --resume' follows it again): %s",
						  j->id, e.msg);
			if (rc) {
				/* the server may be restarting: a note, and the next poll, until the deadline */
				if (!j->failing)
					j->failing = asked;
				il_run_note(r->in->c, r->host, "LAVA job %ld: %s", j->id, e.msg);
				if (dl > 0 && now > dl)
					give_up(r, j, now, e.msg);
				else
					left++;
				continue;
			}
			j->failing = 0;
			if (j->st.state != was && j->st.state != IL_LAVA_FINISHED)
				il_run_note(r->in->c, r->host, "LAVA job %ld: %s%s%s", j->id, il_lava_state_name(j->st.state),
					    j->st.actual_device ? " on " : "", j->st.actual_device ? j->st.actual_device : "");
			if (j->st.state == IL_LAVA_FINISHED) {
				j->done = true;
				continue;
			}
			if (j->st.state == IL_LAVA_RUNNING && !j->running)
				j->running = now;
			dl = deadline(j, lc);
			if (dl > 0 && now > dl) {
				give_up(r, j, now, NULL);
				continue;
			}
			left++;
		}
		if (!left)
			return 0;
		if (sleep_or_stop(r, lc->poll_s)) {
			for (size_t i = 0; i < r->njobs; i++)
				if (!r->jobs[i].done)
					cancel(r, &r->jobs[i]);
			return il_err_set(err, IL_EINTR, "stopped: LAVA jobs canceled");
		}
	}
}

/* ---- a finished job's samples ---- */

static const struct il_lavajob_file *file(const struct il_lavajob_file *f, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	return NULL;
}

/* The device's fingerprint from the job's probe: a file of its own, and a host record the first time. */
static char *fingerprint(struct lr *r, const char *device, const struct il_lavajob_file *probe)
{
	char *label = il_strdup_printf("%s@%s", r->host, device ? device : "?");
	char *name = label ? il_rundir_host_name(IL_RUNDIR_FINGERPRINT, label) : NULL;
	json_t *fp = NULL;
	struct il_err e = { 0 };

	if (!name || !probe || !probe->ok || il_probe_parse(probe->data.p, probe->data.len, label, &fp, NULL, &e)) {
		if (probe && !probe->ok)
			il_run_note(r->in->c, r->host, "LAVA device %s: probe not usable: %s", device ? device : "?",
				    probe->why);
		goto out;
	}
	if (!il_strlist_has(&r->fp_devices, label)) {
		char *path = il_rundir_join(r->in->c->dir, name), *txt = json_dumps(fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		struct stat st;
		json_t *rec = il_rec_new(IL_REC_HOST);

		if (path && txt && stat(path, &st))
			il_write_file_atomic(path, txt, strlen(txt), &e);
		free(path);
		free(txt);
		json_object_set_new(fp, "transport", json_string("lava"));
		json_object_set_new(fp, "lava_device", json_string(device ? device : "?"));
		il_rec_set(rec, IL_RF_HOST_HOST, json_string(label));
		il_rec_set_copy(rec, IL_RF_HOST_FINGERPRINT, fp);
		il_rec_set(rec, IL_RF_HOST_KIND, json_string("lava"));
		il_run_journal(r->in->c, rec, NULL);
		il_strlist_push(&r->fp_devices, label);
	}
out:
	json_decref(fp);
	free(label);
	return name;
}

/* Why a job's sample did not come back, for its record. */
static void job_reason(const struct job *j, const struct il_lava_tests *t, const struct il_lavajob_file *f,
		       size_t seq, char *out, size_t len)
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

static int collect(struct lr *r, struct job *j, struct il_err *err)
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
							 il_run_time_json(), il_mono_s())
				      : NULL;
			if (rec)
				il_rec_set(rec, IL_RF_SAMPLE_LAVA_JOB, json_integer(j->id));
			rc = rec ? il_run_journal(r->in->c, rec, err) : il_err_set(err, IL_ENOMEM, "out of memory");
			free(variant);
		}
		return rc ? rc : il_err_set(err, IL_EINTR, "LAVA job %ld was canceled (in LAVA): the run stops as "
					    "interrupted; 'idlelab run --resume' submits its samples again", j->id);
	}
	if (j->st.health != IL_LAVA_COMPLETE && !j->why[0] && il_lava_job_tests(&r->conn, j->id, &tests, &e))
		il_run_note(r->in->c, r->host, "LAVA job %ld: results: %s", j->id, e.msg);
	il_buf_init(&log, (size_t)256 << 20);
	if (!j->why[0] && !il_lava_job_logs(&r->conn, j->id, 0, &log, &e) &&
	    !il_lavalog_target_text(log.p ? log.p : "", log.len, &text, "LAVA log", &e)) {
		char *save = NULL;

		for (char *l = strtok_r(text.p ? text.p : (char *)"", "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (il_strlist_push(&lines, l)) {
				rc = il_err_set(err, IL_ENOMEM, "out of memory");
				goto out;
			}
		if ((rc = il_lavajob_unarmour((const char *const *)lines.v, lines.n, &files, &nfiles, err)))
			goto out;
	} else if (!j->why[0]) {
		il_run_note(r->in->c, r->host, "LAVA job %ld: log: %s", j->id, e.msg);
	}
	fp_name = fingerprint(r, j->st.actual_device, file(files, nfiles, "probe"));
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
		rec = il_sample_record(r->in->c, &h, s, variant, j->s[i].attempt, final, &oc, il_run_time_json(),
				       il_mono_s());
		if (rec) {
			il_rec_set(rec, IL_RF_SAMPLE_LAVA_JOB, json_integer(j->id));
			il_rec_set(rec, IL_RF_SAMPLE_DEVICE, il_json_str(j->st.actual_device));
		}
		rc = rec ? il_run_journal(r->in->c, rec, err) : il_err_set(err, IL_ENOMEM, "out of memory");
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

/* ---- resume: the jobs a stopped run left in flight ---- */

struct reattach {
	struct lr *r;
	struct il_err *err;
};

static int reattach_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct reattach *ra = ctx;
	struct lr *r = ra->r;
	json_t *seqs = json_object_get(rec, "seqs"), *att = json_object_get(rec, "attempts"),
	       *non = json_object_get(rec, "nonces");
	const char *host = json_string_value(json_object_get(rec, "host"));
	const char *kernel = json_string_value(json_object_get(rec, "kernel"));
	struct job j = { 0 };
	bool pending = false;
	int k = -1;

	(void)line;
	(void)err;
	if (il_rec_kind_of(rec) != IL_REC_LAVA_JOB || !host || strcmp(host, r->host) || !kernel ||
	    json_array_size(seqs) != json_array_size(att) || json_array_size(seqs) != json_array_size(non))
		return 0;
	for (size_t i = 0; i < r->p->kernels.n; i++)
		if (!strcmp(r->p->kernels.v[i], kernel))
			k = (int)i;
	if (k < 0)
		return 0;
	/* a job is in flight when one of its samples is not final and has no record of this attempt yet */
	for (size_t i = 0; i < json_array_size(seqs); i++) {
		json_int_t s = json_integer_value(json_array_get(seqs, i));

		if (s >= 0 && (size_t)s < r->in->t->n && !r->in->t->final[s] &&
		    r->in->t->attempts[s] < (int)json_integer_value(json_array_get(att, i)))
			pending = true;
	}
	if (!pending)
		return 0;
	j.id = (long)json_integer_value(json_object_get(rec, "job"));
	j.kernel = k;
	j.n = json_array_size(seqs);
	j.submitted = il_mono_s();
	if (!(j.s = calloc(j.n, sizeof(*j.s))))
		return il_err_set(ra->err, IL_ENOMEM, "out of memory");
	for (size_t i = 0; i < j.n; i++) {
		j.s[i].seq = (size_t)json_integer_value(json_array_get(seqs, i));
		j.s[i].attempt = (int)json_integer_value(json_array_get(att, i));
		snprintf(j.s[i].nonce, sizeof(j.s[i].nonce), "%s", json_string_value(json_array_get(non, i)) ?: "");
		if (j.s[i].seq < r->in->t->n && r->in->t->attempts[j.s[i].seq] < j.s[i].attempt)
			r->in->t->attempts[j.s[i].seq] = j.s[i].attempt;
	}
	{
		struct job *nj = realloc(r->jobs, (r->njobs + 1) * sizeof(*nj));

		if (!nj) {
			free(j.s);
			return il_err_set(ra->err, IL_ENOMEM, "out of memory");
		}
		r->jobs = nj;
		r->jobs[r->njobs++] = j;
	}
	il_run_note(r->in->c, r->host, "LAVA job %ld was in flight when the run stopped: following it again", j.id);
	return 0;
}

/* ---- the host ---- */

/* Follow every job in r->jobs to its end and journal its samples. */
static int finish_jobs(struct lr *r, struct il_err *err)
{
	int rc = follow(r, err);

	for (size_t i = 0; i < r->njobs && !rc; i++)
		rc = collect(r, &r->jobs[i], err);
	jobs_clear(r);
	return rc;
}

static bool pending(const struct lr *r, const struct il_spec *s)
{
	return s->host == r->in->host && !r->in->t->final[s->seq];
}

static int no_images(struct lr *r, const size_t *seqs, size_t n, struct il_err *err);

/* Kernel block by kernel block, as the matrix orders them; a round per retry (one round when dry). */
static int blocks(struct lr *r, struct il_err *err)
{
	struct il_lavarun *in = r->in;
	const struct il_plan *p = r->p;
	size_t *seqs = calloc(in->t->n ? in->t->n : 1, sizeof(*seqs));
	int rc = 0;

	if (!seqs)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	for (int k = 0; k < (int)p->kernels.n && !rc; k++) {
		for (int round = 0; !rc; round++) {
			struct urls u;
			size_t n = 0, parts;
			bool unbuilt;

			for (size_t i = 0; i < in->t->n; i++)
				if (in->specs[i].kernel == k && pending(r, &in->specs[i]))
					seqs[n++] = i;
			if (!n || (r->dry && round))
				break;
			if (round > p->retries + 1) {
				rc = il_err_set(err, IL_EIO, "LAVA host '%s': samples still pending after %d rounds", r->host,
						round);
				break;
			}
			if (!r->dry && il_run_stopped(in->c)) {
				rc = IL_EINTR;
				break;
			}
			if ((rc = images(r, k, &u, &unbuilt, err))) {
				/* an unbuilt kernel's samples are final failures; anything else stops the run */
				if (!r->dry && unbuilt)
					rc = no_images(r, seqs, n, err);
				break;
			}
			/* the block's samples dealt out over at most `boards` jobs, in run order within each */
			parts = r->cfg.lava.boards > 0 ? (size_t)r->cfg.lava.boards : 1;
			if (parts > n)
				parts = n;
			for (size_t part = 0; part < parts && !rc; part++) {
				size_t m = 0, *mine = calloc(n, sizeof(*mine));

				if (!mine) {
					rc = il_err_set(err, IL_ENOMEM, "out of memory");
					break;
				}
				for (size_t i = part; i < n; i += parts)
					mine[m++] = seqs[i];
				rc = submit(r, k, &u, mine, m, part, parts, err);
				free(mine);
			}
			urls_release(&u);
			if (!rc && !r->dry)
				rc = finish_jobs(r, err);
		}
	}
	free(seqs);
	return rc;
}

/* A block whose kernel did not build: its samples cannot run, final failures, never data. */
static int no_images(struct lr *r, const size_t *seqs, size_t n, struct il_err *err)
{
	struct il_lavarun *in = r->in;
	struct il_err why = *err;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		char *variant = il_plan_variant(r->p, &in->specs[seqs[i]]);
		json_t *rec = il_sample_fail_record(in->c, r->host, &in->specs[seqs[i]], variant ? variant : "?",
						    ++in->t->attempts[seqs[i]], why.msg);

		rc = rec ? il_run_journal(in->c, rec, err) : il_err_set(err, IL_ENOMEM, "out of memory");
		if (!rc)
			il_tally_final(in->t, seqs[i]);
		free(variant);
	}
	return rc;
}

static int setup(struct lr *r, struct il_err *err)
{
	const struct il_plan *p = r->p;
	int rc;

	if (!(r->release = calloc(p->kernels.n ? p->kernels.n : 1, sizeof(*r->release))))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	if ((rc = il_host_load(&r->cfg, r->in->c->o->paths, r->host, err)))
		return rc;
	if (r->cfg.kind != IL_HOST_LAVA)
		return il_err_set(err, IL_EINVAL, "host '%s' is not a LAVA host (its host file has no \"lava\" section)",
				  r->host);
	for (size_t g = 0; g < p->ngov; g++)
		for (size_t d = 0; d < p->gov[g].disable.n; d++)
			if (!il_strlist_has(&r->union_dis, p->gov[g].disable.v[d]) &&
			    il_strlist_push(&r->union_dis, p->gov[g].disable.v[d]))
				return il_err_set(err, IL_ENOMEM, "out of memory");
	return 0;
}

static void teardown(struct lr *r)
{
	for (size_t k = 0; r->release && k < r->p->kernels.n; k++)
		free(r->release[k]);
	free(r->release);
	jobs_clear(r);
	il_strlist_release(&r->union_dis);
	il_strlist_release(&r->fp_devices);
	il_lava_conn_release(&r->conn);
	il_host_release(&r->cfg);
}

int il_lavarun_host(struct il_lavarun *in, struct il_err *err)
{
	struct lr r = { .in = in, .p = in->c->plan, .host = in->c->plan->hosts.v[in->host] };
	int rc;

	if (!(rc = setup(&r, err)))
		rc = il_lava_conn_open(&r.conn, &r.cfg.lava, err);
	/* jobs a stopped run left in flight first: never submitted twice */
	if (!rc) {
		char *jp = il_rundir_join(in->c->dir, "journal.jsonl");
		struct reattach ra = { &r, err };

		rc = jp ? il_journal_each(jp, reattach_rec, &ra, NULL, err) : il_err_set(err, IL_ENOMEM, "out of memory");
		free(jp);
		if (!rc && r.njobs)
			rc = finish_jobs(&r, err);
	}
	if (!rc)
		rc = blocks(&r, err);
	teardown(&r);
	return rc;
}

int il_lavarun_jobdefs(struct il_lavarun *in, struct il_buf *out, struct il_err *err)
{
	struct lr r = { .in = in, .p = in->c->plan, .host = in->c->plan->hosts.v[in->host], .dry = out };
	int rc;

	if (!(rc = setup(&r, err)))
		rc = blocks(&r, err);
	teardown(&r);
	return rc;
}

int il_lavarun_jobdef_plan(const char *plan_path, const struct il_run_opts *o, struct il_buf *out,
			   struct il_err *err)
{
	struct il_plan plan;
	struct il_spec *specs = NULL;
	struct il_tally t = { 0 };
	struct il_kvars kv = { 0 };
	struct il_run_ctx c = { .o = o };
	size_t n = 0, found = 0;
	int rc;

	if ((rc = il_plan_load(&plan, plan_path, o->workloads_dir, err)))
		return rc;
	if (o->host) {
		/* the same replacement il_run_start makes */
		struct il_plan p2;

		json_object_del(plan.json, "hosts");
		json_object_set_new(plan.json, "host", json_string(o->host));
		if ((rc = il_plan_from_json(&p2, plan.json, o->workloads_dir, plan_path, err)))
			goto out;
		il_plan_release(&plan);
		plan = p2;
	}
	c.plan = &plan;
	if ((rc = il_plan_matrix(&plan, &specs, &n, err)) || (rc = il_tally_init(&t, n, err)))
		goto out;
	for (size_t h = 0; h < plan.hosts.n && !rc; h++) {
		struct il_host_cfg cfg;
		struct il_err e = { 0 };
		struct il_lavarun lr = { .c = &c, .specs = specs, .t = &t, .kv = &kv, .host = (int)h };

		if (il_host_load(&cfg, o->paths, plan.hosts.v[h], &e) || cfg.kind != IL_HOST_LAVA) {
			if (!e.code)
				il_host_release(&cfg);
			continue;
		}
		il_host_release(&cfg);
		found++;
		rc = il_lavarun_jobdefs(&lr, out, err);
	}
	if (!rc && !found)
		rc = il_err_set(err, IL_EINVAL, "%s: none of the plan's hosts is a LAVA host (a host file with a \"lava\" "
				"section; docs/lava.md)", plan_path);
out:
	il_tally_release(&t);
	free(specs);
	il_plan_release(&plan);
	return rc;
}
