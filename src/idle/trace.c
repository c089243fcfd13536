// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reduction of an idle trace (idle/trace.h): per measured CPU, the
 * cpu_idle entries and exits paired into idle periods, the tick decisions
 * (cpuidle_idle_call() in kernel/sched/idle.c stops or retains the tick
 * right after cpuidle_select(), before the entry) given to the period that
 * follows, the cpu_idle_miss events given to the period they follow, all
 * counted in the window between the idlelab-begin and idlelab-end markers.
 * The lines themselves are read by idle/traceparse.c; the object the walk
 * becomes, with the cross-check against the diff's counters, is
 * idle/tracejson.c's.
 */
#include "idle/trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "idle/tracewalk.h"
#include "util/buf.h"
#include "idle/cpuset.h"
#include "util/str.h"

int il_trace_bucket(uint64_t us)
{
	int k = 0;

	while (us && k < NB - 1) {
		us >>= 1;
		k++;
	}
	return k;
}

static bool in_window(const struct walk *w, uint64_t ns)
{
	return ns > w->f.mark_ns[MARK_BEGIN] && ns < w->f.mark_ns[MARK_END];
}

static bool in_edges(const struct walk *w, uint64_t ns)
{
	return ns > w->f.mark_ns[MARK_PRE] && ns < w->f.mark_ns[MARK_POST];
}

/* ---- Per-CPU state, sized by the diff ---- */

static int cmp_order(const void *a, const void *b)
{
	int x = ((const struct cpu_ref *)a)->cpu, y = ((const struct cpu_ref *)b)->cpu;

	return (x > y) - (x < y);
}

static struct walk_cpu *find_cpu(const struct walk *w, uint64_t cpu)
{
	size_t lo = 0, hi = w->d->ncpus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cpu_ref *c = &w->order[mid];

