// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reduction of an idle trace (idle/trace.h): per measured CPU, the
 * cpu_idle entries and exits paired into idle periods, the tick decisions
 * (cpuidle_idle_call() in kernel/sched/idle.c stops or retains the tick
 * right after cpuidle_select(), before the entry) given to the period that
 * follows, the cpu_idle_miss events given to the period they follow, all
 * counted in the window between the idlelab-begin and idlelab-end markers;
 * then the JSON object and the cross-check against the diff's counters.
 * The lines themselves are read by idle/traceparse.c.
 */
#include "idle/trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "idle/snapjson.h"
#include "idle/traceparse.h"
#include "util/buf.h"
#include "util/str.h"

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
	uint64_t events, entries, known, stopped, stopped_shallow, qos_updates;
	bool has_latency;
	int64_t latency_min;
	bool qos_armed;            /* a CPU latency request was just made by qos_pid */
	int64_t qos_pid;
};

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
	IL_FREE_ALL(w->cpus, w->order, w->f.incomplete);
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
		w->entries += win;
		c->open = c->last = false;
		return;
	}
	a = &c->acc[c->open_state];
	dur = ns >= c->open_ns ? ns - c->open_ns : 0;
	a->entries_edge += edge;
	if (win) {
		a->entries++;
		w->entries++;
		a->time_us += dur / 1000;
		a->hist[il_trace_bucket(dur / 1000)]++;
		a->tick[c->open_tick]++;
		if (c->open_tick != TICK_UNKNOWN) {
			w->known++;
			if (c->open_tick == TICK_STOPPED) {
				w->stopped++;
				w->stopped_shallow += shallow(w, &c->dc->states[c->open_state]);
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
	 * tick_nohz_idle_exit() restarts it before schedule_idle() switches away
	 */
	case TP_TICK_STOPPED:
	case TP_IDLE_LEFT:
		if ((c = find_cpu(w, l->cpu)))
			c->now = l->ev == TP_TICK_STOPPED ? TICK_STOPPED : TICK_RETAINED;
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

	while (il_next_line(&p, end, &s, &n)) {
		if ((r = tp_parse_line(s, n, ++lineno, host, &l, err)))
			return r;
		if (l.kind == TP_EVENT)
			event(w, &l);
	}
	return 0;
}

/* ---- The JSON object ---- */

static void acc_add(struct acc *to, const struct acc *a)
{
	to->entries += a->entries;
	to->entries_edge += a->entries_edge;
	to->time_us += a->time_us;
	for (int b = 0; b < NB; b++) {
		to->hist[b] += a->hist[b];
		for (int t = 0; t < NMISS; t++)
			to->miss_hist[t][b] += a->miss_hist[t][b];
	}
	for (int t = 0; t < NMISS; t++) {
		to->miss[t] += a->miss[t];
		to->miss_edge[t] += a->miss_edge[t];
	}
	for (int t = 0; t < NTICK; t++)
		to->tick[t] += a->tick[t];
}

static json_t *uint_json(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *hist_json(const uint64_t *h)
{
	json_t *a = json_array();
	int bad = !a;

	for (int b = 0; b < NB && a; b++)
		bad |= json_array_append_new(a, uint_json(h[b]));
	return il_json_whole(a, bad);
}

static json_t *state_json(const struct walk *w, const struct il_diff_state *s, const struct acc *a)
{
	json_t *o = json_object();
	bool t = w->f.tick_traced;
	int bad = !o;

	if (!o)
		return NULL;
	bad |= json_object_set_new(o, "key", il_json_str(s->key));
	bad |= json_object_set_new(o, "name", il_json_str(s->name));
	bad |= json_object_set_new(o, "index", json_integer(s->index));
	bad |= json_object_set_new(o, "residency_us", il_json_val(s->residency_us));
	bad |= json_object_set_new(o, "poll", json_boolean(s->poll));
	bad |= json_object_set_new(o, "entries", uint_json(a->entries));
	bad |= json_object_set_new(o, "time_us", uint_json(a->time_us));
	bad |= json_object_set_new(o, "hist", hist_json(a->hist));
	bad |= json_object_set_new(o, "aboves", uint_json(a->miss[MISS_ABOVE]));
	bad |= json_object_set_new(o, "belows", uint_json(a->miss[MISS_BELOW]));
	bad |= json_object_set_new(o, "above_short_hist", hist_json(a->miss_hist[MISS_ABOVE]));
	bad |= json_object_set_new(o, "below_long_hist", hist_json(a->miss_hist[MISS_BELOW]));
	bad |= json_object_set_new(o, "tick_stopped", t ? uint_json(a->tick[TICK_STOPPED]) : json_null());
	bad |= json_object_set_new(o, "tick_retained", t ? uint_json(a->tick[TICK_RETAINED]) : json_null());
	bad |= json_object_set_new(o, "tick_unknown", t ? uint_json(a->tick[TICK_UNKNOWN]) : json_null());
	return il_json_whole(o, bad);
}

/* The states of a group of CPUs (cl NULL: every measured CPU) summed by key into the groups v[0..n). */
static json_t *group_json(const struct walk *w, const struct il_diff_state *v, size_t n, const struct il_cpuset *cl)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t g = 0; g < n && a; g++) {
		struct acc sum = { 0 };

		for (size_t i = 0; i < w->d->ncpus; i++) {
			const struct walk_cpu *c = &w->cpus[i];

			if (cl && !il_cpuset_has(cl, c->dc->cpu))
				continue;
			for (size_t k = 0; k < c->dc->nstates; k++)
				if (c->group[k] != SIZE_MAX && v[g].key && w->d->states[c->group[k]].key &&
				    !strcmp(w->d->states[c->group[k]].key, v[g].key))
					acc_add(&sum, &c->acc[k]);
		}
		bad |= json_array_append_new(a, state_json(w, &v[g], &sum));
	}
	return il_json_whole(a, bad);
}

static json_t *cpus_json(const struct walk *w)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; i < w->d->ncpus && a; i++) {
		const struct walk_cpu *c = &w->cpus[i];
		json_t *o = json_object(), *st = json_array();
		int b = 0;

		if (!il_json_all((json_t *[]){ o, st }, 2)) {
			bad = 1;
			break;
		}
		for (size_t k = 0; !b && k < c->dc->nstates; k++)
			b |= json_array_append_new(st, state_json(w, &c->dc->states[k], &c->acc[k]));
		b |= json_object_set_new(o, "cpu", json_integer(c->dc->cpu));
		b |= json_object_set_new(o, "states", st);
		bad |= json_array_append_new(a, il_json_whole(o, b));
	}
	return il_json_whole(a, bad);
}

