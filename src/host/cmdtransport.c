// SPDX-License-Identifier: GPL-2.0-or-later
/* The command transport: exec, transfers and the held lock through the host file's argv templates (see cmdtransport.h). */
#include "host/cmdtransport.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/quote.h"
#include "util/proc.h"
#include "util/sha256.h"
#include "util/str.h"
#include "util/strlist.h"
#include "util/template.h"

/* What a download without "pull" may bring back through `cat` (it is held in memory once). */
#define IL_CMDTR_CAT_MAX (256u << 20)
/* What push and pull may print. */
#define IL_CMDTR_COPY_OUT (64u << 10)

const char *const il_cmdtransport_exec_names[] = { "cmd", NULL };
const char *const il_cmdtransport_copy_names[] = { "src", "dst", NULL };

int il_cmdtransport_command(struct il_buf *b, char *const argv[], const char *nonce)
{
	if (il_quote_argv(b, argv))
		return IL_ENOMEM;
	return il_buf_printf(b, "; printf '\\nidlelab-rc:%s:%%d\\n' \"$?\" >&2", nonce) ? IL_ENOMEM : 0;
}

/* The last marker line "\nidlelab-rc:NONCE:N\n" in b ("\r\n" too) cut out, N into *code. */
static bool cut_marker(struct il_buf *b, const char *nonce, int *code)
{
	char tag[64];
	size_t tl = (size_t)snprintf(tag, sizeof(tag), "\nidlelab-rc:%s:", nonce);

	if (!b->p || tl >= sizeof(tag) || b->len < tl)
		return false;
	for (size_t i = b->len - tl + 1; i-- > 0;) {
		const char *d = b->p + i + tl, *e = d;
		size_t start = i, stop;
		long v = 0;

		if (memcmp(b->p + i, tag, tl))
			continue;
		while (e < b->p + b->len && isdigit((unsigned char)*e) && e - d < 4)
			v = v * 10 + (*e++ - '0');
		if (e == d || v > 255)
			continue;
		if (e < b->p + b->len && *e == '\r')
			e++;
		if (e >= b->p + b->len || *e != '\n')
			continue;
		stop = (size_t)(e + 1 - b->p);
		if (start && b->p[start - 1] == '\r')
			start--;
		memmove(b->p + start, b->p + stop, b->len - stop + 1); /* with the NUL */
		b->len -= stop - start;
		*code = (int)v;
		return true;
	}
	return false;
}

bool il_cmdtransport_status(struct il_buf *out, struct il_buf *errb, const char *nonce, int *code)
{
	return cut_marker(errb, nonce, code) || cut_marker(out, nonce, code);
}

/* A template of the host's with its placeholders' values, as an argv (the caller frees it). */
static int expand(const struct il_strlist *tpl, const char *const names[], const char *const vals[], char ***argv,
		  struct il_err *err)
{
	struct il_tpl_vals tv = { names, vals };

	return il_template_expand_argv(tpl->v, tpl->n, il_template_value_list, &tv, argv, err);
}

int il_cmdtransport_argv(const struct il_host_cfg *cfg, char *const argv[], const char *nonce, char ***av, struct il_err *err)
{
	struct il_buf cmd = IL_BUF_INIT;
	int r;

	if (nonce ? il_cmdtransport_command(&cmd, argv, nonce) : il_quote_argv(&cmd, argv))
		r = il_err_oom(err);
	else
		r = expand(&cfg->cmds.exec, il_cmdtransport_exec_names, (const char *const[]){ il_buf_str(&cmd) }, av, err);
	il_buf_release(&cmd);
	return r;
}

/*
 * A failure of util/proc running the transport's program prog (from the
 * template key) for what (idlelab's command, or "push"/"pull"), in words.
 */
