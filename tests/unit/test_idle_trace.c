// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Idle traces (idle/trace.c, idle/traceparse.c): a realistic tracefs frame
 * against its snapshot pair, then one behaviour per test on frames written
 * here: histogram buckets, miss offsets, tick decisions, the cross-check,
 * incomplete traces, malformed lines, the text format's variations.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle/diff.h"
#include "idle/trace.h"

/* ---- Diffs ---- */

static void parse_snap(struct il_snapshot *s, const char *text, size_t len)
{
	struct il_err err = { 0 };

	if (il_snapshot_parse(s, text, len, "t", &err))
		fail_msg("%s", err.msg);
}

/* The diff of the snapshot pair tests/fixtures/trace/NAME-{before,after}.txt. */
static void fixture_diff(struct il_diff *d, const char *name)
{
	struct il_snapshot a, b;
	struct il_err err = { 0 };
	char path[256];
	size_t len;
	char *t;

	snprintf(path, sizeof(path), "tests/fixtures/trace/%s-before.txt", name);
	t = tu_read(tu_srcpath(path), &len);
	parse_snap(&a, t, len);
	free(t);
	snprintf(path, sizeof(path), "tests/fixtures/trace/%s-after.txt", name);
	t = tu_read(tu_srcpath(path), &len);
	parse_snap(&b, t, len);
	free(t);
	if (il_diff_compute(d, &a, &b, &err))
		fail_msg("%s", err.msg);
	il_snapshot_release(&a);
	il_snapshot_release(&b);
}

/*
 * A synthetic host: ncpus CPUs with WFI (1 us), C1 (100 us), C2 (5000 us),
 * whose counters moved by the deltas given (zero unless set); disabled has
 * bit 3 * cpu + state for a state disabled on a CPU.
 */
struct sd {
	int ncpus;
	unsigned disabled;
	uint64_t usage[4][3], above[4][3], below[4][3];
	const char *measured; /* idle_cpus; NULL: every CPU */
};

static const char *const snames[3] = { "WFI", "C1", "C2" };
static const unsigned sres[3] = { 1, 100, 5000 }, slat[3] = { 1, 60, 500 };

static void synth_dump(struct il_buf *b, const struct sd *s, bool after, uint64_t mono_ns)
{
	il_buf_printf(b, "/sys/devices/system/cpu/cpuidle/current_driver:psci_idle\n"
			 "/sys/devices/system/cpu/cpuidle/current_governor:menu\n"
			 "/sys/devices/system/cpu/online:0-%d\n", s->ncpus - 1);
	for (int c = 0; c < s->ncpus; c++)
		for (int k = 0; k < 3; k++) {
			char p[96];

			snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/", c, k);
			il_buf_printf(b, "%sname:%s\n%slatency:%u\n%sresidency:%u\n%sdisable:%d\n", p, snames[k], p, slat[k],
				      p, sres[k], p, !!(s->disabled & (1u << (3 * c + k))));
			il_buf_printf(b, "%susage:%llu\n%stime:%llu\n%sabove:%llu\n%sbelow:%llu\n%srejected:0\n", p,
				      1000 + (after ? (unsigned long long)s->usage[c][k] : 0), p, 5000000ull, p,
				      100 + (after ? (unsigned long long)s->above[c][k] : 0), p,
				      100 + (after ? (unsigned long long)s->below[c][k] : 0), p);
		}
	il_buf_printf(b, "/proc/sys/kernel/random/boot_id:0f0e0d0c-0b0a-0908-0706-050403020100\n"
			 "/proc/timer_list:now at %llu nsecs\n", (unsigned long long)mono_ns);
}

static void synth_diff(struct il_diff *d, const struct sd *s)
{
	struct il_buf b = IL_BUF_INIT;
	struct il_snapshot sa, sb;
	struct il_diff_opts o = { .min_sample_s = 0 };
	struct il_cpuset cpus = { 0 };
	struct il_err err = { 0 };

	synth_dump(&b, s, false, 10000050000ull);
	parse_snap(&sa, il_buf_str(&b), b.len);
	il_buf_reset(&b);
	synth_dump(&b, s, true, 20000050000ull);
	parse_snap(&sb, il_buf_str(&b), b.len);
	il_buf_release(&b);
	if (s->measured) {
		assert_int_equal(il_cpuset_parse(&cpus, s->measured, &err), 0);
		o.cpus = &cpus;
	}
	if (il_diff_compute_opts(d, &sa, &sb, &o, &err))
		fail_msg("%s", err.msg);
	il_cpuset_release(&cpus);
	il_snapshot_release(&sa);
	il_snapshot_release(&sb);
}

/* ---- Frames ---- */

/* The markers of the frames written here, in us: a 9.9999 s window. */
#define PRE 10000000ull
#define BEGIN 10000100ull
#define END 20000000ull
#define POST 20000100ull

static void tb_start(struct il_buf *b, const char *hz, const char *tick)
{
	il_buf_printf(b, "#idlelab trace v1\n#idlelab hz=%s\n#idlelab tick=%s\n"
			 "#idlelab cpu=0 entries=10 overrun=0 commit_overrun=0 dropped=0\n"
			 "#idlelab cpu=1 entries=10 overrun=0 commit_overrun=0 dropped=0\n"
			 "# tracer: function\n#\n# entries-in-buffer/entries-written: 20/20   #P:2\n#\n"
			 "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
			 "#              | |         |   |||||     |         |\n",
		      hz, tick);
}

/* One line of <idle>-0 on cpu at us (or of another task when comm is not NULL). */
static void __attribute__((format(printf, 5, 6)))
tb_line(struct il_buf *b, const char *comm, int cpu, uint64_t us, const char *fmt, ...)
{
	va_list ap;

	il_buf_printf(b, "%16s-%-7d [%03d] d..1. %5llu.%06llu: ", comm ? comm : "<idle>", comm ? 4242 : 0, cpu,
		      (unsigned long long)(us / 1000000), (unsigned long long)(us % 1000000));
	va_start(ap, fmt);
	il_buf_vprintf(b, fmt, ap);
	va_end(ap);
	il_buf_adds(b, "\n");
}

static void tb_mark(struct il_buf *b, const char *which, uint64_t us)
{
	tb_line(b, "sh", 0, us, "tracing_mark_write: idlelab-%s", which);
}

/* A period of state on cpu: its entry at us and its exit dur us later. */
static void tb_period(struct il_buf *b, int cpu, int state, uint64_t us, uint64_t dur)
{
	tb_line(b, NULL, cpu, us, "cpu_idle: state=%d cpu_id=%d", state, cpu);
	tb_line(b, NULL, cpu, us + dur, "cpu_idle: state=4294967295 cpu_id=%d", cpu);
}

static void tb_miss(struct il_buf *b, int cpu, int state, uint64_t us, const char *type)
{
	tb_line(b, NULL, cpu, us, "cpu_idle_miss: cpu_id=%d state=%d type=%s", cpu, state, type);
}

static void tb_tick(struct il_buf *b, int cpu, uint64_t us, bool stop)
{
	tb_line(b, NULL, cpu, us, "%s <-do_idle", stop ? "tick_nohz_idle_stop_tick" : "tick_nohz_idle_retain_tick");
}

/* Reduce text against d; the object, or a failed test. */
static json_t *reduce(const char *text, size_t len, const struct il_diff *d)
{
	struct il_err err = { 0 };
	char *inc = NULL;
	json_t *j = NULL;

	if (il_trace_reduce(text, len, d, "h1", &j, &inc, &err))
		fail_msg("%s", err.msg);
	if (inc)
		fail_msg("incomplete: %s", inc);
	assert_non_null(j);
	return j;
}

