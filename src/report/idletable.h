/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Plain-text tables for snapshots and diffs (like `cpupower idle-info`, with
 * usage/time/above/below/rejected and miss ratio). Written into a buffer;
 * the CLI decides where it goes. Absent values print as "-".
 */
#ifndef IL_REPORT_IDLETABLE_H
#define IL_REPORT_IDLETABLE_H

#include <jansson.h>

#include "idle/diff.h"
#include "util/buf.h"

enum il_diff_by { IL_BY_STATE, IL_BY_CPU, IL_BY_CLUSTER };

/* Parse "state"|"cpu"|"cluster"; IL_EINVAL otherwise. */
int il_idletable_diff_by_parse(const char *s, enum il_diff_by *out, struct il_err *err);

int il_idletable_snapshot(struct il_buf *out, const struct il_snapshot *s);
int il_idletable_diff(struct il_buf *out, const struct il_diff *d, enum il_diff_by by);
/* A sample's idle.trace object (idle/trace.h) as a short table: per state entries, median duration, misses, tick. */
int il_idletable_trace(struct il_buf *out, const json_t *trace);

#endif