static int proc_fail(struct il_transport *t, const char *key, const char *what, const char *prog, int r,
		     int timeout_ms, struct il_err *err)
{
	if (r == IL_ETIMEOUT)
		return il_err_set(err, r, "host '%s': '%s' timed out after %.1f s (the transport's '%s' was killed)", t->label,
				  what, timeout_ms / 1e3, prog);
	if (r == IL_EINTR)
		return il_err_set(err, r, "host '%s': '%s' was stopped (interrupted; the transport's '%s' was killed)",
				  t->label, what, prog);
	return il_err_prefix(err, "host '%s': transport.%s: ", t->label, key);
}

static int cmd_exec(struct il_transport *t, char *const argv[], const struct il_exec_opts *o,
		    struct il_exec_result *res, struct il_err *err)
{
	char nonce[17], **av = NULL;
	struct il_exit ex;
	int r;

	il_transport_nonce(nonce);
	if ((r = il_cmdtransport_argv(t->cfg, argv, nonce, &av, err)))
		return r;
	r = il_proc_capture_in(av, o->input, o->timeout_ms, o->cancel, &res->out, &res->err, &ex, err);
	if (r) {
		r = proc_fail(t, "exec", argv[0], av[0], r, o->timeout_ms, err);
	} else if (il_cmdtransport_status(&res->out, &res->err, nonce, &res->exit_code)) {
		res->signal = 0;
	} else if (!res->out.truncated && !res->err.truncated) {
		const char *e = il_buf_str(&res->err);
		size_t n = strlen(e);

		r = il_err_set(err, IL_ECONNECT, "host '%s': '%s' did not run to its end: the transport's '%s' %s %d%s%.300s",
			       t->label, argv[0], av[0], ex.signal ? "was killed by signal" : "exited",
			       ex.signal ? ex.signal : ex.code, n ? ": " : "", n > 300 ? e + n - 300 : e);
	}
	/* else the marker was cut off with the capped output: the exit code is unknown (-1) */
	free(av);
	return r;
}

/* push or pull (which: the key) from src to dst; the program's exit status and stderr decide. */
static int copy(struct il_transport *t, const struct il_strlist *tpl, const char *which, const char *src,
		const char *dst, struct il_err *err)
{
	struct il_buf out = IL_BUF_INIT, er = IL_BUF_INIT;
	int timeout_ms = t->cfg->command_timeout_s * 1000;
	struct il_exit ex;
	char **av = NULL;
	int r;

	if ((r = expand(tpl, il_cmdtransport_copy_names, (const char *const[]){ src, dst }, &av, err)))
		return r;
	il_buf_init(&out, IL_CMDTR_COPY_OUT);
	il_buf_init(&er, IL_CMDTR_COPY_OUT);
	r = il_proc_capture(av, timeout_ms, NULL, &out, &er, &ex, err);
	if (r)
		r = proc_fail(t, which, which, av[0], r, timeout_ms, err);
	else if (il_proc_exit_status(&ex))
		r = il_err_set(err, strstr(il_buf_str(&er), "No such file") ? IL_ENOTFOUND : IL_EIO, "host '%s': transport.%s '%s' of '%s' to '%s' failed (exit %d): %.300s", t->label,
			       which, av[0], src, dst, il_proc_exit_status(&ex), er.len ? il_buf_str(&er) : il_buf_str(&out));
	il_buf_release(&out);
	il_buf_release(&er);
	free(av);
	return r;
}

/* `rm -f path` on the host, whatever happens (a temporary name after a failure). */
static void remove_remote(struct il_transport *t, const char *path)
{
	char *rm[] = { (char *)"rm", (char *)"-f", (char *)path, NULL };
	struct il_exec_result res;
	struct il_err ignored = { 0 };

	if (!il_transport_exec(t, rm, NULL, &res, &ignored))
		il_transport_result_release(&res);
}

