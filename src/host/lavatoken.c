// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The LAVA API token: its file (ssh's owner and mode rules), the connection
 * that holds it (wiped on release), and keeping it out of what idlelab says:
 * whatever a server answers is redacted of it before anything reads it.
 */
#include "host/lava.h"
#include "util/str.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define AUTH_PREFIX "Authorization: Token "
#define REDACTED "<token>"

/* ---- the token ---- */

#define TOKEN_MAX 4096

int il_lava_token_read(const char *path, char **tok, struct il_err *err)
{
	char buf[TOKEN_MAX + 1];
	size_t len = 0, a, b;
	struct stat st;
	ssize_t n;
	int fd, r = 0;

	*tok = NULL;
	/* O_NONBLOCK: a FIFO put there must not hang the open; it is refused below as not a regular file */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return il_err_set(err, errno == ENOENT ? IL_ENOTFOUND : errno == EACCES ? IL_EPERM : IL_EIO,
				  "%s: %s (the LAVA API token file)", path, strerror(errno));
	/* the checks are on the file opened, not on the name: it cannot be swapped between them */
	if (fstat(fd, &st)) {
		r = il_err_set(err, IL_EIO, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = il_err_set(err, IL_EINVAL, "%s: not a regular file (the LAVA API token file)", path);
		goto out;
	}
	if (st.st_uid != geteuid()) {
		r = il_err_set(err, IL_EPERM, "%s: owned by uid %u, not by uid %u that runs idlelab (the LAVA API token file)",
			       path, (unsigned)st.st_uid, (unsigned)geteuid());
		goto out;
	}
	if (st.st_mode & 077) {
		r = il_err_set(err, IL_EPERM,
			       "%s: permissions %04o are too open: the LAVA API token file must not be accessible by "
			       "group or others (chmod 600 '%s')",
			       path, (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = il_err_set(err, IL_EIO, "%s: %s", path, strerror(errno));
			goto out;
		}
		len += (size_t)n;
	}
	buf[len < sizeof(buf) ? len : TOKEN_MAX] = '\0';
	b = strcspn(buf, "\n");
	if (len > TOKEN_MAX && b == TOKEN_MAX) {
		r = il_err_set(err, IL_EPARSE, "%s: first line longer than %d bytes: not an API token", path, TOKEN_MAX);
		goto out;
	}
	for (a = 0; a < b && strchr(" \t\r", buf[a]); a++)
		;
	while (b > a && strchr(" \t\r", buf[b - 1]))
		b--;
	if (a == b) {
		r = il_err_set(err, IL_EPARSE, "%s: expected the LAVA API token on the first line, found none", path);
		goto out;
	}
	for (size_t i = a; i < b; i++)
		if ((unsigned char)buf[i] <= ' ' || (unsigned char)buf[i] >= 0x7f) {
			/* what it holds is a secret, or near one: only where */
			r = il_err_set(err, IL_EPARSE,
				       "%s: the first line is not an API token (printable ASCII without blanks; byte %zu is not)",
				       path, i - a + 1);
			goto out;
		}
	if (!(*tok = il_str_ndup(buf + a, b - a)))
		r = il_err_oom(err);
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return r;
}

/* ---- the connection ---- */

int il_lava_conn_open(struct il_lava_conn *c, const struct il_lava_cfg *cfg, struct il_err *err)
{
	char *tok;
	int r;

	memset(c, 0, sizeof(*c));
	c->cfg = cfg;
	c->user_agent = "idlelab (lava)";
	c->timeout_s = 60;
	if ((r = il_lava_token_read(cfg->token_file, &tok, err)))
		return r;
	c->auth = il_str_dup_printf(AUTH_PREFIX "%s", tok);
	explicit_bzero(tok, strlen(tok));
	free(tok);
	return c->auth ? 0 : il_err_oom(err);
}

void il_lava_conn_release(struct il_lava_conn *c)
{
	if (c->auth)
		explicit_bzero(c->auth, strlen(c->auth));
	free(c->auth);
	memset(c, 0, sizeof(*c));
}

/* ---- the token in what the server says ---- */

/* c's token, NULL without one */
static const char *token_of(const struct il_lava_conn *c)
{
	return c && c->auth && !strncmp(c->auth, AUTH_PREFIX, strlen(AUTH_PREFIX)) && c->auth[strlen(AUTH_PREFIX)]
		       ? c->auth + strlen(AUTH_PREFIX)
		       : NULL;
}

void il_lava_redact(struct il_buf *out, const char *s, size_t len, const struct il_lava_conn *c)
{
	const char *tok = token_of(c), *p = s, *end = s + len, *hit;
	size_t tl = tok ? strlen(tok) : 0;

	while (tok && p < end && (hit = memmem(p, (size_t)(end - p), tok, tl))) {
		il_buf_add(out, p, (size_t)(hit - p));
		il_buf_adds(out, REDACTED);
		p = hit + tl;
	}
	il_buf_add(out, p, (size_t)(end - p));
}

/*
 * A server (or a proxy in front of it) that echoes the request's token into
 * an error answer or a log must not get it into a message, a log or the
 * journal through idlelab: the body is redacted before anything parses it.
 */
int il_lava_scrub_body(const struct il_lava_conn *c, struct il_buf *b, struct il_err *err)
{
	const char *tok = token_of(c);
	struct il_buf clean = IL_BUF_INIT;

	if (!tok || !b->p || !memmem(b->p, b->len, tok, strlen(tok)))
		return 0;
	il_lava_redact(&clean, b->p, b->len, c);
	if (il_buf_error(&clean)) {
		il_buf_release(&clean);
		return il_err_oom(err);
	}
	il_buf_release(b);
	*b = clean;
	return 0;
}

/* The last guard of every call: a parser may have turned an escaped token ("\/", "\u0041") back into it. */
int il_lava_scrub_err(const struct il_lava_conn *c, int r, struct il_err *err)
{
	const char *tok = token_of(c);
	struct il_buf clean = IL_BUF_INIT;

	if (!r || !err || !tok || !strstr(err->msg, tok))
		return r;
	il_lava_redact(&clean, err->msg, strlen(err->msg), c);
	if (!il_buf_error(&clean)) {
		il_str_lcpy(err->msg, il_buf_str(&clean), sizeof(err->msg));
	} else {
		/* without memory for the copy: starred out where it stands */
		for (char *hit = err->msg; (hit = strstr(hit, tok)); hit += strlen(tok))
			memset(hit, '*', strlen(tok));
	}
	il_buf_release(&clean);
	return r;
}
