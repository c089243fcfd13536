/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lists of owned strings: words split from a line or a separated list, tested, joined, sorted. */
#ifndef IL_UTIL_STRLIST_H
#define IL_UTIL_STRLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* A list of owned strings (the list frees them: il_strlist_release). */
struct il_strlist {
	char **v;
	size_t n;
};

/* Split s on blanks into words (appending to list). */
IL_MUST_CHECK int il_strlist_split(struct il_strlist *list, const char *s);
/* Append a copy of s. */
IL_MUST_CHECK int il_strlist_push(struct il_strlist *list, const char *s);
/* Split s at each sep into its non-empty parts (appending to list): "a,b,,c" -> a b c. */
IL_MUST_CHECK int il_strlist_split_on(struct il_strlist *list, const char *s, char sep);
bool il_strlist_has(const struct il_strlist *list, const char *s);
/* Words joined by single spaces into b. */
int il_strlist_join(const struct il_strlist *list, struct il_buf *b);
void il_strlist_release(struct il_strlist *list);

/* Sort the words of a list (strcmp order). */
void il_strlist_sort(struct il_strlist *list);

#endif
