// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel builds, stage by stage: checkout, config (+fragments, verified), key, cache, make O=, artifacts. */
#include "kernel/build.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/kartifacts.h"
#include "kernel/kconfig.h"
#include "kernel/kmake.h"
#include "kernel/kprogress.h"
#include "kernel/repo.h"
#include "util/buf.h"
#include "util/proc.h"
#include "util/sha256.h"
#include "util/str.h"

void il_kernel_build_res_release(struct il_kbuild_res *r)
{
	free(r->dir);
	free(r->release);
	free(r->log_tail);
	json_decref(r->manifest);
	il_strlist_release(&r->config_skipped);
	memset(r, 0, sizeof(*r));
}

#define now_s il_clock_mono_s

static const char *const step_names[] = {
	[IL_KB_CHECKOUT] = "checkout", [IL_KB_CONFIG] = "config",     [IL_KB_BUILD] = "build",
	[IL_KB_COMPILING] = "compiling", [IL_KB_INSTALL] = "artifacts", [IL_KB_DONE] = "done",
};

const char *il_kernel_build_step_name(enum il_kbuild_step step)
{
	return (unsigned)step < sizeof(step_names) / sizeof(step_names[0]) ? step_names[step] : "?";
}

/* One build on its way through the stages: what a stage finds, for the stages after it. */
struct kbuild {
	const struct il_kvar *v;
	const char *cache_dir;
	il_kbuild_cb cb;
	void *ctx;
	struct il_kbuild_res *res;
	double t0;               /* when the build started: progress and res->seconds count from here */
	git_repository *repo;
	struct il_buf src, obj;  /* the source tree and make's O= directory */
	struct il_buf art;       /* the artifact directory of this build's key */
	struct il_buf log;       /* make's command lines and output */
	char commit_hex[GIT_OID_HEXSZ + 1], tree_hex[GIT_OID_HEXSZ + 1];
	char lv[32];             /* LOCALVERSION: "-il" and the commit's first 8 hex digits */
	char cfg_hex[65];        /* SHA-256 of the final .config */
	char compiler[256];      /* the compiler's first --version line, else "unknown" */
	char key[65];            /* the artifact key */
	bool incremental;        /* O= already held a linked kernel */
	int code;                /* the exit code of the last make */
};

/* A step starts: tell the caller (elapsed time only). */
static void step(const struct kbuild *b, enum il_kbuild_step s)
{
	struct il_progress p = { .what = b->v->name, .elapsed_s = now_s() - b->t0, .eta_s = -1 };

	if (b->cb)
		b->cb(b->v, s, &p, b->ctx);
}

/* a then b in a new string (the caller frees); NULL only when memory runs out. */
static char *cat(const char *a, const char *b)
{
	return il_str_dup_printf("%s%s", a, b);
}

/* SHA-256 of n bytes of data as hex; IL_ENOMEM (said in err). */
static int sha256_hex(const void *data, size_t n, char hex[65], struct il_err *err)
{
	struct il_sha256 h;

	if (il_sha256_init(&h))
		return il_err_oom(err);
	il_sha256_update(&h, data, n);
	il_sha256_final(&h, hex);
	return 0;
}

/* The last n lines of text. */
static char *tail_lines(const char *text, size_t len, int n)
{
	size_t i = len;

	while (i > 0 && n >= 0) {
		i--;
		if (text[i] == '\n' && i + 1 < len)
			n--;
	}
	return strdup(text + (n < 0 ? i + 1 : 0));
}

static bool exists(const char *p)
{
	struct stat st;

	return !stat(p, &st);
}

/*
 * Stage 1, checkout: the source tree and make's O= directory, the commit
 * checked out into the tree. An imported tarball's repository in the cache
 * has a work tree of its own: that is the source. Any other repository gets
 * one checkout under the cache, named after its path, kept from build to
 * build so that a checkout changes only the files the commits differ in (make
 * then rebuilds only those). O= is one per lineage and arch: the variants of
 * a lineage build one after the other in it, each incrementally.
 */
