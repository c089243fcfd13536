// SPDX-License-Identifier: GPL-2.0-or-later
/* idlelab's private working directory on a host. */
#include "host/workdir.h"

#include <stdlib.h>
#include <string.h>

#include "host/runners.h"
#include "util/buf.h"
#include "util/str.h"

char *il_workdir_script(const char *script)
{
	struct il_buf b = IL_BUF_INIT;

	if (il_buf_printf(&b, "%s\n%s", il_runners_script("own.sh"), script))
		il_buf_release(&b);
	return il_buf_detach(&b);
}

int il_workdir_get(struct il_transport *t, const char *const subs[], char **dir, struct il_err *err)
{
	struct il_exec_opts o = { .privileged = false };
	struct il_exec_result res;
	char *script = il_workdir_script(il_runners_script("workdir.sh"));
	const char *out, *p;
	int r;

	*dir = NULL;
	if (!script)
		return il_err_oom(err);
	r = il_transport_run_script(t, script, (char *const *)subs, &o, &res, err);
	free(script);
	if (r)
		return r;
	out = il_buf_str(&res.out);
	if ((p = strstr(out, "idlelab.workdir_fail:"))) {
		p += strlen("idlelab.workdir_fail:");
		r = il_err_set(err, IL_EPERM, "host '%s': idlelab's working directory: %.*s", t->label,
			       (int)strcspn(p, "\n"), p);
	} else if (!strncmp(out, "idlelab.workdir:", 16) && strstr(out, ":/") && !res.exit_code) {
		p = out + strlen("idlelab.workdir:");
		if (!(*dir = il_str_ndup(p, strcspn(p, "\n"))))
			r = il_err_oom(err);
	} else {
		r = il_err_set(err, IL_EIO, "host '%s': the working directory script failed (exit %d): %.300s", t->label,
			       res.exit_code, il_buf_str(&res.err));
	}
	il_transport_result_release(&res);
	return r;
}

const char *il_workdir_path(const char *dir)
{
	const char *p = dir ? strchr(dir, ':') : NULL;

	return p ? p + 1 : dir;
}
