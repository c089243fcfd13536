// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trace frame's lines: tracefs's `trace` text (kernel/trace/trace_output.c
 * prints each entry as "COMM-PID [CPU] FLAGS TIMESTAMP: ...", the FLAGS column
 * only with options/irq-info) after idlelab's "#idlelab" header, and the first
 * pass that checks the whole frame and finds its header and markers. The
 * arithmetic over the events is idle/trace.c's.
 */
#include "idle/traceparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"
#include "util/str.h"

static const char *const marks[4] = { "idlelab-pre", "idlelab-begin", "idlelab-end", "idlelab-post" };

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

static int bad(struct il_err *err, const char *host, size_t lineno, const char *what)
{
	return il_err_set(err, IL_EPARSE, "host %s: trace line %zu: expected %s", host, lineno, what);
}

/*
 * The value of key=VALUE among the blank-separated words of s[0..n); false
 * when no word is one.
 */
static bool kv(const char *s, size_t n, const char *key, const char **v, size_t *vn)
{
	size_t k = strlen(key), i = 0;

	while (i < n) {
		size_t w;

		while (i < n && s[i] == ' ')
			i++;
		for (w = i; w < n && s[w] != ' '; w++)
			;
		if (w - i > k && !memcmp(s + i, key, k) && s[i + k] == '=') {
			*v = s + i + k + 1;
			*vn = w - i - k - 1;
			return true;
		}
		i = w;
	}
	return false;
}

static bool kv_u64(const char *s, size_t n, const char *key, uint64_t *out)
{
	const char *v;
	size_t vn;

	return kv(s, n, key, &v, &vn) && !il_parse_u64(v, vn, out);
}

/*
 * "SECONDS.FRACTION" (1 to 9 decimals; tracefs prints 6 for the "local"
 * clock) in ns. The bound keeps ns within 64 bits: 10^10 s is three
 * centuries of uptime.
 */
static bool parse_ts(const char *s, size_t n, uint64_t *ns)
{
	size_t dot = 0;
	uint64_t sec, frac = 0;

	while (dot < n && is_digit(s[dot]))
		dot++;
	if (!dot || dot > 11 || dot >= n - 1 || s[dot] != '.' || n - dot - 1 > 9)
		return false;
	if (il_parse_u64(s, dot, &sec) || sec > 10000000000ull)
		return false;
	for (size_t i = dot + 1; i < n; i++) {
		if (!is_digit(s[i]))
			return false;
		frac = frac * 10 + (uint64_t)(s[i] - '0');
	}
	for (size_t i = n - dot - 1; i < 9; i++)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return true;
}

/*
 * A " [digits] " group at or after from: a candidate for the CPU column.
 * *after is where the rest starts. A task name may hold such a group too
 * ("a [7] b": any process can name itself so with prctl), so the caller
 * takes the first candidate that the FLAGS and TIMESTAMP columns follow.
 */
static bool cpu_group(const char *s, size_t n, size_t from, size_t *at, size_t *after, uint64_t *cpu)
{
	for (size_t i = from; i + 3 < n; i++) {
		size_t k = i + 2;

		if (s[i] != ' ' || s[i + 1] != '[')
			continue;
		while (k < n && is_digit(s[k]))
			k++;
		if (k == i + 2 || k + 1 >= n || s[k] != ']' || s[k + 1] != ' ')
			continue;
		if (il_parse_u64(s + i + 2, k - i - 2, cpu))
			continue; /* more digits than a u64: not the column */
		*at = i;
		*after = k + 2;
		return true;
	}
	return false;
}

/*
 * The PID of "COMM-PID" in s[0..n), with tracefs's padding and the
 * record-tgid option's "(TGID)" column after it; -1 when there is none: only
 * the PM QoS pairing uses it, so a name tracefs printed oddly costs nothing else.
 */