static int stage_checkout(struct kbuild *b, struct il_err *err)
{
	const struct il_kvar *v = b->v;
	int r;

	if ((r = il_repo_open(&b->repo, v->repo_path, err)))
		return r;
	if (!strncmp(v->repo_path, b->cache_dir, strlen(b->cache_dir)) && git_repository_workdir(b->repo)) {
		if (il_buf_adds(&b->src, git_repository_workdir(b->repo)))
			return il_err_oom(err);
		while (b->src.len > 1 && b->src.p[b->src.len - 1] == '/')
			b->src.p[--b->src.len] = 0;
	} else {
		char hex[65];

		if ((r = sha256_hex(v->repo_path, strlen(v->repo_path), hex, err)))
			return r;
		if (il_buf_printf(&b->src, "%s/work/%.16s", b->cache_dir, hex))
			return il_err_oom(err);
		if ((r = il_kmake_mkdirs(b->src.p, err)))
			return r;
	}
	if (il_buf_printf(&b->obj, "%s/obj/%s-%s", b->cache_dir, v->lineage, v->cfg.arch))
		return il_err_oom(err);
	if ((r = il_kmake_mkdirs(b->obj.p, err)))
		return r;
	step(b, IL_KB_CHECKOUT);
	return il_repo_checkout_to(b->repo, &v->commit, b->src.p, err);
}

/*
 * Stage 2, config: the .config in O=, and its SHA-256 for the key. A config
 * target ("defconfig") is the kernel's own merge, the fragments forced on top
 * through KCONFIG_ALLCONFIG; a config file is copied, the fragments appended,
 * and olddefconfig settles the rest. Then the result is checked against the
 * fragments (kernel/kconfig.h): Kconfig drops an option whose dependencies are
 * missing without a word, and a variant without it measures something else.
 */
static int stage_config(struct kbuild *b, struct il_err *err)
{
	const struct il_kvar *v = b->v;
	struct il_buf frag = IL_BUF_INIT;
	char *fragpath = cat(b->obj.p, "/idlelab-fragment.config"), *cfgpath = cat(b->obj.p, "/.config");
	char *ka = fragpath ? cat("KCONFIG_ALLCONFIG=", fragpath) : NULL;
	bool target = !strchr(v->cfg.config, '/') && strstr(v->cfg.config, "config");
	int r = 0;

	step(b, IL_KB_CONFIG);
	if (!fragpath || !cfgpath || !ka)
		r = il_err_oom(err);
	for (size_t i = 0; i < v->cfg.fragments.n && !r; i++)
		r = il_buf_read_file(&frag, v->cfg.fragments.v[i], (size_t)4 << 20, err);
	if (!r)
		r = il_buf_write_file_atomic(fragpath, frag.p ? frag.p : "", frag.len, err);
	if (!r && target) {
		/* the kernel's own merge: a config target with the fragment forced on top */
		char *a1[] = { v->cfg.fragments.n ? ka : (char *)"KCONFIG_ALLCONFIG=", v->cfg.config, NULL };

		if (!v->cfg.fragments.n)
			a1[0] = v->cfg.config, a1[1] = NULL;
		r = il_kmake_run(v, b->src.p, b->obj.p, a1, NULL, &b->log, &b->code, err);
	} else if (!r) {
		char *a2[] = { (char *)"olddefconfig", NULL };

		if (!(r = il_kmake_copy(v->cfg.config, cfgpath, err))) {
			FILE *f = fopen(cfgpath, "a");

			if (f) {
				fwrite(frag.p ? frag.p : "", 1, frag.len, f);
				fclose(f);
			}
			r = il_kmake_run(v, b->src.p, b->obj.p, a2, NULL, &b->log, &b->code, err);
		}
	}
	if (!r && b->code) {
		char *t = tail_lines(il_buf_str(&b->log), b->log.len, 20);

		r = il_err_set(err, IL_ECHILD, "kernel '%s': configuring (%s) failed:\n%s", v->name, v->cfg.config,
			       t ? t : "");
		free(t);
	}
	if (!r)
		r = il_kconfig_verify(cfgpath, b->src.p, &v->cfg.fragments, &b->res->config_skipped, err);
	if (!r)
		r = il_sha256_file(cfgpath, b->cfg_hex, err);
	il_buf_release(&frag);
	free(fragpath), free(cfgpath), free(ka);
	return r;
}

