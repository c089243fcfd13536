// SPDX-License-Identifier: GPL-2.0-or-later
/* Workload definitions in use (workload/workload.c: parameters, argv templating, JSON) and every score parser on captured outputs. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/workloadjson.h"
#include "workload/parse.h"
#include "util/jsonfile.h"

static const char *wl_dir(void)
{
	static char path[4096];
	const char *src = getenv("IL_SRCDIR");

	snprintf(path, sizeof(path), "%s/workloads", src ? src : ".");
	return path;
}

static const char *out_fixture(const char *name)
{
	static char path[4096];
	const char *src = getenv("IL_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/fixtures/workloads/%s", src ? src : ".", name);
	return path;
}

static double parse_metric(const char *wl, const char *fixture, const char *metric)
{
	struct il_workload w;
	struct il_err err = { 0 };
	size_t len;
	char *text = tu_read(out_fixture(fixture), &len);
	json_t *m = NULL;
	double v;

	assert_int_equal(il_workload_load(&w, wl_dir(), wl, &err), 0);
	if (il_workload_parse(&w, text, len, fixture, &m, &err))
		fail_msg("%s: %s", fixture, err.msg);
	assert_true(json_is_number(json_object_get(m, metric)));
	v = json_number_value(json_object_get(m, metric));
	json_decref(m);
	free(text);
	il_workload_release(&w);
	return v;
}

static void test_parsers__captured_outputs(void **state)
{
	(void)state;
	/* values read off the captured files by eye */
	assert_true(fabs(parse_metric("fio", "fio.json", "iops") - 14157.842158) < 1e-6);
	assert_true(fabs(parse_metric("fio", "fio.json", "bw_kib_s") - 56631) < 1e-9);
	assert_true(parse_metric("fio", "fio.json", "clat_p99_us") > 0);
	/* cyclictest --nsecs through the definition: ns in the lines, us here (T: 1 Max: 449609 ns) */
	assert_true(fabs(parse_metric("cyclictest", "cyclictest-ns.txt", "lat_max_us") - 449.609) < 1e-9);
	assert_true(fabs(parse_metric("cyclictest", "cyclictest-ns.txt", "lat_min_us") - 5.063) < 1e-9);
	/* the mean of the threads' Avg: (13987 + 39658 + 9889) / 3 = 21178 ns */
	assert_true(fabs(parse_metric("cyclictest", "cyclictest-ns.txt", "lat_avg_us") - 21.178) < 1e-9);
	assert_true(fabs(parse_metric("cyclictest", "cyclictest-ns.txt", "lat_max_t0_us") - 238.349) < 1e-9);
	assert_true(fabs(parse_metric("cyclictest", "cyclictest-ns.txt", "lat_max_t2_us") - 159.969) < 1e-9);
	assert_true(fabs(parse_metric("hackbench", "hackbench.txt", "time_s") - 0.185) < 1e-12);
	assert_true(fabs(parse_metric("perf-sched-pipe", "perf-sched-pipe.txt", "usecs_per_op") - 49.2656) < 1e-9);
	assert_true(fabs(parse_metric("perf-sched-pipe", "perf-sched-pipe.txt", "ops_per_s") - 20298) < 1e-9);
	assert_true(fabs(parse_metric("pgbench", "pgbench.txt", "tps") - 2165.287808) < 1e-9);
	assert_true(fabs(parse_metric("pgbench", "pgbench.txt", "latency_avg_ms") - 0.924) < 1e-12);
	assert_true(fabs(parse_metric("schbench", "schbench.txt", "wakeup_p99_us") - 272) < 1e-9);
	assert_true(fabs(parse_metric("schbench", "schbench.txt", "request_p99_us") - 19616) < 1e-9);
	assert_true(fabs(parse_metric("schbench", "schbench.txt", "rps_avg") - 3009.10) < 1e-9);
	assert_true(fabs(parse_metric("ebizzy", "ebizzy.txt", "records_per_s") - 10733) < 1e-9);
	assert_true(fabs(parse_metric("adrestia", "adrestia.txt", "wakeup_cost_us") - 12) < 1e-9);
	assert_true(parse_metric("periodic", "periodic.txt", "wakeup_lat_p99_us") > 0);
	assert_true(parse_metric("pingpong", "pingpong.txt", "usec_per_loop") > 0);
	assert_true(parse_metric("sleeper", "sleeper.txt", "sleeps_per_s") > 0);
	/* nanoseconds in stress-ng's report, microseconds in idlelab's */
	assert_true(fabs(parse_metric("stress-ng-cyclic", "stress-ng-cyclic.txt", "mean_us") - 8.32915) < 1e-9);
	assert_true(fabs(parse_metric("stress-ng-cyclic", "stress-ng-cyclic.txt", "p99_us") - 37.189) < 1e-9);
	assert_true(fabs(parse_metric("stress-ng-cyclic", "stress-ng-cyclic.txt", "max_us") - 665.862) < 1e-9);
}

