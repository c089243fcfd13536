/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A growable byte buffer, always NUL-terminated, with an optional size cap
 * (curl's dynbuf "toobig"): output from hosts and files is never unbounded.
 * Failures are sticky: once an append fails for memory the buffer appends
 * nothing more, so a builder may append freely and ask il_buf_error once at
 * the end. The caller owns the buffer and frees it with il_buf_release.
 */
#ifndef IL_UTIL_BUF_H
#define IL_UTIL_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

struct il_buf {
	char *p;          /* NUL-terminated contents, or NULL before the first append */
	size_t len;
	size_t cap;
	size_t max;       /* 0: unlimited; else appends past max are cut */
	bool truncated;   /* set once something was cut at max */
	bool nomem;       /* set once an append failed for memory; later appends do nothing */
};

#define IL_BUF_INIT { NULL, 0, 0, 0, false, false }

/* Start an empty buffer that keeps at most max bytes (0 = unlimited). */
void il_buf_init(struct il_buf *b, size_t max);
/* Free the contents and re-initialise (keeps max). */
void il_buf_release(struct il_buf *b);
/* Drop the contents but keep the allocation; clears the failure too. */
void il_buf_reset(struct il_buf *b);
/* Keep the first len bytes (no-op when it has fewer). */
void il_buf_truncate(struct il_buf *b, size_t len);

/*
 * Append n bytes. Past the cap the rest is dropped and b->truncated set; that
 * is not an error (the caller decides). Returns 0 or IL_ENOMEM (also for
 * every append after the first that failed for memory).
 */
int il_buf_add(struct il_buf *b, const void *data, size_t n);
int il_buf_adds(struct il_buf *b, const char *s);
int il_buf_printf(struct il_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int il_buf_vprintf(struct il_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/*
 * The buffer's sticky state after a build: IL_ENOMEM once any append failed
 * for memory, else IL_ETOOBIG once anything was cut at the cap, else 0.
 */
int il_buf_error(const struct il_buf *b);
static inline bool il_buf_ok(const struct il_buf *b)
{
	return !b->nomem && !b->truncated;
}
/* b fails for memory too when scratch did (a part built apart, then copied in). Returns il_buf_error(b). */
int il_buf_carry(struct il_buf *b, const struct il_buf *scratch);

/* Contents as a C string ("" when empty); borrowed. */
const char *il_buf_str(const struct il_buf *b);

/* Take the contents (caller frees); b is left empty. Never NULL unless OOM. */
IL_MUST_CHECK char *il_buf_detach(struct il_buf *b);

/*
 * Read a whole file into b (appending). max caps what is accepted: a larger
 * file is an IL_ETOOBIG error naming the path. Errors name the path.
 */
int il_buf_read_file(struct il_buf *b, const char *path, size_t max, struct il_err *err);

/* Write data to path atomically (temp file, fsync, rename, fsync dir), mode 0644 less the umask. */
int il_buf_write_file_atomic(const char *path, const void *data, size_t len, struct il_err *err);

/*
 * The same with exactly mode, whatever the umask: the temporary file
 * "PATH.tmp.XXXXXX" is created exclusively in path's directory (so the
 * rename stays within one file system and a reader globbing "*.prom" never
 * sees it); on any failure it is removed and path is left as it was.
 */
int il_buf_write_file_mode(const char *path, const void *data, size_t len, unsigned mode, struct il_err *err);

#endif