/*
 * Stage 3, key: what makes two builds the same build, hashed: the tree, the
 * final .config, arch, the compiler (its first --version line: another
 * compiler makes other code), LOCALVERSION, targets and make arguments. Its
 * first 16 hex digits name the artifact directory.
 */
static int stage_key(struct kbuild *b, struct il_err *err)
{
	const struct il_kvar *v = b->v;
	char *cc = cat(v->cfg.cross_compile ? v->cfg.cross_compile : "", "gcc");
	char *av[] = { cc, (char *)"--version", NULL };
	struct il_buf o = IL_BUF_INIT, e = IL_BUF_INIT, k = IL_BUF_INIT;
	struct il_exit ex = { 0 };
	int r;

	if (!cc)
		return il_err_oom(err);
	/* no compiler to ask is "unknown"; memory that ran out is no answer */
	r = il_proc_capture(av, 30000, NULL, &o, &e, &ex, NULL);
	if (!r && !ex.code && o.p)
		snprintf(b->compiler, sizeof(b->compiler), "%.*s", (int)strcspn(o.p, "\n"), o.p);
	il_buf_release(&o), il_buf_release(&e);
	free(cc);
	if (r == IL_ENOMEM)
		return il_err_oom(err);
	il_buf_printf(&k, "tree %s\nconfig %s\narch %s\ncc %s\nlocalversion %s\n", b->tree_hex, b->cfg_hex, v->cfg.arch,
		      b->compiler, b->lv);
	for (size_t i = 0; i < v->cfg.targets.n; i++)
		il_buf_printf(&k, "target %s\n", v->cfg.targets.v[i]);
	for (size_t i = 0; i < v->cfg.make_args.n; i++)
		il_buf_printf(&k, "arg %s\n", v->cfg.make_args.v[i]);
	if (il_buf_error(&k))
		r = il_err_oom(err);
	else if (!(r = sha256_hex(k.p, k.len, b->key, err)) &&
		 il_buf_printf(&b->art, "%s/artifacts/%.16s", b->cache_dir, b->key))
		r = il_err_oom(err);
	il_buf_release(&k);
	return r;
}

/*
 * Stage 4, cache: an artifact directory with a manifest is this very build,
 * done before: *hit, and the result is that manifest's. Nothing is built.
 */
static int stage_cached(struct kbuild *b, bool *hit, struct il_err *err)
{
	struct il_kbuild_res *res = b->res;
	char *mf = cat(b->art.p, "/manifest.json");
	bool nomem = false;
	json_error_t je;

	*hit = false;
	if (!mf)
		return il_err_oom(err);
	/* a manifest that does not load is a miss (built again); memory that ran out is no answer */
	if (exists(mf) && !(res->manifest = json_load_file(mf, 0, &je)))
		nomem = json_error_code(&je) == json_error_out_of_memory;
	free(mf);
	if (res->manifest) {
		*hit = res->cached = res->ok = true;
		res->dir = strdup(b->art.p);
		res->release = strdup(json_string_value(json_object_get(res->manifest, "release")) ?: "");
		nomem = !res->dir || !res->release;
	}
	return nomem ? il_err_oom(err) : 0;
}

/*
 * make's arguments for the build: -jN, LOCALVERSION, ccache when there is one
 * and the plan does not choose a compiler itself, a fixed build user and host
 * (the banner then depends on the tree, not on who built it), the targets.
 * IL_ENOMEM.
 */
