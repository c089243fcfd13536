/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UTF-8 sequences: which bytes start a valid one, and text made valid for JSON and Prometheus. */
#ifndef IL_UTIL_UTF8_H
#define IL_UTIL_UTF8_H

#include <stddef.h>

#include "util/buf.h"

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

#endif