static int64_t comm_pid(const char *s, size_t n)
{
	size_t e = n, b;
	uint64_t pid;

	while (e && s[e - 1] == ' ')
		e--;
	if (e && s[e - 1] == ')') {
		while (e && s[e - 1] != '(')
			e--;
		if (e)
			e--;
		while (e && s[e - 1] == ' ')
			e--;
	}
	for (b = e; b && is_digit(s[b - 1]); b--)
		;
	if (b == e || !b || s[b - 1] != '-' || il_parse_u64(s + b, e - b, &pid) || pid > INT32_MAX)
		return -1;
	return (int64_t)pid;
}

/* The word at s[*i..n) (blanks before it skipped), *i moved past it. */
static bool word(const char *s, size_t n, size_t *i, const char **w, size_t *wn)
{
	while (*i < n && s[*i] == ' ')
		(*i)++;
	*w = s + *i;
	while (*i < n && s[*i] != ' ')
		(*i)++;
	*wn = (size_t)(s + *i - *w);
	return *wn > 0;
}

/* The event's payload after "NAME: ", or NULL when the rest is not that event. */
static const char *event_payload(const char *rest, size_t rn, const char *name, size_t *pn)
{
	size_t k = strlen(name);

	if (rn < k + 1 || memcmp(rest, name, k) || rest[k] != ':')
		return NULL;
	k++;
	while (k < rn && rest[k] == ' ')
		k++;
	*pn = rn - k;
	return rest + k;
}

/* A traced function "NAME <-CALLER" (or NAME alone). */
static bool is_function(const char *rest, size_t rn, const char *name)
{
	size_t k = strlen(name);

	return rn >= k && !memcmp(rest, name, k) && (rn == k || rest[k] == ' ');
}

static int parse_payload(const char *rest, size_t rn, size_t lineno, const char *host, struct tp_line *out,
			 struct il_err *err)
{
	static const char *const reqs[] = { "pm_qos_add_request", "pm_qos_update_request", "pm_qos_remove_request" };
	const char *p, *v;
	size_t pn, vn;
	uint64_t u;

	if ((p = event_payload(rest, rn, "cpu_idle", &pn))) {
		out->ev = TP_IDLE;
		if (!kv_u64(p, pn, "state", &out->state) || !kv_u64(p, pn, "cpu_id", &out->cpu))
			return bad(err, host, lineno, "'cpu_idle: state=N cpu_id=N'");
		return 0;
	}
	if ((p = event_payload(rest, rn, "cpu_idle_miss", &pn))) {
		out->ev = TP_MISS;
		if (!kv_u64(p, pn, "cpu_id", &out->cpu) || !kv_u64(p, pn, "state", &out->state) ||
		    !kv(p, pn, "type", &v, &vn) || !((vn == 5 && !memcmp(v, "above", 5)) ||
						    (vn == 5 && !memcmp(v, "below", 5))))
			return bad(err, host, lineno, "'cpu_idle_miss: cpu_id=N state=N type=above|below'");
		out->below = v[0] == 'b';
		return 0;
	}
	if ((p = event_payload(rest, rn, "pm_qos_update_target", &pn))) {
		out->ev = TP_QOS_TARGET;
		if (!kv(p, pn, "action", &v, &vn) || !kv_u64(p, pn, "prev_value", &u) ||
		    !kv(p, pn, "curr_value", &v, &vn) || il_parse_i64(v, vn, &out->value))
			return bad(err, host, lineno,
				   "'pm_qos_update_target: action=ADD_REQ|UPDATE_REQ|REMOVE_REQ prev_value=N curr_value=N'");
		return 0;
	}
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++)
		if ((p = event_payload(rest, rn, reqs[i], &pn))) {
			int64_t x;

			out->ev = TP_QOS_REQUEST;
			if (!kv(p, pn, "value", &v, &vn) || il_parse_i64(v, vn, &x))
				return bad(err, host, lineno, "'CPU_DMA_LATENCY value=N' after the pm_qos request event");
			return 0;
		}
	if ((p = event_payload(rest, rn, "tracing_mark_write", &pn))) {
		for (int m = 0; m < 4; m++)
			if (pn == strlen(marks[m]) && !memcmp(p, marks[m], pn))
				out->ev = (enum tp_event)(TP_MARK_PRE + m);
		return 0;
	}
	if ((p = event_payload(rest, rn, "tick_stop", &pn))) {
		if (!kv_u64(p, pn, "success", &u))
			return bad(err, host, lineno, "'tick_stop: success=N dependency=NAME'");
		out->ev = u ? TP_TICK_STOPPED : TP_TICK_KEPT;
		return 0;
	}
	/* sched_switch is traced in the switched-out task's context: the COMM-PID column is prev's */
	if (event_payload(rest, rn, "sched_switch", &pn)) {
		out->ev = out->pid == 0 ? TP_IDLE_LEFT : TP_OTHER;
		return 0;
	}
	if (is_function(rest, rn, "tick_nohz_idle_stop_tick"))
		out->ev = TP_TICK_STOP;
	else if (is_function(rest, rn, "tick_nohz_idle_retain_tick"))
		out->ev = TP_TICK_RETAIN;
	return 0;
}

