// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel stage: build, then boot, per block of samples of one kernel. */
#include "run/kstage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/boot.h"
#include "util/json.h"
#include "kernel/build.h"
#include "lab/labhost.h"
#include "run/record.h"
#include "run/rundir.h"

int il_kstage_plan(struct il_plan *plan, const char *dir, const char *cache_dir, struct il_kvars *kv, char **plan_dir,
		   struct il_err *err)
{
	struct il_strlist names = { 0 };
	int rc;

	if (!plan->built_kernels)
		return 0;
	*plan_dir = il_rundir_plan_dir(dir);
	rc = il_kplan_prepare(plan->json, *plan_dir ? *plan_dir : ".", cache_dir, kv, err);
	for (size_t i = 0; !rc && i < kv->n; i++)
		rc = il_strlist_push(&names, kv->v[i].name) ? il_err_oom(err) : 0;
	if (!rc)
		rc = il_plan_set_kernels(plan, &names, err);
	il_strlist_release(&names);
	return rc;
}

int il_kstage_init(struct il_kstage *ks, const struct il_run_ctx *c, const struct il_kvars *kv, size_t nkernels,
		   struct il_err *err)
{
	*ks = (struct il_kstage){ .c = c, .kv = kv, .state = IL_KS_OWN, .nkernels = nkernels };
	if (!(ks->failed = calloc(nkernels, sizeof(*ks->failed))))
		return il_err_oom(err);
	return 0;
}

void il_kstage_release(struct il_kstage *ks)
{
	for (size_t k = 0; ks->failed && k < ks->nkernels; k++)
		free(ks->failed[k]);
	free(ks->failed);
	ks->failed = NULL;
}

/* The release the host ran when the run first met it (host-<name>.json): its own kernel. */
static char *own_release(const struct il_run_ctx *c, const char *host)
{
	char *path = il_rundir_host_path(c->dir, IL_RUNDIR_FINGERPRINT, host), *rel = NULL;
	json_error_t je;
	json_t *fp;

	if (path && (fp = json_load_file(path, 0, &je))) {
		const char *s = json_string_value(json_object_get(json_object_get(fp, "kernel"), "release"));

		rel = s ? strdup(s) : NULL;
		json_decref(fp);
	}
	free(path);
	return rel;
}

/* A kernel variant's build steps and compile progress, for whoever shows long steps. */
static void kernel_progress(const struct il_kvar *v, enum il_kbuild_step s, const struct il_progress *p, void *ctx)
{
	const struct il_run_ctx *c = ctx;
	struct il_progress q = *p;
	char what[200];

	snprintf(what, sizeof(what), "kernel %s: %s", v->name, il_kernel_build_step_name(s));
	q.what = what;
	c->o->progress(&q, NULL);
}

struct boot_note {
	const struct il_run_ctx *c;
	const char *host;
};

static void boot_step(const char *what, const char *detail, double elapsed_s, void *ctx)
{
	struct boot_note *bn = ctx;

	il_context_note(bn->c, bn->host, "boot: %s (%.1f s)%s%s", what, elapsed_s, *detail ? ": " : "", detail);
}

/* What to boot for kv: build it (cached) and name its files in the artifact. */
struct built {
	struct il_kbuild_res res;
	char *image, *modules;
};

static int build(const struct il_run_ctx *c, const struct il_kvar *kv, struct built *b, struct il_boot_target *tgt,
		 struct il_err *err)
{
	const json_t *files, *f;
	int rc;
	size_t i;

	if (!(rc = il_kernel_build(kv, il_paths_cache_dir(c->o->paths), c->o->progress ? kernel_progress : NULL, (void *)c, &b->res,
				   err)) &&
	    !b->res.ok)
		rc = il_err_set(err, IL_ECHILD, "kernel '%s' did not build, so it is untestable; log:\n%s", kv->name,
				b->res.log_tail ? b->res.log_tail : "");
	if (rc)
		return rc;
	/* the boot image is the first file of an artifact (kernel/build.c) */
	files = json_object_get(b->res.manifest, "files");
	b->image = il_rundir_join(b->res.dir, json_string_value(json_array_get(files, 0)) ?: "?");
	json_array_foreach(files, i, f)
		if (json_is_string(f) && !strcmp(json_string_value(f), "modules.tar"))
			b->modules = il_rundir_join(b->res.dir, "modules.tar");
	tgt->image = b->image;
	tgt->modules = b->modules;
	tgt->release = b->res.release;
	tgt->proc_version = json_string_value(json_object_get(b->res.manifest, "proc_version"));
	return 0;
}

int il_kstage_build(const struct il_run_ctx *c, const struct il_kvar *kv, char **image, char **modules,
		    char **release, struct il_err *err)
{
	struct built b = { 0 };
	struct il_boot_target tgt = { 0 };
	int rc = build(c, kv, &b, &tgt, err);

	*image = rc ? NULL : b.image;
	*modules = rc ? NULL : b.modules;
	*release = !rc && tgt.release ? strdup(tgt.release) : NULL;
	if (rc)
		free(b.image), free(b.modules);
	il_kernel_build_res_release(&b.res);
	return rc;
}

