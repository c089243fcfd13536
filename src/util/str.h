/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C string helpers: copies that fail only for memory, a bounded copy, lines
 * of a text, what idlelab accepts as a name, and the one sanitizer of text
 * before it is shown. Numbers are util/parse.h, word lists util/strlist.h,
 * UTF-8 util/utf8.h.
 */
#ifndef IL_UTIL_STR_H
#define IL_UTIL_STR_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* strndup that returns NULL only on OOM. The caller frees. */
IL_MUST_CHECK char *il_str_ndup(const char *s, size_t n);

/* A new string of what printf would print; NULL only on OOM. The caller frees. */
IL_MUST_CHECK char *il_str_dup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Copy src into dst (size dstsz), always terminated; returns true if it fit. */
bool il_str_lcpy(char *dst, const char *src, size_t dstsz);

/* free() each of the n pointers in ptrs (NULLs are fine); for release functions. */
void il_str_free_all(void *const *ptrs, size_t n);
#define IL_FREE_ALL(...) \
	il_str_free_all((void *const[]){ __VA_ARGS__ }, sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))

/*
 * The next line of the text [*p, end): *line and *n (without its newline;
 * the last line may lack one), *p moved past it. false once the text is used up.
 */
bool il_str_next_line(const char **p, const char *end, const char **line, size_t *n);

/*
 * A name made of ASCII letters, digits and the characters in extra, 1 to max
 * bytes long: what idlelab accepts for hosts, labels, workloads, governors
 * (names that end up in file names, shell arguments and reports).
 */
bool il_str_name_ok(const char *s, const char *extra, size_t max);

/*
 * The one sanitizer of text from a host, a repository, a server or a file
 * before it is shown: control bytes (C0 but tab and, with keep_newlines,
 * newline; DEL; the C1 controls U+0080-U+009F) and every byte that does not
 * start valid UTF-8 become '?', in place (the length stays): escape
 * sequences must not act on the operator's terminal. Returns s.
 */
char *il_str_sanitize(char *s, bool keep_newlines);

/*
 * The same over n bytes (NUL among them a control byte). With more (the
 * text goes on in a next piece), a UTF-8 sequence cut short by the end is
 * left as it is: the return value is where it starts (else n), for the
 * caller to put before the next piece.
 */
size_t il_str_sanitize_n(char *s, size_t n, bool keep_newlines, bool more);

#endif
