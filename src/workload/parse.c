// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Score parsers. Text formats are read line by line; each parser looks for
 * the lines its tool prints and takes the last occurrence (schbench and
 * friends print interval reports before the final one).
 */
#include "workload/parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

typedef int (*parse_fn)(const char *text, size_t len, const char *label, json_t *out, struct il_err *err);

/* Store a finite value; NaN or inf from a tool is an error, never a sample. */
static int put(json_t *out, const char *key, double v, const char *label, struct il_err *err)
{
	if (!isfinite(v))
		return il_err_set(err, IL_EPARSE, "%s: %s is not a finite number", label, key);
	return json_object_set_new(out, key, json_real(v)) ? il_err_oom(err) : 0;
}

/* Iterate over lines: line and n get the next line, without its newline. */
static bool next_line(const char **p, const char *end, const char **line, size_t *n)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*line = *p;
	*n = (size_t)((nl ? nl : end) - *p);
	*p = nl ? nl + 1 : end;
	return true;
}

/* A copy of one line as a C string in buf (cut at bufsz). */
static const char *cstr(char *buf, size_t bufsz, const char *line, size_t n)
{
	if (n >= bufsz)
		n = bufsz - 1;
	memcpy(buf, line, n);
	buf[n] = 0;
	return buf;
}

/* The lines of a text one at a time, each a C string (a copy cut at max - 1 bytes). */
struct lines {
	const char *p, *end;
	size_t max; /* at most sizeof(buf) */
	char buf[512];
};
#define LINES(text, len, max) { (text), (text) + (len), (max), { 0 } }

/* The next line of it, or NULL after the last. */
static const char *next_cline(struct lines *it)
{
	const char *line;
	size_t n;

	return next_line(&it->p, it->end, &line, &n) ? cstr(it->buf, it->max, line, n) : NULL;
}

/* put() under the key "PREFIX_SUFFIX". */
static int put2(json_t *out, const char *prefix, const char *suffix, double v, const char *label, struct il_err *err)
{
	char key[64];

	snprintf(key, sizeof(key), "%s_%s", prefix, suffix);
	return put(out, key, v, label, err);
}

/* The number right after the first occurrence of key in s (strict up to the next blank or unit). */
static bool num_after(const char *s, const char *key, double *out)
{
	const char *p = strstr(s, key);
	char *end;

	if (!p)
		return false;
	p += strlen(key);
	while (*p == ' ' || *p == '\t')
		p++;
	*out = strtod(p, &end);
	return end != p;
}

/* ---- fio --output-format=json (with --group_reporting: one job) ---- */
static int fio_json(const char *text, size_t len, const char *label, json_t *out, struct il_err *err)
{
	json_error_t je;
	json_t *j = json_loadb(text, len, JSON_DISABLE_EOF_CHECK, &je), *jobs, *job;
	double iops = 0, bw = 0;
	const char *dir = NULL;
	int r = 0;

	if (!j)
		return il_err_set(err, IL_EPARSE, "%s: not fio JSON output (line %d: %s)", label, je.line, je.text);
	jobs = json_object_get(j, "jobs");
	if (!json_is_array(jobs) || json_array_size(jobs) != 1) {
		r = il_err_set(err, IL_EPARSE, "%s: jobs: expected exactly one job (run fio with --group_reporting)",
			       label);
		goto out;
	}
	job = json_array_get(jobs, 0);
	if (json_integer_value(json_object_get(job, "error"))) {
		r = il_err_set(err, IL_EPARSE, "%s: jobs[0].error: fio reported error %lld", label,
			       (long long)json_integer_value(json_object_get(job, "error")));
		goto out;
	}
	for (int k = 0; k < 2; k++) {
		const char *d = k ? "write" : "read";
		json_t *o = json_object_get(job, d);
		json_t *vi = json_object_get(o, "iops"), *vb = json_object_get(o, "bw");

		if (!json_is_number(vi) || !json_is_number(vb)) {
			r = il_err_set(err, IL_EPARSE, "%s: jobs[0].%s.iops/bw: expected numbers", label, d);
			goto out;
		}
		if (json_number_value(vi) > 0 && !dir)
			dir = d;
		iops += json_number_value(vi);
		bw += json_number_value(vb);
	}
	if ((r = put(out, "iops", iops, label, err)) || (r = put(out, "bw_kib_s", bw, label, err)))
		goto out;
	if (dir) {
		json_t *clat = json_object_get(json_object_get(job, dir), "clat_ns");
		json_t *pct = json_object_get(clat, "percentile");
		static const struct { const char *key, *name; } pcts[] = {
			{ "50.000000", "clat_p50_us" }, { "99.000000", "clat_p99_us" }, { "99.900000", "clat_p999_us" },
		};

		if (!json_is_number(json_object_get(clat, "mean"))) {
			r = il_err_set(err, IL_EPARSE, "%s: jobs[0].%s.clat_ns.mean: expected a number", label, dir);
			goto out;
		}
		if ((r = put(out, "clat_mean_us", json_number_value(json_object_get(clat, "mean")) / 1e3, label, err)))
			goto out;
		for (size_t i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
			json_t *v = json_object_get(pct, pcts[i].key);

			if (json_is_number(v) && (r = put(out, pcts[i].name, json_number_value(v) / 1e3, label, err)))
				goto out;
		}
	}
out:
	json_decref(j);
	return r;
}

