// SPDX-License-Identifier: GPL-2.0-or-later
/* Growable, capped byte buffers and whole-file I/O built on them. */
#include "util/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void il_buf_init(struct il_buf *b, size_t max)
{
	b->p = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
	b->truncated = false;
	b->nomem = false;
}

void il_buf_release(struct il_buf *b)
{
	free(b->p);
	il_buf_init(b, b->max);
}

void il_buf_reset(struct il_buf *b)
{
	b->len = 0;
	b->truncated = false;
	b->nomem = false;
	if (b->p)
		b->p[0] = '\0';
}

void il_buf_truncate(struct il_buf *b, size_t len)
{
	if (len < b->len) {
		b->len = len;
		b->p[len] = '\0';
	}
}

static int buf_grow(struct il_buf *b, size_t need)
{
	size_t cap;
	char *p;

	if (b->nomem)
		return IL_ENOMEM;
	if (need + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need + 1) {
		if (cap > ((size_t)-1) / 2)
			goto nomem;
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p)
		goto nomem;
	b->p = p;
	b->cap = cap;
	return 0;
nomem:
	b->nomem = true;
	return IL_ENOMEM;
}

int il_buf_add(struct il_buf *b, const void *data, size_t n)
{
	if (b->nomem)
		return IL_ENOMEM;
	if (b->max && b->len + n > b->max) {
		n = b->max > b->len ? b->max - b->len : 0;
		b->truncated = true;
	}
	if (buf_grow(b, b->len + n))
		return IL_ENOMEM;
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int il_buf_adds(struct il_buf *b, const char *s)
{
	return il_buf_add(b, s, strlen(s));
}

int il_buf_vprintf(struct il_buf *b, const char *fmt, va_list args)
{
	va_list ap;
	int n;

	if (b->nomem)
		return IL_ENOMEM;
	va_copy(ap, args);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return IL_EINVAL;
	if (buf_grow(b, b->len + (size_t)n))
		return IL_ENOMEM;
	if (b->max && b->len + (size_t)n > b->max) {
		/* format in place, then cut back to the cap */
		va_copy(ap, args);
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
		b->len = b->max > b->len ? b->max : b->len;
		b->p[b->len] = '\0';
		b->truncated = true;
		return 0;
	}
	va_copy(ap, args);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int il_buf_printf(struct il_buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = il_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return r;
}

int il_buf_error(const struct il_buf *b)
{
	return b->nomem ? IL_ENOMEM : b->truncated ? IL_ETOOBIG : 0;
}

int il_buf_carry(struct il_buf *b, const struct il_buf *scratch)
{
	if (scratch->nomem)
		b->nomem = true;
	return il_buf_error(b);
}

const char *il_buf_str(const struct il_buf *b)
{
	return b->p ? b->p : "";
}

char *il_buf_detach(struct il_buf *b)
{
	char *p = b->p;

	if (!p)
		p = calloc(1, 1);
	il_buf_init(b, b->max);
	return p;
}

int il_buf_read_file(struct il_buf *b, const char *path, size_t max, struct il_err *err)
{
	char chunk[65536];
	size_t start = b->len;
	int fd;
	int ret = 0;

	/* O_NONBLOCK: a FIFO planted under a config name must not hang us; only regular files are read */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return il_err_set(err, errno == ENOENT ? IL_ENOTFOUND : errno == EACCES ? IL_EPERM : IL_EIO,
				  "cannot open '%s': %s", path, strerror(errno));
	{
		struct stat st;

		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			return il_err_set(err, IL_EIO, "cannot read '%s': not a regular file", path);
		}
	}
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = il_err_set(err, IL_EIO, "cannot read '%s': %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (max && b->len - start + (size_t)n > max) {
			ret = il_err_set(err, IL_ETOOBIG, "'%s' is larger than %zu bytes", path, max);
			break;
		}
		if (il_buf_add(b, chunk, (size_t)n)) {
			ret = il_err_oom(err);
			break;
		}
	}
	close(fd);
	return ret;
}

int il_buf_write_file_atomic(const char *path, const void *data, size_t len, struct il_err *err)
{
	mode_t um = umask(022);

	umask(um);
	return il_buf_write_file_mode(path, data, len, 0644 & ~um, err);
}

int il_buf_write_file_mode(const char *path, const void *data, size_t len, unsigned mode, struct il_err *err)
{
	struct il_buf tmp = IL_BUF_INIT;
	const char *p = data;
	char *dircopy = NULL;
	int fd = -1, dfd;
	int ret = 0;

	/*
	 * The temporary name is random and created exclusively (mkostemp: O_EXCL,
	 * mode 0600), so nothing planted beside the target, a symlink included,
	 * is ever followed or overwritten; then the mode asked for.
	 */
	if (il_buf_printf(&tmp, "%s.tmp.XXXXXX", path))
		return il_err_oom(err);
	fd = mkostemp(tmp.p, O_CLOEXEC);
	if (fd < 0) {
		ret = il_err_set(err, IL_EIO, "cannot create '%s': %s", tmp.p, strerror(errno));
		il_buf_release(&tmp);
		return ret;
	}
	if (fchmod(fd, (mode_t)mode)) {
		ret = il_err_set(err, IL_EIO, "cannot chmod '%s': %s", tmp.p, strerror(errno));
		goto cleanup;
	}
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = il_err_set(err, IL_EIO, "cannot write '%s': %s", tmp.p, strerror(errno));
			goto cleanup;
		}
		p += n;
		len -= (size_t)n;
	}
	if (fsync(fd) || close(fd)) {
		fd = -1;
		ret = il_err_set(err, IL_EIO, "cannot sync '%s': %s", tmp.p, strerror(errno));
		goto cleanup;
	}
	fd = -1;
	if (rename(tmp.p, path)) {
		ret = il_err_set(err, IL_EIO, "cannot rename '%s' to '%s': %s", tmp.p, path, strerror(errno));
		goto cleanup;
	}
	dircopy = strdup(path);
	if (dircopy) {
		dfd = open(dirname(dircopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			(void)fsync(dfd);
			close(dfd);
		}
	}
cleanup:
	if (fd >= 0) {
		close(fd);
		unlink(tmp.p);
	} else if (ret) {
		unlink(tmp.p);
	}
	free(dircopy);
	il_buf_release(&tmp);
	return ret;
}
