/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One host's cpuidle state in the Prometheus text exposition format (0.0.4:
 * `# HELP`, `# TYPE`, samples without timestamps), the format
 * node_exporter's textfile collector reads: per CPU and state the kernel's
 * counters and `disable`, per cluster the same counters summed (the
 * lifetime diff's grouping, idle/diff.h il_diff_lifetime), the governor as an
 * info metric, and PM QoS (idle/pmqos.h). Names and labels are documented in
 * docs/export.md and kept stable. Written into the caller's buffer.
 */
#ifndef IL_REPORT_PROMTEXT_H
#define IL_REPORT_PROMTEXT_H

#include "idle/diff.h"
#include "idle/pmqos.h"
#include "util/buf.h"

/* What an exposition holds, for the CLI's summary line. */
struct il_promtext_summary {
	size_t ncpus, nstates, nclusters, nholders;
	struct il_metrics total; /* every CPU since its device was registered: idlelab's own idles, misses, miss ratio */
};

/*
 * Append the exposition of s (and of q unless NULL) to out; sum (may be
 * NULL) says what it holds. Returns 0, or IL_ENOMEM (IL_ETOOBIG for a
 * capped out) with err set.
 */
int il_promtext_render(struct il_buf *out, const struct il_snapshot *s, const struct il_pmqos *q,
		       struct il_promtext_summary *sum, struct il_err *err);

/*
 * Append v as a label value goes between its quotes: backslash, double quote
 * and newline escaped (\\ \" \n), each byte that does not start valid UTF-8
 * replaced by U+FFFD (the parser refuses invalid UTF-8). Returns il_buf_error.
 */
int il_promtext_label_value(struct il_buf *out, const char *v);

#endif