int il_traceparse_line(const char *s, size_t n, size_t lineno, const char *host, struct tp_line *out,
		  struct il_err *err)
{
	size_t at, i, wn;
	const char *w;

	memset(out, 0, sizeof(*out));
	out->pid = -1;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t'))
		n--;
	if (!n || s[0] == '#')
		return 0;
	if (starts(s, n, "CPU:")) {
		const char *sp = memchr(s, ' ', n);

		if (!sp || il_parse_u64(s + 4, (size_t)(sp - s) - 4, &out->cpu) ||
		    !starts(sp, n - (size_t)(sp - s), " [LOST ") || s + n - 8 < sp + 7 ||
		    memcmp(s + n - 8, " EVENTS]", 8) || il_parse_u64(sp + 7, (size_t)((s + n - 8) - (sp + 7)), &out->count))
			return bad(err, host, lineno, "'CPU:N [LOST N EVENTS]'");
		out->kind = TP_LOST;
		return 0;
	}
	{
		size_t from = 0, j;
		bool found = false, col = false;

		/* the first " [CPU] " group that FLAGS (one word never ending in ':') and TIMESTAMP: follow */
		while (!found && cpu_group(s, n, from, &at, &j, &out->cpu)) {
			col = true;
			i = j;
			from = at + 1;
			if (!word(s, n, &i, &w, &wn) || (w[wn - 1] != ':' && !word(s, n, &i, &w, &wn)))
				continue;
			found = w[wn - 1] == ':' && parse_ts(w, wn - 1, &out->ts_ns);
		}
		if (!col)
			return bad(err, host, lineno, "'COMM-PID [CPU] FLAGS TIMESTAMP: EVENT' (no [CPU] column)");
		if (!found)
			return bad(err, host, lineno, "a timestamp SECONDS.MICROSECONDS: after the [CPU] column");
	}
	out->pid = comm_pid(s, at);
	while (i < n && s[i] == ' ')
		i++;
	if (i >= n)
		return bad(err, host, lineno, "an event or a function after the timestamp");
	out->kind = TP_EVENT;
	out->ev = TP_OTHER;
	return parse_payload(s + i, n - i, lineno, host, out, err);
}

/* ---- The first pass ---- */

static int incomplete(struct tp_frame *f, char *why)
{
	if (!why)
		return IL_ENOMEM;
	if (f->incomplete)
		free(why); /* the first reason is the one said */
	else
		f->incomplete = why;
	return 0;
}

/* "#idlelab cpu=N entries=N overrun=N commit_overrun=N dropped=N": tracefs's per_cpu/cpuN/stats */
static int header_cpu(const char *s, size_t n, size_t lineno, const char *host, struct tp_frame *f,
		      struct il_err *err)
{
	static const char *const keys[] = { "overrun", "commit_overrun", "dropped" };
	uint64_t cpu, entries, v;

