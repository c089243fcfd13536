// SPDX-License-Identifier: GPL-2.0-or-later
/* idlelab's own workloads: building them for an architecture on demand. */
#include "workload/own.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/proc.h"

int il_own_build(const char *src_dir, const char *arch, struct il_err *err)
{
	const char *src = src_dir && *src_dir ? src_dir : ".";
	struct il_buf mk = IL_BUF_INIT, a = IL_BUF_INIT, out = IL_BUF_INIT, e = IL_BUF_INIT;
	struct il_exit ex;
	int r;

	if (!arch || !*arch || strspn(arch, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(arch))
		return il_err_set(err, IL_EINVAL, "own workloads: bad architecture name '%s'", arch ? arch : "");
	if (il_buf_printf(&mk, "%s/workloads/src/wl.h", src) || il_buf_printf(&a, "ARCH=%s", arch)) {
		r = il_err_oom(err);
		goto out;
	}
	if (access(mk.p, R_OK)) {
		r = il_err_set(err, IL_ENOTFOUND, "own workloads: '%s' is not an idlelab checkout (no %s)", src, mk.p);
		goto out;
	}
	{
		char *argv[] = { (char *)"make", (char *)"-s", (char *)"-C", (char *)src, (char *)"workloads", a.p, NULL };

		il_buf_init(&out, (size_t)1 << 20);
		il_buf_init(&e, (size_t)1 << 20);
		r = il_proc_capture(argv, 600000, NULL, &out, &e, &ex, err);
	}
	if (!r && ex.code) {
		const char *t = il_buf_str(&e);

		r = il_err_set(err, IL_ECHILD,
			       "building idlelab's own workloads for %s failed (make workloads ARCH=%s, exit %d; "
			       "cross builds need gcc-%s-linux-gnu, make deps installs it for aarch64): %s",
			       arch, arch, ex.code, arch, e.len > 600 ? t + e.len - 600 : t);
	}
out:
	il_buf_release(&mk);
	il_buf_release(&a);
	il_buf_release(&out);
	il_buf_release(&e);
	return r;
}
