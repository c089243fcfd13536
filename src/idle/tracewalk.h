/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state of an idle trace's reduction (idle/trace.h), shared by the walk
 * over the events (idle/trace.c) and the object it becomes (idle/tracejson.c:
 * the CPUs the trace does not see, the JSON, the cross-check against the
 * counters). For those two files only.
 */
#ifndef IL_IDLE_TRACEWALK_H
#define IL_IDLE_TRACEWALK_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "idle/diff.h"
#include "idle/trace.h"
#include "idle/traceparse.h"

enum { TICK_STOPPED, TICK_RETAINED, TICK_UNKNOWN, NTICK };
enum { MISS_ABOVE, MISS_BELOW, NMISS };
enum { MARK_PRE, MARK_BEGIN, MARK_END, MARK_POST };

#define NB IL_TRACE_NBUCKETS
#define NO_NS UINT64_MAX

/* What one state gathered: on one CPU, or summed over a group of them. */
struct acc {
	uint64_t entries;       /* exits in the window */
	uint64_t entries_edge;  /* exits between the pre and post markers: the cross-check's upper bound */
	uint64_t time_us;
	uint64_t hist[NB];
	uint64_t miss[NMISS], miss_edge[NMISS];
	uint64_t miss_hist[NMISS][NB];
	uint64_t tick[NTICK];
};

struct walk_cpu {
	const struct il_diff_cpu *dc;
	struct acc *acc;           /* dc->nstates */
	size_t *group;             /* per state: its index in d->states (the same key), SIZE_MAX for none */
	uint64_t *next_res_ns;     /* per state: the next enabled deeper state's target residency, NO_NS for none */
	int pending;               /* tick=function: the tick decision made for the next entry */
	int now;                   /* tick=events: the tick's state (stopped since tick_stop, running once idle is left) */
	bool open;                 /* a period is open: its entry was seen, its exit not yet */
	uint64_t open_state, open_ns;
	int open_tick;
	bool last;                 /* the period that just closed, for a cpu_idle_miss after its exit */
	uint64_t last_state, last_ns;
	uint64_t unknown_edge;     /* exits of unknown state between pre and post */
	/* the CPU's totals over the window (unknown exits in entries), for the trace's totals */
	uint64_t entries, known, stopped, stopped_shallow;
	bool blind;                /* tracing does not see this CPU's idle entries (find_blind) */
	uint64_t moved, seen;      /* blind: Δ(usage + rejected) over its states, its exits between the edges */
};

/* A CPU number and its index in walk.cpus. */
struct cpu_ref {
	int cpu;
	size_t i;
};

struct walk {
	const struct il_diff *d;
	struct tp_frame f;
	struct walk_cpu *cpus;     /* d->cpus' order */
	struct cpu_ref *order;     /* the CPUs by number, for the lookup */
	uint64_t tick_ns;          /* TICK_NSEC, 0 without HZ */
	uint64_t events, qos_updates;
	bool has_latency;
	int64_t latency_min;
	bool qos_armed;            /* a CPU latency request was just made by qos_pid */
	int64_t qos_pid;
};

/* After the walk: mark the CPUs whose idle entries the trace does not see (walk_cpu.blind). */
void il_tracejson_find_blind(struct walk *w);

/* The "trace" object of a finished walk (idle/trace.h); NULL when memory ran out. The caller owns it. */
json_t *il_tracejson_make(const struct walk *w);

#endif