static json_t *reduce_buf(struct il_buf *b, const struct il_diff *d)
{
	return reduce(il_buf_str(b), b->len, d);
}

/* The why of an incomplete trace (the caller frees), or a failed test. */
static char *reduce_incomplete(const char *text, const struct il_diff *d)
{
	struct il_err err = { 0 };
	char *inc = NULL;
	json_t *j = NULL;

	if (il_trace_reduce(text, strlen(text), d, "h1", &j, &inc, &err))
		fail_msg("%s", err.msg);
	assert_null(j);
	assert_non_null(inc);
	return inc;
}

static json_int_t jint(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		fail_msg("%s is not an integer", key);
	return json_integer_value(v);
}

static double jreal(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		fail_msg("%s is not a number", key);
	return json_number_value(v);
}

/* The object for key among the state objects of a (its "states" array). */
static json_t *state_of(const json_t *o, const char *key)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(o, "states"), i, e)
		if (!strcmp(json_string_value(json_object_get(e, "key")), key))
			return e;
	fail_msg("no state %s", key);
	return NULL;
}

static json_t *cpu_of(const json_t *j, int cpu)
{
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(j, "cpus"), i, e)
		if (jint(e, "cpu") == cpu)
			return e;
	fail_msg("no cpu%d", cpu);
	return NULL;
}

/* Whether hist (24 counts) is exactly the buckets listed (each once) in want[0..n). */
static void assert_hist(const json_t *st, const char *key, const int *want, size_t n)
{
	const json_t *h = json_object_get(st, key);
	json_int_t expect[IL_TRACE_NBUCKETS] = { 0 };

	assert_int_equal(json_array_size(h), IL_TRACE_NBUCKETS);
	for (size_t i = 0; i < n; i++)
		expect[want[i]]++;
	for (int b = 0; b < IL_TRACE_NBUCKETS; b++)
		if (json_integer_value(json_array_get(h, (size_t)b)) != expect[b])
			fail_msg("%s bucket %d: %lld, expected %lld", key, b,
				 (long long)json_integer_value(json_array_get(h, (size_t)b)), (long long)expect[b]);
}

#define HIST(st, key, ...) assert_hist(st, key, (const int[]){ __VA_ARGS__ }, sizeof((int[]){ __VA_ARGS__ }) / sizeof(int))
#define HIST_EMPTY(st, key) assert_hist(st, key, NULL, 0)

/* ---- Tests ---- */

/*
 * tests/fixtures/trace/2cpu.trace, window 100.010000..104.010000, states
 * WFI 1 us, C1 100 us (exit latency 60), C2 5000 us; HZ 250 (4000 us tick).
 * cpu0: C1 50 us after a retain (above by 50: bucket 6), C2 3000 us after a
 * stop (above by 2000: bucket 11; a shallow state? 5000 >= 4000: no), WFI
 * 3 us after a retain (bucket 2), C1 6000 us with no decision (below: C2's
 * 5000 us reached, by 1000: bucket 10); before begin, a C2 period with its
 * above (edges only). cpu1: C2 from 100.015010 for 100000 us after a stop
 * (bucket 17), C1 100 us after a retain (bucket 7), C1 300 us after a stop
 * (bucket 9, shallow: 100 < 4000); C2 exits at 100.005000 and 104.015000 are
 * in the edges only. PM QoS: cyclictest's request of 20 us and its removal
 * (2000000000), and a frequency QoS update to 0 between them that is not a
 * latency. The snapshot pair moved C2 by 2 on both CPUs (cpu0: 1 in the
 * window, 2 with the edges; cpu1: 1 and 3) and cpu0 C2's above by 2.
 */
static void test_trace__realistic(void **state)
{
	struct il_diff d;
	size_t len;
	char *text = tu_read(tu_srcpath("tests/fixtures/trace/2cpu.trace"), &len);
	json_t *j, *st, *c;

	(void)state;
	fixture_diff(&d, "2cpu");
	j = reduce(text, len, &d);
	assert_int_equal(jint(j, "version"), 1);
	assert_true(fabs(jreal(j, "window_s") - 4.0) < 1e-9);
	/* the lines strictly between idlelab-begin and idlelab-end, whatever they are */
	assert_int_equal(jint(j, "events"), 33);
	assert_int_equal(jint(j, "hz"), 250);
	assert_true(fabs(jreal(j, "tick_period_us") - 4000) < 1e-9);
	assert_string_equal(json_string_value(json_object_get(j, "tick_source")), "function");
	assert_int_equal(jint(j, "entries"), 7);
	/* 6 periods with a decision (cpu0's C1 of 6000 us has none), 3 stopped, 1 of them in a shallow state */
	assert_true(fabs(jreal(j, "tick_stopped_pct") - 50.0) < 1e-9);
	assert_true(fabs(jreal(j, "tick_stopped_shallow_pct") - 100.0 / 6) < 1e-9);
	assert_int_equal(jint(j, "cpu_latency_min_us"), 20);
	assert_int_equal(jint(j, "qos_updates"), 2);
	assert_int_equal(json_array_size(json_object_get(j, "states")), 3);

	st = state_of(j, "WFI");
	assert_int_equal(jint(st, "index"), 0);
	assert_int_equal(jint(st, "entries"), 1);
	assert_int_equal(jint(st, "time_us"), 3);
	HIST(st, "hist", 2);
	assert_int_equal(jint(st, "tick_retained"), 1);

	st = state_of(j, "C1");
	assert_string_equal(json_string_value(json_object_get(st, "name")), "C1");
	assert_int_equal(jint(st, "residency_us"), 100);
	assert_false(json_is_true(json_object_get(st, "poll")));
	assert_int_equal(jint(st, "entries"), 4);
	assert_int_equal(jint(st, "time_us"), 50 + 6000 + 100 + 300);
	HIST(st, "hist", 6, 13, 7, 9);
	assert_int_equal(jint(st, "aboves"), 1);
	assert_int_equal(jint(st, "belows"), 1);
	HIST(st, "above_short_hist", 6);
	HIST(st, "below_long_hist", 10);
	assert_int_equal(jint(st, "tick_stopped"), 1);
	assert_int_equal(jint(st, "tick_retained"), 2);
	assert_int_equal(jint(st, "tick_unknown"), 1);

	st = state_of(j, "C2");
	assert_int_equal(jint(st, "entries"), 2);
	assert_int_equal(jint(st, "time_us"), 3000 + 100000);
	HIST(st, "hist", 12, 17);
	assert_int_equal(jint(st, "aboves"), 1);
	HIST(st, "above_short_hist", 11);
	assert_int_equal(jint(st, "belows"), 0);
	HIST_EMPTY(st, "below_long_hist");
	assert_int_equal(jint(st, "tick_stopped"), 2);
	assert_int_equal(jint(st, "tick_retained"), 0);

	assert_int_equal(json_array_size(json_object_get(j, "cpus")), 2);
	c = cpu_of(j, 1);
	assert_int_equal(jint(state_of(c, "C2"), "entries"), 1);
	assert_int_equal(jint(state_of(c, "C1"), "entries"), 2);
	assert_int_equal(jint(state_of(cpu_of(j, 0), "C1"), "aboves"), 1);
	/* a symmetric host: no clusters */
	assert_null(json_object_get(j, "clusters"));
	/* the counters agree: within the window and the edges on every CPU and state */
	assert_true(json_is_true(json_object_get(json_object_get(j, "check"), "ok")));
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "check"), "mismatches")), 0);
	json_decref(j);
	il_diff_release(&d);
	free(text);
}

