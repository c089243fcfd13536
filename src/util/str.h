/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small string helpers: strict number parsing (a value that is not a number
 * is an error, never 0), CPU list syntax ("0-3,8"), word lists.
 */
#ifndef IL_UTIL_STR_H
#define IL_UTIL_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/err.h"

/*
 * Parse a whole decimal number from s[0..n) (n = (size_t)-1 means strlen).
 * Leading/trailing blanks are allowed, nothing else. Returns 0 or IL_EPARSE.
 */
int il_parse_u64(const char *s, size_t n, uint64_t *out);
int il_parse_i64(const char *s, size_t n, int64_t *out);
int il_parse_double(const char *s, size_t n, double *out);

/* strndup that returns NULL only on OOM. */
char *il_strndup(const char *s, size_t n);

/* A new string of what printf would print; NULL only on OOM. The caller frees. */
char *il_strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A sorted, duplicate-free set of CPU numbers. */
struct il_cpuset {
	int *cpu;
	size_t n;
};

/*
 * Parse kernel CPU list syntax ("0-3,5,7-9", blanks and a final newline
 * allowed; "" is the empty set). Errors say what was wrong in which text.
 */
int il_cpuset_parse(struct il_cpuset *out, const char *s, struct il_err *err);
bool il_cpuset_has(const struct il_cpuset *set, int cpu);
/* Format back in canonical list syntax into b. */
int il_cpuset_format(const struct il_cpuset *set, struct il_buf *b);
void il_cpuset_release(struct il_cpuset *set);

/* A list of owned strings. */
struct il_strlist {
	char **v;
	size_t n;
};

/* Split s on blanks into words (appending to list). */
IL_MUST_CHECK int il_strlist_split(struct il_strlist *list, const char *s);
IL_MUST_CHECK int il_strlist_push(struct il_strlist *list, const char *s);
/* Split s at each sep into its non-empty parts (appending to list): "a,b,,c" -> a b c. */
IL_MUST_CHECK int il_strlist_split_on(struct il_strlist *list, const char *s, char sep);
bool il_strlist_has(const struct il_strlist *list, const char *s);
/* Words joined by single spaces into b. */
int il_strlist_join(const struct il_strlist *list, struct il_buf *b);
void il_strlist_release(struct il_strlist *list);

/* free() each of the n pointers in ptrs (NULLs are fine); for release functions. */
void il_free_all(void *const *ptrs, size_t n);
#define IL_FREE_ALL(...) \
	il_free_all((void *const[]){ __VA_ARGS__ }, sizeof((void *const[]){ __VA_ARGS__ }) / sizeof(void *))

/* Sort the words of a list (strcmp order). */
void il_strlist_sort(struct il_strlist *list);

/*
 * A name made of ASCII letters, digits and the characters in extra, 1 to max
 * bytes long: what idlelab accepts for hosts, labels, workloads, governors
 * (names that end up in file names, shell arguments and reports).
 */
bool il_name_ok(const char *s, const char *extra, size_t max);

/* Names of the files "<name><suffix>" in dir, suffix stripped, sorted, appended to out. IL_ENOTFOUND if dir cannot be read. */
int il_dir_names(struct il_strlist *out, const char *dir, const char *suffix, struct il_err *err);

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

/*
 * The next line of the text [*p, end): *line and *n (without its newline;
 * the last line may lack one), *p moved past it. false once the text is used up.
 */
bool il_next_line(const char **p, const char *end, const char **line, size_t *n);

/*
 * The length of the UTF-8 sequence at s (1 to 4), or 0 when s does not start
 * a valid one (a stray continuation byte, an overlong form, a surrogate,
 * past U+10FFFF, cut short by the terminating NUL).
 */
size_t il_utf8_len(const unsigned char *s);

/*
 * Append s to out with each byte that does not start a valid UTF-8 sequence
 * (il_utf8_len) replaced by U+FFFD: text from a host may hold any byte, and
 * JSON and the Prometheus text format refuse the whole document for one bad
 * one. Returns il_buf_error(out).
 */
int il_utf8_add(struct il_buf *out, const char *s);

/* Copy src into dst (size dstsz), always terminated; returns true if it fit. */
bool il_strlcpy(char *dst, const char *src, size_t dstsz);

/* The current UTC time as "YYYY-MM-DDTHH:MM:SS.mmmZ" in out (at least 32 bytes). */
void il_iso_now(char *out, size_t n);

#endif