/* One value of parser `parser` on a fixture file, or NaN with the error in err. */
static double raw_metric(const char *parser, const char *fixture, const char *metric, struct il_err *err)
{
	size_t len;
	char *text = tu_read(out_fixture(fixture), &len);
	json_t *m = NULL;
	double v = NAN;

	if (!il_parse_output(parser, text, len, fixture, &m, err))
		v = json_is_number(json_object_get(m, metric)) ? json_number_value(json_object_get(m, metric)) : NAN;
	json_decref(m);
	free(text);
	return v;
}

static void test_parsers__cyclictest_units(void **state)
{
	struct il_err err = { 0 };

	(void)state;
	/* microsecond output (without --nsecs) through the us parser: T: 0 Max: 1141, T: 1 Min: 75 */
	assert_true(fabs(raw_metric("cyclictest", "cyclictest.txt", "lat_max_us", &err) - 1141) < 1e-9);
	assert_true(fabs(raw_metric("cyclictest", "cyclictest.txt", "lat_min_us", &err) - 75) < 1e-9);
	assert_true(fabs(raw_metric("cyclictest", "cyclictest.txt", "lat_avg_us", &err) - 98) < 1e-9);
	assert_true(fabs(raw_metric("cyclictest", "cyclictest.txt", "lat_max_t1_us", &err) - 231) < 1e-9);
	assert_true(fabs(raw_metric("cyclictest", "cyclictest.txt", "threads", &err) - 2) < 1e-9);
	/* each parser refuses the other unit's lines (the Act: field is 5 wide in us, 8 in ns) */
	assert_true(isnan(raw_metric("cyclictest-ns", "cyclictest.txt", "lat_max_us", &err)));
	assert_non_null(strstr(err.msg, "without --nsecs"));
	assert_non_null(strstr(err.msg, "the cyclictest parser"));
	assert_true(isnan(raw_metric("cyclictest", "cyclictest-ns.txt", "lat_max_us", &err)));
	assert_non_null(strstr(err.msg, "with --nsecs"));
	{
		/* a refreshed screen prints a thread twice: it counts once, with its last line */
		static const char twice[] = "T: 0 ( 1) P:95 I:1000 C:  1 Min:   1000 Act:    2000 Avg:    2000 Max:    3000\n"
					    "T: 0 ( 1) P:95 I:1000 C:  2 Min:   1000 Act:    2000 Avg:    4000 Max:    9000\n";
		json_t *m = NULL;

		assert_int_equal(il_parse_output("cyclictest-ns", twice, sizeof(twice) - 1, "t", &m, &err), 0);
		assert_true(fabs(json_number_value(json_object_get(m, "lat_avg_us")) - 4) < 1e-12);
		assert_true(fabs(json_number_value(json_object_get(m, "threads")) - 1) < 1e-12);
		json_decref(m);
	}
}

static void test_parsers__bad_output(void **state)
{
	struct il_workload w;
	struct il_err err = { 0 };
	json_t *m = NULL;

	(void)state;
	assert_int_equal(il_workload_load(&w, wl_dir(), "hackbench", &err), 0);
	/* the metric is missing: an error naming it, never a 0 */
	assert_int_equal(il_workload_parse(&w, "Running in process mode\n", 24, "run.out", &m, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "time_s"));
	assert_null(m);
	il_workload_release(&w);
	assert_int_equal(il_workload_load(&w, wl_dir(), "fio", &err), 0);
	assert_int_equal(il_workload_parse(&w, "{\"jobs\": []}", 12, "fio.out", &m, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "group_reporting"));
	assert_int_equal(il_workload_parse(&w, "not json", 8, "fio.out", &m, &err), IL_EPARSE);
	il_workload_release(&w);
	assert_int_equal(il_workload_load(&w, wl_dir(), "periodic", &err), 0);
	assert_int_equal(il_workload_parse(&w, "wakeup_lat_avg_us: nan\n", 23, "p.out", &m, &err), IL_EPARSE);
	assert_int_equal(il_workload_parse(&w, "garbage line\n", 13, "p.out", &m, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "p.out:1"));
	il_workload_release(&w);
	/* a stressor that did not run (no report) is named, not a sample of zeros */
	assert_int_equal(il_workload_load(&w, wl_dir(), "stress-ng-cyclic", &err), 0);
	{
		const char *out = "stress-ng: error: [1] cyclic: sched_setattr failed\n";

		assert_int_equal(il_workload_parse(&w, out, strlen(out), "c.out", &m, &err), IL_EPARSE);
	}
	assert_non_null(strstr(err.msg, "c.out: expected stress-ng --cyclic output"));
	il_workload_release(&w);
	assert_int_equal(il_parse_output("no-such", "", 0, "x", &m, &err), IL_ENOTFOUND);
}

