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
#include "util/jsonfile.h"

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

/*
 * Cut a torn last line (a crash or a full disk during an append) off the file
 * open on fd: the next record appended after it would otherwise share its
 * line and make the whole journal unreadable from there on. The one repair
 * rule of every JSON-lines file idlelab appends to; *removed gets the bytes.
 */
static int repair(int fd, const char *path, size_t *removed, struct il_err *err)
{
	char tail[4096];
	off_t size = lseek(fd, 0, SEEK_END), keep = size;

	*removed = 0;
	if (size < 0)
		return il_err_set(err, IL_EIO, "cannot read journal '%s': %s", path, strerror(errno));
	while (keep > 0) {
		size_t n = keep < (off_t)sizeof(tail) ? (size_t)keep : sizeof(tail);
		ssize_t got = pread(fd, tail, n, keep - (off_t)n);
		size_t i;

		if (got != (ssize_t)n)
			return il_err_set(err, IL_EIO, "cannot read journal '%s': %s", path,
					  got < 0 ? strerror(errno) : "it shrank while being read");
		for (i = n; i > 0 && tail[i - 1] != '\n'; i--)
			;
		if (i > 0) {
			keep -= (off_t)(n - i);
			break;
		}
		keep -= (off_t)n;
	}
	if (keep == size)
		return 0;
	if (ftruncate(fd, keep) || fsync(fd))
		return il_err_set(err, IL_EIO, "cannot repair journal '%s' (a torn last line of %lld bytes): %s", path,
				  (long long)(size - keep), strerror(errno));
	*removed = (size_t)(size - keep);
	return 0;
}

int il_journal_open(struct il_journal *j, const char *path, struct il_err *err)
{
	struct stat st;
	bool existed = !stat(path, &st);
	int r;

	j->torn = 0;
	j->path = NULL;
	j->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (j->fd < 0)
		return il_err_set(err, IL_EIO, "cannot open journal '%s': %s", path, strerror(errno));
	if (!(j->path = strdup(path))) {
		il_journal_close(j);
		return il_err_oom(err);
	}
	if ((r = repair(j->fd, path, &j->torn, err))) {
		il_journal_close(j);
		return r;
	}
	if (!existed && fsync_dir_of(path)) {
		r = il_err_set(err, IL_EIO, "cannot sync the directory of '%s': %s", path, strerror(errno));
		il_journal_close(j);
		return r;
	}
	return 0;
}

char *il_journal_line(const json_t *rec)
{
	char *s = il_json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII), *line;
	size_t len;

	if (!s)
		return NULL;
	/* the newline in the same buffer: one write of both keeps a torn record at the end only */
	len = strlen(s);
	if ((line = realloc(s, len + 2))) {
		line[len] = '\n';
		line[len + 1] = 0;
	} else {
		free(s);
	}
	return line;
}

int il_journal_append_line(struct il_journal *j, const char *line, struct il_err *err)
{
	size_t len = strlen(line), off = 0;
	off_t start = lseek(j->fd, 0, SEEK_END);

	while (off < len) {
		ssize_t n = write(j->fd, line + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : ENOSPC;

			/* a part of the line (the disk filled up): taken back, so the journal stays whole */
			if (off && start >= 0 && !ftruncate(j->fd, start))
				fsync(j->fd);
			return il_err_set(err, IL_EIO, "cannot append to journal '%s': %s", j->path, strerror(e));
		}
		off += (size_t)n;
	}
	if (fsync(j->fd))
		return il_err_set(err, IL_EIO, "cannot fsync journal '%s': %s", j->path, strerror(errno));
	return 0;
}

int il_journal_append(struct il_journal *j, const json_t *rec, struct il_err *err)
{
	char *line = il_journal_line(rec);
	int r;

	if (!line)
		return il_err_oom(err);
	r = il_journal_append_line(j, line, err);
	free(line);
	return r;
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
