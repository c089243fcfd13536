/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace frame's lines (docs/formats.md "idle.trace", the frame in
 * runners/sample.sh): idlelab's own "#idlelab" header lines, tracefs's '#'
 * comments, "CPU:N [LOST N EVENTS]" and one event per line, each read into a
 * struct tp_line; and the first pass over a frame (il_traceparse_scan) that checks every
 * line and finds the header values and the four markers before the reducer
 * (idle/trace.c) walks the events. For idle/trace.c and idle/traceparse.c only.
 */
#ifndef IL_IDLE_TRACEPARSE_H
#define IL_IDLE_TRACEPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "idle/cpuset.h"

/* cpu_idle's state field at the exit: (u32)PWR_EVENT_EXIT (include/trace/events/power.h) */
#define TP_EXIT_STATE 4294967295ull

enum tp_kind {
	TP_NOTHING,  /* an empty line, a tracefs comment, an #idlelab header line */
	TP_LOST,     /* CPU:N [LOST N EVENTS] */
	TP_EVENT,    /* an event or a traced function */
};

enum tp_event {
	TP_OTHER,          /* any event or function the reduction does not use (still counted) */
	TP_IDLE,           /* cpu_idle: state=N cpu_id=N */
	TP_MISS,           /* cpu_idle_miss: cpu_id=N state=N type=above|below */
	TP_TICK_STOP,      /* tick_nohz_idle_stop_tick <-CALLER (function tracer) */
	TP_TICK_RETAIN,    /* tick_nohz_idle_retain_tick <-CALLER */
	TP_TICK_STOPPED,   /* tick_stop: success=1 dependency=NONE (the CPU's tick stopped) */
	TP_TICK_KEPT,      /* tick_stop: success=0 dependency=D (nohz_full: a dependency keeps the tick running) */
	TP_IDLE_LEFT,      /* sched_switch from the idle task (PID 0): the CPU left the idle loop */
	TP_QOS_TARGET,     /* pm_qos_update_target: action=A prev_value=N curr_value=N */
	TP_QOS_REQUEST,    /* pm_qos_{add,update,remove}_request: CPU_DMA_LATENCY value=N */
	TP_MARK_PRE,       /* tracing_mark_write: idlelab-pre (and begin, end, post: in this order) */
	TP_MARK_BEGIN,
	TP_MARK_END,
	TP_MARK_POST,
};

/* One line of the frame. */
struct tp_line {
	enum tp_kind kind;
	enum tp_event ev;
	uint64_t ts_ns;    /* the TIMESTAMP column in ns */
	int64_t pid;       /* the PID after COMM-, -1 when the column does not have one */
	uint64_t cpu;      /* TP_IDLE, TP_MISS: cpu_id; TP_LOST: N of CPU:N; otherwise the [CPU] column */
	uint64_t state;    /* TP_IDLE (TP_EXIT_STATE at the exit), TP_MISS */
	bool below;        /* TP_MISS: type=below */
	uint64_t count;    /* TP_LOST: the events lost */
	int64_t value;     /* TP_QOS_TARGET: curr_value */
};

/* What the first pass found. */
struct tp_frame {
	bool has_hz;
	uint64_t hz;          /* #idlelab hz=N */
	bool tick_traced;     /* #idlelab tick=function or tick=events */
	bool tick_events;     /* tick=events: the tick's state from timer:tick_stop and sched:sched_switch */
	bool has_mark[4];     /* idlelab-pre, -begin, -end, -post: the first of each */
	uint64_t mark_ns[4];
	char *incomplete;     /* the first reason the trace cannot be used, or NULL; the caller frees */
	bool has_events;      /* #idlelab events=...: the events the runner enabled */
	bool misses_untraced; /* ... and cpu_idle_miss is not among them (kernels before 5.20): misses unknown */
	struct il_cpuset nohz_full; /* #idlelab nohz_full=LIST: the CPUs whose tick may stay stopped over a task */
	size_t skipped;       /* event lines that could not be read, skipped */
	char *skipped_first;  /* the first one's reason ("host H: trace line N: expected ..."); the caller frees */
};

/*
 * Read line number lineno (1-based, for the message) of n bytes into *out.
 * IL_EPARSE with "host H: trace line N: expected ..." in err.
 */
int il_traceparse_line(const char *s, size_t n, size_t lineno, const char *host, struct tp_line *out,
		  struct il_err *err);

/*
 * The first pass: every line parsed, the #idlelab header read, the markers
 * found, and what makes the trace incomplete (lost events, overruns, entries
 * written but not kept, a missing or misplaced marker) said in
 * f->incomplete. An event line that cannot be read is counted and skipped
 * (f->skipped, f->skipped_first): one odd line must not cost the sample; a
 * malformed header, first line or LOST line is the error. 0, IL_EPARSE or
 * IL_ENOMEM; on error f->incomplete and f->skipped_first are freed.
 */
int il_traceparse_scan(const char *text, size_t len, const char *host, struct tp_frame *f, struct il_err *err);
/* What a scan allocated (incomplete, skipped_first, nohz_full); f may be scanned again after. */
void il_traceparse_frame_release(struct tp_frame *f);

#endif
