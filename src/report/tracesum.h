/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The traced samples' idle.trace objects (docs/formats.md; idle/trace.c
 * reduces a sample's trace to one) summed per workload and variant: per
 * idle state the log2 histograms of the idle periods' durations and of the
 * misses' offsets, and the tick decisions before the periods. What the
 * durations view (viewdurations.c) and the HTML report's histograms
 * (htmltrace.c) show, summed once here so both show the same numbers. For
 * report/ files only.
 */
#ifndef IL_REPORT_TRACESUM_H
#define IL_REPORT_TRACESUM_H

#include <stdbool.h>
#include <stddef.h>

#include "report/viewkit.h"

/* bucket 0 = [0, 1) us, bucket k = [2^(k-1), 2^k) us, the last one open-ended (>= 2^22 us): idle/trace.c's */
#define IL_TSUM_NBUCKET 24

/* One state's sums over the summed samples (and their measured CPUs). */
struct il_tsum_state {
	double residency_us;             /* the state's target residency (the first sample's), NaN when absent */
	double hist[IL_TSUM_NBUCKET];    /* complete idle periods by duration */
	double above[IL_TSUM_NBUCKET];   /* too deep: residency - duration */
	double below[IL_TSUM_NBUCKET];   /* too shallow: duration - the next enabled deeper state's residency */
	double periods, aboves, belows;  /* the sums of hist, above and below */
	double stopped, retained, unknown; /* tick decisions before the periods */
};

struct il_tsum {
	size_t samples;          /* traced samples summed */
	size_t mismatched;       /* of them, those whose check found the counters and the trace at odds */
	double tick_period_us;   /* the first sample's, NaN when its HZ is unknown */
	bool tick_traced;        /* some sample traced the tick decisions (tick_source not null) */
	struct il_view_avg entries, stopped_pct, shallow_pct; /* per sample: exits, its tick_stopped(_shallow)_pct */
	struct il_tsum_state *st; /* [keys->k.n], in the order of the keys il_tracesum_make was given */
};

/* Whether any counted sample of ds carries an idle.trace object. */
bool il_tracesum_any(const struct il_dataset *ds);

/* The state keys of group's traced samples, every variant's, in index order (ks zeroed; il_strlist_release(&ks->k)). IL_ENOMEM. */
int il_tracesum_keys(const struct il_dataset *ds, const char *group, struct il_view_keys *ks);

/*
 * Sum the traced samples of group and variant into out (zeroed by the
 * caller; il_tracesum_release frees), per key of ks; a state of no key in ks is
 * left out. IL_ENOMEM.
 */
int il_tracesum_make(const struct il_dataset *ds, const char *group, const char *variant, const struct il_view_keys *ks,
		 struct il_tsum *out);
void il_tracesum_release(struct il_tsum *s);

/*
 * The CPUs whose idle entries the host's tracing does not see (idle.trace's
 * blind_cpus), once for the whole run: "tracing does not see CPU 1's idle
 * entries (12 of 12 traced samples: its counters moved, the trace had none
 * or fewer than half of them); the idle trace figures leave it out" into b.
 * False (b untouched) when every traced sample saw every measured CPU.
 */
bool il_tracesum_blind_note(const struct il_dataset *ds, struct il_buf *b);

/* Widen [*lo, *hi] to hold h's nonzero buckets (start with *lo = IL_TSUM_NBUCKET, *hi = 0). */
void il_tracesum_span(const double *h, size_t *lo, size_t *hi);

/* Bucket k's label ("<1us", "1-2us", ..., "512us-1ms", ..., ">=4s": binary units, 1ms = 1024us), into buf. */
const char *il_tracesum_bucket(char *buf, size_t n, size_t k);

#endif