/* a workload's metrics from its output: all of them, or (jansson out of memory) an error, never a part */
static void test_parsers__out_of_memory(void **state)
{
	/* periodic and cyclictest have pattern metrics ("{n}"), not bound here: every value each names */
	static const struct {
		const char *wl, *fixture;
	} cases[] = { { "periodic", "periodic.txt" }, { "cyclictest", "cyclictest-ns.txt" }, { "hackbench", "hackbench.txt" } };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *fixture = cases[i].fixture;
		struct il_workload w;
		struct il_err err = { 0 };
		char *text, *whole;
		size_t len;
		json_t *m;
		long n = 0;

		text = tu_read(out_fixture(fixture), &len);
		assert_int_equal(il_workload_load(&w, wl_dir(), cases[i].wl, &err), 0);
		assert_int_equal(il_workload_parse(&w, text, len, fixture, &m, &err), 0);
		whole = il_json_dumps(m, JSON_PRESERVE_ORDER | JSON_SORT_KEYS);
		json_decref(m);
		for (bool hit = true; hit; n += tu_oom_stride()) {
			int r;

			tu_json_oom(n);
			r = il_workload_parse(&w, text, len, fixture, &m, &err);
			hit = tu_json_oom_end();
			if (r) {
				assert_int_equal(r, IL_ENOMEM);
				assert_true(hit);
				assert_null(m);
			} else {
				char *s = il_json_dumps(m, JSON_PRESERVE_ORDER | JSON_SORT_KEYS);

				assert_string_equal(s, whole);
				free(s);
				json_decref(m);
			}
		}
		assert_true(n > 3);
		free(whole);
		free(text);
		il_workload_release(&w);
	}
}

static void test_defs__cyclictest_does_not_hold_pm_qos(void **state)
{
	struct il_workload w;
	struct il_err err = { 0 };
	json_t *params, *ov = json_pack("{s:i}", "threads", 3);
	struct il_strlist argv = { 0 };

	(void)state;
	assert_int_equal(il_workload_load(&w, wl_dir(), "cyclictest", &err), 0);
	assert_int_equal(il_workload_params(&w, ov, "workloads[0].params", &params, &err), 0);
	assert_int_equal(il_workload_argv(&w, params, &argv, &err), 0);
	assert_true(il_strlist_has(&argv, "--laptop"));
	assert_true(il_strlist_has(&argv, "--threads=3"));
	assert_true(il_strlist_has(&argv, "--nsecs"));
	/* priority 0 and empty CPU lists are not given at all (cyclictest would make -p 0 FIFO priority 2) */
	assert_false(il_strlist_has(&argv, "--priority=0"));
	assert_false(il_strlist_has(&argv, "--affinity"));
	assert_false(il_strlist_has(&argv, "--mainaffinity"));
	json_decref(params);
	il_strlist_release(&argv);
	json_decref(ov);
	/* Nechita's nohz_full command line: --priority 95 --affinity 1-15 --threads 15 --mainaffinity 0 */
	ov = json_pack("{s:i,s:i,s:s,s:s}", "threads", 15, "priority", 95, "affinity", "1-15", "main_affinity", "0");
	assert_int_equal(il_workload_params(&w, ov, "p", &params, &err), 0);
	assert_int_equal(il_workload_argv(&w, params, &argv, &err), 0);
	{
		struct il_buf b = IL_BUF_INIT;

		for (size_t i = 0; i < argv.n; i++)
			il_buf_printf(&b, "%s%s", i ? " " : "", argv.v[i]);
		assert_string_equal(il_buf_str(&b), "cyclictest -q --nsecs -D 10 -i 1000 --threads=15 --priority=95 "
				    "--affinity 1-15 --mainaffinity 0 --laptop");
		il_buf_release(&b);
	}
	/* one lat_max_tN_us per thread, declared by name once the params are known */
	assert_int_equal(il_workload_bind_metrics(&w, params, "p", &err), 0);
	assert_int_equal(w.nmetrics, 3 + 15);
	assert_string_equal(w.metrics[3].name, "lat_max_t0_us");
	assert_string_equal(w.metrics[17].name, "lat_max_t14_us");
	assert_null(w.metrics[17].count);
	json_decref(params);
	il_strlist_release(&argv);
	json_decref(ov);
	ov = json_pack("{s:b}", "hold_dma_latency", 1);
	assert_int_equal(il_workload_params(&w, ov, "p", &params, &err), 0);
	assert_int_equal(il_workload_argv(&w, params, &argv, &err), 0);
	assert_false(il_strlist_has(&argv, "--laptop"));
	json_decref(params);
	json_decref(ov);
	il_strlist_release(&argv);
	il_workload_release(&w);
}

