/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A bisection's result as mail-pasteable text (at most 100 columns). */
#ifndef IL_REPORT_BISECT_H
#define IL_REPORT_BISECT_H
#include "workflow/bisect.h"
#include "util/buf.h"

int il_report_bisect(const struct il_bisect_result *r, struct il_buf *out);

#endif
