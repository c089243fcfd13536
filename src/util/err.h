/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Error codes and the caller-owned error detail every fallible idlelab
 * function fills. Codes are negative, stable and never renumbered; the
 * message carries the context (file, host, CPU, JSON path).
 */
#ifndef IL_UTIL_ERR_H
#define IL_UTIL_ERR_H

#include <stddef.h>

/* X(name, value, sentence): the one list of error codes. */
#define IL_ERRORS(X)                                                       \
	X(IL_OK, 0, "success")                                             \
	X(IL_EINVAL, -1, "invalid argument")                               \
	X(IL_ENOMEM, -2, "out of memory")                                  \
	X(IL_EIO, -3, "input/output error")                                \
	X(IL_EPARSE, -4, "malformed input")                                \
	X(IL_EMISMATCH, -5, "snapshots are not comparable")                \
	X(IL_ENOTFOUND, -6, "not found")                                   \
	X(IL_EUNSUPPORTED, -7, "not supported by the host")                \
	X(IL_EPERM, -8, "permission denied")                               \
	X(IL_ETIMEOUT, -9, "timed out")                                    \
	X(IL_ECONNECT, -10, "cannot connect")                              \
	X(IL_EAUTH, -11, "authentication failed")                          \
	X(IL_EHOSTKEY, -12, "host key verification failed")                \
	X(IL_ESSH, -13, "ssh error")                                       \
	X(IL_ECHILD, -14, "child process failed")                          \
	X(IL_EINTR, -15, "interrupted")                                    \
	X(IL_ETOOBIG, -16, "output too large")

enum il_error_code {
#define IL_ERR_ENUM(name, value, text) name = value,
	IL_ERRORS(IL_ERR_ENUM)
#undef IL_ERR_ENUM
};

/* Detail for one failure. Caller-owned; every API takes it last and may get NULL. */
struct il_err {
	int code;
	char msg[512];
};

/* A sentence for an error code ("unknown error" for codes not in the list). */
const char *il_err_strerror(int code);

/*
 * Record code and a printf-style message in err (if non-NULL) and return code,
 * so that callers can write `return il_err_set(err, IL_EPARSE, "...")`.
 */
int il_err_set(struct il_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prepend context ("host 'x': ") to the message already in err; returns err->code. */
int il_err_prefix(struct il_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The one out-of-memory error: IL_ENOMEM with its sentence from IL_ERRORS
 * (no message is written by hand anywhere else). Returns IL_ENOMEM.
 */
int il_err_oom(struct il_err *err);

/* Reset err to IL_OK with an empty message. */
void il_err_clear(struct il_err *err);

/*
 * A function whose result is the only word that memory ran out: the compiler and
 * `make check-style` (tests/check-style.py) refuse a call that drops it. Defined
 * last: the checker takes the first call after the word for a marked function.
 */
#define IL_MUST_CHECK __attribute__((warn_unused_result))

#endif
