// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The run engine. A sample is one remote exec of runners/sample.sh; its
 * record is appended to the journal and fsync'd before the next starts, and
 * the journal is the only state resume needs: a sample is done when a
 * record with "final": true exists for its seq.
 */
#include "run/engine.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/hostfs.h"
#include "lab/labhost.h"
#include "kernel/build.h"
#include "kernel/fetch.h"
#include "kernel/kplan.h"
#include "host/boot.h"
#include "host/hostlock.h"
#include "host/inventory.h"
#include "host/probe.h"
#include "host/runners.h"
#include "host/transport.h"
#include "host/workdir.h"
#include "idle/diff.h"
#include "idle/govctl.h"
#include "idle/snapjson.h"
#include "run/journal.h"
#include "run/plan.h"
#include "run/runner.h"
#include "util/clock.h"
#include "version.h"
#include "workload/own.h"
#include "workload/parse.h"


struct host_ctx {
	const char *name;
	struct il_host_cfg cfg;
	struct il_transport *t;
	struct il_hostfs hfs;
	struct il_sysfs_local lfs;
	struct il_sysfs *fs;
	const char *root;            /* sysfs root prefix for the runner ("" on real hosts) */
	char root_abs[PATH_MAX];     /* the local host's --sysfs-root, made absolute */
	struct il_snapshot snap;
	char *fp_file;               /* host-<name>.json */
	char *workdir;               /* "UID:PATH" of idlelab's private directory on the host (host/workdir.h) */
	char *bindir;                /* where the host finds idlelab's own workloads */
	struct il_idle_saved saved;
	bool borrowed;
	struct il_strlist *writes;   /* per plan governor config: path, value pairs */
	double quiesce_s;
};

struct run {
	char *dir;
	const char *boot_host;       /* the host being booted (progress notes) */
	struct il_plan plan;
	struct il_spec *specs;
	size_t n, done;
	bool *final;
	int *attempts, *failures;
	struct il_journal j;
	const struct il_run_opts *o;
	char *script;
	double busy_s;               /* wall time of samples run in this session */
	size_t ran;
	char *plan_dir;              /* where the plan's relative paths point */
	int lock_fd;                 /* flock on <run>/lock: one writer per run directory (-1: none) */
	char holder[512];            /* "run DIR, pid N on HOST": what a host lock or a busy run says */
	struct il_kvars kv;          /* the kernel variants (plan kernels, prepared) */
};

#define now_s il_mono_s

static json_t *iso_now(void)
{
	char buf[32];

	il_iso_now(buf, sizeof(buf));
	return json_string(buf);
}

static char *path_in(const char *dir, const char *name)
{
	struct il_buf b = IL_BUF_INIT;

	il_buf_printf(&b, "%s/%s", dir, name);
	return il_buf_detach(&b);
}

static void emit(struct run *r, struct il_run_event *ev)
{
	ev->done = r->done;
	ev->total = r->n;
	ev->eta_s = r->ran ? r->busy_s / (double)r->ran * (double)(r->n - r->done) : -1;
	if (r->o->cb)
		r->o->cb(ev, r->o->cb_ctx);
}

/* A note for whoever shows progress (printf-style; the text is cut at 1 KiB). */
static void emit_note(struct run *r, const char *host, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void emit_note(struct run *r, const char *host, const char *fmt, ...)
{
	struct il_run_event ev = { .kind = IL_EV_NOTE, .host = host, .eta_s = -1 };
	char line[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ev.message = line;
	emit(r, &ev);
}

static bool stopped(const struct run *r)
{
	return r->o->stop && *r->o->stop;
}

static int journal_note(struct run *r, json_t *rec, struct il_err *err)
{
	int rc;

	if (!rec)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	json_object_set_new(rec, "time", iso_now());
	rc = il_journal_append(&r->j, rec, err);
	json_decref(rec);
	return rc;
}

/* ---- journal scan (resume) ---- */

struct scan {
	struct run *r;
	const char *path;
	bool ended;
};

static int scan_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct scan *sc = ctx;
	struct run *r = sc->r;
	const char *type = json_string_value(json_object_get(rec, "type"));
	json_int_t seq, attempt;
	const char *variant, *wl, *status;
	char *want;
	int bad;

	if (!strcmp(type, "run-end"))
		sc->ended = true;
	if (strcmp(type, "sample"))
		return 0;
	if (json_unpack(rec, "{s:I,s:I,s:s,s:s,s:s}", "seq", &seq, "attempt", &attempt, "variant", &variant, "workload",
			&wl, "status", &status))
		return il_err_set(err, IL_EPARSE, "%s:%zu: sample record lacks seq, attempt, variant, workload or status",
				  sc->path, line);
	if (seq < 0 || (size_t)seq >= r->n)
		return il_err_set(err, IL_EPARSE, "%s:%zu: sample %lld is outside the plan's %zu samples", sc->path, line,
				  (long long)seq, r->n);
	want = il_plan_variant(&r->plan, &r->specs[seq]);
	bad = !want || strcmp(want, variant) || strcmp(r->plan.wl[r->specs[seq].wl].label, wl);
	if (bad) {
		int rc = il_err_set(err, IL_EPARSE, "%s:%zu: sample %lld is %s/%s in the journal but %s/%s in plan.json",
				    sc->path, line, (long long)seq, variant, wl, want ? want : "?",
				    r->plan.wl[r->specs[seq].wl].label);
		free(want);
		return rc;
	}
	free(want);
	if (json_is_true(json_object_get(rec, "final"))) {
		if (r->final[seq])
			return il_err_set(err, IL_EPARSE, "%s:%zu: sample %lld has a second final record", sc->path, line,
					  (long long)seq);
		r->final[seq] = true;
		r->done++;
	}
	if (attempt > r->attempts[seq])
		r->attempts[seq] = (int)attempt;
	if (!strcmp(status, "infra_failed") || !strcmp(status, "invalid"))
		r->failures[seq]++;
	return 0;
}

/* ---- host setup and teardown ---- */

static void host_release(struct host_ctx *h, size_t ngov)
{
	if (h->writes)
		for (size_t i = 0; i < ngov; i++)
			il_strlist_release(&h->writes[i]);
	free(h->writes);
	il_idle_saved_release(&h->saved);
	il_snapshot_release(&h->snap);
	free(h->fp_file);
	free(h->bindir);
	free(h->workdir);
	if (h->t)
		il_transport_free(h->t);
	il_host_release(&h->cfg);
	memset(h, 0, sizeof(*h));
}

/* The state index for `want` (a name or an index) on one CPU, or -1. */
static int find_state(const struct il_cpu *c, const char *want)
{
	char *end;
	long idx = strtol(want, &end, 10);

	if (!*end && end != want)
		return idx >= 0 && (size_t)idx < c->nstates ? (int)idx : -1;
	for (size_t k = 0; k < c->nstates; k++)
		if (c->states[k].name && !strcmp(c->states[k].name, want))
			return (int)k;
	return -1;
}

static uint64_t saved_disable(const struct il_idle_saved *s, int cpu, int state)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].cpu == cpu && s->v[i].state == state)
			return s->v[i].disable;
	return 0;
}

