/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A nightly's outcome: mail-pasteable text (at most 100 columns) and JSON (docs/nightly.md "Output"). */
#ifndef IL_REPORT_NIGHTLY_H
#define IL_REPORT_NIGHTLY_H
#include <jansson.h>
#include "workflow/nightly.h"
#include "util/buf.h"

/* The verdict, the tip and the baseline, and a row per key metric compared; appended to out. */
int il_report_nightly(const struct il_nightly_result *r, struct il_buf *out);
/* The same as JSON (schema "idlelab-nightly/1"; caller decrefs), NULL on ENOMEM. */
json_t *il_report_nightly_json(const struct il_nightly_result *r);

#endif