static int compile_args(const struct kbuild *b, struct il_strlist *a)
{
	const struct il_kvar *v = b->v;
	char jobs[32], lva[48];
	bool has_cc = false;
	int bad = 0;

	snprintf(jobs, sizeof(jobs), "-j%d", v->cfg.jobs > 0 ? v->cfg.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(lva, sizeof(lva), "LOCALVERSION=%s", b->lv);
	bad |= il_strlist_push(a, jobs);
	bad |= il_strlist_push(a, lva);
	for (size_t i = 0; i < v->cfg.make_args.n; i++)
		has_cc |= !strncmp(v->cfg.make_args.v[i], "CC=", 3);
	if (!has_cc && (exists("/usr/bin/ccache") || exists("/usr/local/bin/ccache"))) {
		char *ccv = il_str_dup_printf("CC=ccache %sgcc", v->cfg.cross_compile ? v->cfg.cross_compile : "");

		bad |= ccv ? il_strlist_push(a, ccv) : IL_ENOMEM;
		free(ccv);
	}
	bad |= il_strlist_push(a, "KBUILD_BUILD_USER=idlelab");
	bad |= il_strlist_push(a, "KBUILD_BUILD_HOST=idlelab");
	if (v->cfg.targets.n)
		for (size_t i = 0; i < v->cfg.targets.n; i++)
			bad |= il_strlist_push(a, v->cfg.targets.v[i]);
	else
		bad |= il_strlist_push(a, il_kmake_image(v));
	return bad ? IL_ENOMEM : 0;
}

/*
 * Stage 5, build: make, incremental when O= already holds a linked kernel (a
 * vmlinux or the image). Progress counts the files compiled; only a full
 * build has an estimate of their number, and only a full build that worked
 * is kept for the next estimate (kernel/kprogress.h). A failed compile is no
 * error of this call: b->code says it, the whole log stays in O= and its tail
 * goes to the result.
 */
static int stage_compile(struct kbuild *b, struct il_err *err)
{
	const struct il_kvar *v = b->v;
	struct il_kbuild_res *res = b->res;
	struct il_strlist a = { 0 };
	struct il_kprogress kp;
	struct il_proc_watch w = { il_kprogress_chunk, il_kprogress_tick, &kp, 1000 };
	char *vm = cat(b->obj.p, "/vmlinux"), *cfgpath = cat(b->obj.p, "/.config"), **av = NULL;
	char *img = il_str_dup_printf("%s/arch/%s/boot/%s", b->obj.p, v->cfg.arch, il_kmake_image(v));
	int r = 0;

	if (!vm || !cfgpath || !img)
		r = il_err_oom(err);
	if (!r) {
		b->incremental = exists(vm) || exists(img);
		step(b, IL_KB_BUILD);
		if (compile_args(b, &a) || !(av = calloc(a.n + 1, sizeof(*av))))
			r = il_err_oom(err);
	}
	if (!r) {
		memcpy(av, a.v, a.n * sizeof(*av));
		il_kprogress_init(&kp, v, b->cb, b->ctx, b->t0, b->cache_dir, cfgpath, b->cfg_hex, b->incremental);
		r = il_kmake_run(v, b->src.p, b->obj.p, av, b->cb ? &w : NULL, &b->log, &b->code, err);
		il_kprogress_end(&kp);
		if (!r && !b->code && !b->incremental)
			il_kprogress_record(&kp, b->cache_dir);
	}
	free(av), free(vm), free(cfgpath), free(img);
	il_strlist_release(&a);
	if (r)
		return r;
	res->seconds = now_s() - b->t0;
	if (b->code) {
		char *lp = cat(b->obj.p, "/idlelab-build.log");

		if (lp)
			il_buf_write_file_atomic(lp, b->log.p ? b->log.p : "", b->log.len, NULL);
		free(lp);
		res->ok = false;
		res->log_tail = tail_lines(il_buf_str(&b->log), b->log.len, 40);
	}
	return 0;
}

/*
 * Stage 6, artifacts: what a boot needs from the build and the manifest,
 * into the artifact directory of the key (kernel/kartifacts.h).
 */
static int stage_artifacts(struct kbuild *b, struct il_err *err)
{
	struct il_kartifacts_build a = {
		.v = b->v, .src = b->src.p, .obj = b->obj.p, .dir = b->art.p, .log = &b->log, .commit_hex = b->commit_hex,
		.tree_hex = b->tree_hex, .key = b->key, .compiler = b->compiler, .cfg_hex = b->cfg_hex,
		.localversion = b->lv, .incremental = b->incremental,
	};

	step(b, IL_KB_INSTALL);
	return il_kartifacts_gather(&a, b->res, err);
}

int il_kernel_build(const struct il_kvar *v, const char *cache_dir, il_kbuild_cb cb, void *ctx,
		    struct il_kbuild_res *res, struct il_err *err)
{
	struct kbuild b = { .v = v, .cache_dir = cache_dir, .cb = cb, .ctx = ctx, .res = res, .t0 = now_s(),
			    .compiler = "unknown" };
	bool hit = false;
	int r;

	memset(res, 0, sizeof(*res));
	if (v->running)
		return il_err_set(err, IL_EINVAL, "kernel '%s' is the host's running kernel: nothing to build", v->name);
	git_oid_tostr(b.commit_hex, sizeof(b.commit_hex), &v->commit);
	git_oid_tostr(b.tree_hex, sizeof(b.tree_hex), &v->tree);
	snprintf(b.lv, sizeof(b.lv), "-il%.8s", b.commit_hex);
	il_repo_git_init();
	if ((r = stage_checkout(&b, err)) || (r = stage_config(&b, err)) || (r = stage_key(&b, err)) ||
	    (r = stage_cached(&b, &hit, err)))
		goto out;
	/* a failed compile is no error: res->ok stays false and the log tail says why */
	if (!hit && ((r = stage_compile(&b, err)) || b.code || (r = stage_artifacts(&b, err))))
		goto out;
	res->seconds = now_s() - b.t0;
	step(&b, IL_KB_DONE);
out:
	git_repository_free(b.repo);
	il_repo_git_shutdown();
	il_buf_release(&b.log);
	il_buf_release(&b.src);
	il_buf_release(&b.obj);
	il_buf_release(&b.art);
	return r;
}

int il_kernel_build_list(const char *cache_dir, json_t **out, struct il_err *err)
{
	struct il_buf d = IL_BUF_INIT;
	struct dirent *de;
	DIR *dir;
	int r = 0;

	if (!(*out = json_array()) || il_buf_printf(&d, "%s/artifacts", cache_dir)) {
		il_buf_release(&d);
		json_decref(*out);
		*out = NULL;
		return il_err_oom(err);
	}
	if (!(dir = opendir(d.p))) {
		il_buf_release(&d);
		return 0;
	}
	while (!r && (de = readdir(dir))) {
		struct il_buf mf = IL_BUF_INIT;
		json_error_t je;
		json_t *m;

		if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp"))
			continue;
		if (il_buf_printf(&mf, "%s/%s/manifest.json", d.p, de->d_name)) {
			r = il_err_oom(err);
		} else if (!(m = json_load_file(mf.p, 0, &je))) {
			/* one that cannot be read is no artifact; memory that ran out is no answer */
			if (json_error_code(&je) == json_error_out_of_memory)
				r = il_err_oom(err);
		} else if (json_object_set_new(m, "dir", json_string(mf.p))) {
			json_decref(m);
			r = il_err_oom(err);
		} else if (json_array_append_new(*out, m)) {
			r = il_err_oom(err);
		}
		il_buf_release(&mf);
	}
	closedir(dir);
	il_buf_release(&d);
	if (r) {
		json_decref(*out);
		*out = NULL;
	}
	return r;
}