/* ---- schbench: the last "Wakeup/Request Latencies percentiles" blocks and "average rps" ---- */
static int schbench(const char *text, size_t len, const char *label, json_t *out, struct il_err *err)
{
	struct lines it = LINES(text, len, 256);
	const char *s, *block = NULL;
	int r;

	while ((s = next_cline(&it))) {
		double v;

		if (strstr(s, "Wakeup Latencies percentiles"))
			block = "wakeup";
		else if (strstr(s, "Request Latencies percentiles"))
			block = "request";
		else if (strstr(s, "RPS percentiles"))
			block = NULL;
		else if (num_after(s, "average rps:", &v)) {
			if ((r = put(out, "rps_avg", v, label, err)))
				return r;
		} else if (block) {
			static const struct { const char *tag, *suffix; } pc[] = {
				{ "50.0th:", "p50_us" }, { "90.0th:", "p90_us" }, { "99.0th:", "p99_us" }, { "99.9th:", "p999_us" },
			};

			for (size_t i = 0; i < sizeof(pc) / sizeof(pc[0]); i++)
				if (num_after(s, pc[i].tag, &v) && (r = put2(out, block, pc[i].suffix, v, label, err)))
					return r;
			if (num_after(s, "max=", &v) && (r = put2(out, block, "max_us", v, label, err)))
				return r;
		}
	}
	return 0;
}

/* ---- ebizzy: "N records/s" ---- */
static int ebizzy(const char *text, size_t len, const char *label, json_t *out, struct il_err *err)
{
	struct lines it = LINES(text, len, 256);
	const char *s;
	char unit[32];
	double v;
	int r;

	while ((s = next_cline(&it))) {
		if (sscanf(s, "%lf records/%31s", &v, unit) == 2 && !strcmp(unit, "s") &&
		    (r = put(out, "records_per_s", v, label, err)))
			return r;
		if (sscanf(s, "real %lf s", &v) == 1 && (r = put(out, "real_s", v, label, err)))
			return r;
	}
	return 0;
}

/* ---- adrestia: "wakeup cost (periodic, 10us): 12us" (90th percentile) ---- */
static int adrestia(const char *text, size_t len, const char *label, json_t *out, struct il_err *err)
{
	struct lines it = LINES(text, len, 256);
	const char *s, *c;
	int r;

	while ((s = next_cline(&it))) {
		double v;

		if (strncmp(s, "wakeup cost (", 13) || !(c = strstr(s, "): ")))
			continue;
		if (!num_after(c, "):", &v))
			return il_err_set(err, IL_EPARSE, "%s: '%s': expected a number of microseconds", label, s);
		if ((r = put(out, "wakeup_cost_us", v, label, err)))
			return r;
	}
	return 0;
}

