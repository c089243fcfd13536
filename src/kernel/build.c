// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel builds: checkout, config (+fragments, verified), make O=, artifacts, cache. */
#include "kernel/build.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernel/kconfig.h"
#include "kernel/kprogress.h"
#include "kernel/repo.h"
#include "util/buf.h"
#include "util/jfields.h"
#include "util/proc.h"
#include "util/sha256.h"

void il_kbuild_res_release(struct il_kbuild_res *r)
{
	free(r->dir);
	free(r->release);
	free(r->log_tail);
	json_decref(r->manifest);
	il_strlist_release(&r->config_skipped);
	memset(r, 0, sizeof(*r));
}

#define now_s il_mono_s

static const char *const step_names[] = {
	[IL_KB_CHECKOUT] = "checkout", [IL_KB_CONFIG] = "config",     [IL_KB_BUILD] = "build",
	[IL_KB_COMPILING] = "compiling", [IL_KB_INSTALL] = "artifacts", [IL_KB_DONE] = "done",
};

const char *il_kbuild_step_name(enum il_kbuild_step step)
{
	return (unsigned)step < sizeof(step_names) / sizeof(step_names[0]) ? step_names[step] : "?";
}

/* A step starts: tell the caller (elapsed time only). */
static void step(const struct il_kvar *v, il_kbuild_cb cb, void *ctx, enum il_kbuild_step s, double t0)
{
	struct il_progress p = { .what = v->name, .elapsed_s = now_s() - t0, .eta_s = -1 };

	if (cb)
		cb(v, s, &p, ctx);
}

static char *cat(const char *a, const char *b)
{
	struct il_buf x = IL_BUF_INIT;

	il_buf_printf(&x, "%s%s", a, b);
	return il_buf_detach(&x);
}