static void test_trace__buckets(void **state)
{
	struct sd s = { .ncpus = 1 };
	struct il_buf b = IL_BUF_INIT;
	struct il_diff d;
	json_t *j, *st;

	(void)state;
	assert_int_equal(il_trace_bucket(0), 0);
	assert_int_equal(il_trace_bucket(1), 1);
	assert_int_equal(il_trace_bucket(2), 2);
	assert_int_equal(il_trace_bucket(3), 2);
	assert_int_equal(il_trace_bucket(4), 3);
	assert_int_equal(il_trace_bucket((1u << 22) - 1), 22);
	assert_int_equal(il_trace_bucket(1u << 22), 23);
	assert_int_equal(il_trace_bucket(UINT64_MAX), 23);
	synth_diff(&d, &s);
	tb_start(&b, "250", "function");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_period(&b, 0, 1, BEGIN + 100, 0);         /* 0 us: bucket 0 */
	tb_period(&b, 0, 1, BEGIN + 200, 1);         /* 1 us: bucket 1 */
	tb_period(&b, 0, 1, BEGIN + 300, 3);         /* 3 us: bucket 2 [2, 4) */
	tb_period(&b, 0, 2, BEGIN + 400, 1u << 22);  /* 4.194304 s: the last bucket */
	tb_period(&b, 0, 2, BEGIN + 4200000, 4999999); /* well past 2^22 us: the last bucket too */
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	j = reduce_buf(&b, &d);
	st = state_of(j, "C1");
	HIST(st, "hist", 0, 1, 2);
	assert_int_equal(jint(st, "time_us"), 4);
	st = state_of(j, "C2");
	HIST(st, "hist", 23, 23);
	assert_int_equal(jint(st, "time_us"), (1 << 22) + 4999999);
	json_decref(j);
	il_diff_release(&d);
	il_buf_release(&b);
}

/*
 * Above: the entered state's residency less the period. Below: the period
 * less the residency of the next ENABLED deeper state on that CPU: with C1
 * disabled on cpu0, a WFI period there is measured against C2; cpu1 has C1.
 */
static void test_trace__miss_offsets(void **state)
{
	struct sd s = { .ncpus = 2, .disabled = 1u << (3 * 0 + 1) };
	struct il_buf b = IL_BUF_INIT;
	struct il_diff d;
	json_t *j, *c0, *c1;

	(void)state;
	synth_diff(&d, &s);
	tb_start(&b, "250", "function");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_period(&b, 0, 0, BEGIN + 100, 6000);      /* 6000 - 5000 (C2; C1 disabled) = 1000: bucket 10 */
	tb_miss(&b, 0, 0, BEGIN + 6101, "below");
	tb_period(&b, 1, 0, BEGIN + 100, 300);       /* 300 - 100 (C1) = 200: bucket 8 */
	tb_miss(&b, 1, 0, BEGIN + 401, "below");
	tb_period(&b, 1, 2, BEGIN + 1000, 1000);     /* 5000 - 1000 = 4000: bucket 12 */
	tb_miss(&b, 1, 2, BEGIN + 2001, "above");
	tb_period(&b, 1, 1, BEGIN + 3000, 99);       /* 100 - 99 = 1: bucket 1 */
	tb_miss(&b, 1, 1, BEGIN + 3100, "above");
	/* a miss for a state other than the period's: counted, no offset */
	tb_period(&b, 1, 1, BEGIN + 4000, 10);
	tb_miss(&b, 1, 2, BEGIN + 4011, "above");
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	j = reduce_buf(&b, &d);
	c0 = cpu_of(j, 0);
	c1 = cpu_of(j, 1);
	assert_int_equal(jint(state_of(c0, "WFI"), "belows"), 1);
	HIST(state_of(c0, "WFI"), "below_long_hist", 10);
	HIST(state_of(c1, "WFI"), "below_long_hist", 8);
	assert_int_equal(jint(state_of(c1, "C2"), "aboves"), 2);
	HIST(state_of(c1, "C2"), "above_short_hist", 12);
	HIST(state_of(c1, "C1"), "above_short_hist", 1);
	HIST(state_of(j, "WFI"), "below_long_hist", 8, 10);
	json_decref(j);
	il_diff_release(&d);
	il_buf_release(&b);
}

/*
 * A decision is the next entry's: consumed by it, so an entry without one
 * before it is unknown; the last decision before an entry counts; decisions
 * on CPUs not measured are nobody's.
 */
static void test_trace__tick_decisions(void **state)
{
	struct sd s = { .ncpus = 2, .measured = "0" };
	struct il_buf b = IL_BUF_INIT;
	struct il_diff d;
	json_t *j, *st;

	(void)state;
	synth_diff(&d, &s);
	tb_start(&b, "1000", "function");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_tick(&b, 0, BEGIN + 10, true);
	tb_period(&b, 0, 1, BEGIN + 20, 50);         /* stopped */
	tb_period(&b, 0, 1, BEGIN + 100, 50);        /* unknown: the stop was consumed */
	tb_tick(&b, 0, BEGIN + 200, false);
	tb_period(&b, 0, 1, BEGIN + 210, 50);        /* retained */
	tb_tick(&b, 0, BEGIN + 300, false);
	tb_tick(&b, 0, BEGIN + 301, true);
	tb_period(&b, 0, 2, BEGIN + 310, 50);        /* stopped: the last decision */
	tb_tick(&b, 1, BEGIN + 400, true);           /* cpu1 is not measured */
	tb_period(&b, 1, 2, BEGIN + 410, 50);
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	j = reduce_buf(&b, &d);
	st = state_of(j, "C1");
	assert_int_equal(jint(st, "tick_stopped"), 1);
	assert_int_equal(jint(st, "tick_retained"), 1);
	assert_int_equal(jint(st, "tick_unknown"), 1);
	st = state_of(j, "C2");
	assert_int_equal(jint(st, "tick_stopped"), 1);
	assert_int_equal(jint(st, "entries"), 1);
	/* 3 known, 2 stopped; HZ 1000: C1 (100 us) is shallow, C2 (5000 us) is not */
	assert_true(fabs(jreal(j, "tick_stopped_pct") - 200.0 / 3) < 1e-9);
	assert_true(fabs(jreal(j, "tick_stopped_shallow_pct") - 100.0 / 3) < 1e-9);
	assert_true(fabs(jreal(j, "tick_period_us") - 1000) < 1e-9);
	json_decref(j);
	il_diff_release(&d);
	il_buf_release(&b);
}

/*
 * The tick from events on a nohz_full CPU (issue #41's first suspicion,
 * kernel/time/tick-sched.c tick_nohz_idle_update_tick): leaving the idle loop
 * does not restart its tick, which stays stopped over the task unless a
 * dependency needs it (tick_stop: success=0). Both CPUs see the same events:
 * cpu0 (not nohz_full) reads the switch away from idle as the tick restarted,
 * cpu1 (nohz_full) keeps it stopped until the success=0. Without the header
 * line cpu1 reads as cpu0 does.
 */
