// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The local transport (host/transport.h): this machine, fork/exec, the
 * built-in host `local`. Its copies are plain file copies, checked by
 * SHA-256 on both sides as over SSH; its held command is a child process
 * (il_transport_proc_new).
 */
#include "host/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/proc.h"
#include "util/sha256.h"

static int local_exec(struct il_transport *t, char *const argv[], const struct il_exec_opts *o,
		      struct il_exec_result *res, struct il_err *err)
{
	struct il_exit ex;
	int r = il_proc_capture_in(argv, o->input, o->timeout_ms, o->cancel, &res->out, &res->err, &ex, err);

	if (r)
		return il_err_prefix(err, "host '%s': ", t->label);
	res->exit_code = ex.signal ? -1 : ex.code;
	res->signal = ex.signal;
	return 0;
}

static int copy_verified(const char *label, const char *from, const char *to, struct il_err *err)
{
	struct il_buf data = IL_BUF_INIT;
	char a[65], b[65];
	int r;

	if ((r = il_buf_read_file(&data, from, 0, err)))
		goto out;
	if ((r = il_buf_write_file_atomic(to, il_buf_str(&data), data.len, err)))
		goto out;
	if ((r = il_sha256_file(from, a, err)) || (r = il_sha256_file(to, b, err)))
		goto out;
	if (strcmp(a, b))
		r = il_err_set(err, IL_EIO, "checksum mismatch copying '%s' to '%s'", from, to);
out:
	il_buf_release(&data);
	return r ? il_err_prefix(err, "host '%s': ", label) : 0;
}

static int local_upload(struct il_transport *t, const char *local, const char *remote, struct il_err *err)
{
	return copy_verified(t->label, local, remote, err);
}

static int local_download(struct il_transport *t, const char *remote, const char *local, struct il_err *err)
{
	return copy_verified(t->label, remote, local, err);
}

static int local_hold(struct il_transport *t, char *const argv[], int timeout_ms, struct il_buf *first,
		      struct il_err *err)
{
	struct il_transport_proc *l = (struct il_transport_proc *)t;

	il_proc_release(&l->held);
	return il_proc_hold(argv, timeout_ms, &l->held, first, err) ? il_err_prefix(err, "host '%s': ", t->label) : 0;
}

int il_transport_local_open(struct il_transport **out, const struct il_host_cfg *cfg, struct il_err *err)
{
	struct il_transport_proc *l = il_transport_proc_new(cfg);
	struct il_transport *t;

	if (!l)
		return il_err_oom(err);
	t = &l->base;
	snprintf(t->auth, sizeof(t->auth), "local");
	t->is_root = geteuid() == 0;
	t->exec = local_exec;
	t->upload = local_upload;
	t->hold = local_hold;
	t->download = local_download;
	*out = t;
	return 0;
}
