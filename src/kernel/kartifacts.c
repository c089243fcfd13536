// SPDX-License-Identifier: GPL-2.0-or-later
/* A kernel build's artifact directory: the boot files gathered from O=, the manifest. */
#include "kernel/kartifacts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "kernel/kmake.h"
#include "util/jfields.h"
#include "util/str.h"
#include "util/jsonfile.h"

static bool exists(const char *p)
{
	struct stat st;

	return !stat(p, &st);
}

/*
 * The value of `#define NAME "value"` in a generated header into *out (the
 * caller frees; NULL when the file or the line is not there). IL_ENOMEM.
 */
static int define_in(const char *path, const char *name, char **out)
{
	struct il_buf b = IL_BUF_INIT;
	int r = il_buf_read_file(&b, path, 65536, NULL);
	size_t nl = strlen(name);
	bool nomem = r == IL_ENOMEM;

	*out = NULL;
	/* a header that is not there (or cannot be read) has no value */
	for (char *l = r ? NULL : b.p; l && *l && !*out && !nomem; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char *q, *e;

		if (strncmp(l, "#define ", 8))
			continue;
		q = l + 8;
		q += strspn(q, " \t");
		if (strncmp(q, name, nl) || (q[nl] != ' ' && q[nl] != '\t') || !(q = strchr(q, '"')) ||
		    !(e = strchr(q + 1, '"')))
			continue;
		nomem = !(*out = strndup(q + 1, (size_t)(e - q - 1)));
	}
	il_buf_release(&b);
	return nomem ? IL_ENOMEM : 0;
}

/*
 * The /proc/version line the built kernel will print (init/version.c's
 * linux_proc_banner), from the generated headers of this build, into *out
 * (the caller frees); NULL when the tree has no such headers. The build
 * number and time in UTS_VERSION make it unique to this build, which is what
 * boot verification needs. IL_ENOMEM.
 */
static int proc_version(const char *obj, char **out)
{
	char *ch = il_str_dup_printf("%s/include/generated/compile.h", obj);
	char *uv = il_str_dup_printf("%s/include/generated/utsversion.h", obj);
	char *ur = il_str_dup_printf("%s/include/generated/utsrelease.h", obj);
	char *rel = NULL, *by = NULL, *host = NULL, *cc = NULL, *ver = NULL;
	int r = !ch || !uv || !ur ? IL_ENOMEM : 0;

	*out = NULL;
	if (!r && !(r = define_in(ur, "UTS_RELEASE", &rel)) && !(r = define_in(ch, "LINUX_COMPILE_BY", &by)) &&
	    !(r = define_in(ch, "LINUX_COMPILE_HOST", &host)) && !(r = define_in(ch, "LINUX_COMPILER", &cc)) &&
	    !(r = define_in(uv, "UTS_VERSION", &ver)) && !ver)
		r = define_in(ch, "UTS_VERSION", &ver); /* before 6.0 it lived in compile.h */
	if (!r && rel && by && host && cc && ver &&
	    !(*out = il_str_dup_printf("Linux version %s (%s@%s) (%s) %s", rel, by, host, cc, ver)))
		r = IL_ENOMEM;
	free(ch), free(uv), free(ur), free(rel), free(by), free(host), free(cc), free(ver);
	return r;
}

/*
 * The image (arch/ARCH/boot/TARGET, else TARGET at the top of O=), and the
 * .config (as "config"), System.map and vmlinux.symvers where make left them,
 * copied into dir; each name copied appended to files.
 */