/*
 * ---- cyclictest -q: one line per thread, printed at exit ----
 * "T: 0 ( 9735) P: 0 I:1000 C:    999 Min:     84 Act:   93 Avg:   98 Max:    1141"
 * rt-tests' print_stat() writes "Act:%5ld Avg:%5ld" in microseconds and
 * "Act:%8ld Avg:%8ld" with --nsecs, and nothing else tells the unit. Each
 * parser checks that width and refuses the other unit's output, so a value
 * is never read 1000 times off. Per thread (its T: number): lat_max_tN_us,
 * lat_avg_tN_us; over the threads: the smallest Min, the mean of the
 * threads' Avg, the largest Max. A thread printed twice (a refreshed
 * screen) counts once, with its last line.
 */
struct ct_thread {
	bool seen;
	double min, avg, max;
};

static int cyclictest_any(const char *text, size_t len, const char *label, json_t *out, struct il_err *err,
			  bool nsecs)
{
	struct lines it = LINES(text, len, 512);
	struct ct_thread *t = calloc(IL_WL_MAX_EACH, sizeof(*t));
	double mn = INFINITY, mx = -INFINITY, avg_sum = 0, scale = nsecs ? 1e-3 : 1;
	size_t threads = 0;
	const char *s;
	int r = 0;

	if (!t)
		return il_err_oom(err);
	while (!r && (s = next_cline(&it))) {
		const char *act = strstr(s, "Act:"), *avg = act ? strstr(act, " Avg:") : NULL;
		double a, b, c;
		int n;

		if (strncmp(s, "T:", 2))
			continue;
		if (sscanf(s + 2, "%d", &n) != 1 || n < 0 || n >= IL_WL_MAX_EACH)
			r = il_err_set(err, IL_EPARSE, "%s: thread number 0..%d expected after 'T:': '%s'", label,
				       IL_WL_MAX_EACH - 1, s);
		else if (!num_after(s, "Min:", &a) || !num_after(s, "Avg:", &b) || !num_after(s, "Max:", &c) || !avg)
			r = il_err_set(err, IL_EPARSE, "%s: thread line without Min/Act/Avg/Max: '%s'", label, s);
		else if ((avg - act - 4 >= 8) != nsecs)
			r = il_err_set(err, IL_EPARSE, "%s: '%s' is cyclictest output %s --nsecs (its Act: field is %d wide); "
				       "parse it with the %s parser (idlelab workload parse --parser %s)", label, s,
				       nsecs ? "without" : "with", (int)(avg - act - 4), nsecs ? "cyclictest" : "cyclictest-ns",
				       nsecs ? "cyclictest" : "cyclictest-ns");
		else
			t[n] = (struct ct_thread){ true, a * scale, b * scale, c * scale };
	}
	for (int n = 0; !r && n < IL_WL_MAX_EACH; n++) {
		char key[48];

		if (!t[n].seen)
			continue;
		mn = fmin(mn, t[n].min);
		mx = fmax(mx, t[n].max);
		avg_sum += t[n].avg;
		threads++;
		snprintf(key, sizeof(key), "lat_max_t%d_us", n);
		if (!(r = put(out, key, t[n].max, label, err))) {
			snprintf(key, sizeof(key), "lat_avg_t%d_us", n);
			r = put(out, key, t[n].avg, label, err);
		}
	}
	free(t);
	if (r || !threads)
		return r;
	if ((r = put(out, "lat_min_us", mn, label, err)) || (r = put(out, "lat_avg_us", avg_sum / (double)threads, label, err)) ||
	    (r = put(out, "lat_max_us", mx, label, err)) || (r = put(out, "threads", (double)threads, label, err)))
		return r;
	return 0;
}

static int cyclictest(const char *text, size_t len, const char *label, json_t *out, struct il_err *err)
{
	return cyclictest_any(text, len, label, out, err, false);
}

/* cyclictest --nsecs: nanoseconds in its lines, microseconds (three decimals) here */
static int cyclictest_ns(const char *text, size_t len, const char *label, json_t *out, struct il_err *err)
{
	return cyclictest_any(text, len, label, out, err, true);
}

/* ---- hackbench: "Time: 0.185" ---- */
static int hackbench(const char *text, size_t len, const char *label, json_t *out, struct il_err *err)
{
	struct lines it = LINES(text, len, 256);
	const char *s;
	double v;
	int r;

	while ((s = next_cline(&it)))
		if (!strncmp(s, "Time:", 5) && num_after(s, "Time:", &v) &&
		    (r = put(out, "time_s", v, label, err)))
			return r;
	return 0;
}