static json_t *clusters_json(const struct walk *w)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; i < w->d->nclusters && a; i++) {
		const struct il_diff_cluster *cl = &w->d->clusters[i];
		json_t *o = json_object();
		int b = !o;

		b |= json_object_set_new(o, "label", il_json_str(cl->label));
		b |= json_object_set_new(o, "states", group_json(w, cl->states, cl->nstates, &cl->cpus));
		bad |= json_array_append_new(a, il_json_whole(o, b));
	}
	return il_json_whole(a, bad);
}

/*
 * The counters were read between the pre and begin markers and between the
 * end and post markers, so what they moved lies between what the trace saw
 * in the window and what it saw between the edges (with the exits of unknown
 * state, for usage + rejected). A count outside is a trace that does not
 * describe this sample.
 */
static int check_one(json_t *mm, const struct walk_cpu *c, size_t k, const char *what, struct il_val moved,
		     uint64_t lo, uint64_t hi)
{
	char *s;
	int r;

	if (!moved.ok || (moved.v >= lo && moved.v <= hi))
		return 0;
	s = il_strdup_printf("cpu%d %s: %s moved %llu, the trace has %llu in the window and %llu with its edges",
			     c->dc->cpu, c->dc->states[k].key ? c->dc->states[k].key : c->dc->states[k].name, what,
			     (unsigned long long)moved.v, (unsigned long long)lo, (unsigned long long)hi);
	r = json_array_append_new(mm, il_json_str(s));
	free(s);
	return r;
}

