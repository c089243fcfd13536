/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Idle traces (issue #30): a sample's tracefs trace of cpu_idle,
 * cpu_idle_miss, the tick decisions and the PM QoS events, reduced over the
 * sample's window into the "idle.trace" object (docs/formats.md): idle
 * period durations and how far the misses were off as log2 histograms per
 * state, the tick decisions, the CPU latency limit, and a cross-check of the
 * trace against the same sample's counter deltas (the diff).
 */
#ifndef IL_IDLE_TRACE_H
#define IL_IDLE_TRACE_H

#include <jansson.h>
#include <stddef.h>

#include "idle/diff.h"
#include "util/err.h"

/* Histogram buckets: 0 is [0, 1) us, k is [2^(k-1), 2^k) us, the last open-ended (>= 2^22 us). */
#define IL_TRACE_NBUCKETS 24

/* The version of the "idle.trace" object. */
#define IL_TRACE_VERSION 1

/* The bucket of a duration in us. */
int il_trace_bucket(uint64_t us);

/*
 * Reduce a trace frame over the window of diff d (the same sample's counter deltas, measured CPUs, states with
 * residency / poll / disabled per CPU). On success *out is the "trace" JSON object below (caller owns) or
 * NULL with *incomplete set (caller frees) saying why the trace cannot be used (lost events, missing marker).
 * Errors: IL_EPARSE naming "host H: trace line N: what was expected".
 */
int il_trace_reduce(const char *text, size_t len, const struct il_diff *d, const char *host, json_t **out,
		    char **incomplete, struct il_err *err);

#endif
