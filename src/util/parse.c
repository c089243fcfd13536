// SPDX-License-Identifier: GPL-2.0-or-later
/* Strict number parsing: the whole text (less blanks) is the number, or IL_EPARSE. */
#include "util/parse.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t' || **s == '\n' || **s == '\r')) {
		(*s)++;
		(*n)--;
	}
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\n' ||
		      (*s)[*n - 1] == '\r'))
		(*n)--;
}

int il_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == (size_t)-1)
		n = strlen(s);
	trim(&s, &n);
	if (!n)
		return IL_EPARSE;
	for (size_t i = 0; i < n; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return IL_EPARSE;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return IL_EPARSE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int il_parse_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t v;
	bool neg = false;

	if (n == (size_t)-1)
		n = strlen(s);
	trim(&s, &n);
	if (n && (*s == '-' || *s == '+')) {
		neg = *s == '-';
		s++;
		n--;
	}
	if (il_parse_u64(s, n, &v) || !n || *s == ' ')
		return IL_EPARSE;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return IL_EPARSE;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return IL_EPARSE;
		*out = (int64_t)v;
	}
	return 0;
}

int il_parse_double(const char *s, size_t n, double *out)
{
	char tmp[64];
	char *end;
	double v;

	if (n == (size_t)-1)
		n = strlen(s);
	trim(&s, &n);
	if (!n || n >= sizeof(tmp))
		return IL_EPARSE;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	errno = 0;
	v = strtod(tmp, &end);
	if (*end || errno || !isfinite(v))
		return IL_EPARSE;
	*out = v;
	return 0;
}