static int copy_outputs(const struct il_kartifacts_build *b, const char *dir, json_t *files, struct il_err *err)
{
	static const char *const extra[] = { ".config", "System.map", "vmlinux.symvers", NULL };
	const char *target = il_kmake_image(b->v);
	char *f = il_str_dup_printf("%s/arch/%s/boot/%s", b->obj, b->v->cfg.arch, target);
	int r = 0;

	if (f && !exists(f)) {
		free(f);
		f = il_str_dup_printf("%s/%s", b->obj, target);
	}
	if (!f)
		return il_err_oom(err);
	if (exists(f)) {
		char *to = il_str_dup_printf("%s%s", dir, strrchr(f, '/'));

		if (!to)
			r = il_err_oom(err);
		else if (!(r = il_kmake_copy(f, to, err)) && json_array_append_new(files, json_string(strrchr(f, '/') + 1)))
			r = il_err_oom(err);
		free(to);
	}
	free(f);
	for (int i = 0; !r && extra[i]; i++) {
		const char *as = extra[i][0] == '.' ? "config" : extra[i];
		char *from = il_str_dup_printf("%s/%s", b->obj, extra[i]), *to = il_str_dup_printf("%s/%s", dir, as);

		if (!from || !to)
			r = il_err_oom(err);
		else if (exists(from) && !(r = il_kmake_copy(from, to, err)) && json_array_append_new(files, json_string(as)))
			r = il_err_oom(err);
		free(from), free(to);
	}
	return r;
}

/* The device trees, when the targets ask for them: arch/ARCH/boot/dts's *.dtb as dtbs.tar in dir. */
static int add_dtbs(const struct il_kartifacts_build *b, const char *dir, json_t *files, struct il_err *err)
{
	const struct il_kvar *v = b->v;
	char *dts = il_str_dup_printf("%s/arch/%s/boot/dts", b->obj, v->cfg.arch), *tarf = il_str_dup_printf("%s/dtbs.tar", dir);
	/* paths as arguments, never pasted into the script */
	char *tv[] = { (char *)"sh", (char *)"-c", (char *)"cd \"$1\" && find . -name '*.dtb' | tar -cf \"$2\" -T -",
		       (char *)"sh", dts, tarf, NULL };
	bool want = false;
	int r = 0, code;

	for (size_t i = 0; i < v->cfg.targets.n; i++)
		want |= !strcmp(v->cfg.targets.v[i], "dtbs");
	if (!dts || !tarf)
		r = il_err_oom(err);
	else if (want && exists(dts) && !(r = il_kmake_quiet(tv, &code, err)) && !code &&
		 json_array_append_new(files, json_string("dtbs.tar")))
		r = il_err_oom(err);
	free(dts), free(tarf);
	return r;
}

/* The modules, when the .config has them: make modules_install into a staging directory, as modules.tar in dir. */
static int add_modules(const struct il_kartifacts_build *b, const char *dir, json_t *files, struct il_err *err)
{
	struct il_buf cfg = IL_BUF_INIT;
	char *cp = il_str_dup_printf("%s/.config", b->obj), *stage = il_str_dup_printf("%s/modules-staging", dir);
	char *tarf = il_str_dup_printf("%s/modules.tar", dir);
	char *imp = stage ? il_str_dup_printf("INSTALL_MOD_PATH=%s", stage) : NULL;
	char *a3[] = { (char *)"modules_install", imp, NULL };
	char *tv[] = { (char *)"tar", (char *)"-cf", tarf, (char *)"-C", stage, (char *)".", NULL };
	char *rv[] = { (char *)"rm", (char *)"-rf", stage, NULL };
	int r = 0, code;

	/* a .config that cannot be read has no modules to install: what it lacks shows at boot */
	if (!cp || !stage || !tarf || !imp || il_buf_read_file(&cfg, cp, (size_t)16 << 20, NULL) == IL_ENOMEM) {
		r = il_err_oom(err);
	} else {
		if (strstr(il_buf_str(&cfg), "\nCONFIG_MODULES=y")) {
			if (!(r = il_kmake_run(b->v, b->src, b->obj, a3, NULL, b->log, &code, err)) && !code &&
			    !(r = il_kmake_quiet(tv, &code, err)) && !code && json_array_append_new(files, json_string("modules.tar")))
				r = il_err_oom(err);
			il_kmake_quiet(rv, &code, NULL);
		}
	}
	il_buf_release(&cfg);
	free(cp), free(stage), free(tarf), free(imp);
	return r;
}