static void test_trace__nohz_full(void **state)
{
	struct sd s = { .ncpus = 2 };
	struct il_diff d;
	json_t *j, *nf;

	(void)state;
	synth_diff(&d, &s);
	for (int with = 1; with >= 0; with--) {
		struct il_buf b = IL_BUF_INIT;

		tb_start(&b, "250", "events");
		if (with)
			il_buf_adds(&b, "#idlelab nohz_full=1\n");
		tb_mark(&b, "pre", PRE);
		tb_mark(&b, "begin", BEGIN);
		for (int c = 0; c < 2; c++) {
			tb_line(&b, NULL, c, BEGIN + 10, "tick_stop: success=1 dependency=NONE");
			tb_period(&b, c, 1, BEGIN + 20, 50);   /* stopped */
			tb_line(&b, NULL, c, BEGIN + 80,
				"sched_switch: prev_comm=swapper/%d prev_pid=0 prev_prio=120 prev_state=R ==> "
				"next_comm=w next_pid=4242 next_prio=120", c);
			tb_period(&b, c, 1, BEGIN + 100, 50);  /* cpu0: retained; cpu1 (nohz_full): stopped */
			tb_line(&b, NULL, c, BEGIN + 150, "tick_stop: success=0 dependency=SCHED");
			tb_period(&b, c, 1, BEGIN + 200, 50);  /* retained: a dependency keeps it running */
		}
		tb_mark(&b, "end", END);
		tb_mark(&b, "post", POST);
		j = reduce_buf(&b, &d);
		assert_int_equal(jint(state_of(cpu_of(j, 0), "C1"), "tick_stopped"), 1);
		assert_int_equal(jint(state_of(cpu_of(j, 0), "C1"), "tick_retained"), 2);
		assert_int_equal(jint(state_of(cpu_of(j, 1), "C1"), "tick_stopped"), with ? 2 : 1);
		assert_int_equal(jint(state_of(cpu_of(j, 1), "C1"), "tick_retained"), with ? 1 : 2);
		nf = json_object_get(j, "nohz_full_cpus");
		if (with)
			assert_true(json_array_size(nf) == 1 && json_integer_value(json_array_get(nf, 0)) == 1);
		else
			assert_null(nf);
		json_decref(j);
		il_buf_release(&b);
	}
	il_diff_release(&d);
}

/* cpu0's trace in the window: n periods of state (cpu1 idle-less), reduced against the counters of s. */
static json_t *periods_against(const struct sd *s, int state, int n)
{
	struct il_buf b = IL_BUF_INIT;
	struct il_diff d;
	json_t *j;

	synth_diff(&d, s);
	tb_start(&b, "250", "events");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	for (int i = 0; i < n; i++)
		tb_period(&b, 0, state, BEGIN + 100 * (uint64_t)i, 20);
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	j = reduce_buf(&b, &d);
	il_diff_release(&d);
	il_buf_release(&b);
	return j;
}

/* The check's ok, its mismatches and its notes as counts, and the first note or mismatch. */
static void assert_check(const json_t *j, bool ok, size_t nmm, size_t nnotes, const char *first)
{
	const json_t *chk = json_object_get(j, "check"), *mm = json_object_get(chk, "mismatches"),
		     *notes = json_object_get(chk, "notes");

	assert_int_equal(json_is_true(json_object_get(chk, "ok")), ok);
	assert_int_equal(json_array_size(mm), nmm);
	assert_int_equal(json_array_size(notes), nnotes);
	if (first)
		assert_string_equal(json_string_value(json_array_get(nnotes ? notes : mm, 0)), first);
}

/*
 * Differences the kernel explains (issue #41's other two suspicions, real
 * per drivers/cpuidle/cpuidle.c, drivers/acpi/processor_idle.c and
 * kernel/sched/idle.c): a driver that enters a shallower state than the one
 * requested (cpu_idle names the requested one, usage counts the entered
 * one) and cpu_idle_poll()'s state-0 entries outside cpuidle are notes, not
 * disagreements; the same numbers in the other direction still disagree.
 */
static void test_trace__kernel_explains(void **state)
{
	static const struct {
		int state, n;             /* cpu0's trace: n periods of state */
		uint64_t usage[3];        /* cpu0's counters: WFI, C1, C2 */
		bool ok;
		size_t nmm, nnotes;
		const char *first;        /* the first note, else the first mismatch */
	} cases[] = {
		/* three C2 requested, one entered as C2 and two demoted to C1 */
		{ 2, 3, { 0, 2, 1 }, true, 0, 1,
		  "cpu0: 2 entries were counted in a shallower state than the one traced (the driver demoted them: "
		  "drivers/acpi/processor_idle.c)" },
		/* a deeper state counted than traced is no demotion */
		{ 1, 3, { 0, 0, 3 }, false, 2, 0,
		  "cpu0 C1: usage+rejected moved 0, the trace has 3 in the window and 3 with its edges" },
		/* three state-0 entries traced, one counted: cpu_idle_poll()'s */
		{ 0, 3, { 1, 0, 0 }, true, 0, 1,
		  "cpu0 WFI: the trace has 2 more entries than the counters: cpu_idle_poll() traces state 0 outside "
		  "cpuidle (kernel/sched/idle.c)" },
		/* ... but entries traced beyond the counters in a deeper state disagree */
		{ 2, 3, { 0, 0, 1 }, false, 1, 0,
		  "cpu0 C2: usage+rejected moved 1, the trace has 3 in the window and 3 with its edges" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sd s = { .ncpus = 2 };
		json_t *j;

		memcpy(s.usage[0], cases[i].usage, sizeof(cases[i].usage));
		j = periods_against(&s, cases[i].state, cases[i].n);
		assert_check(j, cases[i].ok, cases[i].nmm, cases[i].nnotes, cases[i].first);
		json_decref(j);
	}
}

/*
 * An exit without its entry (the CPU idle since before tracing) is of
 * unknown state: no state's entries, but any state's upper bound.
 */
static void test_trace__unknown_exits(void **state)
{
	struct sd s = { .ncpus = 1 };
	struct il_buf b = IL_BUF_INIT;
	struct il_diff d;
	json_t *j, *ck;

	(void)state;
	tb_start(&b, "250", "function");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_line(&b, NULL, 0, BEGIN + 5000, "cpu_idle: state=4294967295 cpu_id=0");
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	s.usage[0][2] = 1; /* it was C2: the counters say so */
	synth_diff(&d, &s);
	j = reduce_buf(&b, &d);
	assert_int_equal(jint(j, "entries"), 1);
	assert_int_equal(jint(state_of(j, "C2"), "entries"), 0);
	assert_int_equal(jint(state_of(j, "C2"), "time_us"), 0);
	ck = json_object_get(j, "check");
	assert_true(json_is_true(json_object_get(ck, "ok")));
	json_decref(j);
	il_diff_release(&d);
	s.usage[0][2] = 2; /* more than the trace can explain, unknown exits included */
	synth_diff(&d, &s);
	j = reduce_buf(&b, &d);
	ck = json_object_get(j, "check");
	assert_false(json_is_true(json_object_get(ck, "ok")));
	assert_int_equal(json_array_size(json_object_get(ck, "mismatches")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(ck, "mismatches"), 0)),
			    "cpu0 C2: usage+rejected moved 2, the trace has 0 in the window and 1 with its edges");
	json_decref(j);
	il_diff_release(&d);
	il_buf_release(&b);
}