static json_t *check_json(const struct walk *w)
{
	json_t *o = json_object(), *mm = json_array();
	int bad = 0;

	if (!il_json_all((json_t *[]){ o, mm }, 2))
		return NULL;
	for (size_t i = 0; !bad && i < w->d->ncpus; i++) {
		const struct walk_cpu *c = &w->cpus[i];

		for (size_t k = 0; !bad && k < c->dc->nstates; k++) {
			const struct il_counts *n = &c->dc->states[k].d;
			const struct acc *a = &c->acc[k];
			struct il_val exits = n->c[IL_C_USAGE];

			/* each exit is one usage or one rejected: the kernel without "rejected" (before 5.9) has usage only */
			if (n->c[IL_C_REJECTED].ok)
				exits.v += n->c[IL_C_REJECTED].v;
			bad |= check_one(mm, c, k, n->c[IL_C_REJECTED].ok ? "usage+rejected" : "usage", exits,
					 a->entries, a->entries_edge + c->unknown_edge);
			bad |= check_one(mm, c, k, "above", n->c[IL_C_ABOVE], a->miss[MISS_ABOVE],
					 a->miss_edge[MISS_ABOVE]);
			bad |= check_one(mm, c, k, "below", n->c[IL_C_BELOW], a->miss[MISS_BELOW],
					 a->miss_edge[MISS_BELOW]);
		}
	}
	bad |= json_object_set_new(o, "ok", json_boolean(!json_array_size(mm)));
	bad |= json_object_set_new(o, "mismatches", mm);
	return il_json_whole(o, bad);
}

static json_t *pct_json(uint64_t part, uint64_t whole, bool ok)
{
	return ok && whole ? json_real(100.0 * (double)part / (double)whole) : json_null();
}

static json_t *trace_json(const struct walk *w)
{
	const struct il_diff *d = w->d;
	json_t *o = json_object();
	bool t = w->f.tick_traced;
	int bad = !o;

	if (!o)
		return NULL;
	bad |= json_object_set_new(o, "version", json_integer(IL_TRACE_VERSION));
	bad |= json_object_set_new(o, "window_s",
				   json_real((double)(w->f.mark_ns[MARK_END] - w->f.mark_ns[MARK_BEGIN]) / 1e9));
	bad |= json_object_set_new(o, "events", uint_json(w->events));
	bad |= json_object_set_new(o, "hz", w->f.has_hz ? uint_json(w->f.hz) : json_null());
	bad |= json_object_set_new(o, "tick_period_us", w->tick_ns ? json_real((double)w->tick_ns / 1000.0) : json_null());
	bad |= json_object_set_new(o, "tick_source",
				   t ? json_string(w->f.tick_events ? "events" : "function") : json_null());
	bad |= json_object_set_new(o, "entries", uint_json(w->entries));
	bad |= json_object_set_new(o, "tick_stopped_pct", pct_json(w->stopped, w->known, t));
	bad |= json_object_set_new(o, "tick_stopped_shallow_pct",
				   pct_json(w->stopped_shallow, w->known, t && w->tick_ns));
	bad |= json_object_set_new(o, "cpu_latency_min_us", w->has_latency ? json_integer(w->latency_min) : json_null());
	bad |= json_object_set_new(o, "qos_updates", uint_json(w->qos_updates));
	bad |= json_object_set_new(o, "states", group_json(w, d->states, d->nstates, NULL));
	bad |= json_object_set_new(o, "cpus", cpus_json(w));
	if (d->nclusters)
		bad |= json_object_set_new(o, "clusters", clusters_json(w));
	bad |= json_object_set_new(o, "check", check_json(w));
	return il_json_whole(o, bad);
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
	if ((r = tp_scan(text, len, host, &w.f, err)))
		return r;
	if (w.f.incomplete) {
		*incomplete = w.f.incomplete;
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
	if (!r && !(*out = trace_json(&w)))
		r = il_err_oom(err);
	walk_release(&w);
	return r;
}