	if (!kv_u64(s, n, "cpu", &cpu) || !kv_u64(s, n, "entries", &entries))
		return bad(err, host, lineno, "'#idlelab cpu=N entries=N overrun=N commit_overrun=N dropped=N'");
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		if (!kv_u64(s, n, keys[k], &v))
			return bad(err, host, lineno, "'#idlelab cpu=N entries=N overrun=N commit_overrun=N dropped=N'");
		if (v && incomplete(f, il_str_dup_printf("cpu%llu's trace buffer lost %llu events (%s): raise "
							 "trace_buffer_kb", (unsigned long long)cpu,
							 (unsigned long long)v, keys[k])))
			return il_err_oom(err);
	}
	return 0;
}

static int header_line(const char *s, size_t n, size_t lineno, const char *host, struct tp_frame *f,
		       struct il_err *err)
{
	const char *v;
	size_t vn;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
		n--;
	if (kv(s, n, "hz", &v, &vn)) {
		if (vn == 7 && !memcmp(v, "unknown", 7))
			return 0;
		if (il_parse_u64(v, vn, &f->hz) || !f->hz || f->hz > 100000)
			return bad(err, host, lineno, "'#idlelab hz=N' (N from 1 to 100000) or 'hz=unknown'");
		f->has_hz = true;
		return 0;
	}
	if (kv(s, n, "tick", &v, &vn)) {
		if (vn == 8 && !memcmp(v, "function", 8))
			f->tick_traced = true;
		else if (vn == 6 && !memcmp(v, "events", 6))
			f->tick_traced = f->tick_events = true;
		else if (!(vn == 4 && !memcmp(v, "none", 4)))
			return bad(err, host, lineno, "'#idlelab tick=events', 'tick=function' or 'tick=none'");
		return 0;
	}
	if (kv(s, n, "cpu", &v, &vn))
		return header_cpu(s, n, lineno, host, f, err);
	if (kv(s, n, "nohz_full", &v, &vn)) {
		/* /sys/devices/system/cpu/nohz_full as runners/trace.sh copies it ("(null)": none) */
		char *list = vn == 6 && !memcmp(v, "(null)", 6) ? strdup("") : il_str_ndup(v, vn);
		struct il_err pe = { 0 };
		int r;

		if (!list)
			return il_err_oom(err);
		il_cpuset_release(&f->nohz_full);
		r = il_cpuset_parse(&f->nohz_full, list, &pe);
		free(list);
		if (r == IL_ENOMEM)
			return il_err_oom(err);
		return r ? bad(err, host, lineno, "'#idlelab nohz_full=LIST' (a CPU list such as 1-3, or (null))") : 0;
	}
	if (kv(s, n, "events", &v, &vn)) {
		/* the events tron enabled, as runners/trace.sh lists them: cpu_idle_miss came with 5.20 (6.0) */
		const char *e = v + vn;
		bool miss = false;

		for (const char *q = v; q < e;) {
			const char *c = memchr(q, ',', (size_t)(e - q));
			size_t k = (size_t)((c ? c : e) - q);

			miss |= k == 13 && !memcmp(q, "cpu_idle_miss", 13);
			q = c ? c + 1 : e;
		}
		f->has_events = true;
		f->misses_untraced = !miss;
		return 0;
	}
	return 0; /* a header line of a later version: not ours to judge */
}

/* "# entries-in-buffer/entries-written: KEPT/WRITTEN   #P:N" (kernel/trace/trace.c, print_event_info) */
static int entries_line(const char *s, size_t n, size_t lineno, const char *host, struct tp_frame *f,
			struct il_err *err)
{
	static const char key[] = "# entries-in-buffer/entries-written:";
	const char *slash, *end;
	uint64_t kept, written;
	size_t i = sizeof(key) - 1;

