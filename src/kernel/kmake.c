// SPDX-License-Identifier: GPL-2.0-or-later
/* kbuild's make command line and its log; mkdir -p and file copies for the build. */
#include "kernel/kmake.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/str.h"

/* a then b pushed onto l as one string; IL_ENOMEM. */
static int push_cat(struct il_strlist *l, const char *a, const char *b)
{
	char *s = il_str_dup_printf("%s%s", a, b);
	int r = s ? il_strlist_push(l, s) : IL_ENOMEM;

	free(s);
	return r;
}

int il_kmake_run(const struct il_kvar *v, const char *src, const char *obj, char *const extra[],
		 const struct il_proc_watch *w, struct il_buf *log, int *code, struct il_err *err)
{
	struct il_strlist av = { 0 };
	char **argv;
	struct il_buf out = IL_BUF_INIT, errb = IL_BUF_INIT;
	struct il_exit ex = { 0 };
	int r, bad = 0;

	bad |= il_strlist_push(&av, "make");
	bad |= il_strlist_push(&av, "-C");
	bad |= il_strlist_push(&av, src);
	bad |= push_cat(&av, "O=", obj);
	bad |= push_cat(&av, "ARCH=", v->cfg.arch);
	if (v->cfg.cross_compile)
		bad |= push_cat(&av, "CROSS_COMPILE=", v->cfg.cross_compile);
	for (size_t i = 0; i < v->cfg.make_args.n; i++)
		bad |= il_strlist_push(&av, v->cfg.make_args.v[i]);
	for (size_t i = 0; extra[i]; i++)
		bad |= il_strlist_push(&av, extra[i]);
	argv = bad ? NULL : calloc(av.n + 1, sizeof(*argv));
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

int il_kmake_quiet(char *const argv[], int *code, struct il_err *err)
{
	struct il_buf o = IL_BUF_INIT, e = IL_BUF_INIT;
	struct il_exit ex = { 0 };
	int r = il_proc_capture(argv, 0, NULL, &o, &e, &ex, err);

	*code = ex.code;
	il_buf_release(&o), il_buf_release(&e);
	return r;
}

const char *il_kmake_image(const struct il_kvar *v)
{
	const char *arch = v->cfg.arch;

	if (v->cfg.targets.n)
		return v->cfg.targets.v[0];
	return !strcmp(arch, "arm64") ? "Image" : !strcmp(arch, "x86") || !strcmp(arch, "x86_64") ? "bzImage" :
	       !strcmp(arch, "arm") ? "zImage" : "all";
}

/* mkdir of one directory; one that is there already is fine. */
static int mkdir_one(const char *dir, struct il_err *err)
{
	int e;

	if (!mkdir(dir, 0755) || errno == EEXIST)
		return 0;
	e = errno;
	return il_err_set(err, e == EACCES ? IL_EPERM : IL_EIO, "cannot create directory '%s': %s", dir, strerror(e));
}

/*
 * Each directory of the path in turn, so that the failure names the one that
 * could not be made: else the checkout or make after it fails on a missing
 * directory with a message about something else.
 */
int il_kmake_mkdirs(const char *path, struct il_err *err)
{
	char *p = strdup(path);
	int r = 0;

	if (!p)
		return il_err_oom(err);
	for (char *s = *p ? p + 1 : p; !r && *s; s++)
		if (*s == '/') {
			*s = 0;
			r = mkdir_one(p, err);
			*s = '/';
		}
	if (!r)
		r = mkdir_one(p, err);
	free(p);
	return r;
}

int il_kmake_copy(const char *from, const char *to, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	int r = il_buf_read_file(&b, from, (size_t)2 << 30, err);

	if (!r)
		r = il_buf_write_file_atomic(to, b.p ? b.p : "", b.len, err);
	il_buf_release(&b);
	return r;
}
