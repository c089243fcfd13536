/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Printing il_progress on stderr: on a terminal one line rewritten in place,
 * otherwise a plain line every IL_CLI_PROGRESS_EVERY_S seconds and one at the
 * end, so a CI log shows that a long step moves without filling up.
 */
#ifndef IL_CLI_PROGRESS_H
#define IL_CLI_PROGRESS_H
#include <stddef.h>
#include "util/progress.h"

#define IL_CLI_PROGRESS_EVERY_S 15.0

/* An il_progress_fn; ctx is unused (NULL). Quiet commands simply pass no function. */
void il_cli_progress(const struct il_progress *p, void *ctx);

/* "1m05s" (or "?" for a negative time) into out. */
void il_cli_duration(double s, char *out, size_t n);

#endif