	while (i < n && s[i] == ' ')
		i++;
	slash = memchr(s + i, '/', n - i);
	end = slash ? memchr(slash, ' ', n - (size_t)(slash - s)) : NULL;
	if (!end)
		end = s + n;
	if (!slash || il_parse_u64(s + i, (size_t)(slash - s) - i, &kept) ||
	    il_parse_u64(slash + 1, (size_t)(end - slash - 1), &written))
		return bad(err, host, lineno, "'# entries-in-buffer/entries-written: N/N'");
	if (written > kept &&
	    incomplete(f, il_str_dup_printf("the trace buffer kept %llu of the %llu events written (%llu lost): raise "
					    "trace_buffer_kb", (unsigned long long)kept, (unsigned long long)written,
					    (unsigned long long)(written - kept))))
		return il_err_oom(err);
	return 0;
}

/* The markers must be there and in their order, or the window and its edges mean nothing. */
static int check_marks(struct tp_frame *f)
{
	for (int m = 0; m < 4; m++)
		if (!f->has_mark[m])
			return incomplete(f, il_str_dup_printf("the trace lacks %s", marks[m]));
	for (int m = 1; m < 4; m++)
		if (f->mark_ns[m] < f->mark_ns[m - 1])
			return incomplete(f, il_str_dup_printf("the trace has %s before %s", marks[m], marks[m - 1]));
	return 0;
}

static int scan_lines(const char *text, size_t len, const char *host, struct tp_frame *f, struct il_err *err)
{
	const char *p = text, *end = text + len, *s;
	size_t n, lineno = 0;
	struct tp_line l;
	int r;

	while (il_str_next_line(&p, end, &s, &n)) {
		lineno++;
		if (lineno == 1) {
			while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
				n--;
			if (n != 17 || memcmp(s, "#idlelab trace v1", 17))
				return bad(err, host, lineno, "'#idlelab trace v1' (an idlelab trace frame)");
			continue;
		}
		if (starts(s, n, "#idlelab ")) {
			if ((r = header_line(s + 9, n - 9, lineno, host, f, err)))
				return r;
			continue;
		}
		if (starts(s, n, "# entries-in-buffer/entries-written:")) {
			if ((r = entries_line(s, n, lineno, host, f, err)))
				return r;
			continue;
		}
		if ((r = il_traceparse_line(s, n, lineno, host, &l, err)) == IL_EPARSE && !starts(s, n, "CPU:")) {
			/* a line this parser cannot read (a task name with a newline, a tracer of a later kernel): skipped */
			if (!f->skipped++ && !(f->skipped_first = strdup(err->msg)))
				return il_err_oom(err);
			memset(err, 0, sizeof(*err));
			continue;
		}
		if (r)
			return r;
		if (l.kind == TP_LOST &&
		    incomplete(f, il_str_dup_printf("the trace lost %llu events on cpu%llu (the ring buffer overwrote "
						    "them): raise trace_buffer_kb",
						    (unsigned long long)l.count, (unsigned long long)l.cpu)))
			return il_err_oom(err);
		if (l.kind == TP_EVENT && l.ev >= TP_MARK_PRE && !f->has_mark[l.ev - TP_MARK_PRE]) {
			f->has_mark[l.ev - TP_MARK_PRE] = true;
			f->mark_ns[l.ev - TP_MARK_PRE] = l.ts_ns;
		}
	}
	if (!lineno)
		return bad(err, host, 1, "'#idlelab trace v1' (the frame is empty)");
	return 0;
}

void il_traceparse_frame_release(struct tp_frame *f)
{
	free(f->incomplete);
	free(f->skipped_first);
	f->incomplete = f->skipped_first = NULL;
	il_cpuset_release(&f->nohz_full);
}

int il_traceparse_scan(const char *text, size_t len, const char *host, struct tp_frame *f, struct il_err *err)
{
	int r;

	memset(f, 0, sizeof(*f));
	r = scan_lines(text, len, host, f, err);
	if (!r && check_marks(f))
		r = il_err_oom(err);
	if (r)
		il_traceparse_frame_release(f);
	return r;
}
