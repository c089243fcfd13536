// SPDX-License-Identifier: GPL-2.0-or-later
/* Workload definitions read from their JSON and validated (workload/workloadjson.c). */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/workloadjson.h"
#include "workload/parse.h"

static const char *wl_dir(void)
{
	return tu_srcpath("workloads");
}

static void test_defs__all_shipped_load(void **state)
{
	struct il_strlist names = { 0 };
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_workload_list(&names, wl_dir(), &err), 0);
	assert_true(names.n >= 11);
	for (size_t i = 0; i < names.n; i++) {
		struct il_workload w;
		json_t *params = NULL;
		struct il_strlist argv = { 0 };

		if (il_workload_load(&w, wl_dir(), names.v[i], &err))
			fail_msg("%s: %s", names.v[i], err.msg);
		assert_true(il_parse_exists(w.parser));
		assert_int_equal(il_workload_params(&w, NULL, "params", &params, &err), 0);
		assert_int_equal(il_workload_argv(&w, params, &argv, &err), 0);
		assert_true(argv.n >= 1);
		json_decref(params);
		il_strlist_release(&argv);
		il_workload_release(&w);
	}
	il_strlist_release(&names);
}

/* key_metrics: declared, or the default (the first metric, the idle misses, energy) */
static void test_defs__key_metrics(void **state)
{
	struct il_workload w;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_workload_load(&w, tu_srcpath("workloads"), "schbench", &err), 0);
	assert_int_equal(w.key_metrics.n, 4);
	assert_string_equal(w.key_metrics.v[0], "wakeup_p99_us");
	il_workload_release(&w);
	assert_int_equal(il_workload_load(&w, tu_srcpath("workloads"), "fio", &err), 0);
	assert_true(il_strlist_has(&w.key_metrics, "iops"));
	assert_true(il_strlist_has(&w.key_metrics, "idle.miss_pct"));
	assert_true(il_strlist_has(&w.key_metrics, "idle.idle_miss"));
	assert_false(il_strlist_has(&w.key_metrics, "bw_kib_s"));
	il_workload_release(&w);
}

static void test_defs__invalid_definitions(void **state)
{
	static const struct {
		const char *json, *msg;
	} bad[] = {
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\",\"--x={v}\"],\"params\":{\"v\":{\"type\":\"string\",\"default\":\"a\"}},\"metrics\":{\"m\":{\"unit\":\"s\",\"better\":\"lower\"}}}",
		  "argv[1]: '--x={v}': a parameter must be a whole element" },
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\",{\"concat\":[\"--x=\",\"{v}\"]}],\"params\":{\"v\":{\"type\":\"string\",\"default\":\"a\"}},\"metrics\":{\"m\":{\"unit\":\"s\",\"better\":\"lower\"}}}",
		  "only integer or number parameters" },
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\",\"{nope}\"],\"metrics\":{\"m\":{\"unit\":\"s\",\"better\":\"lower\"}}}",
		  "unknown parameter 'nope'" },
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\"],\"metrics\":{\"m\":{\"unit\":\"s\",\"better\":\"up\"}}}",
		  "metrics.m.better: expected \"higher\" or \"lower\"" },
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\"],\"params\":{\"v\":{\"type\":\"integer\",\"default\":1.5}},\"metrics\":{\"m\":{\"unit\":\"s\",\"better\":\"lower\"}}}",
		  "params.v.default: expected integer" },
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\"],\"metrics\":{}}", "metrics: expected an object" },
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\"],\"metrics\":{\"m\":{\"unit\":\"s\",\"better\":\"lower\"}},\"color\":1}",
		  "color: unknown field" },
		/* metric patterns: "{n}" and a count naming an integer parameter go together */
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\"],\"metrics\":{\"m{n}\":{\"unit\":\"s\",\"better\":\"lower\"}}}",
		  "metrics.m{n}.count: expected \"count\" beside" },
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\"],\"metrics\":{\"m\":{\"unit\":\"s\",\"better\":\"lower\",\"count\":\"t\"}}}",
		  "metrics.m.count: expected a metric name with" },
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\"],\"params\":{\"t\":{\"type\":\"string\",\"default\":\"1\"}},\"metrics\":{\"m{n}\":{\"unit\":\"s\",\"better\":\"lower\",\"count\":\"t\"}}}",
		  "metrics.m{n}.count: expected the name of an integer parameter" },
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\"],\"metrics\":{\"m{n}x{n}\":{\"unit\":\"s\",\"better\":\"lower\",\"count\":\"t\"}}}",
		  "metric names of letters" },
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\",{\"if\":\"nope\",\"then\":[\"-x\"]}],\"metrics\":{\"m\":{\"unit\":\"s\",\"better\":\"lower\"}}}",
		  "argv[1].if: expected the name of a parameter" },
		/* key_metrics: the workload's own metrics or the idle ones, by name */
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\"],\"metrics\":{\"m\":{\"unit\":\"s\",\"better\":\"lower\"}},\"key_metrics\":[\"m\",\"idle.nope\"]}",
		  "key_metrics[1]: expected one of the workload's metrics or idle.miss_pct, ... (docs/workloads.md), not 'idle.nope'" },
		{ "{\"description\":\"x\",\"parser\":\"kv\",\"argv\":[\"p\"],\"metrics\":{\"m\":{\"unit\":\"s\",\"better\":\"lower\"}},\"key_metrics\":\"m\"}",
		  "key_metrics: expected an array of metric names" },
	};
	struct il_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_error_t je;
		json_t *j = json_loads(bad[i].json, 0, &je);
		struct il_workload w;

		assert_non_null(j);
		assert_int_equal(il_workload_from_json(&w, j, "t", "t.json", &err), IL_EPARSE);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("case %zu: got '%s', expected '%s'", i, err.msg, bad[i].msg);
		assert_non_null(strstr(err.msg, "t.json"));
		json_decref(j);
	}
}

/* the file a definition came from, the names of the directory, a name that is not one */
static void test_workloadjson__load_list_names(void **state)
{
	struct il_strlist names = { 0 };
	struct il_workload w;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_workload_list(&names, wl_dir(), &err), 0);
	for (size_t i = 1; i < names.n; i++)
		assert_true(strcmp(names.v[i - 1], names.v[i]) < 0);
	assert_true(il_strlist_has(&names, "fio"));
	il_strlist_release(&names);
	assert_int_equal(il_workload_load(&w, wl_dir(), "fio", &err), 0);
	assert_non_null(w.path);
	assert_non_null(strstr(w.path, "fio.json"));
	assert_string_equal(w.name, "fio");
	il_workload_release(&w);
	assert_int_equal(il_workload_load(&w, wl_dir(), "../fio", &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "not a valid workload name"));
	assert_null(w.name);
	assert_int_not_equal(il_workload_load(&w, wl_dir(), "no-such-workload", &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defs__all_shipped_load),
		cmocka_unit_test(test_defs__invalid_definitions),
		cmocka_unit_test(test_defs__key_metrics),
		cmocka_unit_test(test_workloadjson__load_list_names),
	};

	return cmocka_run_group_tests_name("workload_workloadjson", tests, NULL, NULL);
}
