/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A diff (idle/diff.h) as JSON: the documented diff schema (docs/formats.md,
 * version 3), what `idlelab diff --json` prints and a run journal keeps per
 * sample. Metrics come from il_metrics_of, so every scope (total, CPU,
 * cluster) carries the same keys.
 */
#ifndef IL_IDLE_DIFFJSON_H
#define IL_IDLE_DIFFJSON_H

#include <jansson.h>

#include "idle/diff.h"

/* The documented diff JSON (docs/formats.md, version 3). Caller owns the reference; NULL on OOM. */
json_t *il_diff_to_json(const struct il_diff *d);
/* The same without the per-CPU breakdown (what a run journal keeps per sample). */
json_t *il_diff_summary_json(const struct il_diff *d);

/*
 * Read an older diff JSON (version 2, issues #15..#29) as the kernel counts:
 * its scopes (total, each CPU, each cluster) that carry "poll_timeouts" (the
 * poll states' below, then left out of belows) get it back in belows,
 * idle_miss, miss_ratio, too_shallow_pct and miss_pct, and as "poll_belows";
 * a poll state's null too_shallow_pct becomes 100 x below / usage. Changes
 * idle in place; version 3 and version 1 JSON (v1 counted every state's
 * below already) are left as they are. 0, or -1 (memory).
 */
int il_diff_json_upgrade(json_t *idle);

#endif
