// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stop rule over comparisons (stats/comparejudge.c) on hand-made
 * datasets: every key comparison decided, one unknown, the unknown one
 * futile within an adaptive run's maximum, several comparisons judged
 * together, none; and a run's journal judged as its report is (a run that
 * counted nothing is not decided, and says why).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"

/* s begins with prefix */
#define STARTS(s, prefix) assert_int_equal(strncmp((s), (prefix), strlen(prefix)), 0)

static double ref[] = { 100, 101, 99, 100.5, 99.5, 100 }, worse[] = { 130, 131, 129, 130.5, 129.5, 130 };
static double noisy_ref[] = { 90, 110, 95, 105, 100, 100 }, noisy_x[] = { 92, 112, 97, 107, 102, 101 };

/* A dataset of one key metric w.m (lower is better), reference "ref" against "x". */
struct one {
	struct il_values vals[2];
	char *var[2];
	struct il_mseries m;
	struct il_dataset ds;
};

static void one(struct one *o, double *r, double *x, size_t n)
{
	o->vals[0] = (struct il_values){ .n = n, .v = r };
	o->vals[1] = (struct il_values){ .n = n, .v = x };
	o->var[0] = "ref", o->var[1] = "x";
	o->m = (struct il_mseries){ .key = "w.m", .group = "w", .metric = "m", .unit = "us", .better = IL_BETTER_LOWER,
				    .key_metric = true, .var = o->vals };
	o->ds = (struct il_dataset){ .title = "t", .nvar = 2, .var = o->var, .reference = "ref", .nmet = 1, .met = &o->m };
}

static void compare(struct il_cmp *c, const struct il_dataset *ds, size_t iter_max)
{
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_err err = { 0 };

	o.resamples = 50;
	o.iter_max = iter_max;
	if (il_compare(c, ds, &o, &err))
		fail_msg("%s", err.msg);
}

static void test_comparejudge__decided_unknown_futile(void **state)
{
	struct one d, u;
	struct il_cmp c[2];
	struct il_buf why = IL_BUF_INIT;

	(void)state;
	one(&d, ref, worse, 6);
	compare(&c[0], &d.ds, 0);
	assert_true(il_compare_decided(&c[0]));
	assert_true(il_compare_settled(&c[0]));
	assert_int_equal(il_compare_judge(&c[0], 1, &why), 1);
	assert_string_equal(il_buf_str(&why), "every key comparison decided (0 better, 1 worse, 0 changed, 0 the same)");

	one(&u, noisy_ref, noisy_x, 6);
	compare(&c[1], &u.ds, 0);
	assert_int_equal(c[1].n[IL_VERDICT_UNKNOWN], 1);
	assert_false(il_compare_decided(&c[1]));
	/* a fixed run (no maximum): never futile */
	assert_false(il_compare_settled(&c[1]));
	il_buf_reset(&why);
	assert_int_equal(il_compare_judge(&c[1], 1, &why), 0);
	STARTS(il_buf_str(&why), "1 key comparison unknown (up to ");
	assert_non_null(strstr(il_buf_str(&why), " samples per side would tell)"));
	/* judged together: the undecided one holds both back, the counts are summed */
	il_buf_reset(&why);
	assert_int_equal(il_compare_judge(c, 2, &why), 0);
	STARTS(il_buf_str(&why), "1 key comparison unknown");
	il_compare_release(&c[1]);

	/* an adaptive run of at most 3 rounds cannot tell it: futile, settled, not decided */
	compare(&c[1], &u.ds, 3);
	assert_true(c[1].nfutile == 1);
	assert_false(il_compare_decided(&c[1]));
	assert_true(il_compare_settled(&c[1]));
	il_buf_reset(&why);
	assert_int_equal(il_compare_judge(&c[1], 1, &why), 2);
	STARTS(il_buf_str(&why), "0 better, 0 worse, 0 changed, 0 the same; the 1 unknown would need up to ");
	assert_non_null(strstr(il_buf_str(&why), "samples a side, beyond the run's maximum of 3"));
	/* nothing judged: not decided */
	il_buf_reset(&why);
	assert_int_equal(il_compare_judge(c, 0, &why), 0);
	assert_string_equal(il_buf_str(&why), "0 key comparisons unknown");
	il_compare_release(&c[0]);
	il_compare_release(&c[1]);
	il_buf_release(&why);
}

static double val(size_t v, size_t m, int i, void *ctx)
{
	(void)m, (void)ctx;
	return (v ? 130 : 100) + (i % 3) - 1;
}

static void test_comparejudge__a_runs_journal(void **state)
{
	static const char *const vars[] = { "ref", "x" }, *const mets[] = { "m" };
	char *dir = tu_tmpdir();
	struct il_buf why = IL_BUF_INIT;
	struct il_err err = { 0 };

	(void)state;
	tu_journal(dir, vars, 2, false, mets, 1, "[\"m\"]", 6, NULL, val, NULL);
	assert_int_equal(il_compare_run_decided(dir, &why, &err), 1);
	assert_string_equal(il_buf_str(&why), "every key comparison decided (0 better, 1 worse, 0 changed, 0 the same)");
	/* nothing counted yet (every sample failed): not decided, and why */
	il_buf_reset(&why);
	tu_write_raw(dir, "journal.jsonl",
		  "{\"type\":\"run-start\",\"variants\":[{\"label\":\"ref\"}],\"workloads\":{\"w\":{\"metrics\":[]}}}\n"
		  "{\"type\":\"sample\",\"seq\":0,\"final\":true,\"status\":\"failed\",\"variant\":\"ref\",\"workload\":\"w\"}\n");
	assert_int_equal(il_compare_run_decided(dir, &why, &err), 0);
	assert_string_equal(il_buf_str(&why), "nothing to compare: no counted samples");
	/* a journal that does not read is an error */
	tu_write_raw(dir, "journal.jsonl", "{\"type\":\"sample\",\"seq\":0}\n");
	assert_int_equal(il_compare_run_decided(dir, &why, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "sample before the run-start record"));
	il_buf_release(&why);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comparejudge__decided_unknown_futile),
		cmocka_unit_test(test_comparejudge__a_runs_journal),
	};

	return cmocka_run_group_tests_name("stats_comparejudge", tests, NULL, NULL);
}
