// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A plan workload's parameter matrix (run/pmatrix.c through run/plan.c): the
 * expansion into one workload per value or combination, their labels and
 * params, what the run-start record keeps of it, errors that name the JSON
 * path of the bad value, and pattern metrics bound to the params.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kplan.h"
#include "run/plan.h"
#include "run/record.h"

/* The plan of text (a test's own JSON), or the error il_plan_from_json gives for it in err. */
static int plan_of(const char *text, struct il_plan *p, struct il_err *err)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	int r = j ? il_plan_from_json(p, j, tu_srcpath("workloads"), "plan.json", err) : -1;

	if (!j)
		fail_msg("bad test JSON: %s", je.text);
	json_decref(j);
	return r;
}

/* Labels of p's workloads, space-separated (caller frees). */
static char *labels(const struct il_plan *p)
{
	struct il_buf b = IL_BUF_INIT;

	for (size_t i = 0; i < p->nwl; i++)
		il_buf_printf(&b, "%s%s", i ? " " : "", p->wl[i].label);
	return il_buf_detach(&b);
}

static void test_pmatrix__one_parameter(void **state)
{
	struct il_err err = { 0 };
	struct il_kvars kv = { 0 };
	struct il_plan p;
	json_t *rec, *w;
	char *l;

	(void)state;
	/* Loehle's fio table: one workload per device, the device a column of the view */
	if (plan_of("{\"name\":\"x\",\"host\":\"local\",\"workloads\":[\"periodic\",{\"workload\":\"fio\",\"params\":"
		      "{\"runtime\":5},\"matrix\":{\"filename\":[\"/dev/mmcblk1\",\"/dev/nvme0n1\",\"/dev/sda\"]}}],"
		      "\"iterations\":3}",
		      &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p.nwl, 4);
	l = labels(&p);
	assert_string_equal(l, "periodic fio-mmcblk1 fio-nvme0n1 fio-sda");
	free(l);
	assert_null(p.wl[0].matrix);
	assert_string_equal(json_string_value(json_object_get(p.wl[2].params, "filename")), "/dev/nvme0n1");
	assert_int_equal(json_integer_value(json_object_get(p.wl[2].params, "runtime")), 5);
	assert_string_equal(json_string_value(json_object_get(p.wl[3].matrix, "base")), "fio");
	/* the run-start record says which parameter the matrix varied, per expanded workload */
	rec = il_record_run_start(&p, "/tmp/r", 12, &kv);
	w = json_object_get(json_object_get(rec, "workloads"), "fio-sda");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(w, "matrix"), "params"),
							      "filename")),
			    "/dev/sda");
	assert_null(json_object_get(json_object_get(json_object_get(rec, "workloads"), "periodic"), "matrix"));
	json_decref(rec);
	il_plan_release(&p);
}

static void test_pmatrix__cross_product(void **state)
{
	struct il_err err = { 0 };
	struct il_plan p;
	struct il_spec *s;
	size_t n;
	char *l;

	(void)state;
	/* 2 x 2: the first parameter varies slowest, as nested loops in the plan's order */
	if (plan_of("{\"name\":\"x\",\"host\":\"local\",\"workloads\":[{\"workload\":\"fio\",\"label\":\"f\",\"matrix\":"
		      "{\"rw\":[\"read\",\"randread\"],\"iodepth\":[1,4]}}],\"governors\":[\"A\",\"B\"],\"iterations\":2}",
		      &p, &err))
		fail_msg("%s", err.msg);
	l = labels(&p);
	assert_string_equal(l, "f-read-1 f-read-4 f-randread-1 f-randread-4");
	free(l);
	assert_int_equal(json_integer_value(json_object_get(p.wl[3].params, "iodepth")), 4);
	assert_string_equal(json_string_value(json_object_get(p.wl[3].params, "rw")), "randread");
	assert_int_equal(json_object_size(json_object_get(p.wl[3].matrix, "params")), 2);
	/* 4 workloads x 2 governors x 2 iterations */
	assert_int_equal(il_plan_matrix(&p, &s, &n, &err), 0);
	assert_int_equal(n, 16);
	free(s);
	il_plan_release(&p);
}