/* ---- perf bench sched pipe: "49.265600 usecs/op", "20298 ops/sec", "Total time: 0.985 [sec]" ---- */
static int perf_sched_pipe(const char *text, size_t len, const char *label, json_t *out, struct il_err *err)
{
	struct lines it = LINES(text, len, 256);
	const char *s;
	char unit[32];
	double v;
	int r = 0;

	while ((s = next_cline(&it))) {
		if (sscanf(s, " %lf %31s", &v, unit) == 2) {
			if (!strcmp(unit, "usecs/op"))
				r = put(out, "usecs_per_op", v, label, err);
			else if (!strcmp(unit, "ops/sec"))
				r = put(out, "ops_per_s", v, label, err);
		} else if (num_after(s, "Total time:", &v)) {
			r = put(out, "total_s", v, label, err);
		}
		if (r)
			return r;
	}
	return 0;
}

/* ---- pgbench: "tps = 2165.287808 (without initial connection time)", "latency average = 0.924 ms" ---- */
static int pgbench(const char *text, size_t len, const char *label, json_t *out, struct il_err *err)
{
	struct lines it = LINES(text, len, 256);
	const char *s;
	double v;
	int r = 0;

	while ((s = next_cline(&it))) {
		if (!strncmp(s, "tps = ", 6) && !strstr(s, "including") && num_after(s, "tps =", &v))
			r = put(out, "tps", v, label, err);
		else if (!strncmp(s, "latency average = ", 18) && num_after(s, "latency average =", &v))
			r = put(out, "latency_avg_ms", v, label, err);
		else if (!strncmp(s, "latency stddev = ", 17) && num_after(s, "latency stddev =", &v))
			r = put(out, "latency_stddev_ms", v, label, err);
		else if (num_after(s, "number of failed transactions:", &v))
			r = put(out, "failed", v, label, err);
		if (r)
			return r;
	}
	return 0;
}

/* ---- idlelab's own workloads: "key: number" lines ---- */
static int kv(const char *text, size_t len, const char *label, json_t *out, struct il_err *err)
{
	const char *p = text, *end = text + len, *line;
	size_t n, lineno = 0;
	int r;

	while (next_line(&p, end, &line, &n)) {
		const char *colon = memchr(line, ':', n);
		char key[80];
		double v;

		lineno++;
		if (!n)
			continue;
		if (!colon || (size_t)(colon - line) >= sizeof(key) || il_parse_double(colon + 1, n - (size_t)(colon - line) - 1, &v))
			return il_err_set(err, IL_EPARSE, "%s:%zu: expected 'name: number'", label, lineno);
		cstr(key, sizeof(key), line, (size_t)(colon - line));
		if ((r = put(out, key, v, label, err)))
			return r;
	}
	return 0;
}

/*
 * ---- stress-ng --cyclic: the wake-up latency of a periodic sleep ----
 * "cyclic:   mean: 6330.52 ns, mode: 3635 ns", "cyclic:   min: 3463 ns, max:
 * 510089 ns, std.dev. 17309.91", "cyclic:   99.90%:     293530 ns", and the
 * --metrics-brief row "cyclic  18351  2.00  0.03  0.08  9167.08  162719.35"
 * (bogo ops = wake-ups). Nanoseconds become microseconds, like every
 * latency idlelab reports.
 */
