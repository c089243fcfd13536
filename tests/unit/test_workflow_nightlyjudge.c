// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workflow/nightlyjudge on runs made here (tu_journal: one variant "menu",
 * one key metric): a tip with no counted sample fails with why, the first
 * nightly is the baseline, a tip like the baseline is good, one worse
 * beyond noise is a regression with its alert input (the regression, the
 * commit range, the commands to reproduce and bisect it) and its key
 * reported; a regression reported already against the same baseline is a
 * repeat.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "workflow/nightlyjudge.h"

struct fx {
	char *dir;                  /* the runs directory */
	char base[4096], tip[4096]; /* two runs in it */
	json_t *plan, *past, *good;
	struct il_nightly_result res;
};

static double level(size_t v, size_t m, int i, void *ctx)
{
	(void)v, (void)m;
	return *(const double *)ctx + (double)(i % 3);
}

static void run(const char *dir, double lvl, int iterations)
{
	static const char *const vars[] = { "menu" }, *const mets[] = { "lat" };

	assert_int_equal(mkdir(dir, 0755), 0);
	tu_journal(dir, vars, 1, false, mets, 1, "[\"lat\"]", iterations, NULL, level, &lvl);
}

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = tu_tmpdir();
	snprintf(f->base, sizeof(f->base), "%s/20250101-000000-nightly-p-aaaaaaaaaaaa", f->dir);
	snprintf(f->tip, sizeof(f->tip), "%s/20250102-000000-nightly-p-bbbbbbbbbbbb", f->dir);
	run(f->base, 100, 8);
	f->plan = json_pack("{s:s,s:[s]}", "name", "p", "governors", "menu");
	f->past = json_array();
	f->good = json_pack("{s:s,s:s,s:s,s:s}", "type", "nightly", "run", f->base, "commit",
			    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "verdict", "good");
	f->res.lock_fd = -1;
	f->res.plan = strdup("p");
	f->res.host = strdup("h");
	f->res.branch = strdup("main");
	memset(f->res.tip, 'b', 40);
	f->res.run = strdup(f->tip);
	f->res.compared = json_array();
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	il_nightly_result_release(&f->res);
	json_decref(f->plan), json_decref(f->past), json_decref(f->good);
	tu_rmtree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static struct il_nightly_judge_in in_of(const struct fx *f, const json_t *baseline)
{
	return (struct il_nightly_judge_in){ .plan_path = "plan.json", .dir = f->dir, .plan = f->plan, .alpha = 0.05,
					     .floor_pct = 2.0, .window = 10, .past = f->past, .baseline = baseline };
}

static void test_workflow_nightlyjudge__nothing_counted_fails(void **state)
{
	struct fx *f = *state;
	struct il_nightly_judge_in in = in_of(f, f->good);
	struct il_err err = { 0 };

	run(f->tip, 100, 0);
	assert_int_equal(il_nightly_judge(&in, &f->res, &err), 0);
	assert_int_equal(f->res.verdict, IL_NIGHTLY_FAILED);
	assert_string_equal(f->res.reason, "no sample was counted");
	assert_false(f->res.build_failed);
	assert_null(f->res.base_run);
}

static void test_workflow_nightlyjudge__first_is_the_baseline(void **state)
{
	struct fx *f = *state;
	struct il_nightly_judge_in in = in_of(f, NULL);
	struct il_err err = { 0 };

	run(f->tip, 150, 8);
	assert_int_equal(il_nightly_judge(&in, &f->res, &err), 0);
	assert_int_equal(f->res.verdict, IL_NIGHTLY_BASELINE);
	assert_null(f->res.base_run);
	assert_int_equal(json_array_size(f->res.compared), 0);
}