/*
 * The manifest and the build log into tmp, then tmp renamed to the artifact
 * directory (whatever was there removed first). files is taken.
 */
static int write_manifest(const struct il_kartifacts_build *b, const char *tmp, json_t *files,
			  struct il_kbuild_res *res, struct il_err *err)
{
	const struct il_kvar *v = b->v;
	char *lp = il_str_dup_printf("%s/build.log", tmp), *mf = il_str_dup_printf("%s/manifest.json", tmp);
	char *txt = NULL, *pv = NULL;
	char *rmo[] = { (char *)"rm", (char *)"-rf", (char *)b->dir, NULL };
	int r = !lp || !mf || json_array_append_new(files, json_string("build.log")) ? IL_ENOMEM : proc_version(b->obj, &pv);
	int code;

	if (!r) {
		res->manifest = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:f,s:b,s:I}", "name", v->name,
					  "commit", b->commit_hex, "tree", b->tree_hex, "key", b->key, "arch", v->cfg.arch,
					  "compiler", b->compiler, "config_sha256", b->cfg_hex, "localversion", b->localversion,
					  "release", res->release ? res->release : "", "files", files, "build_s", res->seconds,
					  "incremental", b->incremental, "created", (json_int_t)time(NULL));
		files = NULL; /* taken by json_pack, even when it fails */
		if (!res->manifest || json_object_set_new(res->manifest, "proc_version", pv ? json_string(pv) : json_null()) ||
		    json_object_set_new(res->manifest, "config_skipped", il_jfields_strlist_json(&res->config_skipped)) ||
		    !(txt = il_json_dumps(res->manifest, JSON_INDENT(2) | JSON_PRESERVE_ORDER)))
			r = IL_ENOMEM;
	}
	if (r) {
		r = il_err_oom(err);
	} else if (!(r = il_buf_write_file_atomic(lp, b->log->p ? b->log->p : "", b->log->len, err)) &&
		   !(r = il_buf_write_file_atomic(mf, txt, strlen(txt), err))) {
		il_kmake_quiet(rmo, &code, NULL);
		if (rename(tmp, b->dir))
			r = il_err_set(err, IL_EIO, "cannot move artifacts to %s: %s", b->dir, strerror(errno));
	}
	json_decref(files);
	free(pv), free(txt), free(lp), free(mf);
	return r;
}

int il_kartifacts_gather(const struct il_kartifacts_build *b, struct il_kbuild_res *res, struct il_err *err)
{
	struct il_buf rel = IL_BUF_INIT;
	json_t *files = json_array();
	char *relp = il_str_dup_printf("%s/include/config/kernel.release", b->obj), *tmp = il_str_dup_printf("%s.tmp", b->dir);
	char *rmv[] = { (char *)"rm", (char *)"-rf", tmp, NULL };
	int r = 0, code;

	if (!files || !relp || !tmp)
		r = il_err_oom(err);
	if (!r) {
		il_kmake_quiet(rmv, &code, NULL);
		r = il_kmake_mkdirs(tmp, err);
	}
	if (!r) {
		int rr = il_buf_read_file(&rel, relp, 4096, NULL);

		while (!rr && rel.len && (rel.p[rel.len - 1] == '\n'))
			rel.p[--rel.len] = 0;
		/* no kernel.release (a tree that makes none): no release */
		if (rr == IL_ENOMEM || (!rr && !(res->release = strdup(il_buf_str(&rel)))))
			r = il_err_oom(err);
	}
	if (!r && !(r = copy_outputs(b, tmp, files, err)) && !(r = add_dtbs(b, tmp, files, err)) &&
	    !(r = add_modules(b, tmp, files, err))) {
		r = write_manifest(b, tmp, files, res, err);
		files = NULL;
	}
	if (!r) {
		res->ok = true;
		if (!(res->dir = strdup(b->dir)))
			r = il_err_oom(err);
	}
	json_decref(files);
	il_buf_release(&rel);
	free(relp), free(tmp);
	return r;
}
