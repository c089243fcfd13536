// SPDX-License-Identifier: GPL-2.0-or-later
/* Append-only JSON-lines journal with fsync per record. */
#include "run/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"

static int fsync_dir_of(const char *path)
{
	char *copy = strdup(path);
	int fd, r = -1;

	if (!copy)
		return -1;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		r = fsync(fd);
		close(fd);
	}
	free(copy);
	return r;
}

int il_journal_open(struct il_journal *j, const char *path, struct il_err *err)
{
	struct stat st;
	bool existed = !stat(path, &st);

	j->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	j->path = NULL;
	if (j->fd < 0)
		return il_err_set(err, IL_EIO, "cannot open journal '%s': %s", path, strerror(errno));
	if (!(j->path = strdup(path))) {
		close(j->fd);
		j->fd = -1;
		return il_err_set(err, IL_ENOMEM, "out of memory");
	}
	if (!existed && fsync_dir_of(path))
		return il_err_set(err, IL_EIO, "cannot sync the directory of '%s': %s", path, strerror(errno));
	return 0;
}

int il_journal_append(struct il_journal *j, const json_t *rec, struct il_err *err)
{
	char *s = json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
	size_t len, off = 0;

	if (!s)
		return il_err_set(err, IL_ENOMEM, "cannot serialise a journal record");
	len = strlen(s);
	s[len] = 0;
	{
		/* one write of the line and its newline keeps a torn record at the end only */
		char *line = malloc(len + 1);

		if (!line) {
			free(s);
			return il_err_set(err, IL_ENOMEM, "out of memory");
		}
		memcpy(line, s, len);
		line[len++] = '\n';
		free(s);
		s = line;
	}
	while (off < len) {
		ssize_t n = write(j->fd, s + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = errno;

			free(s);
			return il_err_set(err, IL_EIO, "cannot append to journal '%s': %s", j->path, strerror(e));
		}
		off += (size_t)n;
	}
	free(s);
	if (fsync(j->fd))
		return il_err_set(err, IL_EIO, "cannot fsync journal '%s': %s", j->path, strerror(errno));
	return 0;
}

void il_journal_close(struct il_journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	free(j->path);
	j->path = NULL;
}

int il_journal_each(const char *path, il_journal_fn fn, void *ctx, size_t *torn, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	const char *p, *end;
	size_t line = 0;
	int r;

	if (torn)
		*torn = 0;
	if ((r = il_buf_read_file(&b, path, (size_t)8 << 30, err)))
		return r;
	p = il_buf_str(&b);
	end = p + b.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		json_error_t je;
		json_t *rec;

		line++;
		if (!nl) {
			/* a crash during the append: the record never counted */
			if (torn)
				*torn = n;
			break;
		}
		rec = json_loadb(p, n, JSON_REJECT_DUPLICATES, &je);
		if (!rec) {
			r = il_err_set(err, IL_EPARSE, "%s:%zu: not a JSON record (column %d: %s)", path, line, je.column,
				       je.text);
			break;
		}
		if (!json_is_object(rec) || !json_is_string(json_object_get(rec, "type"))) {
			json_decref(rec);
			r = il_err_set(err, IL_EPARSE, "%s:%zu: expected an object with a string \"type\"", path, line);
			break;
		}
		r = fn(rec, line, ctx, err);
		json_decref(rec);
		if (r)
			break;
		p = nl + 1;
	}
	il_buf_release(&b);
	return r;
}

int il_journal_repair(const char *path, size_t *removed, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	size_t keep;
	int r, fd;

	*removed = 0;
	if ((r = il_buf_read_file(&b, path, (size_t)8 << 30, err)))
		return r;
	keep = b.len;
	while (keep > 0 && b.p[keep - 1] != '\n')
		keep--;
	*removed = b.len - keep;
	il_buf_release(&b);
	if (!*removed)
		return 0;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)keep) || fsync(fd)) {
		r = il_err_set(err, IL_EIO, "cannot repair journal '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	close(fd);
	return 0;
}

struct first_failure {
	char *reason;
	bool build;
};

static int first_failure_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct first_failure *w = ctx;
	const char *reason = json_string_value(json_object_get(rec, "reason"));

	(void)line, (void)err;
	if (!w->reason && reason && !strcmp(json_string_value(json_object_get(rec, "type")), "sample")) {
		w->reason = strdup(reason);
		w->build = strstr(reason, "did not build") != NULL;
	}
	return 0;
}

void il_journal_first_failure(const char *path, char **reason, bool *build)
{
	struct first_failure w = { 0 };

	il_journal_each(path, first_failure_rec, &w, NULL, NULL);
	*reason = w.reason;
	*build = w.build;
}