static void test_workflow_nightlyjudge__like_the_baseline_is_good(void **state)
{
	struct fx *f = *state;
	struct il_nightly_judge_in in = in_of(f, f->good);
	struct il_err err = { 0 };
	const json_t *e;

	run(f->tip, 100, 8);
	if (il_nightly_judge(&in, &f->res, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(f->res.verdict, IL_NIGHTLY_GOOD);
	assert_string_equal(f->res.base_run, f->base);
	assert_string_equal(f->res.base_commit, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	assert_int_equal(json_array_size(f->res.compared), 1);
	e = json_array_get(f->res.compared, 0);
	assert_string_equal(json_string_value(json_object_get(e, "variant")), "menu");
	assert_string_equal(json_string_value(json_object_get(e, "key")), "w.lat");
	assert_string_not_equal(json_string_value(json_object_get(e, "verdict")), "worse");
	assert_null(f->res.alert);
}

static void test_workflow_nightlyjudge__worse_is_a_regression_with_its_alert(void **state)
{
	struct fx *f = *state;
	struct il_nightly_judge_in in = in_of(f, f->good);
	struct il_err err = { 0 };
	const json_t *a, *reg;

	run(f->tip, 150, 8);
	if (il_nightly_judge(&in, &f->res, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(f->res.verdict, IL_NIGHTLY_REGRESSION);
	assert_string_equal(json_string_value(json_object_get(json_array_get(f->res.compared, 0), "verdict")), "worse");
	assert_non_null(a = f->res.alert);
	assert_string_equal(json_string_value(json_object_get(a, "plan")), "p");
	assert_string_equal(json_string_value(json_object_get(a, "range")), "aaaaaaaaaaaa..bbbbbbbbbbbb");
	assert_string_equal(json_string_value(json_object_get(a, "run")), "20250102-000000-nightly-p-bbbbbbbbbbbb");
	assert_string_equal(json_string_value(json_object_get(json_object_get(a, "baseline"), "run")),
			    "20250101-000000-nightly-p-aaaaaaaaaaaa");
	assert_int_equal(json_array_size(json_object_get(a, "regressions")), 1);
	reg = json_array_get(json_object_get(a, "regressions"), 0);
	assert_string_equal(json_string_value(json_object_get(reg, "metric")), "lat");
	assert_true(json_number_value(json_object_get(reg, "change_pct")) > 40);
	assert_non_null(json_object_get(reg, "stdev"));
	assert_non_null(strstr(json_string_value(json_object_get(a, "reproduce")), "idlelab run "));
	/* one governors entry: the bisect command names no variant */
	assert_non_null(strstr(json_string_value(json_object_get(a, "bisect")),
			       "--good aaaaaaaaaaaa --bad bbbbbbbbbbbb --metric w.lat"));
	assert_null(strstr(json_string_value(json_object_get(a, "bisect")), "--variant"));
	assert_int_equal(json_array_size(f->res.reported), 1);
	assert_string_equal(json_string_value(json_array_get(f->res.reported, 0)), "menu|w.lat");
	assert_int_equal(json_array_size(f->res.reported_before), 0);
	assert_false(f->res.repeat);
}

static void test_workflow_nightlyjudge__reported_already_is_a_repeat(void **state)
{
	struct fx *f = *state;
	struct il_nightly_judge_in in;
	struct il_err err = { 0 };

	run(f->tip, 150, 8);
	/* the last verdict: this regression, against the same baseline; several governors entries now */
	assert_int_equal(json_array_append_new(f->past, json_pack("{s:s,s:s,s:{s:s},s:[s]}", "type", "nightly", "verdict",
								  "regression", "baseline", "run", f->base, "reported",
								  "menu|w.lat")),
			 0);
	assert_int_equal(json_array_append_new(json_object_get(f->plan, "governors"), json_string("teo")), 0);
	in = in_of(f, f->good);
	if (il_nightly_judge(&in, &f->res, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(f->res.verdict, IL_NIGHTLY_REGRESSION);
	assert_true(f->res.repeat);
	assert_int_equal(json_array_size(f->res.reported), 1);
	assert_int_equal(json_array_size(f->res.reported_before), 1);
	assert_non_null(strstr(json_string_value(json_object_get(f->res.alert, "bisect")), "--variant menu"));
}

#define FX_TEST(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_workflow_nightlyjudge__nothing_counted_fails),
		FX_TEST(test_workflow_nightlyjudge__first_is_the_baseline),
		FX_TEST(test_workflow_nightlyjudge__like_the_baseline_is_good),
		FX_TEST(test_workflow_nightlyjudge__worse_is_a_regression_with_its_alert),
		FX_TEST(test_workflow_nightlyjudge__reported_already_is_a_repeat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
