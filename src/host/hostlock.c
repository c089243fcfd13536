// SPDX-License-Identifier: GPL-2.0-or-later
/* The host lock: a flock held on the host for as long as this connection lives. */
#include "host/hostlock.h"

#include <stdlib.h>
#include <string.h>

#include "host/runners.h"
#include "host/workdir.h"
#include "util/buf.h"

int il_host_lock(struct il_transport *t, const char *workdir, const char *holder, struct il_err *err)
{
	char *script = il_workdir_script(il_runners_script("lock.sh"));
	char *argv[] = { (char *)"sh", (char *)"-c", script, (char *)"idlelab", (char *)workdir, (char *)holder, NULL };
	struct il_buf first = IL_BUF_INIT;
	const char *l;
	int r;

	if (!script)
		return il_err_oom(err);
	il_buf_init(&first, 4096);
	r = t->hold(t, argv, 30000, &first, err);
	free(script);
	l = il_buf_str(&first);
	if (r || (!strncmp(l, "idlelab.lock:held", 17) && t->hold_alive(t)))
		; /* an error of the transport, or held */
	else if (!strncmp(l, "idlelab.lock_busy:", 18))
		r = il_err_set(err, IL_EPERM, "host '%s' is in use by another idlelab run (%.*s); one run per host at a time",
			       t->label, (int)strcspn(l + 18, "\n"), l + 18);
	else if (!strncmp(l, "idlelab.lock_fail:", 18))
		r = il_err_set(err, IL_EPERM, "host '%s': cannot lock the host: %.*s", t->label, (int)strcspn(l + 18, "\n"),
			       l + 18);
	else
		r = il_err_set(err, IL_EIO, "host '%s': the lock script said '%.200s'", t->label, l);
	il_buf_release(&first);
	return r;
}

bool il_host_lock_held(struct il_transport *t)
{
	return t->hold_alive(t);
}

void il_host_unlock(struct il_transport *t)
{
	t->hold_release(t);
}