static void test_pmatrix__errors_name_the_path(void **state)
{
	static const struct {
		const char *workloads, *msg;
	} bad[] = {
		{ "{\"workload\":\"fio\",\"matrix\":{\"filename\":[\"/dev/a\",\"/dev/b\",3]}}",
		  "plan.json: workloads[1].matrix.filename[2]: expected string" },
		{ "{\"workload\":\"fio\",\"matrix\":{\"rw\":[\"read\",\"trim\"]}}",
		  "plan.json: workloads[1].matrix.rw[1]: 'trim' is not one of" },
		{ "{\"workload\":\"fio\",\"matrix\":{\"iodepth\":[1,0]}}", "workloads[1].matrix.iodepth[1]: 0 is below the minimum" },
		{ "{\"workload\":\"fio\",\"matrix\":{\"rw\":[\"read\",\"read\"]}}",
		  "workloads[1].matrix.rw[1]: the same value as [0]" },
		{ "{\"workload\":\"fio\",\"matrix\":{\"rw\":[]}}", "workloads[1].matrix.rw: expected a non-empty array" },
		{ "{\"workload\":\"fio\",\"matrix\":{\"rw\":[true]}}", "workloads[1].matrix.rw[0]: expected a string or a number" },
		{ "{\"workload\":\"fio\",\"matrix\":[\"rw\"]}", "workloads[1].matrix: expected an object" },
		{ "{\"workload\":\"fio\",\"matrix\":{\"colour\":[1]}}", "workloads[1].matrix.colour[0]: workload 'fio' has no "
									 "parameter 'colour'" },
		{ "{\"workload\":\"fio\",\"params\":{\"rw\":\"read\"},\"matrix\":{\"rw\":[\"write\"]}}",
		  "workloads[1].matrix.rw: also given in params" },
		{ "{\"workload\":\"fio\",\"matrix\":{\"filename\":[\"/tmp/a b\"]}}",
		  "workloads[1].matrix.filename[0]: 'a b' cannot be part of a workload label" },
		{ "{\"workload\":\"fio\",\"matrix\":{\"filename\":[\"/dev/periodic\"]},\"label\":\"x\"},"
		  "{\"workload\":\"periodic\",\"label\":\"x-periodic\"}",
		  "workloads[2]: label 'x-periodic' is used twice" },
		{ "{\"workload\":\"fio\",\"matrix\":{\"iodepth\":[1,2,3,4,5,6,7,8,9,10],\"runtime\":[1,2,3,4,5,6,7,8,9,10],"
		  "\"direct\":[0,1],\"rw\":[\"read\",\"write\",\"rw\",\"randrw\",\"randread\",\"randwrite\"]}}",
		  "workloads[1].matrix.rw: expected at most 1000 workloads" },
		{ "{\"workload\":\"cyclictest\",\"params\":{\"threads\":2000}}", "workloads[1].params.threads: 2000 is above the "
										    "maximum" },
	};
	struct il_err err = { 0 };
	struct il_plan p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[1024];

		snprintf(text, sizeof(text), "{\"name\":\"x\",\"workloads\":[\"periodic\",%s]}", bad[i].workloads);
		assert_int_not_equal(plan_of(text, &p, &err), 0);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("case %zu: got '%s', expected '%s'", i, err.msg, bad[i].msg);
	}
}

static void test_pmatrix__pattern_metrics_bound(void **state)
{
	struct il_err err = { 0 };
	struct il_kvars kv = { 0 };
	struct il_plan p;
	json_t *rec, *ms;

	(void)state;
	/* one lat_max_tN_us per cyclictest thread, declared by name in the journal */
	if (plan_of("{\"name\":\"x\",\"host\":\"local\",\"workloads\":[{\"workload\":\"cyclictest\",\"matrix\":"
		      "{\"threads\":[2,3]}}]}",
		      &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(p.wl[0].def.nmetrics, 3 + 2);
	assert_int_equal(p.wl[1].def.nmetrics, 3 + 3);
	assert_string_equal(p.wl[1].def.metrics[5].name, "lat_max_t2_us");
	rec = il_record_run_start(&p, "/tmp/r", 10, &kv);
	ms = json_object_get(json_object_get(json_object_get(rec, "workloads"), "cyclictest-3"), "metrics");
	assert_int_equal(json_array_size(ms), 6);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ms, 5), "name")), "lat_max_t2_us");
	json_decref(rec);
	il_plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pmatrix__one_parameter),
		cmocka_unit_test(test_pmatrix__cross_product),
		cmocka_unit_test(test_pmatrix__errors_name_the_path),
		cmocka_unit_test(test_pmatrix__pattern_metrics_bound),
	};

	return cmocka_run_group_tests_name("run_pmatrix", tests, NULL, NULL);
}