/* The plan's cpus must be online on the host: taskset would fail every sample otherwise. */
static int check_cpus(const struct il_plan *p, const struct host_ctx *h, struct il_err *err)
{
	struct il_cpuset cs = { 0 };
	struct il_buf on = IL_BUF_INIT;
	int rc = 0;

	if (!p->cpus || !h->snap.has_online)
		return 0;
	if ((rc = il_cpuset_parse(&cs, p->cpus, err)))
		return rc;
	for (size_t i = 0; i < cs.n && !rc; i++)
		if (!il_cpuset_has(&h->snap.online, cs.cpu[i])) {
			il_cpuset_format(&h->snap.online, &on);
			rc = il_err_set(err, IL_EINVAL, "plan: cpus: CPU %d is not online on host '%s' (online: %s)",
					cs.cpu[i], h->name, il_buf_str(&on));
		}
	il_cpuset_release(&cs);
	il_buf_release(&on);
	return rc;
}

/*
 * Per governor config, the `disable` writes that make a sample's state table
 * right: every (CPU, state) any config disables is written in every sample,
 * 1 where this config disables it and the host's own value elsewhere.
 */
static int plan_writes(struct run *r, struct host_ctx *h, struct il_err *err)
{
	const struct il_plan *p = &r->plan;

	if (!(h->writes = calloc(p->ngov, sizeof(*h->writes))))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	for (size_t ci = 0; ci < h->snap.ncpus; ci++) {
		const struct il_cpu *c = &h->snap.cpus[ci];

		for (size_t k = 0; k < c->nstates; k++) {
			bool any = false;

			for (size_t g = 0; g < p->ngov; g++)
				for (size_t d = 0; d < p->gov[g].disable.n; d++)
					any |= find_state(c, p->gov[g].disable.v[d]) == (int)k;
			if (!any)
				continue;
			for (size_t g = 0; g < p->ngov; g++) {
				bool mine = false;
				char path[128], val[32];

				for (size_t d = 0; d < p->gov[g].disable.n; d++)
					mine |= find_state(c, p->gov[g].disable.v[d]) == (int)k;
				snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%zu/disable", c->cpu, k);
				snprintf(val, sizeof(val), "%llu",
					 mine ? 1ull : (unsigned long long)saved_disable(&h->saved, c->cpu, (int)k));
				if (il_strlist_push(&h->writes[g], path) || il_strlist_push(&h->writes[g], val))
					return il_err_set(err, IL_ENOMEM, "out of memory");
			}
		}
	}
	/* every named state must exist on every CPU that has idle states */
	for (size_t g = 0; g < p->ngov; g++)
		for (size_t d = 0; d < p->gov[g].disable.n; d++)
			for (size_t ci = 0; ci < h->snap.ncpus; ci++)
				if (h->snap.cpus[ci].nstates && find_state(&h->snap.cpus[ci], p->gov[g].disable.v[d]) < 0)
					return il_err_set(err, IL_EINVAL,
							  "plan: governors '%s': host '%s' CPU %d has no idle state '%s'",
							  p->gov[g].label, h->name, h->snap.cpus[ci].cpu,
							  p->gov[g].disable.v[d]);
	return 0;
}

/*
 * Stop every process of the sample with this nonce (NULL: of every sample
 * recorded in the working directory) by a separate exec (runners/cancel.sh)
 * and check none is left; *n (may be NULL) is how many samples it stopped.
 */
static int samples_cancel(struct host_ctx *h, const char *nonce, int *n, struct il_err *err)
{
	char *script = il_workdir_script(il_runner_script("cancel.sh"));
	char *args[] = { h->workdir, (char *)(nonce ? nonce : "--all"), NULL };
	struct il_exec_opts o = { .privileged = true, .timeout_ms = 30000 };
	struct il_exec_result res;
	const char *out, *p;
	int rc;

	if (!script)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	rc = il_transport_run_script(h->t, script, args, &o, &res, err);
	free(script);
	if (rc)
		return rc;
	out = il_buf_str(&res.out);
	if ((p = strstr(out, "idlelab.cancel:")) && !res.exit_code) {
		if (n)
			*n = atoi(p + strlen("idlelab.cancel:"));
	} else {
		p = strstr(out, "idlelab.cancel_fail:");
		rc = il_err_set(err, IL_EIO, "host '%s': cannot stop the sample's processes: %.*s", h->name,
				p ? (int)strcspn(p + 20, "\n") : 300, p ? p + 20 : il_buf_str(&res.err));
	}
	il_exec_result_release(&res);
	return rc;
}

static int upload_workloads(struct run *r, struct host_ctx *h, const char *arch, struct il_err *err)
{
	const char *base = r->o->workload_bin ? r->o->workload_bin : IL_OWN_BIN_DIR;
	struct il_buf local = IL_BUF_INIT;
	char real[PATH_MAX];
	bool tried_build = false;
	int rc = 0;

	if (il_buf_printf(&local, "%s/%s", base, arch))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	for (size_t i = 0; i < r->plan.nwl && !rc; i++) {
		const struct il_workload *w = &r->plan.wl[i].def;
		struct il_buf f = IL_BUF_INIT;
		struct stat st;

		if (!w->builtin)
			continue;
		il_buf_printf(&f, "%s/%s", local.p, w->requires.n ? w->requires.v[0] : w->name);
		/* the checkout's own binaries are built for the host's architecture on demand */
		if (stat(f.p, &st) && !r->o->workload_bin && !tried_build) {
			tried_build = true;
			emit_note(r, h->name, "building idlelab's own workloads for %s", arch);
			if ((rc = il_own_build(NULL, arch, err)))
				break;
		}
		if (stat(f.p, &st))
			rc = il_err_set(err, IL_ENOTFOUND,
					"workload '%s' is idlelab's own but '%s' is missing: build it with 'make workloads "
					"ARCH=%s' (host '%s' is %s)",
					w->name, f.p, arch, h->name, arch);
		il_buf_release(&f);
	}
	if (rc)
		goto out;
	if (h->cfg.local) {
		if (!realpath(local.p, real)) {
			rc = il_err_set(err, IL_EIO, "cannot resolve '%s': %s", local.p, strerror(errno));
			goto out;
		}
		h->bindir = strdup(real);
		goto out;
	}
	/* into the private working directory's bin/ (made and checked by il_workdir_get) */
	{
		struct il_buf bin = IL_BUF_INIT;

		il_buf_printf(&bin, "%s/bin", il_workdir_path(h->workdir));
		h->bindir = il_buf_detach(&bin);
	}
	for (size_t i = 0; i < r->plan.nwl && !rc; i++) {
		const struct il_workload *w = &r->plan.wl[i].def;
		const char *prog = w->requires.n ? w->requires.v[0] : w->name;
		struct il_buf f = IL_BUF_INIT, dst = IL_BUF_INIT;
		struct il_exec_result res;

		if (!w->builtin)
			continue;
		il_buf_printf(&f, "%s/%s", local.p, prog);
		il_buf_printf(&dst, "%s/%s", h->bindir, prog);
		if (!(rc = h->t->upload(h->t, f.p, dst.p, err))) {
			char *ch[] = { (char *)"chmod", (char *)"755", dst.p, NULL };

			if (!(rc = il_transport_exec(h->t, ch, NULL, &res, err)) && res.exit_code)
				rc = il_err_set(err, IL_EIO, "host '%s': chmod %s failed", h->name, dst.p);
			il_exec_result_release(&res);
		}
		il_buf_release(&f);
		il_buf_release(&dst);
	}
out:
	il_buf_release(&local);
	return rc;
}

