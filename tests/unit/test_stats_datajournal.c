// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A dataset from a run's journal (stats/datajournal.c, through
 * run/journalread.h): variants in plan order (prefixed when runs are
 * merged), the reference and its A/A partner, metric directions and the key
 * ones, an adaptive run's looks, the meta a report reads (run-start,
 * fingerprints, host kinds, the release a kernel ran), skipped samples, and
 * the idle metrics of a sample with their absolute floors.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/dataset.h"

static double val(size_t v, size_t m, int i, void *ctx)
{
	(void)ctx;
	return 100 * (double)(m + 1) + (double)v + 0.5 * i;
}

static const struct il_mseries *series(const struct il_dataset *ds, const char *key)
{
	for (size_t i = 0; i < ds->nmet; i++)
		if (!strcmp(ds->met[i].key, key))
			return &ds->met[i];
	fail_msg("no series %s", key);
	return NULL;
}

static void test_datajournal__a_run(void **state)
{
	static const char *const vars[] = { "menu", "menu-again", "teo" }, *const mets[] = { "lat", "ops" };
	char *dir = tu_tmpdir();
	struct il_dataset ds = { 0 };
	struct il_err err = { 0 };
	const struct il_mseries *m;

	(void)state;
	tu_journal(dir, vars, 3, true, mets, 2, "[\"ops\"]", 4, "{\"min\": 2, \"max\": 4}", val, NULL);
	assert_int_equal(il_datajournal_add_run(&ds, dir, "r1/", &err), 0);
	assert_string_equal(ds.title, "decide");
	assert_int_equal(ds.nvar, 3);
	assert_string_equal(ds.var[0], "r1/menu");
	assert_string_equal(ds.var[2], "r1/teo");
	assert_string_equal(ds.reference, "r1/menu");
	/* the same governor (g0) and kernel under another label */
	assert_string_equal(ds.aa, "r1/menu-again");
	assert_int_equal(ds.counted, 12);
	assert_int_equal(ds.skipped, 0);
	assert_int_equal(ds.looks, 3);
	assert_int_equal(ds.iter_max, 4);
	assert_int_equal(ds.nrows, 12);
	assert_int_equal(ds.nmet, 2);
	m = series(&ds, "w.lat");
	assert_int_equal(m->better, IL_BETTER_LOWER);
	assert_false(m->key_metric);
	assert_false(m->idle);
	assert_int_equal(m->var[2].n, 4);
	assert_true(fabs(m->var[2].v[3] - (100 + 2 + 1.5)) < 1e-9);
	assert_int_equal(m->var[2].it[3], 3);
	assert_true(series(&ds, "w.ops")->key_metric);
	/* the meta a report reads */
	assert_non_null(json_object_get(ds.meta, "run_start"));
	assert_true(json_is_object(json_object_get(json_object_get(ds.meta, "fingerprints"), "h")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(ds.meta, "host_kinds"), "h")), "ssh");
	il_dataset_release(&ds);
	tu_rmtree(dir);
	free(dir);
}

static void test_datajournal__idle_skipped_and_releases(void **state)
{
	char *dir = tu_tmpdir();
	struct il_dataset ds = { 0 };
	struct il_err err = { 0 };
	const struct il_mseries *m;

	(void)state;
	tu_write_raw(dir, "journal.jsonl",
		  "{\"type\":\"run-start\",\"reference\":\"a\",\"variants\":[{\"label\":\"a\",\"kernel\":\"k1\",\"governor\":"
		  "\"menu\"},{\"label\":\"b\",\"kernel\":\"k1\",\"governor\":\"teo\"}],\"workloads\":{\"w\":{\"metrics\":"
		  "[{\"name\":\"s\",\"unit\":\"us\",\"better\":\"higher\"}]}}}\n"
		  "{\"type\":\"host\",\"host\":\"h\"}\n"
		  "{\"type\":\"sample\",\"seq\":0,\"final\":true,\"status\":\"failed\",\"variant\":\"a\",\"workload\":\"w\","
		  "\"kernel\":\"k1\",\"kernel_release\":\"6.12.0\"}\n"
		  "{\"type\":\"sample\",\"seq\":1,\"final\":true,\"status\":\"ok\",\"variant\":\"b\",\"workload\":\"w\","
		  "\"iteration\":0,\"kernel\":\"k1\",\"kernel_release\":\"6.12.1\",\"metrics\":{\"s\":5},\"idle\":"
		  "{\"version\":3,\"total\":{\"idles\":10,\"idle_miss\":2,\"miss_ratio\":0.2,\"miss_pct\":20},"
		  "\"states\":[{\"name\":\"C1\",\"usage_share\":0.25,\"time_share\":0.5}]}}\n"
		  "{\"type\":\"stop\",\"rounds\":1,\"reason\":\"max\",\"why\":null,\"skipped\":0}\n");
	assert_int_equal(il_datajournal_add_run(&ds, dir, NULL, &err), 0);
	assert_null(ds.aa);
	assert_int_equal(ds.counted, 1);
	assert_int_equal(ds.skipped, 1);
	/* the first release a kernel's final sample ran on, a failed one's too */
	assert_string_equal(json_string_value(json_object_get(json_object_get(ds.meta, "kernel_releases"), "k1")), "6.12.0");
	/* a host record without a fingerprint: nothing for it, not a null */
	assert_int_equal(json_object_size(json_object_get(ds.meta, "fingerprints")), 0);
	assert_null(json_object_get(ds.meta, "host_kinds"));
	assert_non_null(json_object_get(ds.meta, "stop"));
	assert_int_equal(series(&ds, "w.s")->better, IL_BETTER_HIGHER);
	m = series(&ds, "w.idle.miss_pct");
	assert_true(m->idle);
	assert_true(fabs(m->abs_floor - 0.1) < 1e-12);
	assert_true(fabs(m->var[1].v[0] - 20) < 1e-12);
	assert_int_equal(m->var[0].n, 0);
	assert_true(fabs(series(&ds, "w.idle.state.C1.time_share")->var[1].v[0] - 0.5) < 1e-12);
	assert_int_equal(ds.nres, 1);
	assert_string_equal(ds.res[0].state, "C1");
	assert_int_equal(ds.nrows, 1);
	assert_true(fabs(ds.rows[0].score - 5) < 1e-12);
	assert_true(fabs(ds.rows[0].idle_miss - 2) < 1e-12);
	assert_true(isnan(ds.rows[0].belows));
	il_dataset_release(&ds);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_datajournal__a_run),
		cmocka_unit_test(test_datajournal__idle_skipped_and_releases),
	};

	return cmocka_run_group_tests_name("stats_datajournal", tests, NULL, NULL);
}