/* The counters must lie between the window's count and the edges' count; edge events widen only the upper bound. */
static void test_trace__check(void **state)
{
	struct sd s = { .ncpus = 2 };
	struct il_buf b = IL_BUF_INIT;
	struct il_diff d;
	json_t *j, *mm;

	(void)state;
	tb_start(&b, "250", "function");
	tb_mark(&b, "pre", PRE);
	tb_period(&b, 0, 1, PRE + 10, 20);           /* between pre and begin: an edge */
	tb_mark(&b, "begin", BEGIN);
	tb_period(&b, 0, 1, BEGIN + 10, 20);
	tb_miss(&b, 0, 1, BEGIN + 31, "above");
	tb_period(&b, 0, 1, BEGIN + 100, 20);
	tb_mark(&b, "end", END);
	tb_period(&b, 1, 2, END + 10, 20);           /* between end and post: an edge */
	tb_miss(&b, 1, 2, END + 31, "above");
	tb_mark(&b, "post", POST);
	tb_period(&b, 0, 1, POST + 10, 20);          /* after post: nothing */
	/* within the bounds: cpu0 C1 2..3 (3), cpu1 C2 0..1 (1), its above 0..1 (0), cpu0 C1's above 1..1 */
	s.usage[0][1] = 3;
	s.usage[1][2] = 1;
	s.above[0][1] = 1;
	synth_diff(&d, &s);
	j = reduce_buf(&b, &d);
	assert_true(json_is_true(json_object_get(json_object_get(j, "check"), "ok")));
	json_decref(j);
	il_diff_release(&d);
	/* cpu0 C1 moved 5 (more than 3), its above 0 (less than 1) */
	s.usage[0][1] = 5;
	s.above[0][1] = 0;
	synth_diff(&d, &s);
	j = reduce_buf(&b, &d);
	assert_false(json_is_true(json_object_get(json_object_get(j, "check"), "ok")));
	mm = json_object_get(json_object_get(j, "check"), "mismatches");
	assert_int_equal(json_array_size(mm), 2);
	assert_string_equal(json_string_value(json_array_get(mm, 0)),
			    "cpu0 C1: usage+rejected moved 5, the trace has 2 in the window and 3 with its edges");
	assert_string_equal(json_string_value(json_array_get(mm, 1)),
			    "cpu0 C1: above moved 0, the trace has 1 in the window and 1 with its edges");
	json_decref(j);
	il_diff_release(&d);
	il_buf_release(&b);
}

/* The CPU numbers of j's array key ("traced_cpus"), or of its objects' "cpu" ("blind_cpus", "cpus"), as "0,1". */
static void cpu_list(const json_t *j, const char *key, char *out, size_t n)
{
	size_t i, at = 0;
	json_t *e;

	out[0] = 0;
	json_array_foreach(json_object_get(j, key), i, e)
		at += (size_t)snprintf(out + at, n - at, "%s%lld", i ? "," : "",
				       (long long)json_integer_value(json_is_object(e) ? json_object_get(e, "cpu") : e));
}

/*
 * A real trace of a 2-CPU KVM guest (haltpoll driver, kernel 6.18, HZ 250, tick from events), captured with
 * runners/trace.sh around `idlelab snapshot --dump` and `sleep 0.3`: the trace sees both CPUs.
 */
static void test_trace__kvm_haltpoll(void **state)
{
	struct il_diff d;
	size_t len;
	char *text = tu_read(tu_srcpath("tests/fixtures/trace/kvm-haltpoll.trace"), &len), l[64];
	json_t *j;

	(void)state;
	fixture_diff(&d, "kvm-haltpoll");
	j = reduce(text, len, &d);
	assert_true(json_is_true(json_object_get(json_object_get(j, "check"), "ok")));
	cpu_list(j, "traced_cpus", l, sizeof(l));
	assert_string_equal(l, "0,1");
	assert_int_equal(json_array_size(json_object_get(j, "blind_cpus")), 0);
	assert_int_equal(json_array_size(json_object_get(j, "caveats")), 0);
	/* cpu1's counters moved 11 in haltpoll idle; the trace has 11 of its exits in the window */
	assert_int_equal(jint(state_of(cpu_of(j, 1), "haltpoll idle"), "entries"), 11);
	json_decref(j);
	il_diff_release(&d);
	free(text);
}

/*
 * The same capture as tracing records it on a guest whose CPU 1 enters idle without cpu_idle firing (issue #44:
 * sched_switch events on both CPUs, power:cpu_idle on CPU 0 only, both CPUs' counters moving): CPU 1 is named
 * in a caveat, left out of every figure and of the cross-check, and the trace is still a trace.
 */
static void test_trace__blind_cpu(void **state)
{
	struct il_diff d;
	size_t len, len1;
	char *full = tu_read(tu_srcpath("tests/fixtures/trace/kvm-haltpoll.trace"), &len),
	     *text = tu_read(tu_srcpath("tests/fixtures/trace/kvm-haltpoll-blind1.trace"), &len1), l[64];
	json_t *j, *whole, *b;

	(void)state;
	fixture_diff(&d, "kvm-haltpoll");
	whole = reduce(full, len, &d);
	j = reduce(text, len1, &d);
	assert_true(json_is_true(json_object_get(json_object_get(j, "check"), "ok")));
	cpu_list(j, "traced_cpus", l, sizeof(l));
	assert_string_equal(l, "0");
	cpu_list(j, "cpus", l, sizeof(l));
	assert_string_equal(l, "0");
	assert_int_equal(json_array_size(json_object_get(j, "blind_cpus")), 1);
	b = json_array_get(json_object_get(j, "blind_cpus"), 0);
	assert_int_equal(jint(b, "cpu"), 1);
	assert_int_equal(jint(b, "moved"), 11);
	assert_int_equal(jint(b, "traced"), 0);
	assert_int_equal(json_array_size(json_object_get(j, "caveats")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "caveats"), 0)),
			    "tracing does not see CPU 1's idle entries (its counters moved 11, the trace has none)");
	/* the totals are cpu0's alone: its own figures, as the trace that sees both CPUs has them */
	assert_true(json_equal(cpu_of(j, 0), cpu_of(whole, 0)));
	assert_int_equal(jint(state_of(j, "haltpoll idle"), "entries"),
			 jint(state_of(cpu_of(whole, 0), "haltpoll idle"), "entries"));
	assert_int_equal(jint(j, "entries"), jint(state_of(cpu_of(whole, 0), "haltpoll idle"), "entries") +
						jint(state_of(cpu_of(whole, 0), "POLL"), "entries"));
	assert_true(jint(j, "entries") < jint(whole, "entries"));
	json_decref(j);
	json_decref(whole);
	il_diff_release(&d);
	free(text);
	free(full);
}

/*
 * Task names any process may set (prctl PR_SET_NAME), in a real trace of this 2-CPU guest: "a [7] b"
 * (a bracketed number before the real [CPU] column) is read whole; "x\ny" splits every line that
 * names it in two (its own COMM column, sched_switch's prev_comm= and next_comm=): the three halves
 * without a [CPU] column are counted and skipped with a caveat, the others read; the trace agrees with
 * the counters all the same.
 */
static void test_trace__odd_task_names(void **state)
{
	struct il_diff d;
	size_t len;
	char *text = tu_read(tu_srcpath("tests/fixtures/trace/odd-names.trace"), &len);
	json_t *j;

	(void)state;
	assert_non_null(strstr(text, "\n         a [7] b-"));
	assert_non_null(strstr(text, "\n             x\ny-"));
	fixture_diff(&d, "odd-names");
	j = reduce(text, len, &d);
	assert_int_equal(jint(j, "skipped_lines"), 3);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(j, "caveats"), 0)),
			       "3 trace lines could not be read and were skipped (the first: host h1: trace line 699: "));
	assert_true(json_is_true(json_object_get(json_object_get(j, "check"), "ok")));
	assert_true(jint(j, "entries") > 0);
	json_decref(j);
	il_diff_release(&d);
	free(text);
}