static int host_setup(struct run *r, struct host_ctx *h, const char *name, struct il_err *err)
{
	const struct il_plan *p = &r->plan;
	struct il_buf fn = IL_BUF_INIT;
	json_t *fp = NULL;
	char *saved_path = NULL;
	const char *arch;
	struct stat st;
	int rc;

	h->name = name;
	if ((rc = il_lab_host_load(&h->cfg, r->o->paths, name, err)) || (rc = il_transport_open(&h->t, &h->cfg, err)))
		return rc;
	h->root = "";
	if (r->o->sysfs_root && *r->o->sysfs_root && strcmp(r->o->sysfs_root, "/")) {
		if (!h->cfg.local)
			return il_err_set(err, IL_EINVAL, "a sysfs root applies to the local host only, not '%s'", name);
		/* absolute: the runner reads ROOT/sys/... from its own working directory */
		if (!realpath(r->o->sysfs_root, h->root_abs))
			return il_err_set(err, IL_ENOTFOUND, "sysfs root '%s': %s", r->o->sysfs_root, strerror(errno));
		if ((rc = il_sysfs_local_init(&h->lfs, h->root_abs, err)))
			return rc;
		h->fs = &h->lfs.ops;
		h->root = h->root_abs;
	} else {
		il_hostfs_init(&h->hfs, h->t);
		h->fs = &h->hfs.ops;
	}
	h->fs->label = name;
	h->quiesce_s = p->quiesce_s >= 0 ? p->quiesce_s : h->cfg.quiesce_s;
	if ((rc = il_probe_run(h->t, &fp, NULL, err)) || (rc = il_sysfs_snapshot(h->fs, &h->snap, err)) ||
	    (rc = check_cpus(p, h, err)))
		goto out;
	il_buf_printf(&fn, "host-%s.json", name);
	h->fp_file = il_buf_detach(&fn);
	{
		char *fpath = path_in(r->dir, h->fp_file);
		char *txt = json_dumps(fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		/* the first fingerprint of a run is kept; a resumed run must match it in boot terms only */
		if (stat(fpath, &st))
			rc = txt ? il_write_file_atomic(fpath, txt, strlen(txt), err) : il_err_set(err, IL_ENOMEM, "oom");
		free(txt);
		free(fpath);
		if (rc)
			goto out;
	}
	/* the fingerprint goes into the journal too: reports need nothing but journal.jsonl */
	if ((rc = journal_note(r, json_pack("{s:s,s:s,s:O}", "type", "host", "host", name, "fingerprint", fp), err)))
		goto out;
	/* governors must be ones the host offers */
	for (size_t g = 0; g < p->ngov; g++) {
		const char *gov = p->gov[g].governor;
		struct il_buf b = IL_BUF_INIT;

		if (!gov)
			continue;
		if (!il_snapshot_nstates(&h->snap) || !h->snap.governor_writable || !h->snap.available_governors.n) {
			char why[160];

			if (il_snapshot_nstates(&h->snap))
				snprintf(why, sizeof(why), "no writable current_governor");
			else
				snprintf(why, sizeof(why), "no idle states on host (cpuidle driver '%s')",
					 h->snap.driver ? h->snap.driver : "none");
			rc = il_err_set(err, IL_EUNSUPPORTED,
					"host '%s': %s, so governors cannot be compared there; drop \"governors\" from the "
					"plan to measure workloads only",
					name, why);
			goto out;
		}
		if (!il_strlist_has(&h->snap.available_governors, gov)) {
			il_strlist_join(&h->snap.available_governors, &b);
			rc = il_err_set(err, IL_EINVAL, "plan: governors: host '%s' has no governor '%s' (available: %s)",
					name, gov, il_buf_str(&b));
			il_buf_release(&b);
			goto out;
		}
	}
	/* idlelab's private directory on the host; what a killed run left running there is stopped */
	{
		static const char *const subs[] = { "bin", NULL };
		int stopped_n = 0;

		/* one run per host: the lock comes before anything is stopped, written or run there */
		if ((rc = il_workdir_get(h->t, subs, &h->workdir, err)) ||
		    (rc = il_host_lock(h->t, h->workdir, r->holder, err)) ||
		    (rc = samples_cancel(h, NULL, &stopped_n, err)))
			goto out;
		if (stopped_n)
			emit_note(r, name, "stopped %d sample(s) a killed run had left running on the host", stopped_n);
	}
	arch = json_string_value(json_object_get(json_object_get(fp, "kernel"), "arch"));
	for (size_t i = 0; i < p->nwl; i++) {
		if (p->wl[i].def.builtin) {
			if ((rc = upload_workloads(r, h, arch ? arch : "unknown", err)))
				goto out;
			break;
		}
	}
	/* borrow: the original settings go to disk before anything is written */
	il_buf_printf(&fn, "saved-%s.json", name);
	saved_path = path_in(r->dir, il_buf_str(&fn));
	il_buf_release(&fn);
	if (!stat(saved_path, &st)) {
		json_error_t je;
		json_t *j = json_load_file(saved_path, 0, &je);

		if (!j) {
			rc = il_err_set(err, IL_EPARSE, "%s:%d: %s", saved_path, je.line, je.text);
			goto out;
		}
		rc = il_idle_saved_from_json(&h->saved, j, saved_path, err);
		json_decref(j);
		if (rc)
			goto out;
	} else {
		char *txt;

		if ((rc = il_idle_save(h->fs, &h->saved, err)) ||
		    (p->cpufreq_governor && (rc = il_cpufreq_save(h->fs, &h->snap, &h->saved, err))))
			goto out;
		{
			json_t *j = il_idle_saved_to_json(&h->saved);

			txt = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
			json_decref(j);
		}
		rc = txt ? il_write_file_atomic(saved_path, txt, strlen(txt), err) : il_err_set(err, IL_ENOMEM, "oom");
		free(txt);
		if (rc)
			goto out;
	}
	h->borrowed = true;
	if (p->cpufreq_governor && (rc = il_cpufreq_set(h->fs, &h->saved, p->cpufreq_governor, err)))
		goto out;
	rc = plan_writes(r, h, err);
out:
	json_decref(fp);
	free(saved_path);
	return rc;
}

/* Give the host its settings back and journal that it was done. */
static int host_restore(struct run *r, struct host_ctx *h, struct il_err *err)
{
	struct il_err rerr = { 0 };
	int rc;

	if (!h->borrowed)
		return 0;
	/* nothing of a sample may still run when the host is declared restored */
	rc = h->workdir ? samples_cancel(h, NULL, NULL, &rerr) : 0;
	if (!rc)
		rc = il_idle_restore(h->fs, &h->saved, &rerr);
	journal_note(r, json_pack("{s:s,s:s,s:b,s:o}", "type", "restored", "host", h->name, "ok", !rc, "error",
				  rc ? json_string(rerr.msg) : json_null()), NULL);
	h->borrowed = false;
	if (rc)
		return il_err_set(err, rc, "host '%s': restoring the idle settings failed: %s", h->name, rerr.msg);
	return 0;
}

/* ---- one sample ---- */

struct outcome {
	const char *status;      /* ok, warmup, workload_failed, invalid, infra_failed, interrupted */
	bool retryable;
	char reason[600];
	json_t *metrics, *idle;
	char *note;
	struct il_runner_out ro;
	struct il_snapshot pre, post;
	bool have_snaps;
	double interval_s;
	bool has_interval;
};

static void outcome_release(struct outcome *oc)
{
	json_decref(oc->metrics);
	json_decref(oc->idle);
	free(oc->note);
	il_runner_out_release(&oc->ro);
	il_snapshot_release(&oc->pre);
	il_snapshot_release(&oc->post);
}

static void set_reason(struct outcome *oc, const char *status, bool retryable, const char *msg)
{
	oc->status = status;
	oc->retryable = retryable;
	il_strlcpy(oc->reason, msg, sizeof(oc->reason));
}

static void run_one(struct run *r, struct host_ctx *h, const struct il_spec *s, struct outcome *oc)
{
	const struct il_plan *p = &r->plan;
	const struct il_plan_wl *w = &p->wl[s->wl];
	const struct il_govcfg *g = &p->gov[s->gov];
	struct il_strlist wargv = { 0 }, args = { 0 };
	struct il_exec_result res = { 0 };
	struct il_exec_opts eo = { 0 };
	struct il_err e = { 0 };
	unsigned char rnd[8];
	char nonce[32], label[64];
	char **av = NULL;
	int rc;

	memset(oc, 0, sizeof(*oc));
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		memset(rnd, 0x5a, sizeof(rnd));
	snprintf(nonce, sizeof(nonce), "IL%02x%02x%02x%02x%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3], rnd[4],
		 rnd[5], rnd[6], rnd[7]);
	if (il_workload_argv(&w->def, w->params, &wargv, &e)) {
		set_reason(oc, "infra_failed", false, e.msg);
		goto out;
	}
	/* the host lock went with a lost connection: take it again, or stop if another run has the host */
	if (h->workdir && !il_host_lock_held(h->t) && il_host_lock(h->t, h->workdir, r->holder, &e)) {
		set_reason(oc, "infra_failed", true, e.msg);
		goto out;
	}
	/* idlelab's own workloads by absolute path: nothing is added to the host's PATH */
	if (w->def.builtin && h->bindir && wargv.n) {
		struct il_buf abs = IL_BUF_INIT;

		if (il_buf_printf(&abs, "%s/%s", h->bindir, wargv.v[0])) {
			set_reason(oc, "infra_failed", true, "out of memory");
			goto out;
		}
		free(wargv.v[0]);
		wargv.v[0] = il_buf_detach(&abs);
	}
	{
		struct il_runner_args ra = { .root = h->root, .quiesce_s = h->quiesce_s, .cpus = p->cpus,
					     .governor = g->governor, .timeout_s = p->timeout_s, .workdir = h->workdir,
					     .writes = &h->writes[s->gov], .argv = &wargv };

		if (il_runner_sample_argv(&args, nonce, &ra) || !(av = calloc(args.n + 1, sizeof(*av)))) {
			set_reason(oc, "infra_failed", true, "out of memory");
			goto out;
		}
		memcpy(av, args.v, args.n * sizeof(*av));
	}
	eo.timeout_ms = (int)((p->timeout_s + h->quiesce_s + 60) * 1000);
	eo.max_out = (size_t)64 << 20;
	eo.privileged = true;
	eo.cancel = r->o->stop;
	rc = il_transport_run_script(h->t, r->script, av, &eo, &res, &e);
	if (rc == IL_EINTR || rc == IL_ETIMEOUT) {
		/* closing the channel stops nothing on the host (sshd does not pass signals): stop it by its ids */
		struct il_err ce = { 0 };

		if (samples_cancel(h, nonce, NULL, &ce)) {
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
	if (il_runner_parse(il_buf_str(&res.out), res.out.len, nonce, &oc->ro, &e)) {
		char msg[600];

		snprintf(msg, sizeof(msg), "%s (exit %d; stderr: %.200s)", e.msg, res.exit_code, il_buf_str(&res.err));
		set_reason(oc, "infra_failed", true, msg);
		goto out;
	}
	if (oc->ro.fail) {
		/* the runner checks deterministic things (program missing, write refused): retrying won't help */
		set_reason(oc, "infra_failed", false, oc->ro.fail);
		goto out;
	}
	if (il_snapshot_parse(&oc->pre, oc->ro.pre.p ? oc->ro.pre.p : "", oc->ro.pre.len, h->name, &e) ||
	    il_snapshot_parse(&oc->post, oc->ro.post.p ? oc->ro.post.p : "", oc->ro.post.len, h->name, &e)) {
		set_reason(oc, "invalid", true, e.msg);
		goto out;
	}
	oc->have_snaps = true;
	if (g->governor && (!oc->pre.governor || strcmp(oc->pre.governor, g->governor))) {
		char msg[300];

		snprintf(msg, sizeof(msg), "governor read back as '%s' after setting '%s'",
			 oc->pre.governor ? oc->pre.governor : "(none)", g->governor);
		set_reason(oc, "infra_failed", true, msg);
		goto out;
	}
	if (oc->ro.status == 137 && p->timeout_s) {
		char msg[128];

		snprintf(msg, sizeof(msg), "workload killed (timeout_s %d reached, or SIGKILL)", p->timeout_s);
		set_reason(oc, "infra_failed", true, msg);
		goto out;
	}
	if (oc->ro.status) {
		char msg[600];

		snprintf(msg, sizeof(msg), "workload exited with status %d: %.400s", oc->ro.status,
			 il_buf_str(&oc->ro.err));
		set_reason(oc, "workload_failed", false, msg);
		goto out;
	}
	{
		struct il_diff d = { 0 };

		if (il_diff_compute(&d, &oc->pre, &oc->post, &e)) {
			set_reason(oc, "invalid", true, e.msg);
			il_diff_release(&d);
			goto out;
		}
		oc->has_interval = d.has_interval;
		oc->interval_s = d.interval_s;
		if (!il_snapshot_nstates(&oc->pre))
			oc->note = strdup("no idle states on host: idle counters are absent, workload metrics only");
		else
			oc->idle = il_diff_summary_json(&d);
		il_diff_release(&d);
	}
	snprintf(label, sizeof(label), "sample %zu output", s->seq);
	if (il_workload_parse(&w->def, il_buf_str(&oc->ro.out), oc->ro.out.len, label, &oc->metrics, &e)) {
		set_reason(oc, "workload_failed", false, e.msg);
		goto out;
	}
	oc->status = s->warmup ? "warmup" : "ok";
out:
	il_exec_result_release(&res);
	il_strlist_release(&wargv);
	il_strlist_release(&args);
	free(av);
}

static json_t *strlist_json(const struct il_strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < l->n; i++)
		json_array_append_new(a, json_string(l->v[i]));
	return a;
}

/* Run seq until it is final (or interrupted). Returns 0, IL_EINTR or a journal error. */
static int do_sample(struct run *r, struct host_ctx *h, const struct il_spec *s, struct il_err *err)
{
	const struct il_plan *p = &r->plan;
	char *variant = il_plan_variant(p, s);
	int rc = 0;

	if (!variant)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	for (;;) {
		struct il_run_event ev = { 0 };
		struct outcome oc;
		int attempt = ++r->attempts[s->seq];
		json_t *rec, *started = iso_now();
		double t0 = now_s();
		bool final;
		char name[64];

		ev.kind = IL_EV_SAMPLE_START;
		ev.seq = s->seq;
		ev.host = h->name;
		ev.variant = variant;
		ev.workload = p->wl[s->wl].label;
		ev.iteration = s->iteration;
		ev.warmup = s->warmup;
		emit(r, &ev);
		run_one(r, h, s, &oc);
		if (!strcmp(oc.status, "infra_failed") || !strcmp(oc.status, "invalid"))
			r->failures[s->seq]++;
		final = strcmp(oc.status, "interrupted") &&
			(!oc.retryable || !strcmp(oc.status, "ok") || !strcmp(oc.status, "warmup") ||
			 r->failures[s->seq] > p->retries);
		rec = json_object();
		json_object_set_new(rec, "type", json_string("sample"));
		json_object_set_new(rec, "seq", json_integer((json_int_t)s->seq));
		json_object_set_new(rec, "attempt", json_integer(attempt));
		json_object_set_new(rec, "final", json_boolean(final));
		json_object_set_new(rec, "status", json_string(oc.status));
		json_object_set_new(rec, "reason", oc.reason[0] ? json_string(oc.reason) : json_null());
		json_object_set_new(rec, "host", json_string(h->name));
		json_object_set_new(rec, "kernel", json_string(p->kernels.v[s->kernel]));
		json_object_set_new(rec, "variant", json_string(variant));
		json_object_set_new(rec, "governor", p->gov[s->gov].governor ? json_string(p->gov[s->gov].governor) : json_null());
		json_object_set_new(rec, "governor_read", oc.have_snaps ? il_json_str(oc.pre.governor) : json_null());
		json_object_set_new(rec, "disable", strlist_json(&p->gov[s->gov].disable));
		json_object_set_new(rec, "workload", json_string(p->wl[s->wl].label));
		json_object_set_new(rec, "workload_name", json_string(p->wl[s->wl].name));
		json_object_set(rec, "params", p->wl[s->wl].params);
		json_object_set_new(rec, "iteration", json_integer(s->iteration));
		json_object_set_new(rec, "warmup", json_boolean(s->warmup));
		json_object_set_new(rec, "metrics", oc.metrics ? json_incref(oc.metrics) : json_null());
		json_object_set_new(rec, "idle", oc.idle ? json_incref(oc.idle) : json_null());
		if (oc.note)
			json_object_set_new(rec, "note", json_string(oc.note));
		json_object_set_new(rec, "interval_s", oc.has_interval ? json_real(oc.interval_s) : json_null());
		json_object_set_new(rec, "kernel_release", il_json_str(oc.ro.release));
		json_object_set_new(rec, "machine", il_json_str(oc.ro.machine));
		json_object_set_new(rec, "boot_id", oc.have_snaps ? il_json_str(oc.pre.boot_id) : json_null());
		json_object_set_new(rec, "driver", oc.have_snaps ? il_json_str(oc.pre.driver) : json_null());
		json_object_set_new(rec, "exit_status", oc.ro.has_status ? json_integer(oc.ro.status) : json_null());
		json_object_set_new(rec, "fingerprint", json_string(h->fp_file));
		/* workload output next to the journal; the record is the commit point, so files go first */
		if (oc.ro.has_status) {
			snprintf(name, sizeof(name), "samples/%zu-%d.out", s->seq, attempt);
			{
				char *fp = path_in(r->dir, name);
				struct il_err fe = { 0 };

				if (il_write_file_atomic(fp, oc.ro.out.p ? oc.ro.out.p : "", oc.ro.out.len, &fe) == 0)
					json_object_set_new(rec, "output", json_string(name));
				free(fp);
				snprintf(name, sizeof(name), "samples/%zu-%d.err", s->seq, attempt);
				fp = path_in(r->dir, name);
				if (il_write_file_atomic(fp, oc.ro.err.p ? oc.ro.err.p : "", oc.ro.err.len, &fe) == 0)
					json_object_set_new(rec, "errors", json_string(name));
				free(fp);
			}
		}
		json_object_set_new(rec, "started", started);
		json_object_set_new(rec, "ended", iso_now());
		json_object_set_new(rec, "elapsed_s", json_real(now_s() - t0));
		json_object_set_new(rec, "idlelab_version", json_string(IL_VERSION));
		rc = il_journal_append(&r->j, rec, err);
		json_decref(rec);
		r->busy_s += now_s() - t0;
		if (final) {
			r->final[s->seq] = true;
			r->done++;
			r->ran++;
		}
		ev.kind = IL_EV_SAMPLE_END;
		ev.status = oc.status;
		ev.message = oc.reason[0] ? oc.reason : oc.note;
		if (!rc)
			emit(r, &ev);
		outcome_release(&oc);
		if (rc)
			break;
		if (!strcmp(ev.status, "interrupted")) {
			rc = IL_EINTR;
			break;
		}
		if (final)
			break;
	}
	free(variant);
	return rc;
}

/* ---- the run ---- */

static void run_release(struct run *r)
{
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	r->lock_fd = -1;
	il_journal_close(&r->j);
	il_plan_release(&r->plan);
	free(r->specs);
	free(r->final);
	free(r->attempts);
	free(r->failures);
	free(r->script);
	free(r->dir);
	free(r->plan_dir);
	il_kvars_release(&r->kv);
}

/*
 * One writer per run directory: an flock on DIR/lock, held until the run
 * ends (the kernel lets go when this process dies), the holder described in
 * the file for whoever finds it taken.
 */
static int run_lock(struct run *r, const char *dir, const char *shown, struct il_err *err)
{
	char *p = path_in(dir, "lock"), host[256] = "?", when[32];
	int fd = p ? open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644) : -1;

	if (fd < 0) {
		int rc = il_err_set(err, IL_EIO, "cannot open '%s': %s", p ? p : dir, strerror(errno));

		free(p);
		return rc;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		char who[300] = "";
		ssize_t n = pread(fd, who, sizeof(who) - 1, 0);

		who[n > 0 ? n : 0] = 0;
		who[strcspn(who, "\n")] = 0;
		close(fd);
		free(p);
		return il_err_set(err, IL_EPERM, "run directory '%s' is in use by another idlelab (%s)", shown,
				  *who ? who : "no holder written yet");
	}
	gethostname(host, sizeof(host) - 1);
	il_iso_now(when, sizeof(when));
	snprintf(r->holder, sizeof(r->holder), "run %s, pid %ld on %s", shown, (long)getpid(), host);
	/* the description is a courtesy for whoever finds the lock taken; the flock is the lock */
	if (!ftruncate(fd, 0))
		(void)!dprintf(fd, "%s, since %s\n", r->holder, when);
	r->lock_fd = fd;
	free(p);
	return 0;
}

/* Built kernels: the kernel stage gives the variants and their final names (cached, stable ids). */
static int plan_kernels(struct il_plan *plan, const char *dir, struct il_kvars *kv, char **plan_dir,
			const char *cache_dir, struct il_err *err)
{
	char *pd = path_in(dir, "plan_dir");
	struct il_buf b = IL_BUF_INIT;
	struct il_strlist names = { 0 };
	int rc;

	if (!plan->built_kernels) {
		free(pd);
		return 0;
	}
	if (!il_buf_read_file(&b, pd, 4096, NULL))
		*plan_dir = il_buf_detach(&b);
	il_buf_release(&b);
	free(pd);
	rc = il_kernels_prepare(plan->json, *plan_dir ? *plan_dir : ".", cache_dir, kv, err);
	for (size_t i = 0; !rc && i < kv->n; i++)
		rc = il_strlist_push(&names, kv->v[i].name) ? il_err_set(err, IL_ENOMEM, "out of memory") : 0;
	if (!rc)
		rc = il_plan_set_kernels(plan, &names, err);
	il_strlist_release(&names);
	return rc;
}

static int run_load(struct run *r, const char *dir, const struct il_run_opts *o, bool *ended, size_t *torn,
		    struct il_err *err)
{
	char *plan = path_in(dir, "plan.json"), *jpath = path_in(dir, "journal.jsonl");
	struct scan sc = { r, jpath, false };
	struct stat st;
	int rc;

	r->o = o;
	r->j.fd = -1;
	r->dir = strdup(dir);
	if (!plan || !jpath || !r->dir) {
		rc = il_err_set(err, IL_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = il_plan_load(&r->plan, plan, o->workloads_dir, err)))
		goto out;
	if ((rc = plan_kernels(&r->plan, dir, &r->kv, &r->plan_dir, il_paths_cache_dir(r->o->paths), err)))
		goto out;
	if ((rc = il_plan_matrix(&r->plan, &r->specs, &r->n, err)))
		goto out;
	r->final = calloc(r->n, sizeof(*r->final));
	r->attempts = calloc(r->n, sizeof(*r->attempts));
	r->failures = calloc(r->n, sizeof(*r->failures));
	if (!r->final || !r->attempts || !r->failures) {
		rc = il_err_set(err, IL_ENOMEM, "out of memory");
		goto out;
	}
	*torn = 0;
	if (!stat(jpath, &st) && (rc = il_journal_each(jpath, scan_rec, &sc, torn, err)))
		goto out;
	*ended = sc.ended;
out:
	free(plan);
	free(jpath);
	return rc;
}


/* ---- kernels: booting built variants (host/boot.c does the booting) ---- */

/* The release the host ran when the run first met it (host-<name>.json): its own kernel. */
static char *own_release(struct run *r, const char *host)
{
	struct il_buf fn = IL_BUF_INIT;
	char *path = NULL, *rel = NULL;
	json_error_t je;
	json_t *fp;

	if (!il_buf_printf(&fn, "host-%s.json", host))
		path = path_in(r->dir, fn.p);
	if (path && (fp = json_load_file(path, 0, &je))) {
		const char *s = json_string_value(json_object_get(json_object_get(fp, "kernel"), "release"));

		rel = s ? strdup(s) : NULL;
		json_decref(fp);
	}
	il_buf_release(&fn);
	free(path);
	return rel;
}

/* A kernel variant's build steps and compile progress, for whoever shows long steps. */
static void kernel_progress(const struct il_kvar *v, enum il_kbuild_step s, const struct il_progress *p, void *ctx)
{
	struct run *r = ctx;
	struct il_progress q = *p;
	char what[200];

	snprintf(what, sizeof(what), "kernel %s: %s", v->name, il_kbuild_step_name(s));
	q.what = what;
	r->o->progress(&q, NULL);
}

static void boot_step(const char *what, const char *detail, double elapsed_s, void *ctx)
{
	struct run *r = ctx;

	emit_note(r, r->boot_host, "boot: %s (%.1f s)%s%s", what, elapsed_s, *detail ? ": " : "", detail);
}

/*
 * Boot kv (NULL: the host's own kernel) on the host: build it (cached), give
 * the host its settings back, boot it by the host's boot method, connect
 * again and check it is the kernel built. Every step goes into the journal.
 */
static int boot_kernel(struct run *r, struct host_ctx *h, const char *host, const struct il_kvar *kv,
		       struct il_err *err)
{
	struct il_kbuild_res res = { 0 };
	struct il_host_cfg cfg = { 0 };
	struct il_boot_target tgt = { kv ? kv->name : NULL, NULL, NULL, NULL, NULL };
	struct il_boot_opts bo = { il_paths_cache_dir(r->o->paths), r->o->stop, boot_step, r, &il_lab_boot };
	json_t *steps = NULL, *started = iso_now();
	char *image = NULL, *modules = NULL, *own = NULL;
	struct il_err e2 = { 0 };
	int rc = 0;

	if ((rc = il_lab_host_load(&cfg, r->o->paths, host, err)))
		goto out;
	if (cfg.boot.method == IL_BOOT_NONE) {
		rc = il_err_set(err, IL_EUNSUPPORTED, "host '%s' cannot boot built kernels: it has no \"boot\" section "
				"(methods kexec, grub-reboot, command; see docs/hosts.md)", host);
		goto out;
	}
	if (kv) {
		const json_t *f;
		size_t i;

		if (!(rc = il_kernel_build(kv, il_paths_cache_dir(r->o->paths), r->o->progress ? kernel_progress : NULL, r, &res, err)) &&
		    !res.ok)
			rc = il_err_set(err, IL_ECHILD, "kernel '%s' did not build, so it is untestable; log:\n%s", kv->name,
					res.log_tail ? res.log_tail : "");
		if (rc)
			goto out;
		/* the boot image is the first file of an artifact (kernel/build.c) */
		image = path_in(res.dir, json_string_value(json_array_get(json_object_get(res.manifest, "files"), 0)) ?: "?");
		json_array_foreach(json_object_get(res.manifest, "files"), i, f)
			if (json_is_string(f) && !strcmp(json_string_value(f), "modules.tar"))
				modules = path_in(res.dir, "modules.tar");
		tgt.image = image;
		tgt.modules = modules;
		tgt.release = res.release;
		tgt.proc_version = json_string_value(json_object_get(res.manifest, "proc_version"));
	} else {
		tgt.release = own = own_release(r, host);
	}
	host_restore(r, h, &e2);
	host_release(h, r->plan.ngov);
	r->boot_host = host;
	if (!(rc = il_boot_run(&cfg, &tgt, &bo, &steps, err)))
		rc = host_setup(r, h, host, err);
out:
	journal_note(r, json_pack("{s:s,s:s,s:o,s:o,s:s,s:o,s:b,s:o,s:o,s:o}", "type", "boot", "host", host, "kernel",
				  kv ? json_string(kv->name) : json_null(), "release",
				  tgt.release ? json_string(tgt.release) : json_null(), "method",
				  il_boot_method_name(cfg.boot.method), "image", image ? json_string(image) : json_null(),
				  "ok", !rc, "error", rc ? il_json_str(err ? err->msg : "") : json_null(), "started", started,
				  "steps", steps ? steps : json_array()),
		     NULL);
	il_host_release(&cfg);
	il_kbuild_res_release(&res);
	free(image), free(modules), free(own);
	return rc;
}

/* A sample that cannot run (its kernel did not build or boot): final, never data. */
static int record_fail(struct run *r, const char *host, const struct il_spec *s, const char *reason, struct il_err *err)
{
	const struct il_plan *p = &r->plan;
	char *variant = il_plan_variant(p, s);
	json_t *rec = json_pack("{s:s,s:I,s:i,s:b,s:s,s:o,s:s,s:s,s:s,s:o,s:s,s:s,s:O,s:i,s:b,s:n,s:n,s:o,s:s}", "type",
				"sample", "seq", (json_int_t)s->seq, "attempt", ++r->attempts[s->seq], "final", 1, "status",
				"infra_failed", "reason", il_json_str(reason), "host", host, "kernel", p->kernels.v[s->kernel], "variant",
				variant ? variant : "?", "governor",
				p->gov[s->gov].governor ? json_string(p->gov[s->gov].governor) : json_null(), "workload",
				p->wl[s->wl].label, "workload_name", p->wl[s->wl].name, "params", p->wl[s->wl].params,
				"iteration", s->iteration, "warmup", s->warmup, "metrics", "idle", "ended", iso_now(),
				"idlelab_version", IL_VERSION);
	int rc = il_journal_append(&r->j, rec, err);

	json_decref(rec);
	free(variant);
	if (!rc) {
		r->final[s->seq] = true;
		r->done++;
	}
	return rc;
}

static int run_exec(struct run *r, struct il_err *err)
{
	const struct il_plan *p = &r->plan;
	int rc = 0;

	if (!(r->script = il_runner_sample_script()))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	for (size_t hi = 0; hi < p->hosts.n && !rc; hi++) {
		struct host_ctx h = { 0 };
		struct il_run_event ev = { 0 };
		struct il_err rerr = { 0 };
		bool pending = false;
		char **failed = calloc(p->kernels.n, sizeof(*failed));
		int rr, booted = -1;

		if (!failed)
			return il_err_set(err, IL_ENOMEM, "out of memory");
		for (size_t i = 0; i < r->n; i++)
			pending |= r->specs[i].host == (int)hi && !r->final[i];
		if (!pending) {
			free(failed);
			continue;
		}
		ev.kind = IL_EV_HOST;
		ev.host = p->hosts.v[hi];
		emit(r, &ev);
		rc = host_setup(r, &h, p->hosts.v[hi], err);
		/* kernels run in blocks (the matrix orders them so); booted = the kernel the host runs, -1 its own */
		for (size_t i = 0; i < r->n && !rc; i++) {
			const struct il_spec *sp = &r->specs[i];
			const struct il_kvar *kv = r->kv.n ? &r->kv.v[sp->kernel] : NULL;
			bool own = !kv || kv->running;

			if (sp->host != (int)hi || r->final[i])
				continue;
			if (stopped(r)) {
				rc = IL_EINTR;
				break;
			}
			if (!failed[sp->kernel] && (own ? booted != -1 : booted != sp->kernel)) {
				struct il_err be = { 0 };

				if (boot_kernel(r, &h, p->hosts.v[hi], own ? NULL : kv, &be)) {
					failed[sp->kernel] = strdup(be.msg);
					booted = -2; /* unknown: the next kernel boots again */
				} else {
					booted = own ? -1 : sp->kernel;
				}
			}
			if (failed[sp->kernel]) {
				rc = record_fail(r, p->hosts.v[hi], sp, failed[sp->kernel], err);
				continue;
			}
			rc = do_sample(r, &h, sp, err);
		}
		/* the host goes back to its own kernel */
		if (booted != -1 && rc != IL_EINTR) {
			struct il_err be = { 0 };

			if (boot_kernel(r, &h, p->hosts.v[hi], NULL, &be))
				emit_note(r, p->hosts.v[hi], "%s", be.msg);
		}
		for (size_t k = 0; k < p->kernels.n; k++)
			free(failed[k]);
		free(failed);
		if (rc == IL_EINTR) {
			size_t next = 0;

			while (next < r->n && r->final[next])
				next++;
			journal_note(r, json_pack("{s:s,s:s,s:I}", "type", "interrupted", "host", h.name ? h.name : "",
						  "next_seq", (json_int_t)next), NULL);
			il_err_set(err, IL_EINTR, "interrupted: %zu of %zu samples done; continue with 'idlelab run "
				   "--resume %s'", r->done, r->n, r->dir);
		}
		rr = host_restore(r, &h, &rerr);
		if (rr && !rc) {
			rc = rr;
			*err = rerr;
		} else if (rr) {
			emit_note(r, h.name, "%s", rerr.msg);
		}
		host_release(&h, p->ngov);
	}
	if (!rc && r->done == r->n)
		rc = journal_note(r, json_pack("{s:s,s:I}", "type", "run-end", "samples", (json_int_t)r->n), err);
	return rc;
}

/*
 * The first record makes the journal self-contained: the plan, the variants
 * in order with what defines them, and each workload's metrics with unit and
 * direction, so reports can be regenerated from journal.jsonl alone.
 */
static json_t *run_start_record(struct run *r)
{
	const struct il_plan *p = &r->plan;
	json_t *rec = json_object(), *vars = json_array(), *wls = json_object();

	for (size_t k = 0; k < p->kernels.n; k++)
		for (size_t g = 0; g < p->ngov; g++) {
			struct il_spec s = { 0 };
			char *label;

			s.kernel = (int)k;
			s.gov = (int)g;
			label = il_plan_variant(p, &s);
			json_array_append_new(vars, json_pack("{s:s,s:s,s:o,s:o}", "label", label ? label : "?", "kernel",
							      p->kernels.v[k], "governor",
							      p->gov[g].governor ? json_string(p->gov[g].governor) : json_null(),
							      "disable", strlist_json(&p->gov[g].disable)));
			free(label);
		}
	for (size_t i = 0; i < p->nwl; i++) {
		const struct il_workload *w = &p->wl[i].def;
		json_t *ms = json_array();

		for (size_t m = 0; m < w->nmetrics; m++)
			json_array_append_new(ms, json_pack("{s:s,s:s,s:s}", "name", w->metrics[m].name, "unit",
							    w->metrics[m].unit, "better",
							    w->metrics[m].higher_better ? "higher" : "lower"));
		json_object_set_new(wls, p->wl[i].label,
				    json_pack("{s:s,s:O,s:o}", "workload", w->name, "params", p->wl[i].params, "metrics", ms));
	}
	json_object_set_new(rec, "type", json_string("run-start"));
	json_object_set_new(rec, "run_dir", json_string(r->dir));
	json_object_set_new(rec, "plan_name", json_string(p->name));
	json_object_set_new(rec, "samples", json_integer((json_int_t)r->n));
	{
		/* the reference governor on the first kernel: variant labels carry "@kernel" when there are several */
		struct il_spec ref = { 0 };
		char *label;

		for (size_t g = 0; g < p->ngov; g++)
			if (!strcmp(p->gov[g].label, p->reference))
				ref.gov = (int)g;
		label = il_plan_variant(p, &ref);
		json_object_set_new(rec, "reference", json_string(label ? label : p->reference));
		free(label);
	}
	json_object_set_new(rec, "variants", vars);
	json_object_set_new(rec, "workloads", wls);
	json_object_set_new(rec, "iterations", json_integer(p->iterations));
	json_object_set_new(rec, "warmup", json_integer(p->warmup));
	json_object_set_new(rec, "order", json_string(p->order == IL_ORDER_BLOCKED ? "blocked" :
						      p->order == IL_ORDER_RANDOM ? "random" : "interleave"));
	json_object_set(rec, "plan", p->json);
	if (r->kv.n)
		json_object_set_new(rec, "kernels", il_kvars_to_json(&r->kv));
	json_object_set_new(rec, "idlelab_version", json_string(IL_VERSION));
	return rec;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

/*
 * The run directory appears complete or not at all: it is made as
 * DIR.tmp.XXXXXX beside DIR (plan.json, plan_dir, samples/, the lock, and
 * the journal with its fsync'd run-start record) and renamed to DIR, so a
 * kill at any instant leaves either nothing (a .tmp directory to delete) or
 * a run that --resume finishes and compare reads.
 */
int il_run_start(const char *plan_path, const char *out_dir, const struct il_run_opts *o, char **run_dir,
		 struct il_err *err)
{
	struct run r = { .lock_fd = -1 };
	struct il_plan plan;
	struct il_buf dir = IL_BUF_INIT, tmp = IL_BUF_INIT;
	char *copy = NULL, *txt = NULL, *jpath = NULL;
	bool ended, renamed = false;
	struct stat st;
	size_t torn;
	int rc;

	*run_dir = NULL;
	r.j.fd = -1;
	if ((rc = il_plan_load(&plan, plan_path, o->workloads_dir, err)))
		return rc;
	if (o->host) {
		json_object_del(plan.json, "hosts");
		json_object_set_new(plan.json, "host", json_string(o->host));
	} else if (!plan.hosts.n) {
		/* the built-in lab host is the default */
		json_object_set_new(plan.json, "host", json_string("labvm"));
	}
	if (out_dir) {
		il_buf_adds(&dir, out_dir);
	} else {
		char stamp[32];
		time_t t = time(NULL);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		il_buf_printf(&dir, "reports/%s-%s", stamp, plan.name);
		mkdir("reports", 0755);
	}
	if (!lstat(dir.p, &st)) {
		rc = il_err_set(err, IL_EIO, "cannot create run directory '%s': it exists (use --resume to continue a run)",
				dir.p);
		goto out;
	}
	if (il_buf_printf(&tmp, "%s.tmp.XXXXXX", dir.p) || !mkdtemp(tmp.p) || chmod(tmp.p, 0755)) {
		rc = il_err_set(err, IL_EIO, "cannot create run directory '%s': %s", dir.p, strerror(errno));
		goto out;
	}
	copy = path_in(tmp.p, "samples");
	if (mkdir(copy, 0755)) {
		rc = il_err_set(err, IL_EIO, "cannot create '%s': %s", copy, strerror(errno));
		goto out;
	}
	free(copy);
	copy = path_in(tmp.p, "plan.json");
	txt = json_dumps(plan.json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!txt) {
		rc = il_err_set(err, IL_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = il_write_file_atomic(copy, txt, strlen(txt), err)))
		goto out;
	{
		char real[PATH_MAX], *pd = path_in(tmp.p, "plan_dir");

		if (realpath(plan_path, real)) {
			const char *d = dirname(real);

			rc = il_write_file_atomic(pd, d, strlen(d), err);
		}
		free(pd);
		if (rc)
			goto out;
	}
	if ((rc = run_lock(&r, tmp.p, dir.p, err)))
		goto out;
	if ((rc = run_load(&r, tmp.p, o, &ended, &torn, err)))
		goto out;
	free(r.dir);
	if (!(r.dir = strdup(dir.p))) {
		rc = il_err_set(err, IL_ENOMEM, "out of memory");
		goto out;
	}
	jpath = path_in(tmp.p, "journal.jsonl");
	if ((rc = il_journal_open(&r.j, jpath, err)) || (rc = journal_note(&r, run_start_record(&r), err)))
		goto out;
	il_journal_close(&r.j);
	if (renameat2(AT_FDCWD, tmp.p, AT_FDCWD, dir.p, RENAME_NOREPLACE)) {
		rc = il_err_set(err, IL_EIO, "cannot create run directory '%s': %s%s", dir.p, strerror(errno),
				errno == EEXIST ? " (another run made it meanwhile)" : "");
		goto out;
	}
	renamed = true;
	{
		char *parent = strdup(dir.p);
		int dfd = parent ? open(dirname(parent), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

		if (dfd >= 0) {
			(void)fsync(dfd);
			close(dfd);
		}
		free(parent);
	}
	*run_dir = strdup(dir.p);
	free(jpath);
	jpath = path_in(dir.p, "journal.jsonl");
	if ((rc = il_journal_open(&r.j, jpath, err)))
		goto out;
	rc = run_exec(&r, err);
out:
	if (!renamed && tmp.p && !lstat(tmp.p, &st))
		nftw(tmp.p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	run_release(&r);
	il_plan_release(&plan);
	il_buf_release(&dir);
	il_buf_release(&tmp);
	free(copy);
	free(txt);
	free(jpath);
	return rc;
}

int il_run_resume(const char *run_dir, const struct il_run_opts *o, struct il_err *err)
{
	struct run r = { .lock_fd = -1 };
	char *jpath = path_in(run_dir, "journal.jsonl");
	size_t torn = 0, removed = 0;
	bool ended = false;
	int rc;

	r.j.fd = -1;
	if (!jpath)
		return il_err_set(err, IL_ENOMEM, "out of memory");
	if (o->host) {
		free(jpath);
		return il_err_set(err, IL_EINVAL, "--host cannot change the host of an existing run (%s)", run_dir);
	}
	if ((rc = run_lock(&r, run_dir, run_dir, err)) || (rc = run_load(&r, run_dir, o, &ended, &torn, err)))
		goto out;
	if (torn && (rc = il_journal_repair(jpath, &removed, err)))
		goto out;
	if ((rc = il_journal_open(&r.j, jpath, err)))
		goto out;
	if (r.done == r.n && ended)
		goto out;
	rc = journal_note(&r, json_pack("{s:s,s:I,s:I,s:I}", "type", "resume", "done", (json_int_t)r.done, "pending",
					(json_int_t)(r.n - r.done), "torn_bytes", (json_int_t)removed),
			  err);
	if (!rc)
		rc = run_exec(&r, err);
out:
	run_release(&r);
	free(jpath);
	return rc;
}

/* ---- summary ---- */

struct sum {
	json_t *counts;
	size_t attempts, interrupted;
	bool ended;
	json_t *hosts;
};

static int sum_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct sum *s = ctx;
	const char *type = json_string_value(json_object_get(rec, "type"));

	(void)line, (void)err;
	if (!strcmp(type, "run-end"))
		s->ended = true;
	else if (!strcmp(type, "interrupted"))
		s->interrupted++;
	if (strcmp(type, "sample"))
		return 0;
	s->attempts++;
	if (json_is_true(json_object_get(rec, "final"))) {
		const char *st = json_string_value(json_object_get(rec, "status"));
		json_t *c = json_object_get(s->counts, st ? st : "?");

		json_object_set_new(s->counts, st ? st : "?", json_integer(c ? json_integer_value(c) + 1 : 1));
	}
	if (json_is_string(json_object_get(rec, "host")) && !json_object_get(s->hosts, json_string_value(json_object_get(rec, "host"))))
		json_object_set_new(s->hosts, json_string_value(json_object_get(rec, "host")), json_true());
	return 0;
}

int il_run_summary(const char *run_dir, const char *workloads_dir, const char *cache_dir, json_t **out,
		   struct il_err *err)
{
	struct il_plan plan;
	struct il_spec *specs = NULL;
	size_t n = 0, torn = 0, done = 0;
	char *pp = path_in(run_dir, "plan.json"), *jp = path_in(run_dir, "journal.jsonl");
	struct sum s = { json_object(), 0, 0, false, json_object() };
	const char *k;
	json_t *v, *o, *hl;
	int rc;

	*out = NULL;
	if ((rc = il_plan_load(&plan, pp, workloads_dir, err)))
		goto fail;
	{
		struct il_kvars kv = { 0 };
		char *pd = NULL;

		rc = plan_kernels(&plan, run_dir, &kv, &pd, cache_dir, err);
		il_kvars_release(&kv);
		free(pd);
	}
	if (rc || (rc = il_plan_matrix(&plan, &specs, &n, err)) || (rc = il_journal_each(jp, sum_rec, &s, &torn, err))) {
		il_plan_release(&plan);
		goto fail;
	}
	json_object_foreach(s.counts, k, v)
		done += (size_t)json_integer_value(v);
	hl = json_array();
	for (size_t i = 0; i < plan.hosts.n; i++)
		json_array_append_new(hl, json_string(plan.hosts.v[i]));
	o = json_pack("{s:s,s:s,s:o,s:I,s:I,s:I,s:o,s:I,s:b,s:I}", "run_dir", run_dir, "plan", plan.name, "hosts", hl,
		      "planned", (json_int_t)n, "done", (json_int_t)done, "attempts", (json_int_t)s.attempts, "by_status",
		      s.counts, "interruptions", (json_int_t)s.interrupted, "complete", s.ended && done == n,
		      "torn_bytes", (json_int_t)torn);
	s.counts = NULL;
	il_plan_release(&plan);
	free(specs);
	json_decref(s.hosts);
	free(pp);
	free(jp);
	*out = o;
	return o ? 0 : il_err_set(err, IL_ENOMEM, "out of memory");
fail:
	free(specs);
	json_decref(s.counts);
	json_decref(s.hosts);
	free(pp);
	free(jp);
	return rc;
}
