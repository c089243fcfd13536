/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Snapshot <-> JSON (the documented snapshot schema, docs/formats.md) and
 * loading a snapshot from a file that holds either JSON or a raw dump.
 */
#ifndef IL_IDLE_SNAPJSON_H
#define IL_IDLE_SNAPJSON_H

#include <jansson.h>

#include "idle/snapshot.h"

/* New JSON object for s (caller owns the reference), NULL on OOM. */
json_t *il_snapshot_to_json(const struct il_snapshot *s);

/*
 * Fill out from a JSON snapshot. label names the source in errors, which
 * also give the JSON path ("cpus[2].states[1].usage: expected ...").
 */
int il_snapshot_from_json(struct il_snapshot *out, const json_t *j, const char *label, struct il_err *err);

/* Load a snapshot file: JSON if it starts with '{', else a path:value dump. */
int il_snapshot_load_file(struct il_snapshot *out, const char *path, struct il_err *err);

/* JSON helpers shared by the idle JSON writers: null for an absent value. */
json_t *il_json_val(struct il_val v);
json_t *il_json_ival(struct il_ival v);
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
