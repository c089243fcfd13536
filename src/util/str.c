// SPDX-License-Identifier: GPL-2.0-or-later
/* Strict number parsing, CPU lists, word lists and UTF-8 sequences. */
#include "util/str.h"

#include <dirent.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

char *il_strndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *il_strdup_printf(const char *fmt, ...)
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

bool il_strlcpy(char *dst, const char *src, size_t dstsz)
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

/* ---- CPU sets ---- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

#define IL_CPU_MAX 65536

int il_cpuset_parse(struct il_cpuset *out, const char *s, struct il_err *err)
{
	const char *p = s;
	int *v = NULL;
	size_t n = 0, cap = 0;

	out->cpu = NULL;
	out->n = 0;
	while (*p) {
		const char *tok = p, *dash = NULL;
		size_t len;
		uint64_t lo, hi;

		while (*p && *p != ',')
			p++;
		len = (size_t)(p - tok);
		if (*p == ',')
			p++;
		for (size_t i = 0; i < len; i++)
			if (tok[i] == '-') {
				dash = tok + i;
				break;
			}
		if (dash) {
			if (il_parse_u64(tok, (size_t)(dash - tok), &lo) ||
			    il_parse_u64(dash + 1, len - (size_t)(dash - tok) - 1, &hi))
				goto bad;
		} else {
			size_t m = len;
			const char *t = tok;

			trim(&t, &m);
			if (!m && !*p && tok == s)
				break; /* blank list */
			if (il_parse_u64(tok, len, &lo))
				goto bad;
			hi = lo;
		}
		if (lo > hi || hi >= IL_CPU_MAX)
			goto bad;
		for (uint64_t c = lo; c <= hi; c++) {
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 16;
				int *nv = realloc(v, nc * sizeof(*v));

				if (!nv) {
					free(v);
					return il_err_oom(err);
				}
				v = nv;
				cap = nc;
			}
			v[n++] = (int)c;
		}
	}
	if (n) {
		size_t w = 1;

		qsort(v, n, sizeof(*v), cmp_int);
		for (size_t i = 1; i < n; i++)
			if (v[i] != v[w - 1])
				v[w++] = v[i];
		n = w;
	}
	out->cpu = v;
	out->n = n;
	return 0;
bad:
	free(v);
	return il_err_set(err, IL_EPARSE, "invalid CPU list '%s' (expected e.g. 0-3,8)", s);
}

bool il_cpuset_has(const struct il_cpuset *set, int cpu)
{
	return set->n && bsearch(&cpu, set->cpu, set->n, sizeof(int), cmp_int) != NULL;
}

int il_cpuset_format(const struct il_cpuset *set, struct il_buf *b)
{
	for (size_t i = 0; i < set->n;) {
		size_t j = i;

		while (j + 1 < set->n && set->cpu[j + 1] == set->cpu[j] + 1)
			j++;
		if (il_buf_printf(b, i ? ",%d" : "%d", set->cpu[i]))
			return IL_ENOMEM;
		if (j > i && il_buf_printf(b, "-%d", set->cpu[j]))
			return IL_ENOMEM;
		i = j + 1;
	}
	return 0;
}

void il_cpuset_release(struct il_cpuset *set)
{
	free(set->cpu);
	set->cpu = NULL;
	set->n = 0;
}

/* ---- word lists ---- */

int il_strlist_push(struct il_strlist *list, const char *s)
{
	char **v = realloc(list->v, (list->n + 1) * sizeof(*v));
	char *c;

	if (!v)
		return IL_ENOMEM;
	list->v = v;
	c = strdup(s);
	if (!c)
		return IL_ENOMEM;
	list->v[list->n++] = c;
	return 0;
}

int il_strlist_split(struct il_strlist *list, const char *s)
{
	while (*s) {
		const char *w;
		char *c;
		char **v;

		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		w = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n')
			s++;
		c = il_strndup(w, (size_t)(s - w));
		if (!c)
			return IL_ENOMEM;
		v = realloc(list->v, (list->n + 1) * sizeof(*v));
		if (!v) {
			free(c);
			return IL_ENOMEM;
		}
		list->v = v;
		list->v[list->n++] = c;
	}
	return 0;
}

int il_strlist_split_on(struct il_strlist *list, const char *s, char sep)
{
	while (*s) {
		const char *e = strchr(s, sep);
		size_t n = e ? (size_t)(e - s) : strlen(s);
		char *c = n ? il_strndup(s, n) : NULL;
		int r = !n ? 0 : c ? il_strlist_push(list, c) : IL_ENOMEM;

		free(c);
		if (r)
			return r;
		s += n + (e ? 1 : 0);
	}
	return 0;
}

bool il_strlist_has(const struct il_strlist *list, const char *s)
{
	for (size_t i = 0; i < list->n; i++)
		if (!strcmp(list->v[i], s))
			return true;
	return false;
}

int il_strlist_join(const struct il_strlist *list, struct il_buf *b)
{
	for (size_t i = 0; i < list->n; i++)
		if (il_buf_printf(b, "%s%s", i ? " " : "", list->v[i]))
			return IL_ENOMEM;
	return 0;
}

void il_free_all(void *const *ptrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ptrs[i]);
}

void il_strlist_release(struct il_strlist *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->v[i]);
	free(list->v);
	list->v = NULL;
	list->n = 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void il_strlist_sort(struct il_strlist *list)
{
	if (list->n > 1)
		qsort(list->v, list->n, sizeof(*list->v), cmp_name);
}

bool il_name_ok(const char *s, const char *extra, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr(extra, *s)))
			return false;
	return true;
}

int il_dir_names(struct il_strlist *out, const char *dir, const char *suffix, struct il_err *err)
{
	struct il_strlist found = { 0 };
	size_t ls = strlen(suffix);
	struct dirent *de;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d)
		return il_err_set(err, IL_ENOTFOUND, "cannot open directory '%s'", dir);
	while (!r && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char *name;

		if (n <= ls || strcmp(de->d_name + n - ls, suffix))
			continue;
		if (!(name = il_strndup(de->d_name, n - ls)) || il_strlist_push(&found, name))
			r = il_err_oom(err);
		free(name);
	}
	closedir(d);
	il_strlist_sort(&found);
	for (size_t i = 0; !r && i < found.n; i++)
		if (il_strlist_push(out, found.v[i]))
			r = il_err_oom(err);
	il_strlist_release(&found);
	return r;
}

void il_iso_now(char *out, size_t n)
{
	char buf[32];
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, n, "%s.%03ldZ", buf, ts.tv_nsec / 1000000);
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

bool il_next_line(const char **p, const char *end, const char **line, size_t *n)
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

size_t il_utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int il_utf8_add(struct il_buf *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = il_utf8_len(p);

		if (n)
			il_buf_add(out, p, n);
		else
			il_buf_adds(out, "\xef\xbf\xbd");
		p += n ? n : 1;
	}
	return il_buf_error(out);
}
