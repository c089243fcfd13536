/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strict number parsing: a value that is not a number is an error, never 0
 * (what atoi and an unchecked strtoull would give for "abc" or "12abc").
 */
#ifndef IL_UTIL_PARSE_H
#define IL_UTIL_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * Parse a whole decimal number from s[0..n) (n = (size_t)-1 means strlen).
 * Leading/trailing blanks are allowed, nothing else. Returns 0 or IL_EPARSE.
 */
int il_parse_u64(const char *s, size_t n, uint64_t *out);
int il_parse_i64(const char *s, size_t n, int64_t *out);
int il_parse_double(const char *s, size_t n, double *out);

#endif