static int stress_ng_cyclic(const char *text, size_t len, const char *label, json_t *out, struct il_err *err)
{
	static const struct {
		const char *tag, *key;
	} pc[] = {
		{ "50.00%:", "p50_us" }, { "90.00%:", "p90_us" }, { "99.00%:", "p99_us" }, { "99.90%:", "p999_us" },
	};
	struct lines it = LINES(text, len, 256);
	bool report = false;
	const char *s;
	double v, ops, real;
	int r = 0;

	while (!r && (s = next_cline(&it))) {
		const char *c = strstr(s, "cyclic:"), *m = strstr(s, "] cyclic ");

		if (m && sscanf(m + 9, "%lf %lf", &ops, &real) == 2 && real > 0)
			r = put(out, "wakeups_per_s", ops / real, label, err);
		if (!c)
			continue;
		if (num_after(c, "mean:", &v)) {
			report = true;
			r = put(out, "mean_us", v / 1000, label, err);
		}
		if (!r && num_after(c, "min:", &v))
			r = put(out, "min_us", v / 1000, label, err);
		if (!r && num_after(c, "max:", &v))
			r = put(out, "max_us", v / 1000, label, err);
		if (!r && num_after(c, "std.dev.", &v))
			r = put(out, "stddev_us", v / 1000, label, err);
		for (size_t i = 0; !r && i < sizeof(pc) / sizeof(pc[0]); i++)
			if (num_after(c, pc[i].tag, &v))
				r = put(out, pc[i].key, v / 1000, label, err);
	}
	if (!r && !report)
		r = il_err_set(err, IL_EPARSE, "%s: expected stress-ng --cyclic output with a 'cyclic: mean: N ns' line "
				"(did the stressor run? it needs root for SCHED_DEADLINE)", label);
	return r;
}

static const struct {
	const char *name;
	parse_fn fn;
} parsers[] = {
	{ "fio-json", fio_json },
	{ "schbench", schbench },
	{ "ebizzy", ebizzy },
	{ "adrestia", adrestia },
	{ "cyclictest", cyclictest },
	{ "hackbench", hackbench },
	{ "perf-sched-pipe", perf_sched_pipe },
	{ "pgbench", pgbench },
	{ "idlelab-kv", kv },
	{ "stress-ng-cyclic", stress_ng_cyclic },
	{ "cyclictest-ns", cyclictest_ns },
};
#define NPARSERS (sizeof(parsers) / sizeof(parsers[0]))

const char *const *il_parse_names(void)
{
	static const char *names[NPARSERS + 1];

	for (size_t i = 0; i < NPARSERS; i++)
		names[i] = parsers[i].name;
	return names;
}

bool il_parse_exists(const char *name)
{
	for (size_t i = 0; i < NPARSERS; i++)
		if (!strcmp(parsers[i].name, name))
			return true;
	return false;
}

int il_parse_output(const char *name, const char *text, size_t len, const char *label, json_t **out,
		    struct il_err *err)
{
	json_t *o;
	int r;

	*out = NULL;
	for (size_t i = 0; i < NPARSERS; i++) {
		if (strcmp(parsers[i].name, name))
			continue;
		if (!(o = json_object()))
			return il_err_oom(err);
		if ((r = parsers[i].fn(text ? text : "", text ? len : 0, label, o, err))) {
			json_decref(o);
			return r;
		}
		*out = o;
		return 0;
	}
	return il_err_set(err, IL_ENOTFOUND, "no parser named '%s'", name);
}

int il_workload_parse(const struct il_workload *w, const char *text, size_t len, const char *label, json_t **out,
		      struct il_err *err)
{
	json_t *all, *res;
	int r;

	*out = NULL;
	if ((r = il_parse_output(w->parser, text, len, label, &all, err)))
		return r;
	if (!(res = json_object())) {
		json_decref(all);
		return il_err_oom(err);
	}
	for (size_t i = 0; i < w->nmetrics; i++) {
		json_t *v = json_object_get(all, w->metrics[i].name);

		/* a pattern not bound to a plan's params (`workload parse`): every value it names, at least one */
		if (w->metrics[i].count) {
			const char *key;
			json_t *x;

			v = NULL;
			json_object_foreach(all, key, x)
				if (il_workload_metric_matches(&w->metrics[i], key) && json_object_set(res, key, v = x)) {
					r = il_err_oom(err);
					break;
				}
			if (r)
				break;
		}
		if (!v) {
			r = il_err_set(err, IL_EPARSE, "%s: no value for metric '%s' in %s output (parser %s)", label,
				       w->metrics[i].name, w->name, w->parser);
			break;
		}
		if (!w->metrics[i].count && json_object_set(res, w->metrics[i].name, v)) {
			r = il_err_oom(err);
			break;
		}
	}
	json_decref(all);
	if (r) {
		json_decref(res);
		return r;
	}
	*out = res;
	return 0;
}
