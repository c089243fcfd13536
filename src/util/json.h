/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON values that are always whole (jansson drops a key silently when it
 * cannot add it): UTF-8 strings from any bytes, keys that never replace one
 * another, and a builder's all-or-nothing result. The JSON files themselves
 * (reading, dumping) are jsonfile.h's.
 */
#ifndef IL_UTIL_JSON_H
#define IL_UTIL_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* s as a JSON string, each byte that is not UTF-8 as U+FFFD (il_utf8_add); null for NULL; NULL on OOM. */
json_t *il_json_str(const char *s);

/*
 * o[key] = v, v's reference taken (also on failure), key made UTF-8 as
 * il_json_str makes values (a host's state or tool name may hold any byte);
 * a key that had to change and then equals one already in o gets " #2",
 * " #3", ... rather than replacing it. 0, or -1 (memory; o or v NULL).
 */
int il_json_set(json_t *o, const char *key, json_t *v);

/*
 * A builder's result: o, or NULL (o released) when bad says one of its
 * parts could not be added. Builders collect `bad |= json_..._set_new(...)`
 * (-1 for a NULL value too) so nothing is ever left out silently.
 */
json_t *il_json_whole(json_t *o, int bad);

/*
 * Whether each of the n new values (a writer's fresh objects and arrays) was
 * made; if one was not, all of them are released and this is false.
 */
bool il_json_all(json_t *const *v, size_t n);

#endif
