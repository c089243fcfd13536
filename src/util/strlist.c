// SPDX-License-Identifier: GPL-2.0-or-later
/* Lists of owned strings. */
#include "util/strlist.h"

#include <stdlib.h>
#include <string.h>

#include "util/str.h"

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
		c = il_str_ndup(w, (size_t)(s - w));
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
		char *c = n ? il_str_ndup(s, n) : NULL;
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