/* Journal one boot with its steps (the record is written whether it worked or not). */
static void journal_boot(const struct il_run_ctx *c, const char *host, const struct il_kvar *kv,
			 const struct il_boot_target *tgt, enum il_boot_method method, json_t *started, json_t *steps,
			 int rc, const struct il_err *err)
{
	json_t *rec = il_record_new(IL_REC_BOOT);

	il_record_set(rec, IL_RF_BOOT_HOST, json_string(host));
	il_record_set(rec, IL_RF_BOOT_KERNEL, kv ? json_string(kv->name) : json_null());
	il_record_set(rec, IL_RF_BOOT_RELEASE, tgt->release ? json_string(tgt->release) : json_null());
	il_record_set(rec, IL_RF_BOOT_METHOD, json_string(il_boot_method_name(method)));
	il_record_set(rec, IL_RF_BOOT_IMAGE, tgt->image ? json_string(tgt->image) : json_null());
	il_record_set(rec, IL_RF_BOOT_OK, json_boolean(!rc));
	il_record_set(rec, IL_RF_BOOT_ERROR, rc ? il_json_str(err ? err->msg : "") : json_null());
	il_record_set(rec, IL_RF_BOOT_STARTED, started);
	il_record_set(rec, IL_RF_BOOT_STEPS, steps ? steps : json_array());
	il_context_journal(c, rec, NULL);
}

/*
 * Boot kv (NULL: the host's own kernel) on the leased host: build it, give
 * the host its settings back, boot it, lease the host again (the probe
 * there checks it is up) — every step journaled.
 */
static int boot(const struct il_run_ctx *c, struct il_lease *h, const char *host, const struct il_kvar *kv,
		struct il_err *err)
{
	struct built b = { 0 };
	struct il_host_cfg cfg = { 0 };
	struct il_boot_target tgt = { .name = kv ? kv->name : NULL };
	struct boot_note bn = { c, host };
	struct il_boot_opts bo = { .cache_dir = il_paths_cache_dir(c->o->paths), .cancel = c->o->stop, .cb = boot_step,
				    .ctx = &bn, .lab = &il_lab_boot };
	json_t *steps = NULL, *started = il_context_time_json();
	char *own = NULL;
	struct il_err e2 = { 0 };
	int rc;

	if ((rc = il_lab_host_load(&cfg, c->o->paths, host, err)))
		goto out;
	if (cfg.boot.method == IL_BOOT_NONE) {
		rc = il_err_set(err, IL_EUNSUPPORTED, "host '%s' cannot boot built kernels: it has no \"boot\" section "
				"(methods kexec, grub-reboot, command; see docs/hosts.md)", host);
		goto out;
	}
	if (kv && (rc = build(c, kv, &b, &tgt, err)))
		goto out;
	if (!kv)
		tgt.release = own = own_release(c, host);
	il_lease_restore(h, c, &e2);
	il_lease_release(h);
	if (!(rc = il_boot_run(&cfg, &tgt, &bo, &steps, err)))
		rc = il_lease_take(h, c, host, err);
out:
	journal_boot(c, host, kv, &tgt, cfg.boot.method, started, steps, rc, err);
	il_host_release(&cfg);
	il_kernel_build_res_release(&b.res);
	free(b.image), free(b.modules), free(own);
	return rc;
}

const char *il_kstage_enter(struct il_kstage *ks, struct il_lease *h, const char *host, int kernel)
{
	const struct il_kvar *kv = ks->kv->n ? &ks->kv->v[kernel] : NULL;
	bool own = !kv || kv->running;
	bool there = own ? ks->state == IL_KS_OWN : ks->state == IL_KS_VARIANT && ks->kernel == kernel;
	struct il_err be = { 0 };

	if (ks->failed[kernel] || there)
		return ks->failed[kernel];
	if (boot(ks->c, h, host, own ? NULL : kv, &be)) {
		ks->failed[kernel] = strdup(be.msg[0] ? be.msg : "boot failed");
		ks->state = IL_KS_UNKNOWN;
		return ks->failed[kernel] ? ks->failed[kernel] : "boot failed";
	}
	ks->state = own ? IL_KS_OWN : IL_KS_VARIANT;
	ks->kernel = kernel;
	return NULL;
}

void il_kstage_leave(struct il_kstage *ks, struct il_lease *h, const char *host)
{
	struct il_err be = { 0 };

	if (ks->state != IL_KS_OWN && boot(ks->c, h, host, NULL, &be))
		il_context_note(ks->c, host, "%s", be.msg);
	ks->state = IL_KS_OWN;
}
