// SPDX-License-Identifier: GPL-2.0-or-later
/* CPU sets: the kernel's CPU list syntax parsed and formatted. */
#include "idle/cpuset.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/parse.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Whether s[0..n) holds only blanks (what il_parse_u64 skips around a number). */
static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return false;
	return true;
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
			if (blank(tok, len) && !*p && tok == s)
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

int il_cpuset_append(struct il_cpuset *set, int cpu)
{
	int *nv;

	if (set->n && set->cpu[set->n - 1] >= cpu)
		return 0;
	nv = realloc(set->cpu, (set->n + 1) * sizeof(*nv));
	if (!nv)
		return IL_ENOMEM;
	set->cpu = nv;
	set->cpu[set->n++] = cpu;
	return 0;
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