/*
 * A kernel without power:cpu_idle_miss (4.20 to 5.19; runners/trace.sh lists what it enabled in
 * "#idlelab events="): the trace's misses are unknown (null), not 0, and the counters' above and
 * below are not held against them.
 */
static void test_trace__no_miss_event(void **state)
{
	struct sd s = { .ncpus = 1 };
	struct il_buf b = IL_BUF_INIT;
	struct il_diff d;
	json_t *j, *st, *e;
	bool said = false;
	size_t i;

	(void)state;
	tb_start(&b, "250", "function");
	il_buf_adds(&b, "#idlelab events=cpu_idle,pm_qos_update_target,tick_stop,sched_switch\n");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_period(&b, 0, 1, BEGIN + 10, 20);
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	s.usage[0][1] = 1;
	s.above[0][1] = 1; /* the counter moved; the trace could not see it */
	synth_diff(&d, &s);
	j = reduce_buf(&b, &d);
	st = state_of(j, "C1");
	assert_true(json_is_null(json_object_get(st, "aboves")));
	assert_true(json_is_null(json_object_get(st, "belows")));
	assert_true(json_is_null(json_object_get(st, "above_short_hist")));
	assert_true(json_is_true(json_object_get(json_object_get(j, "check"), "ok")));
	json_array_foreach(json_object_get(j, "caveats"), i, e)
		said |= !!strstr(json_string_value(e), "no power:cpu_idle_miss event");
	assert_true(said);
	json_decref(j);
	il_diff_release(&d);
	il_buf_release(&b);
}

/* A CPU whose trace has some exits but fewer than half of what its counters moved is blind; half or more is a mismatch. */
static void test_trace__blind_partial(void **state)
{
	struct sd s = { .ncpus = 2 };
	struct il_buf b = IL_BUF_INIT;
	struct il_diff d;
	json_t *j, *mm;

	(void)state;
	tb_start(&b, "250", "function");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_period(&b, 0, 1, BEGIN + 10, 20);
	tb_period(&b, 1, 1, BEGIN + 50, 20);
	tb_period(&b, 1, 2, BEGIN + 100, 20);
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	s.usage[0][1] = 1;
	s.usage[1][1] = 4;
	s.usage[1][2] = 1;
	synth_diff(&d, &s);
	j = reduce_buf(&b, &d);
	assert_true(json_is_true(json_object_get(json_object_get(j, "check"), "ok")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "caveats"), 0)),
			    "tracing does not see CPU 1's idle entries (its counters moved 5, the trace has 2 between its "
			    "markers)");
	assert_int_equal(jint(j, "entries"), 1);
	json_decref(j);
	il_diff_release(&d);
	/* 2 of 4: a trace that sees half of the exits is a disagreement of this sample, not a blind CPU */
	s.usage[1][1] = 3;
	synth_diff(&d, &s);
	j = reduce_buf(&b, &d);
	assert_int_equal(json_array_size(json_object_get(j, "blind_cpus")), 0);
	mm = json_object_get(json_object_get(j, "check"), "mismatches");
	assert_int_equal(json_array_size(mm), 1);
	assert_string_equal(json_string_value(json_array_get(mm, 0)),
			    "cpu1 C1: usage+rejected moved 3, the trace has 1 in the window and 1 with its edges");
	assert_int_equal(jint(j, "entries"), 3);
	json_decref(j);
	il_diff_release(&d);
	/* nothing moved and nothing traced: no CPU to be blind about */
	memset(s.usage, 0, sizeof(s.usage));
	s.usage[0][1] = 1;
	il_buf_reset(&b);
	tb_start(&b, "250", "function");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_period(&b, 0, 1, BEGIN + 10, 20);
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	synth_diff(&d, &s);
	j = reduce_buf(&b, &d);
	assert_int_equal(json_array_size(json_object_get(j, "blind_cpus")), 0);
	assert_true(json_is_true(json_object_get(json_object_get(j, "check"), "ok")));
	json_decref(j);
	il_diff_release(&d);
	il_buf_release(&b);
}

/* A frame with every marker, one CPU's idle period, and extra text at the end. */
static char *frame_with(const char *header, const char *tail)
{
	struct il_buf b = IL_BUF_INIT;

	tb_start(&b, "250", "function");
	il_buf_adds(&b, header);
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_period(&b, 0, 1, BEGIN + 10, 20);
	il_buf_adds(&b, tail);
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	return il_buf_detach(&b);
}

static void test_trace__incomplete(void **state)
{
	struct sd s = { .ncpus = 2 };
	struct il_buf b = IL_BUF_INIT;
	struct il_diff d;
	char *t, *why;

	(void)state;
	synth_diff(&d, &s);
	t = frame_with("", "CPU:1 [LOST 37 EVENTS]\n");
	why = reduce_incomplete(t, &d);
	assert_non_null(strstr(why, "lost 37 events on cpu1"));
	assert_non_null(strstr(why, "raise trace_buffer_kb"));
	free(why);
	free(t);
	t = frame_with("#idlelab cpu=1 entries=5 overrun=12 commit_overrun=0 dropped=0\n", "");
	why = reduce_incomplete(t, &d);
	assert_non_null(strstr(why, "cpu1's trace buffer lost 12 events (overrun)"));
	assert_non_null(strstr(why, "raise trace_buffer_kb"));
	free(why);
	free(t);
	t = frame_with("#idlelab cpu=0 entries=5 overrun=0 commit_overrun=0 dropped=3\n", "");
	why = reduce_incomplete(t, &d);
	assert_non_null(strstr(why, "cpu0's trace buffer lost 3 events (dropped)"));
	free(why);
	free(t);
	t = frame_with("# entries-in-buffer/entries-written: 40/52   #P:2\n", "");
	why = reduce_incomplete(t, &d);
	assert_non_null(strstr(why, "kept 40 of the 52 events written (12 lost)"));
	assert_non_null(strstr(why, "raise trace_buffer_kb"));
	free(why);
	free(t);
	/* a missing marker */
	tb_start(&b, "250", "function");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_mark(&b, "post", POST);
	why = reduce_incomplete(il_buf_str(&b), &d);
	assert_string_equal(why, "the trace lacks idlelab-end");
	free(why);
	/* markers out of order */
	il_buf_reset(&b);
	tb_start(&b, "250", "function");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", END);
	tb_mark(&b, "end", BEGIN);
	tb_mark(&b, "post", POST);
	why = reduce_incomplete(il_buf_str(&b), &d);
	assert_string_equal(why, "the trace has idlelab-end before idlelab-begin");
	free(why);
	il_buf_release(&b);
	il_diff_release(&d);
}

static void assert_parse_error(const struct il_diff *d, const char *text, const char *msg)
{
	struct il_err err = { 0 };
	char *inc = NULL;
	json_t *j = NULL;

	assert_int_equal(il_trace_reduce(text, strlen(text), d, "h1", &j, &inc, &err), IL_EPARSE);
	assert_null(j);
	assert_null(inc);
	if (!strstr(err.msg, msg))
		fail_msg("'%s' does not say '%s'", err.msg, msg);
}