static void mkdirs(const char *path)
{
	char *p = strdup(path);

	for (char *s = p + 1; s && *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
	free(p);
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

/* make -C src O=obj ARCH=... CROSS_COMPILE=... [extra...] [args...]; output appended to log. */
static int run_make(const struct il_kvar *v, const char *src, const char *obj, char *const extra[],
		    const struct il_proc_watch *w, struct il_buf *log, int *code, struct il_err *err)
{
	struct il_strlist av = { 0 };
	char **argv;
	struct il_buf out = IL_BUF_INIT, errb = IL_BUF_INIT;
	struct il_exit ex;
	int r;

	il_strlist_push(&av, "make");
	il_strlist_push(&av, "-C");
	il_strlist_push(&av, src);
	{
		char *o = cat("O=", obj), *a = cat("ARCH=", v->cfg.arch);

		il_strlist_push(&av, o);
		il_strlist_push(&av, a);
		free(o), free(a);
	}
	if (v->cfg.cross_compile) {
		char *c = cat("CROSS_COMPILE=", v->cfg.cross_compile);

		il_strlist_push(&av, c);
		free(c);
	}
	for (size_t i = 0; i < v->cfg.make_args.n; i++)
		il_strlist_push(&av, v->cfg.make_args.v[i]);
	for (size_t i = 0; extra[i]; i++)
		il_strlist_push(&av, extra[i]);
	argv = calloc(av.n + 1, sizeof(*argv));
	if (!argv) {
		il_strlist_release(&av);
		return il_err_oom(err);
	}
	memcpy(argv, av.v, av.n * sizeof(*argv));
	il_buf_init(&out, (size_t)64 << 20);
	il_buf_init(&errb, (size_t)64 << 20);
	il_buf_adds(log, "$");
	for (size_t i = 0; i < av.n; i++)
		il_buf_printf(log, " %s", av.v[i]);
	il_buf_adds(log, "\n");
	r = il_proc_capture_watch(argv, 0, NULL, w, &out, &errb, &ex, err);
	il_buf_add(log, out.p ? out.p : "", out.len);
	il_buf_add(log, errb.p ? errb.p : "", errb.len);
	*code = ex.code;
	il_buf_release(&out);
	il_buf_release(&errb);
	free(argv);
	il_strlist_release(&av);
	return r;
}

static int copy_file(const char *from, const char *to, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	int r = il_buf_read_file(&b, from, (size_t)2 << 30, err);

	if (!r)
		r = il_write_file_atomic(to, b.p ? b.p : "", b.len, err);
	il_buf_release(&b);
	return r;
}

static bool exists(const char *p)
{
	struct stat st;

	return !stat(p, &st);
}

/* The value of `#define NAME "value"` in a generated header (caller frees); NULL if absent. */
static char *define_in(const char *path, const char *name)
{
	struct il_buf b = IL_BUF_INIT;
	char *v = NULL;

	if (!il_buf_read_file(&b, path, 65536, NULL)) {
		size_t nl = strlen(name);

		for (char *l = b.p; l && *l && !v; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			char *q, *e;

			if (strncmp(l, "#define ", 8))
				continue;
			q = l + 8;
			q += strspn(q, " \t");
			if (strncmp(q, name, nl) || (q[nl] != ' ' && q[nl] != '\t') || !(q = strchr(q, '"')) ||
			    !(e = strchr(q + 1, '"')))
				continue;
			v = strndup(q + 1, (size_t)(e - q - 1));
		}
	}
	il_buf_release(&b);
	return v;
}

/*
 * The /proc/version line the built kernel will print (init/version.c's
 * linux_proc_banner), from the generated headers of this build; NULL when
 * the tree has no such headers. The build number and time in UTS_VERSION make
 * it unique to this build, which is what boot verification needs.
 */
static char *proc_version(const char *obj)
{
	char *ch = cat(obj, "/include/generated/compile.h"), *uv = cat(obj, "/include/generated/utsversion.h");
	char *ur = cat(obj, "/include/generated/utsrelease.h");
	char *rel = define_in(ur, "UTS_RELEASE"), *by = define_in(ch, "LINUX_COMPILE_BY");
	char *host = define_in(ch, "LINUX_COMPILE_HOST"), *cc = define_in(ch, "LINUX_COMPILER");
	char *ver = define_in(uv, "UTS_VERSION"), *out = NULL;
	struct il_buf b = IL_BUF_INIT;

	if (!ver)
		ver = define_in(ch, "UTS_VERSION"); /* before 6.0 it lived in compile.h */
	if (rel && by && host && cc && ver && !il_buf_printf(&b, "Linux version %s (%s@%s) (%s) %s", rel, by, host, cc, ver))
		out = il_buf_detach(&b);
	il_buf_release(&b);
	free(ch), free(uv), free(ur), free(rel), free(by), free(host), free(cc), free(ver);
	return out;
}

static const char *default_target(const char *arch)
{
	return !strcmp(arch, "arm64") ? "Image" : !strcmp(arch, "x86") || !strcmp(arch, "x86_64") ? "bzImage" :
	       !strcmp(arch, "arm") ? "zImage" : "all";
}

int il_kernel_build(const struct il_kvar *v, const char *cache_dir, il_kbuild_cb cb, void *ctx,
		    struct il_kbuild_res *res, struct il_err *err)
{
	struct il_buf log = IL_BUF_INIT, src = IL_BUF_INIT, obj = IL_BUF_INIT, art = IL_BUF_INIT, tmp = IL_BUF_INIT;
	struct il_sha256 h;
	git_repository *repo = NULL;
	char commit_hex[GIT_OID_HEXSZ + 1], tree_hex[GIT_OID_HEXSZ + 1], cfg_hex[65], key[65], lv[32];
	char compiler[256] = "unknown";
	double t0 = now_s();
	struct il_kprogress kp;
	bool incremental;
	int code = 0, r;

	memset(res, 0, sizeof(*res));
	if (v->running)
		return il_err_set(err, IL_EINVAL, "kernel '%s' is the host's running kernel: nothing to build", v->name);
	git_oid_tostr(commit_hex, sizeof(commit_hex), &v->commit);
	git_oid_tostr(tree_hex, sizeof(tree_hex), &v->tree);
	snprintf(lv, sizeof(lv), "-il%.8s", commit_hex);
	il_git_init();
	if ((r = il_repo_open(&repo, v->repo_path, err)))
		goto out;
	/* the source: an imported tarball's own work tree, else a checkout in the cache */
	if (!strncmp(v->repo_path, cache_dir, strlen(cache_dir)) && git_repository_workdir(repo)) {
		il_buf_adds(&src, git_repository_workdir(repo));
		while (src.len > 1 && src.p[src.len - 1] == '/')
			src.p[--src.len] = 0;
	} else {
		char hex[65];

		il_sha256_init(&h);
		il_sha256_update(&h, v->repo_path, strlen(v->repo_path));
		il_sha256_final(&h, hex);
		il_buf_printf(&src, "%s/work/%.16s", cache_dir, hex);
		mkdirs(src.p);
	}
	il_buf_printf(&obj, "%s/obj/%s-%s", cache_dir, v->lineage, v->cfg.arch);
	mkdirs(obj.p);
	step(v, cb, ctx, IL_KB_CHECKOUT, t0);
	if ((r = il_repo_checkout_to(repo, &v->commit, src.p, err)))
		goto out;
	/* config */
	step(v, cb, ctx, IL_KB_CONFIG, t0);
	{
		struct il_buf frag = IL_BUF_INIT;
		char *fragpath = cat(obj.p, "/idlelab-fragment.config"), *cfgpath = cat(obj.p, "/.config");
		char *ka = cat("KCONFIG_ALLCONFIG=", fragpath);
		bool target = !strchr(v->cfg.config, '/') && strstr(v->cfg.config, "config");

		for (size_t i = 0; i < v->cfg.fragments.n && !r; i++)
			r = il_buf_read_file(&frag, v->cfg.fragments.v[i], (size_t)4 << 20, err);
		if (!r)
			r = il_write_file_atomic(fragpath, frag.p ? frag.p : "", frag.len, err);
		if (!r && target) {
			/* the kernel's own merge: a config target with the fragment forced on top */
			char *a1[] = { v->cfg.fragments.n ? ka : (char *)"KCONFIG_ALLCONFIG=", v->cfg.config, NULL };

			if (!v->cfg.fragments.n)
				a1[0] = v->cfg.config, a1[1] = NULL;
			r = run_make(v, src.p, obj.p, a1, NULL, &log, &code, err);
		} else if (!r) {
			char *a2[] = { (char *)"olddefconfig", NULL };

			if (!(r = copy_file(v->cfg.config, cfgpath, err))) {
				FILE *f = fopen(cfgpath, "a");

				if (f) {
					fwrite(frag.p ? frag.p : "", 1, frag.len, f);
					fclose(f);
				}
				r = run_make(v, src.p, obj.p, a2, NULL, &log, &code, err);
			}
		}
		if (!r && code) {
			char *t = tail_lines(il_buf_str(&log), log.len, 20);

			r = il_err_set(err, IL_ECHILD, "kernel '%s': configuring (%s) failed:\n%s", v->name, v->cfg.config,
				       t ? t : "");
			free(t);
		}
		if (!r)
			r = il_kconfig_verify(cfgpath, src.p, &v->cfg.fragments, &res->config_skipped, err);
		if (!r)
			r = il_sha256_file(cfgpath, cfg_hex, err);
		il_buf_release(&frag);
		free(fragpath), free(cfgpath), free(ka);
		if (r)
			goto out;
	}
	/* the compiler is part of the key */
	{
		char *cc = cat(v->cfg.cross_compile ? v->cfg.cross_compile : "", "gcc");
		char *av[] = { cc, (char *)"--version", NULL };
		struct il_buf o = IL_BUF_INIT, e = IL_BUF_INIT;
		struct il_exit ex;

		if (!il_proc_capture(av, 30000, NULL, &o, &e, &ex, NULL) && !ex.code && o.p)
			snprintf(compiler, sizeof(compiler), "%.*s", (int)strcspn(o.p, "\n"), o.p);
		il_buf_release(&o), il_buf_release(&e);
		free(cc);
	}
	il_sha256_init(&h);
	il_buf_printf(&tmp, "tree %s\nconfig %s\narch %s\ncc %s\nlocalversion %s\n", tree_hex, cfg_hex, v->cfg.arch, compiler,
		      lv);
	for (size_t i = 0; i < v->cfg.targets.n; i++)
		il_buf_printf(&tmp, "target %s\n", v->cfg.targets.v[i]);
	for (size_t i = 0; i < v->cfg.make_args.n; i++)
		il_buf_printf(&tmp, "arg %s\n", v->cfg.make_args.v[i]);
	il_sha256_update(&h, tmp.p, tmp.len);
	il_sha256_final(&h, key);
	il_buf_printf(&art, "%s/artifacts/%.16s", cache_dir, key);
	{
		char *mf = cat(art.p, "/manifest.json");
		json_error_t je;

		if (exists(mf) && (res->manifest = json_load_file(mf, 0, &je))) {
			res->cached = res->ok = true;
			res->dir = strdup(art.p);
			res->release = strdup(json_string_value(json_object_get(res->manifest, "release")) ?: "");
			free(mf);
			goto done;
		}
		free(mf);
	}
	/* build: incremental when this O= directory already holds a linked kernel */
	{
		char *vm = cat(obj.p, "/vmlinux"), *boot = cat(obj.p, "/arch/"), *b2 = cat(boot, v->cfg.arch),
		     *b3 = cat(b2, "/boot/"), *img = cat(b3, v->cfg.targets.n ? v->cfg.targets.v[0] : default_target(v->cfg.arch));

		incremental = exists(vm) || exists(img);
		free(vm), free(boot), free(b2), free(b3), free(img);
	}
	step(v, cb, ctx, IL_KB_BUILD, t0);
	{
		struct il_strlist a = { 0 };
		char jobs[32], *lva = cat("LOCALVERSION=", lv);
		char **av;

		snprintf(jobs, sizeof(jobs), "-j%d", v->cfg.jobs > 0 ? v->cfg.jobs : (int)sysconf(_SC_NPROCESSORS_ONLN));
		il_strlist_push(&a, jobs);
		il_strlist_push(&a, lva);
		/* ccache when there is one and the plan does not choose a compiler itself */
		{
			bool has_cc = false;

			for (size_t i = 0; i < v->cfg.make_args.n; i++)
				has_cc |= !strncmp(v->cfg.make_args.v[i], "CC=", 3);
			if (!has_cc && (exists("/usr/bin/ccache") || exists("/usr/local/bin/ccache"))) {
				char *ccv = cat("CC=ccache ", v->cfg.cross_compile ? v->cfg.cross_compile : "");
				char *ccv2 = cat(ccv, "gcc");

				il_strlist_push(&a, ccv2);
				free(ccv), free(ccv2);
			}
		}
		il_strlist_push(&a, "KBUILD_BUILD_USER=idlelab");
		il_strlist_push(&a, "KBUILD_BUILD_HOST=idlelab");
		if (v->cfg.targets.n)
			for (size_t i = 0; i < v->cfg.targets.n; i++)
				il_strlist_push(&a, v->cfg.targets.v[i]);
		else
			il_strlist_push(&a, default_target(v->cfg.arch));
		av = calloc(a.n + 1, sizeof(*av));
		if (!av) {
			il_strlist_release(&a);
			free(lva);
			r = il_err_oom(err);
			goto out;
		}
		memcpy(av, a.v, a.n * sizeof(*av));
		{
			char *cfgpath = cat(obj.p, "/.config");
			struct il_proc_watch w = { il_kprogress_chunk, il_kprogress_tick, &kp, 1000 };

			il_kprogress_init(&kp, v, cb, ctx, t0, cache_dir, cfgpath, cfg_hex, incremental);
			free(cfgpath);
			r = run_make(v, src.p, obj.p, av, cb ? &w : NULL, &log, &code, err);
			il_kprogress_end(&kp);
			if (!r && !code && !incremental)
				il_kprogress_record(&kp, cache_dir);
		}
		free(av);
		free(lva);
		il_strlist_release(&a);
		if (r)
			goto out;
	}
	res->seconds = now_s() - t0;
	if (code) {
		char *lp = cat(obj.p, "/idlelab-build.log");

		il_write_file_atomic(lp, log.p ? log.p : "", log.len, NULL);
		free(lp);
		res->ok = false;
		res->log_tail = tail_lines(il_buf_str(&log), log.len, 40);
		goto out;
	}
	/* artifacts */
	step(v, cb, ctx, IL_KB_INSTALL, t0);
	{
		struct il_buf rel = IL_BUF_INIT, f = IL_BUF_INIT;
		json_t *files = json_array();
		const char *target = v->cfg.targets.n ? v->cfg.targets.v[0] : default_target(v->cfg.arch);
		char *relp = cat(obj.p, "/include/config/kernel.release"), *tmpdir = cat(art.p, ".tmp");
		char *rmv[] = { (char *)"rm", (char *)"-rf", tmpdir, NULL };
		struct il_buf o1 = IL_BUF_INIT, e1 = IL_BUF_INIT;
		struct il_exit ex;
		static const char *const extra[] = { ".config", "System.map", "vmlinux.symvers", NULL };

		il_proc_capture(rmv, 0, NULL, &o1, &e1, &ex, NULL);
		mkdirs(tmpdir);
		if (!il_buf_read_file(&rel, relp, 4096, NULL)) {
			while (rel.len && (rel.p[rel.len - 1] == '\n'))
				rel.p[--rel.len] = 0;
			res->release = strdup(rel.p);
		}
		/* the image: arch/<arch>/boot/<target>, else <target> at the top of O= */
		il_buf_printf(&f, "%s/arch/%s/boot/%s", obj.p, v->cfg.arch, target);
		if (!exists(f.p)) {
			il_buf_reset(&f);
			il_buf_printf(&f, "%s/%s", obj.p, target);
		}
		if (exists(f.p)) {
			char *to = cat(tmpdir, strrchr(f.p, '/'));

			if (!(r = copy_file(f.p, to, err)))
				json_array_append_new(files, json_string(strrchr(f.p, '/') + 1));
			free(to);
		}
		for (int i = 0; !r && extra[i]; i++) {
			char *from = cat(obj.p, "/"), *fromf = cat(from, extra[i]), *to = cat(tmpdir, "/");
			char *tof = cat(to, extra[i][0] == '.' ? "config" : extra[i]);

			if (exists(fromf) && !(r = copy_file(fromf, tof, err)))
				json_array_append_new(files, json_string(extra[i][0] == '.' ? "config" : extra[i]));
			free(from), free(fromf), free(to), free(tof);
		}
		if (!r) {
			/* device trees, when asked for */
			char *dts = cat(obj.p, "/arch/"), *dts2 = cat(dts, v->cfg.arch), *dts3 = cat(dts2, "/boot/dts");
			bool want = false;

			for (size_t i = 0; i < v->cfg.targets.n; i++)
				want |= !strcmp(v->cfg.targets.v[i], "dtbs");
			if (want && exists(dts3)) {
				char *tarf = cat(tmpdir, "/dtbs.tar");
				/* paths as arguments, never pasted into the script */
				char *tv[] = { (char *)"sh", (char *)"-c",
					       (char *)"cd \"$1\" && find . -name '*.dtb' | tar -cf \"$2\" -T -", (char *)"sh",
					       dts3, tarf, NULL };

				if (!(r = il_proc_capture(tv, 0, NULL, &o1, &e1, &ex, err)) && !ex.code)
					json_array_append_new(files, json_string("dtbs.tar"));
				free(tarf);
			}
			free(dts), free(dts2), free(dts3);
		}
		if (!r) {
			/* modules, when the config has them */
			struct il_buf cfg = IL_BUF_INIT;
			char *cp = cat(obj.p, "/.config");

			il_buf_read_file(&cfg, cp, (size_t)16 << 20, NULL);
			if (strstr(il_buf_str(&cfg), "\nCONFIG_MODULES=y")) {
				char *stage = cat(tmpdir, "/modules-staging"), *imp = cat("INSTALL_MOD_PATH=", stage);
				char *a3[] = { (char *)"modules_install", imp, NULL };
				char *tarf = cat(tmpdir, "/modules.tar");
				char *tv[] = { (char *)"tar", (char *)"-cf", tarf, (char *)"-C", stage, (char *)".", NULL };
				char *rv[] = { (char *)"rm", (char *)"-rf", stage, NULL };

				if (!(r = run_make(v, src.p, obj.p, a3, NULL, &log, &code, err)) && !code &&
				    !(r = il_proc_capture(tv, 0, NULL, &o1, &e1, &ex, err)) && !ex.code)
					json_array_append_new(files, json_string("modules.tar"));
				il_proc_capture(rv, 0, NULL, &o1, &e1, &ex, NULL);
				free(stage), free(imp), free(tarf);
			}
			il_buf_release(&cfg);
			free(cp);
		}
		il_buf_release(&o1), il_buf_release(&e1);
		if (!r) {
			char *lp = cat(tmpdir, "/build.log"), *mf = cat(tmpdir, "/manifest.json"), *txt;
			char *rmo[] = { (char *)"rm", (char *)"-rf", art.p, NULL };

			char *pv = proc_version(obj.p);

			json_array_append_new(files, json_string("build.log"));
			res->manifest = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:f,s:b,s:I}", "name", v->name,
						  "commit", commit_hex, "tree", tree_hex, "key", key, "arch", v->cfg.arch,
						  "compiler", compiler, "config_sha256", cfg_hex, "localversion", lv, "release",
						  res->release ? res->release : "", "files", files, "build_s", res->seconds,
						  "incremental", incremental, "created", (json_int_t)time(NULL));
			json_object_set_new(res->manifest, "proc_version", pv ? json_string(pv) : json_null());
			json_object_set_new(res->manifest, "config_skipped", il_jf_strlist_json(&res->config_skipped));
			free(pv);
			txt = json_dumps(res->manifest, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			if (!(r = il_write_file_atomic(lp, log.p ? log.p : "", log.len, err)) &&
			    !(r = il_write_file_atomic(mf, txt, strlen(txt), err))) {
				il_proc_capture(rmo, 0, NULL, &o1, &e1, &ex, NULL);
				il_buf_release(&o1), il_buf_release(&e1);
				if (rename(tmpdir, art.p))
					r = il_err_set(err, IL_EIO, "cannot move artifacts to %s: %s", art.p, strerror(errno));
			}
			free(txt), free(lp), free(mf);
		} else {
			json_decref(files);
		}
		il_buf_release(&rel);
		il_buf_release(&f);
		free(relp), free(tmpdir);
		if (r)
			goto out;
	}
	res->ok = true;
	res->dir = strdup(art.p);
done:
	res->seconds = now_s() - t0;
	step(v, cb, ctx, IL_KB_DONE, t0);
out:
	git_repository_free(repo);
	il_git_shutdown();
	il_buf_release(&log);
	il_buf_release(&src);
	il_buf_release(&obj);
	il_buf_release(&art);
	il_buf_release(&tmp);
	return r;
}

int il_kernel_list(const char *cache_dir, json_t **out, struct il_err *err)
{
	struct il_buf d = IL_BUF_INIT;
	struct dirent *de;
	DIR *dir;

	*out = json_array();
	il_buf_printf(&d, "%s/artifacts", cache_dir);
	if (!(dir = opendir(d.p))) {
		il_buf_release(&d);
		return *out ? 0 : il_err_oom(err);
	}
	while ((de = readdir(dir))) {
		struct il_buf mf = IL_BUF_INIT;
		json_error_t je;
		json_t *m;

		if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp"))
			continue;
		il_buf_printf(&mf, "%s/%s/manifest.json", d.p, de->d_name);
		if ((m = json_load_file(mf.p, 0, &je))) {
			json_object_set_new(m, "dir", json_string(mf.p));
			json_array_append_new(*out, m);
		}
		il_buf_release(&mf);
	}
	closedir(dir);
	il_buf_release(&d);
	return 0;
}