		if (c->cpu >= 0 && (uint64_t)c->cpu == cpu)
			return &w->cpus[c->i];
		if (c->cpu < 0 || (uint64_t)c->cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* us in ns, saturated: a residency from a host may be any number */
static uint64_t us_to_ns(uint64_t us)
{
	return us > (UINT64_MAX - 1) / 1000 ? UINT64_MAX - 1 : us * 1000;
}

static bool state_disabled(const struct il_diff_cpu *dc, size_t k)
{
	return il_cpuset_has(&dc->states[k].disabled, dc->cpu);
}

/*
 * cpuidle_enter_state() counts a "below" when the period (less the exit
 * latency) reached the target residency of the first enabled state deeper
 * than the one entered; disabled ones are skipped, as the kernel skips them.
 */
static uint64_t next_enabled_res_ns(const struct il_diff_cpu *dc, size_t k)
{
	for (size_t i = k + 1; i < dc->nstates; i++)
		if (!state_disabled(dc, i))
			return dc->states[i].residency_us.ok ? us_to_ns(dc->states[i].residency_us.v) : NO_NS;
	return NO_NS;
}

static int walk_init(struct walk *w, const struct il_diff *d)
{
	w->d = d;
	w->cpus = calloc(d->ncpus + 1, sizeof(*w->cpus));
	w->order = calloc(d->ncpus + 1, sizeof(*w->order));
	if (!w->cpus || !w->order)
		return IL_ENOMEM;
	for (size_t i = 0; i < d->ncpus; i++) {
		struct walk_cpu *c = &w->cpus[i];
		const struct il_diff_cpu *dc = &d->cpus[i];

		c->dc = dc;
		c->pending = TICK_UNKNOWN;
		c->now = TICK_UNKNOWN;
		w->order[i] = (struct cpu_ref){ dc->cpu, i };
		c->acc = calloc(dc->nstates + 1, sizeof(*c->acc));
		c->group = calloc(dc->nstates + 1, sizeof(*c->group));
		c->next_res_ns = calloc(dc->nstates + 1, sizeof(*c->next_res_ns));
		if (!c->acc || !c->group || !c->next_res_ns)
			return IL_ENOMEM;
		for (size_t k = 0; k < dc->nstates; k++) {
			c->group[k] = SIZE_MAX;
			for (size_t g = 0; g < d->nstates && dc->states[k].key && d->states[g].key; g++)
				if (!strcmp(dc->states[k].key, d->states[g].key))
					c->group[k] = g;
			c->next_res_ns[k] = next_enabled_res_ns(dc, k);
		}
	}
	if (d->ncpus)
		qsort(w->order, d->ncpus, sizeof(*w->order), cmp_order);
	return 0;
}

static void walk_release(struct walk *w)
{
	for (size_t i = 0; w->cpus && i < w->d->ncpus; i++)
		IL_FREE_ALL(w->cpus[i].acc, w->cpus[i].group, w->cpus[i].next_res_ns);
	IL_FREE_ALL(w->cpus, w->order);
	il_traceparse_frame_release(&w->f);
}

/* ---- The walk over the events ---- */

/* A state whose target residency is below the tick period: the tick would have ended its periods anyway. */
static bool shallow(const struct walk *w, const struct il_diff_state *s)
{
	return w->tick_ns && s->residency_us.ok && us_to_ns(s->residency_us.v) < w->tick_ns;
}

/*
 * The exit closes the open period. Without one (the CPU was idle since
 * before tracing began, or the entry was lost) the state is unknown: such
 * an exit may be any state's, so it only widens the cross-check's upper bound.
 */
static void idle_exit(struct walk *w, struct walk_cpu *c, uint64_t ns)
{
	bool win = in_window(w, ns), edge = in_edges(w, ns);
	struct acc *a;
	uint64_t dur;

	if (!c->open || c->open_state >= c->dc->nstates) {
		c->unknown_edge += edge;
		c->entries += win;
		c->open = c->last = false;
		return;
	}
	a = &c->acc[c->open_state];
	dur = ns >= c->open_ns ? ns - c->open_ns : 0;
	a->entries_edge += edge;
	if (win) {
		a->entries++;
		c->entries++;
		a->time_us += dur / 1000;
		a->hist[il_trace_bucket(dur / 1000)]++;
		a->tick[c->open_tick]++;
		if (c->open_tick != TICK_UNKNOWN) {
			c->known++;
			if (c->open_tick == TICK_STOPPED) {
				c->stopped++;
				c->stopped_shallow += shallow(w, &c->dc->states[c->open_state]);
			}
		}
	}
	c->open = false;
	c->last = true;
	c->last_state = c->open_state;
	c->last_ns = dur;
}

/* How far off a miss was, from the period it follows; false when that period is not known. */
static bool miss_offset(const struct walk_cpu *c, uint64_t state, int type, uint64_t *us)
{
	const struct il_diff_state *s = &c->dc->states[state];
	uint64_t ref;

	if (!c->last || c->last_state != state)
		return false;
	if (type == MISS_ABOVE) {
		if (!s->residency_us.ok)
			return false;
		ref = us_to_ns(s->residency_us.v);
		*us = ref > c->last_ns ? (ref - c->last_ns) / 1000 : 0;
	} else {
		if ((ref = c->next_res_ns[state]) == NO_NS)
			return false;
		*us = c->last_ns > ref ? (c->last_ns - ref) / 1000 : 0;
	}
	return true;
}

static void idle_miss(struct walk *w, struct walk_cpu *c, const struct tp_line *l)
{
	int t = l->below ? MISS_BELOW : MISS_ABOVE;
	struct acc *a;
	uint64_t us;

	if (l->state >= c->dc->nstates)
		return; /* a state this CPU does not have: no counter to check it against */
	a = &c->acc[l->state];
	a->miss_edge[t] += in_edges(w, l->ts_ns);
	if (in_window(w, l->ts_ns)) {
		a->miss[t]++;
		if (miss_offset(c, l->state, t, &us))
			a->miss_hist[t][il_trace_bucket(us)]++;
	}
	c->last = false; /* one miss per period at most (cpuidle_enter_state) */
}

/*
 * The CPU latency limit: pm_qos_update_target also fires for frequency
 * and device QoS (freq_qos_apply, dev_pm_qos's apply_constraint), so only
 * the one that follows a CPU latency request of the same task counts:
 * cpu_latency_qos_{add,update,remove}_request trace their request and then
 * call pm_qos_update_target (kernel/power/qos.c).
 */
static void qos_target(struct walk *w, const struct tp_line *l)
{
	if (!w->qos_armed || w->qos_pid != l->pid)
		return;
	w->qos_armed = false;
	if (!in_window(w, l->ts_ns))
		return;
	w->qos_updates++;
	if (!w->has_latency || l->value < w->latency_min)
		w->latency_min = l->value;
	w->has_latency = true;
}

static void event(struct walk *w, const struct tp_line *l)
{
	struct walk_cpu *c;

	w->events += in_window(w, l->ts_ns);
	switch (l->ev) {
	case TP_TICK_STOP:
	case TP_TICK_RETAIN:
		if ((c = find_cpu(w, l->cpu)))
			c->pending = l->ev == TP_TICK_STOP ? TICK_STOPPED : TICK_RETAINED;
		break;
	/*
	 * the tick stays stopped over idle periods until the CPU leaves the idle loop:
	 * tick_nohz_idle_exit() restarts it before schedule_idle() switches away. Not on a
	 * nohz_full CPU (kernel/time/tick-sched.c, tick_nohz_idle_update_tick): there the
	 * tick stays stopped over the task unless a dependency needs it, which
	 * can_stop_full_tick() says as tick_stop: success=0 (TP_TICK_KEPT); a later
	 * success=1 while the task runs is the tick stopped again.
	 */
	case TP_TICK_STOPPED:
	case TP_TICK_KEPT:
		if ((c = find_cpu(w, l->cpu)))
			c->now = l->ev == TP_TICK_STOPPED ? TICK_STOPPED : TICK_RETAINED;
		break;
	case TP_IDLE_LEFT:
		if ((c = find_cpu(w, l->cpu)) && !il_cpuset_has(&w->f.nohz_full, (int)l->cpu))
			c->now = TICK_RETAINED;
		break;
	case TP_IDLE:
		if (!(c = find_cpu(w, l->cpu)))
			break;
		if (l->state == TP_EXIT_STATE) {
			idle_exit(w, c, l->ts_ns);
			break;
		}
		/* an entry while a period is open: that period's exit was lost, so it is not counted */
		c->open = true;
		c->open_state = l->state;
		c->open_ns = l->ts_ns;
		c->open_tick = w->f.tick_events ? c->now : c->pending;
		c->pending = TICK_UNKNOWN;
		c->last = false;
		break;
	case TP_MISS:
		if ((c = find_cpu(w, l->cpu)))
			idle_miss(w, c, l);
		break;
	case TP_QOS_REQUEST:
		w->qos_armed = true;
		w->qos_pid = l->pid;
		break;
	case TP_QOS_TARGET:
		qos_target(w, l);
		break;
	default:
		break;
	}
}

static int walk_events(struct walk *w, const char *text, size_t len, const char *host, struct il_err *err)
{
	const char *p = text, *end = text + len, *s;
	size_t n, lineno = 0;
	struct tp_line l;
	int r;

	while (il_str_next_line(&p, end, &s, &n)) {
		if ((r = il_traceparse_line(s, n, ++lineno, host, &l, err)) == IL_EPARSE) {
			memset(err, 0, sizeof(*err));
			continue; /* counted by the first pass (il_traceparse_scan), said in the trace's caveats */
		}
		if (r)
			return r;
		if (l.kind == TP_EVENT)
			event(w, &l);
	}
	return 0;
}

int il_trace_reduce(const char *text, size_t len, const struct il_diff *d, const char *host, json_t **out,
		    char **incomplete, struct il_err *err)
{
	struct walk w = { 0 };
	int r;

	*out = NULL;
	*incomplete = NULL;
	if (!host)
		host = "?";
	if ((r = il_traceparse_scan(text, len, host, &w.f, err)))
		return r;
	if (w.f.incomplete) {
		*incomplete = w.f.incomplete;
		w.f.incomplete = NULL;
		il_traceparse_frame_release(&w.f);
		return 0;
	}
	/* TICK_NSEC (include/vdso/jiffies.h): NSEC_PER_SEC / HZ, rounded */
	if (w.f.has_hz)
		w.tick_ns = (1000000000ull + w.f.hz / 2) / w.f.hz;
	if (walk_init(&w, d)) {
		walk_release(&w);
		return il_err_oom(err);
	}
	r = walk_events(&w, text, len, host, err);
	if (!r)
		il_tracejson_find_blind(&w);
	if (!r && !(*out = il_tracejson_make(&w)))
		r = il_err_oom(err);
	walk_release(&w);
	return r;
}