/* The trace of text against d has skipped one line, and says so with reason in its caveats. */
static void assert_skipped(const struct il_diff *d, const char *text, const char *reason)
{
	json_t *j = reduce(text, strlen(text), d), *e;
	bool said = false;
	size_t i;

	assert_int_equal(jint(j, "skipped_lines"), 1);
	json_array_foreach(json_object_get(j, "caveats"), i, e)
		said |= strstr(json_string_value(e), "1 trace line could not be read and was skipped (the first: host h1: ") &&
			strstr(json_string_value(e), reason);
	if (!said)
		fail_msg("no caveat saying '%s'", reason);
	/* the rest of the trace is there: the frame's one period */
	assert_int_equal(jint(state_of(j, "C1"), "entries"), 1);
	json_decref(j);
}

/*
 * Lines the parser cannot read: an event line is counted and skipped with a caveat (one odd line
 * must not cost the sample), the frame's own header lines and LOST lines are errors.
 */
static void test_trace__parse_errors(void **state)
{
	struct sd s = { .ncpus = 1 };
	struct il_diff d;
	char *t;

	(void)state;
	s.usage[0][1] = 1;
	synth_diff(&d, &s);
	/* tb_start's header is 11 lines, the frame's markers and period 4 more: the tail is line 16 */
	t = frame_with("", "this is not a trace line\n");
	assert_skipped(&d, t, "trace line 16: expected 'COMM-PID [CPU] FLAGS TIMESTAMP: EVENT' (no [CPU] column)");
	free(t);
	t = frame_with("", "          <idle>-0       [000] d..1. cpu_idle: state=1 cpu_id=0\n");
	assert_skipped(&d, t, "trace line 16: expected a timestamp");
	free(t);
	t = frame_with("", "          <idle>-0       [000] d..1.  10.500000: cpu_idle: state=x cpu_id=0\n");
	assert_skipped(&d, t, "trace line 16: expected 'cpu_idle: state=N cpu_id=N'");
	free(t);
	t = frame_with("", "          <idle>-0       [000] d..1.  10.500000: cpu_idle_miss: cpu_id=0 state=1 type=sideways\n");
	assert_skipped(&d, t, "trace line 16: expected 'cpu_idle_miss: cpu_id=N state=N type=above|below'");
	free(t);
	t = frame_with("", "CPU:1 [LOST many EVENTS]\n");
	assert_parse_error(&d, t, "trace line 16: expected 'CPU:N [LOST N EVENTS]'");
	free(t);
	t = frame_with("#idlelab hz=fast\n", "");
	assert_parse_error(&d, t, "trace line 12: expected '#idlelab hz=N'");
	free(t);
	t = frame_with("#idlelab nohz_full=1-x\n", "");
	assert_parse_error(&d, t, "trace line 12: expected '#idlelab nohz_full=LIST'");
	free(t);
	assert_parse_error(&d, "# tracer: nop\n", "trace line 1: expected '#idlelab trace v1'");
	assert_parse_error(&d, "", "trace line 1: expected '#idlelab trace v1'");
	il_diff_release(&d);
}

/*
 * The text format's variations: task names with blanks, dashes and digits,
 * no FLAGS column (options/irq-info off), the record-tgid column; the PM QoS
 * pairing goes by the task's PID, so it must be read right.
 */
static void test_trace__line_shapes(void **state)
{
	static const char text[] =
		"#idlelab trace v1\n#idlelab hz=250\n#idlelab tick=function\n"
		"# tracer: function\n#\n"
		"              sh-312     [000]    10.000000: tracing_mark_write: idlelab-pre\n"
		"              sh-312     [000]    10.000100: tracing_mark_write: idlelab-begin\n"
		"          <idle>-0       [000]    10.001000: tick_nohz_idle_stop_tick <-do_idle\n"
		"          <idle>-0       [000]    10.001010: cpu_idle: state=1 cpu_id=0\n"
		"          <idle>-0       [000]    10.001030: cpu_idle: state=4294967295 cpu_id=0\n"
		"  my task-with-2-dashes-991  [001] .....  10.002000: pm_qos_update_request: CPU_DMA_LATENCY value=7\n"
		"  my task-with-2-dashes-991  [001] .....  10.002001: pm_qos_update_target: action=UPDATE_REQ prev_value=2000000000 curr_value=7\n"
		"   Web Content [x]-17    (   15) [001] d..1.  10.003000: pm_qos_add_request: CPU_DMA_LATENCY value=3\n"
		"   Web Content [x]-17    (   15) [001] d..1.  10.003002: pm_qos_update_target: action=ADD_REQ prev_value=7 curr_value=3\n"
		"   kworker/1:1H-9        [001] d..1.  10.003500: pm_qos_update_target: action=UPDATE_REQ prev_value=3 curr_value=1\n"
		"              sh-312     [000]    19.000000: tracing_mark_write: idlelab-end\n"
		"              sh-312     [000]    19.000100: tracing_mark_write: idlelab-post\n";
	struct sd s = { .ncpus = 2 };
	struct il_diff d;
	json_t *j, *st;

	(void)state;
	synth_diff(&d, &s);
	j = reduce(text, sizeof(text) - 1, &d);
	st = state_of(j, "C1");
	assert_int_equal(jint(st, "entries"), 1);
	assert_int_equal(jint(st, "tick_stopped"), 1);
	HIST(st, "hist", 5); /* 20 us */
	/* the two latency updates (7, 3); kworker's update follows no request of its own */
	assert_int_equal(jint(j, "qos_updates"), 2);
	assert_int_equal(jint(j, "cpu_latency_min_us"), 3);
	assert_int_equal(jint(j, "events"), 8);
	json_decref(j);
	il_diff_release(&d);
}

/* Events of CPUs the diff does not measure (idle_cpus), or does not have, count nowhere but in "events". */
static void test_trace__unmeasured_cpus(void **state)
{
	struct sd s = { .ncpus = 2, .measured = "1" };
	struct il_buf b = IL_BUF_INIT;
	struct il_diff d;
	json_t *j;

	(void)state;
	synth_diff(&d, &s);
	tb_start(&b, "250", "function");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_period(&b, 0, 1, BEGIN + 10, 20);
	tb_miss(&b, 0, 1, BEGIN + 31, "above");
	tb_period(&b, 1, 2, BEGIN + 10, 2000);
	tb_period(&b, 7, 2, BEGIN + 10, 2000);
	tb_line(&b, NULL, 1, BEGIN + 5000, "cpu_idle: state=99 cpu_id=1"); /* a state cpu1 lacks */
	tb_line(&b, NULL, 1, BEGIN + 5100, "cpu_idle: state=4294967295 cpu_id=1");
	tb_miss(&b, 1, 99, BEGIN + 5101, "above");
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	j = reduce_buf(&b, &d);
	assert_int_equal(json_array_size(json_object_get(j, "cpus")), 1);
	assert_int_equal(jint(cpu_of(j, 1), "cpu"), 1);
	/* cpu1's C2 and its exit of a state it does not have */
	assert_int_equal(jint(j, "entries"), 2);
	assert_int_equal(jint(state_of(j, "C1"), "entries"), 0);
	assert_int_equal(jint(state_of(j, "C1"), "aboves"), 0);
	assert_int_equal(jint(state_of(j, "C2"), "entries"), 1);
	assert_int_equal(jint(j, "events"), 10);
	json_decref(j);
	il_diff_release(&d);
	il_buf_release(&b);
}

