// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The host lease: borrowing a host for a run and giving it back. Taking it
 * connects, probes (the fingerprint goes to host-NAME.json and the journal),
 * checks the plan against the host, takes the host lock, stops what a
 * killed run left, uploads idlelab's own workloads, saves the host's idle
 * and cpufreq settings to saved-NAME.json before anything is written, and
 * computes each governor config's `disable` writes. Restoring stops every
 * sample left and writes the settings back, and journals that it did.
 */
#include "run/lease.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/hostlock.h"
#include "lab/labhost.h"
#include "host/probe.h"
#include "host/runners.h"
#include "host/workdir.h"
#include "idle/snapshotjson.h"
#include "run/record.h"
#include "run/rundir.h"
#include "workload/own.h"
#include "util/str.h"
#include "util/jsonfile.h"

void il_lease_release(struct il_lease *h)
{
	if (h->writes)
		for (size_t i = 0; i < h->ngov; i++)
			il_strlist_release(&h->writes[i]);
	free(h->writes);
	il_govctl_saved_release(&h->saved);
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

/*
 * The plan's cpus must be online on the host (taskset would fail every
 * sample otherwise), and so must its idle_cpus (every diff would fail).
 */
static int check_cpus(const struct il_plan *p, const struct il_lease *h, struct il_err *err)
{
	static const char *const keys[2] = { "cpus", "idle_cpus" };
	const char *lists[2] = { p->cpus, p->idle_cpus };
	struct il_buf on = IL_BUF_INIT;
	int rc = 0;

	if (!h->snap.has_online)
		return 0;
	for (int k = 0; k < 2 && !rc; k++) {
		struct il_cpuset cs = { 0 };

		if (!lists[k] || (rc = il_cpuset_parse(&cs, lists[k], err)))
			continue;
		for (size_t i = 0; i < cs.n && !rc; i++)
			if (!il_cpuset_has(&h->snap.online, cs.cpu[i])) {
				il_cpuset_format(&h->snap.online, &on);
				rc = il_err_set(err, IL_EINVAL, "plan: %s: CPU %d is not online on host '%s' (online: %s)",
						keys[k], cs.cpu[i], h->name, il_buf_str(&on));
			}
		il_cpuset_release(&cs);
	}
	il_buf_release(&on);
	return rc;
}

/*
 * Per governor config, the `disable` writes that make a sample's state table
 * right: every (CPU, state) any config disables is written in every sample,
 * 1 where this config disables it and the host's own value elsewhere.
 */
static int plan_writes(const struct il_plan *p, struct il_lease *h, struct il_err *err)
{
	if (!(h->writes = calloc(p->ngov, sizeof(*h->writes))))
		return il_err_oom(err);
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
					return il_err_oom(err);
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
 * Stop every process of the sample with this id (NULL: of every sample
 * recorded in the working directory) by a separate exec (runners/cancel.sh)
 * and check none is left; *n (may be NULL) is how many samples it stopped.
 */
int il_lease_cancel(struct il_lease *h, const char *id, int *n, struct il_err *err)
{
	char *cancel = il_str_dup_printf("%s\n%s", il_runners_script("trace.sh"), il_runners_script("cancel.sh"));
	char *script = cancel ? il_workdir_script(cancel) : NULL;
	char *args[] = { h->workdir, (char *)(id ? id : "--all"), NULL };
	struct il_exec_opts o = { .privileged = true, .timeout_ms = 30000 };
	struct il_exec_result res;
	const char *out, *p;
	int rc;

	free(cancel);
	if (!script)
		return il_err_oom(err);
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
	il_transport_result_release(&res);
	return rc;
}

static int upload_workloads(const struct il_run_ctx *c, struct il_lease *h, const char *arch, struct il_err *err)
{
	const char *base = c->o->workload_bin ? c->o->workload_bin : IL_OWN_BIN_DIR;
	struct il_buf local = IL_BUF_INIT;
	char real[PATH_MAX];
	bool tried_build = false;
	int rc = 0;

	if (il_buf_printf(&local, "%s/%s", base, arch))
		return il_err_oom(err);
	for (size_t i = 0; i < c->plan->nwl && !rc; i++) {
		const struct il_workload *w = &c->plan->wl[i].def;
		struct il_buf f = IL_BUF_INIT;
		struct stat st;

		if (!w->builtin)
			continue;
		il_buf_printf(&f, "%s/%s", local.p, w->requires.n ? w->requires.v[0] : w->name);
		/* the checkout's own binaries are built for the host's architecture on demand */
		if (stat(f.p, &st) && !c->o->workload_bin && !tried_build) {
			tried_build = true;
			il_context_note(c, h->name, "building idlelab's own workloads for %s", arch);
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
	if (h->cfg.kind == IL_HOST_LOCAL) {
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
	for (size_t i = 0; i < c->plan->nwl && !rc; i++) {
		const struct il_workload *w = &c->plan->wl[i].def;
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
			il_transport_result_release(&res);
		}
		il_buf_release(&f);
		il_buf_release(&dst);
	}
out:
	il_buf_release(&local);
	return rc;
}

int il_lease_take(struct il_lease *h, const struct il_run_ctx *c, const char *name, struct il_err *err)
{
	const struct il_plan *p = c->plan;
	json_t *fp = NULL, *rec;
	char *saved_path = NULL;
	const char *arch;
	struct stat st;
	int rc;

	h->name = name;
	h->ngov = p->ngov;
	if ((rc = il_lab_host_load(&h->cfg, c->o->paths, name, err)))
		return rc;
	if ((rc = il_transport_open(&h->t, &h->cfg, err)))
		return il_lab_host_explain(&h->cfg, il_paths_cache_dir(c->o->paths), rc, err);
	h->root = "";
	if (c->o->sysfs_root && *c->o->sysfs_root && strcmp(c->o->sysfs_root, "/")) {
		if (h->cfg.kind != IL_HOST_LOCAL)
			return il_err_set(err, IL_EINVAL, "a sysfs root applies to the local host only, not '%s'", name);
		/* absolute: the runner reads ROOT/sys/... from its own working directory */
		if (!realpath(c->o->sysfs_root, h->root_abs))
			return il_err_set(err, IL_ENOTFOUND, "sysfs root '%s': %s", c->o->sysfs_root, strerror(errno));
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
	h->fp_file = il_rundir_host_name(IL_RUNDIR_FINGERPRINT, name);
	{
		char *fpath = h->fp_file ? il_rundir_join(c->dir, h->fp_file) : NULL;
		char *txt = il_json_dumps(fp, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		/* the first fingerprint of a run is kept; a resumed run must match it in boot terms only */
		if (!fpath || !txt)
			rc = il_err_oom(err);
		else if (stat(fpath, &st))
			rc = il_buf_write_file_atomic(fpath, txt, strlen(txt), err);
		free(txt);
		free(fpath);
		if (rc)
			goto out;
	}
	/* the fingerprint goes into the journal too: reports need nothing but journal.jsonl */
	rec = il_record_new(IL_REC_HOST);
	il_record_set(rec, IL_RF_HOST_HOST, json_string(name));
	il_record_set_copy(rec, IL_RF_HOST_FINGERPRINT, fp);
	/* what reports key the lab caveat and the Tested-by rule on: never the host's name */
	il_record_set(rec, IL_RF_HOST_KIND, json_string(il_lab_host_kind(&h->cfg)));
	if ((rc = il_context_journal(c, rec, err)))
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
		    (rc = il_host_lock(h->t, h->workdir, c->holder, err)) ||
		    (rc = il_lease_cancel(h, NULL, &stopped_n, err)))
			goto out;
		if (stopped_n)
			il_context_note(c, name, "stopped %d sample(s) a killed run had left running on the host", stopped_n);
	}
	arch = json_string_value(json_object_get(json_object_get(fp, "kernel"), "arch"));
	for (size_t i = 0; i < p->nwl; i++) {
		if (p->wl[i].def.builtin) {
			if ((rc = upload_workloads(c, h, arch ? arch : "unknown", err)))
				goto out;
			break;
		}
	}
	/* borrow: the original settings go to disk before anything is written */
	if (!(saved_path = il_rundir_host_path(c->dir, IL_RUNDIR_SAVED, name))) {
		rc = il_err_oom(err);
		goto out;
	}
	if (!stat(saved_path, &st)) {
		json_error_t je;
		json_t *j = json_load_file(saved_path, 0, &je);

		if (!j) {
			rc = il_err_set(err, IL_EPARSE, "%s:%d: %s", saved_path, je.line, je.text);
			goto out;
		}
		rc = il_govctl_saved_from_json(&h->saved, j, saved_path, err);
		json_decref(j);
		if (rc)
			goto out;
	} else {
		char *txt;

		if ((rc = il_govctl_save(h->fs, &h->saved, err)) ||
		    (p->cpufreq_governor && (rc = il_govctl_cpufreq_save(h->fs, &h->snap, &h->saved, err))))
			goto out;
		{
			json_t *j = il_govctl_saved_to_json(&h->saved);

			txt = j ? il_json_dumps(j, JSON_INDENT(2)) : NULL;
			json_decref(j);
		}
		rc = txt ? il_buf_write_file_atomic(saved_path, txt, strlen(txt), err) : il_err_oom(err);
		free(txt);
		if (rc)
			goto out;
	}
	h->borrowed = true;
	if (p->cpufreq_governor && (rc = il_govctl_cpufreq_set(h->fs, &h->saved, p->cpufreq_governor, err)))
		goto out;
	rc = plan_writes(p, h, err);
out:
	json_decref(fp);
	free(saved_path);
	return rc;
}

/* Give the host its settings back and journal that it was done. */
int il_lease_restore(struct il_lease *h, const struct il_run_ctx *c, struct il_err *err)
{
	struct il_err rerr = { 0 };
	json_t *rec;
	int rc;

	if (!h->borrowed)
		return 0;
	/* nothing of a sample may still run when the host is declared restored */
	rc = h->workdir ? il_lease_cancel(h, NULL, NULL, &rerr) : 0;
	if (!rc)
		rc = il_govctl_restore(h->fs, &h->saved, &rerr);
	rec = il_record_new(IL_REC_RESTORED);
	il_record_set(rec, IL_RF_RESTORED_HOST, json_string(h->name));
	il_record_set(rec, IL_RF_RESTORED_OK, json_boolean(!rc));
	il_record_set(rec, IL_RF_RESTORED_ERROR, rc ? json_string(rerr.msg) : json_null());
	il_context_journal(c, rec, NULL);
	h->borrowed = false;
	if (rc)
		return il_err_set(err, rc, "host '%s': restoring the idle settings failed: %s", h->name, rerr.msg);
	return 0;
}

