// SPDX-License-Identifier: GPL-2.0-or-later
/* What the lab's build, its instances and its trees share (lab/labtool.h). */
#include "lab/labtool.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "util/proc.h"
#include "util/str.h"

int il_lab_resolve(const struct il_lab_opts *o, enum il_lab_arch *arch, char **instance, struct il_err *err)
{
	enum il_lab_arch a;
	int r;

	*instance = NULL;
	if (o->arch && *o->arch)
		r = il_lab_arch_parse(o->arch, &a, err);
	else
		a = il_lab_arch_of_instance(o->name), r = 0;
	if (!r)
		r = il_lab_instance_name(a, o->name, instance, err);
	if (!r && arch)
		*arch = a;
	return r;
}

int il_lab_ref_open(struct il_lab_ref *l, const struct il_lab_opts *o, struct il_err *err)
{
	int r = il_lab_resolve(o, &l->a, &l->name, err);

	l->A = &il_lab_archs[r ? IL_LAB_ARM64 : l->a];
	return r;
}

void il_lab_ref_release(struct il_lab_ref *l)
{
	free(l->name);
	l->name = NULL;
}

char *il_lab_ref_dir(const struct il_lab_opts *o, const struct il_lab_ref *l)
{
	return il_str_dup_printf("%s/lab/run/%s", o->cache_dir, l->name);
}

char *il_lab_run_dir(const struct il_lab_opts *o)
{
	struct il_lab_ref l = { 0 };
	char *d = il_lab_ref_open(&l, o, NULL) ? NULL : il_lab_ref_dir(o, &l);

	il_lab_ref_release(&l);
	return d;
}

const char *il_lab_src(const struct il_lab_opts *o)
{
	return o->src_dir && *o->src_dir ? o->src_dir : ".";
}

int il_lab_cpus(const struct il_lab_opts *o)
{
	return o->cpus > 0 ? o->cpus : 2;
}

int il_lab_mem(const struct il_lab_opts *o)
{
	return o->mem_mb > 0 ? o->mem_mb : 512;
}

bool il_lab_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

int il_lab_tool(char *const argv[], int timeout_ms, const char *what, struct il_err *err)
{
	struct il_buf out = IL_BUF_INIT, e = IL_BUF_INIT;
	struct il_exit ex;
	int r;

	/* bounded: a chatty tool cannot grow idlelab without limit; the error shows the end anyway */
	il_buf_init(&out, (size_t)1 << 20);
	il_buf_init(&e, (size_t)1 << 20);
	r = il_proc_capture(argv, timeout_ms, NULL, &out, &e, &ex, err);
	if (!r && ex.code) {
		const char *t = il_buf_str(&e);

		r = il_err_set(err, IL_ECHILD, "%s failed (exit %d): %s", what, ex.code,
			       e.len > 600 ? t + e.len - 600 : t);
	}
	il_buf_release(&out);
	il_buf_release(&e);
	return r;
}

int il_lab_sh(const char *script, const char *what, struct il_err *err, ...)
{
	char *argv[16] = { (char *)"sh", (char *)"-c", (char *)script, (char *)"sh" };
	size_t n = 4;
	va_list ap;
	const char *a;

	va_start(ap, err);
	while ((a = va_arg(ap, const char *)) && n < 15)
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	return il_lab_tool(argv, 0, what, err);
}

void il_lab_step(il_lab_cb cb, void *ctx, const char *what, double t0)
{
	if (cb)
		cb(what, il_clock_mono_s() - t0, ctx);
}
