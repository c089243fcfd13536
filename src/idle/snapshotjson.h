/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Snapshot <-> JSON (the documented snapshot schema, docs/formats.md) and
 * loading a snapshot from a file that holds either JSON or a raw dump.
 */
#ifndef IL_IDLE_SNAPSHOTJSON_H
#define IL_IDLE_SNAPSHOTJSON_H

#include <jansson.h>

#include "idle/snapshot.h"
#include "util/json.h"

/* New JSON object for s (caller owns the reference), NULL on OOM. */
json_t *il_snapshot_to_json(const struct il_snapshot *s);

/*
 * Fill out from a JSON snapshot. label names the source in errors, which
 * also give the JSON path ("cpus[2].states[1].usage: expected ...").
 */
int il_snapshot_from_json(struct il_snapshot *out, const json_t *j, const char *label, struct il_err *err);

/* Load a snapshot file: JSON if it starts with '{', else a path:value dump. */
int il_snapshot_load_file(struct il_snapshot *out, const char *path, struct il_err *err);

/* A snapshot value as JSON: null for an absent value. */
json_t *il_snapshot_json_val(struct il_val v);
json_t *il_snapshot_json_ival(struct il_ival v);
#endif