static void test_defs__hostile_values_stay_one_argument(void **state)
{
	static const char *const hostile[] = { "50:20; rm -rf /", "$(reboot)", "`id`", "a b\tc\nd", "'\"\\", "--help",
					      "" };
	struct il_workload w;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_workload_load(&w, wl_dir(), "sleeper", &err), 0);
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		json_t *ov = json_pack("{s:s}", "mix", hostile[i]), *params;
		struct il_strlist argv = { 0 };

		assert_int_equal(il_workload_params(&w, ov, "workloads[1].params", &params, &err), 0);
		assert_int_equal(il_workload_argv(&w, params, &argv, &err), 0);
		/* sleeper -d D -m MIX -s S: the value is exactly one element, unchanged */
		assert_int_equal(argv.n, 7);
		assert_string_equal(argv.v[3], "-m");
		assert_string_equal(argv.v[4], hostile[i]);
		json_decref(params);
		json_decref(ov);
		il_strlist_release(&argv);
	}
	il_workload_release(&w);
}

static void test_defs__param_errors_name_the_path(void **state)
{
	struct il_workload w;
	struct il_err err = { 0 };
	json_t *params = NULL, *ov;

	(void)state;
	assert_int_equal(il_workload_load(&w, wl_dir(), "fio", &err), 0);
	ov = json_pack("{s:s}", "runtime", "10");
	assert_int_equal(il_workload_params(&w, ov, "workloads[2].params", &params, &err), IL_EPARSE);
	assert_string_equal(err.msg, "workloads[2].params.runtime: expected integer");
	json_decref(ov);
	ov = json_pack("{s:i}", "runtim", 10);
	assert_int_equal(il_workload_params(&w, ov, "workloads[2].params", &params, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "no parameter 'runtim'"));
	json_decref(ov);
	ov = json_pack("{s:s}", "rw", "trim");
	assert_int_equal(il_workload_params(&w, ov, "workloads[0].params", &params, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "workloads[0].params.rw: 'trim' is not one of"));
	json_decref(ov);
	ov = json_pack("{s:i}", "iodepth", 0);
	assert_int_equal(il_workload_params(&w, ov, "w.params", &params, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "below the minimum"));
	json_decref(ov);
	il_workload_release(&w);
}

/* the default key metrics: the first metric (the score), the idle misses, energy */
static void test_defs__key_default(void **state)
{
	(void)state;
	assert_true(il_workload_key_default("anything", 0));
	assert_false(il_workload_key_default("second", 1));
	assert_true(il_workload_key_default("idle.miss_pct", -1));
	assert_false(il_workload_key_default("idle.aboves", -1));
}

/* `workload show`: the definition as JSON, whole or (jansson out of memory) not at all */
static void test_defs__to_json(void **state)
{
	struct il_workload w;
	struct il_err err = { 0 };
	char *whole;
	json_t *j;
	long n = 0;

	(void)state;
	assert_int_equal(il_workload_load(&w, wl_dir(), "fio", &err), 0);
	j = il_workload_to_json(&w);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "name")), "fio");
	assert_string_equal(json_string_value(json_object_get(j, "parser")), w.parser);
	assert_int_equal(json_object_size(json_object_get(j, "params")), w.nparams);
	assert_int_equal(json_object_size(json_object_get(j, "metrics")), w.nmetrics);
	assert_int_equal(json_array_size(json_object_get(j, "requires")), w.requires.n);
	assert_true(json_equal(json_object_get(j, "argv"), w.argv));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(j, "metrics"), "iops"),
								  "better")), "higher");
	whole = il_json_dumps(j, JSON_PRESERVE_ORDER);
	json_decref(j);
	for (bool hit = true; hit; n += tu_oom_stride()) {
		tu_json_oom(n);
		j = il_workload_to_json(&w);
		hit = tu_json_oom_end();
		if (!j) {
			assert_true(hit);
			continue;
		}
		{
			char *s = il_json_dumps(j, JSON_PRESERVE_ORDER);

			assert_string_equal(s, whole);
			free(s);
		}
		json_decref(j);
	}
	assert_true(n > 20);
	free(whole);
	il_workload_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parsers__captured_outputs),
		cmocka_unit_test(test_parsers__bad_output),
		cmocka_unit_test(test_parsers__out_of_memory),
		cmocka_unit_test(test_defs__cyclictest_does_not_hold_pm_qos),
		cmocka_unit_test(test_parsers__cyclictest_units),
		cmocka_unit_test(test_defs__hostile_values_stay_one_argument),
		cmocka_unit_test(test_defs__param_errors_name_the_path),
		cmocka_unit_test(test_defs__key_default),
		cmocka_unit_test(test_defs__to_json),
	};

	return cmocka_run_group_tests_name("workload", tests, NULL, NULL);
}