static int cmd_upload(struct il_transport *t, const char *local, const char *remote, struct il_err *err)
{
	struct il_buf tmp = IL_BUF_INIT;
	char lhex[65], rhex[65];
	int r;

	if ((r = il_sha256_file(local, lhex, err)))
		return r;
	if (il_transport_tmpname(&tmp, remote))
		return il_err_oom(err);
	if (!(r = copy(t, &t->cfg->cmds.push, "push", local, tmp.p, err)) &&
	    !(r = il_transport_sha256(t, tmp.p, rhex, err)) && strcmp(lhex, rhex))
		r = il_err_set(err, IL_EIO, "host '%s': checksum mismatch after upload of '%s' (sent %s, got %s)", t->label,
			       local, lhex, rhex);
	if (!r)
		r = il_transport_rename(t, tmp.p, remote, err);
	if (r)
		remove_remote(t, tmp.p);
	il_buf_release(&tmp);
	return r;
}

/* A download without pull: `cat REMOTE` through exec, its stdout written to tmp as it came. */
static int cat_into(struct il_transport *t, const char *remote, int fd, const char *tmp, char hex[65],
		    struct il_err *err)
{
	char *argv[] = { (char *)"cat", (char *)remote, NULL };
	struct il_exec_opts o = { .max_out = IL_CMDTR_CAT_MAX };
	struct il_exec_result res;
	struct il_sha256 h;
	int r;

	if ((r = il_transport_exec(t, argv, &o, &res, err)))
		return r;
	if (res.exit_code)
		r = il_err_set(err, strstr(il_buf_str(&res.err), "No such file") ? IL_ENOTFOUND : IL_EIO,
			       "host '%s': cannot read '%s': %s", t->label, remote, il_buf_str(&res.err));
	else if (res.out.truncated)
		r = il_err_set(err, IL_ETOOBIG, "host '%s': '%s' is larger than %u MiB (set \"pull\" in the host's "
			       "\"transport\" to download it)", t->label, remote, IL_CMDTR_CAT_MAX >> 20);
	else if (res.out.len && write(fd, res.out.p, res.out.len) != (ssize_t)res.out.len)
		r = il_err_set(err, IL_EIO, "cannot write '%s': %s", tmp, strerror(errno));
	else if (il_sha256_init(&h))
		r = il_err_oom(err);
	else {
		il_sha256_update(&h, res.out.p ? res.out.p : "", res.out.len);
		il_sha256_final(&h, hex);
	}
	il_transport_result_release(&res);
	return r;
}

static int cmd_download(struct il_transport *t, const char *remote, const char *local, struct il_err *err)
{
	struct il_buf tmp = IL_BUF_INIT;
	char lhex[65], rhex[65];
	int fd, r;

	if (il_buf_printf(&tmp, "%s.idlelab-tmp.XXXXXX", local))
		return il_err_oom(err);
	fd = mkostemp(tmp.p, O_CLOEXEC); /* exclusive, random: see il_buf_write_file_atomic */
	if (fd < 0) {
		r = il_err_set(err, IL_EIO, "cannot create '%s': %s", tmp.p, strerror(errno));
		il_buf_release(&tmp);
		return r;
	}
	if (!t->cfg->cmds.pull.n)
		r = cat_into(t, remote, fd, tmp.p, lhex, err);
	else if (!(r = copy(t, &t->cfg->cmds.pull, "pull", remote, tmp.p, err)))
		r = il_sha256_file(tmp.p, lhex, err);
	if (!r && !(r = il_transport_sha256(t, remote, rhex, err)) && strcmp(lhex, rhex))
		r = il_err_set(err, IL_EIO, "host '%s': checksum mismatch downloading '%s' (got %s, the host has %s)",
			       t->label, remote, lhex, rhex);
	if (!r && fsync(fd))
		r = il_err_set(err, IL_EIO, "cannot sync '%s': %s", tmp.p, strerror(errno));
	close(fd);
	if (!r && rename(tmp.p, local))
		r = il_err_set(err, IL_EIO, "cannot rename '%s' to '%s': %s", tmp.p, local, strerror(errno));
	if (r)
		unlink(tmp.p);
	il_buf_release(&tmp);
	return r;
}