static json_t *one_period(const struct il_diff *d, const char *hz, const char *tick)
{
	struct il_buf b = IL_BUF_INIT;
	json_t *j;

	tb_start(&b, hz, tick);
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_tick(&b, 0, BEGIN + 5, true);
	tb_period(&b, 0, 1, BEGIN + 10, 20);
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	j = reduce_buf(&b, d);
	il_buf_release(&b);
	return j;
}

/* hz=unknown: no tick period, so no shallow share; the decisions still count */
static void test_trace__hz_unknown(void **state)
{
	struct sd s = { .ncpus = 1 };
	struct il_diff d;
	json_t *j;

	(void)state;
	synth_diff(&d, &s);
	j = one_period(&d, "unknown", "function");
	assert_true(json_is_null(json_object_get(j, "hz")));
	assert_true(json_is_null(json_object_get(j, "tick_period_us")));
	assert_true(json_is_null(json_object_get(j, "tick_stopped_shallow_pct")));
	assert_true(fabs(jreal(j, "tick_stopped_pct") - 100.0) < 1e-9);
	assert_int_equal(jint(state_of(j, "C1"), "tick_stopped"), 1);
	json_decref(j);
	/* HZ 300: TICK_NSEC rounds (3333333 ns) */
	j = one_period(&d, "300", "function");
	assert_true(fabs(jreal(j, "tick_period_us") - 3333.333) < 1e-9);
	json_decref(j);
	il_diff_release(&d);
}

/*
 * tick=events (what runners/trace.sh records): the tick's state at each entry, from
 * timer:tick_stop (success=1: stopped) until the CPU leaves the idle loop, a
 * sched_switch traced in the idle task's (PID 0) context; unknown before either
 */
static void test_trace__tick_events(void **state)
{
	struct sd s = { .ncpus = 1 };
	struct il_diff d;
	struct il_buf b = IL_BUF_INIT;
	json_t *j, *st;

	(void)state;
	synth_diff(&d, &s);
	tb_start(&b, "250", "events");
	tb_mark(&b, "pre", PRE);
	tb_mark(&b, "begin", BEGIN);
	tb_period(&b, 0, 1, BEGIN + 10, 20);
	tb_line(&b, NULL, 0, BEGIN + 40, "tick_stop: success=1 dependency=NONE");
	tb_period(&b, 0, 1, BEGIN + 50, 20);
	tb_period(&b, 0, 1, BEGIN + 80, 20);
	/* a switch into the idle task (traced in sh's context) changes nothing; one out of it restarts the tick */
	tb_line(&b, "sh", 0, BEGIN + 110,
		"sched_switch: prev_comm=sh prev_pid=4242 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 "
		"next_prio=120");
	tb_period(&b, 0, 1, BEGIN + 115, 2);
	tb_line(&b, NULL, 0, BEGIN + 120,
		"sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=4242 "
		"next_prio=120");
	tb_period(&b, 0, 1, BEGIN + 150, 20);
	/* a tick that could not be stopped (nohz_full's dependencies) is still running */
	tb_line(&b, NULL, 0, BEGIN + 180, "tick_stop: success=0 dependency=SCHED");
	tb_period(&b, 0, 1, BEGIN + 200, 20);
	tb_mark(&b, "end", END);
	tb_mark(&b, "post", POST);
	j = reduce_buf(&b, &d);
	assert_string_equal(json_string_value(json_object_get(j, "tick_source")), "events");
	st = state_of(j, "C1");
	assert_int_equal(jint(st, "entries"), 6);
	assert_int_equal(jint(st, "tick_unknown"), 1);
	assert_int_equal(jint(st, "tick_stopped"), 3);
	assert_int_equal(jint(st, "tick_retained"), 2);
	assert_true(fabs(jreal(j, "tick_stopped_pct") - 60.0) < 1e-9);
	json_decref(j);
	il_buf_release(&b);
	il_diff_release(&d);
}

/* tick=none: the decisions were not traced, so every tick field is null (never 0) */
static void test_trace__tick_none(void **state)
{
	struct sd s = { .ncpus = 1 };
	struct il_diff d;
	json_t *j, *st;

	(void)state;
	synth_diff(&d, &s);
	j = one_period(&d, "250", "none");
	assert_true(json_is_null(json_object_get(j, "tick_source")));
	assert_true(json_is_null(json_object_get(j, "tick_stopped_pct")));
	assert_true(json_is_null(json_object_get(j, "tick_stopped_shallow_pct")));
	assert_int_equal(jint(j, "hz"), 250);
	st = state_of(j, "C1");
	assert_int_equal(jint(st, "entries"), 1);
	assert_true(json_is_null(json_object_get(st, "tick_stopped")));
	assert_true(json_is_null(json_object_get(st, "tick_retained")));
	assert_true(json_is_null(json_object_get(st, "tick_unknown")));
	assert_true(json_is_null(json_object_get(j, "cpu_latency_min_us")));
	assert_int_equal(jint(j, "qos_updates"), 0);
	json_decref(j);
	il_diff_release(&d);
}

/* Each of jansson's allocations failing in turn on frame against the pair of diff: IL_ENOMEM or the whole object. */
static void oom_each(const char *frame, const char *diff)
{
	struct il_diff d;
	size_t len;
	char path[128], *text;
	json_t *whole;
	long n = 0;

	snprintf(path, sizeof(path), "tests/fixtures/trace/%s.trace", frame);
	text = tu_read(tu_srcpath(path), &len);
	fixture_diff(&d, diff);
	whole = reduce(text, len, &d);
	for (bool hit = true; hit; n += tu_oom_stride()) {
		struct il_err err = { 0 };
		char *inc = NULL;
		json_t *j = NULL;
		int r;

		tu_json_oom(n);
		r = il_trace_reduce(text, len, &d, "h1", &j, &inc, &err);
		hit = tu_json_oom_end();
		assert_null(inc);
		if (r) {
			assert_int_equal(r, IL_ENOMEM);
			assert_null(j);
		} else if (!json_equal(j, whole)) {
			fail_msg("allocation %ld failed: a trace object with a part missing", n);
		}
		json_decref(j);
	}
	assert_true(n > 100);
	json_decref(whole);
	il_diff_release(&d);
	free(text);
}

static void test_trace__oom(void **state)
{
	(void)state;
	oom_each("2cpu", "2cpu");
	oom_each("kvm-haltpoll-blind1", "kvm-haltpoll");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace__realistic),
		cmocka_unit_test(test_trace__buckets),
		cmocka_unit_test(test_trace__miss_offsets),
		cmocka_unit_test(test_trace__tick_decisions),
		cmocka_unit_test(test_trace__nohz_full),
		cmocka_unit_test(test_trace__kernel_explains),
		cmocka_unit_test(test_trace__unknown_exits),
		cmocka_unit_test(test_trace__check),
		cmocka_unit_test(test_trace__incomplete),
		cmocka_unit_test(test_trace__parse_errors),
		cmocka_unit_test(test_trace__line_shapes),
		cmocka_unit_test(test_trace__unmeasured_cpus),
		cmocka_unit_test(test_trace__hz_unknown),
		cmocka_unit_test(test_trace__tick_none),
		cmocka_unit_test(test_trace__tick_events),
		cmocka_unit_test(test_trace__kvm_haltpoll),
		cmocka_unit_test(test_trace__blind_cpu),
		cmocka_unit_test(test_trace__blind_partial),
		cmocka_unit_test(test_trace__odd_task_names),
		cmocka_unit_test(test_trace__no_miss_event),
		cmocka_unit_test(test_trace__oom),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
