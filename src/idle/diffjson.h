/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A diff (idle/diff.h) as JSON: the documented diff schema (docs/formats.md,
 * version 2), what `idlelab diff --json` prints and a run journal keeps per
 * sample. Metrics come from il_metrics_of, so every scope (total, CPU,
 * cluster) carries the same keys.
 */
#ifndef IL_IDLE_DIFFJSON_H
#define IL_IDLE_DIFFJSON_H

#include <jansson.h>

#include "idle/diff.h"

/* The documented diff JSON (docs/formats.md, version 2). Caller owns the reference; NULL on OOM. */
json_t *il_diff_to_json(const struct il_diff *d);
/* The same without the per-CPU breakdown (what a run journal keeps per sample). */
json_t *il_diff_summary_json(const struct il_diff *d);

#endif