static int cmd_hold(struct il_transport *t, char *const argv[], int timeout_ms, struct il_buf *first,
		    struct il_err *err)
{
	struct il_transport_proc *c = (struct il_transport_proc *)t;
	char **av = NULL;
	int r;

	il_proc_release(&c->held);
	if ((r = il_cmdtransport_argv(t->cfg, argv, NULL, &av, err)))
		return r;
	if ((r = il_proc_hold(av, timeout_ms, &c->held, first, err)))
		r = proc_fail(t, "exec", argv[0], av[0], r, timeout_ms, err);
	free(av);
	return r;
}

/* A uid as `id -u` prints it: decimal digits alone on the line (a "\r\n" from a terminal accepted). */
static bool uid_line(const char *s, size_t len, unsigned long *uid)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*uid = strtoul(s, &end, 10);
	if (errno || *uid > 0xffffffffUL)
		return false;
	if (*end == '\r')
		end++;
	if (*end == '\n')
		end++;
	return end == s + len;
}

/*
 * `id -u` through the transport: it works, and whether it is root. Once the
 * exit status marker came back the host did answer: a failure or garbage
 * from it is the host's answer (IL_EIO, IL_EPARSE: the audit's probe_failed),
 * never IL_ECONNECT (unreachable), which only il_transport_exec says.
 */
static int whoami(struct il_transport *t, struct il_err *err)
{
	char *argv[] = { (char *)"id", (char *)"-u", NULL };
	struct il_exec_opts o = { .timeout_ms = t->cfg->connect_timeout_s * 1000, .max_out = 4096 };
	struct il_exec_result res;
	unsigned long uid;
	int r;

	if ((r = il_transport_exec(t, argv, &o, &res, err)))
		return r;
	if (res.exit_code) {
		r = il_err_set(err, IL_EIO, "host '%s': 'id -u' through the transport failed (exit %d): %.300s%.300s",
			       t->label, res.exit_code, il_buf_str(&res.err), res.err.len ? "" : il_buf_str(&res.out));
	} else if (!uid_line(il_buf_str(&res.out), res.out.len, &uid)) {
		const char *o1 = il_buf_str(&res.out);
		size_t n = strnlen(o1, 64);
		char *shown;

		while (n && (o1[n - 1] == '\n' || o1[n - 1] == '\r'))
			n--;
		shown = il_str_sanitize(il_str_ndup(o1, n), false);

		r = il_err_set(err, IL_EPARSE, "host '%s': 'id -u' through the transport answered '%s'%s: expected a "
			       "numeric user id alone on its line", t->label, shown ? shown : "", strlen(o1) > 64 ? "..." : "");
		free(shown);
	} else {
		t->is_root = uid == 0;
	}
	il_transport_result_release(&res);
	return r;
}

int il_cmdtransport_open(struct il_transport **out, const struct il_host_cfg *cfg, struct il_err *err)
{
	struct il_transport_proc *c;
	struct il_transport *t;
	int r;

	*out = NULL;
	if (!cfg->cmds.exec.n || !cfg->cmds.push.n)
		return il_err_set(err, IL_EINVAL, "host '%s': no \"transport\" commands", cfg->name);
	if (!(c = il_transport_proc_new(cfg)))
		return il_err_oom(err);
	t = &c->base;
	{
		char prog[64];

		il_str_lcpy(prog, cfg->cmds.exec.v[0], sizeof(prog));
		snprintf(t->auth, sizeof(t->auth), "the transport's own (%s)", basename(prog));
	}
	t->exec = cmd_exec;
	t->upload = cmd_upload;
	t->download = cmd_download;
	t->hold = cmd_hold;
	if ((r = whoami(t, err))) {
		t->free(t);
		return r;
	}
	*out = t;
	return 0;
}
