// SPDX-License-Identifier: GPL-2.0-or-later
/* C string helpers: copies, lines, names and the sanitizer of shown text. */
#include "util/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

char *il_str_ndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *il_str_dup_printf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(p = malloc((size_t)n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

bool il_str_lcpy(char *dst, const char *src, size_t dstsz)
{
	size_t n = strlen(src);

	if (!dstsz)
		return false;
	if (n >= dstsz) {
		memcpy(dst, src, dstsz - 1);
		dst[dstsz - 1] = '\0';
		return false;
	}
	memcpy(dst, src, n + 1);
	return true;
}

void il_str_free_all(void *const *ptrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ptrs[i]);
}

bool il_str_next_line(const char **p, const char *end, const char **line, size_t *n)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*line = *p;
	*n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	*p = nl ? nl + 1 : end;
	return true;
}

bool il_str_name_ok(const char *s, const char *extra, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr(extra, *s)))
			return false;
	return true;
}

/* Whether the left (< 4) bytes at p can be the start of a UTF-8 sequence the next bytes complete. */
static bool utf8_prefix(const unsigned char *p, size_t left)
{
	size_t need = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;

	for (size_t i = 1; i < left; i++)
		if ((p[i] & 0xc0) != 0x80)
			return false;
	return need > left;
}

size_t il_str_sanitize_n(char *s, size_t n, bool keep_newlines, bool more)
{
	unsigned char *p = (unsigned char *)s, *end = p + n;

	while (p < end) {
		unsigned char t[5] = { 0 };
		size_t left = (size_t)(end - p), k;

		/* a copy ended by NULs: il_utf8_len never reads past the text, a cut-short sequence is invalid */
		memcpy(t, p, left < 4 ? left : 4);
		k = il_utf8_len(t);
		if (!k && more && left < 4 && utf8_prefix(t, left))
			return (size_t)(p - (unsigned char *)s);
		if (!k || (k == 1 && ((*p < 0x20 && *p != '\t' && !(keep_newlines && *p == '\n')) || *p == 0x7f))) {
			*p++ = '?';
		} else if (k == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
			/* U+0080-U+009F: C1 controls (U+009B is CSI on many terminals) */
			p[0] = p[1] = '?';
			p += 2;
		} else {
			p += k;
		}
	}
	return n;
}

char *il_str_sanitize(char *s, bool keep_newlines)
{
	if (s)
		il_str_sanitize_n(s, strlen(s), keep_newlines, false);
	return s;
}
