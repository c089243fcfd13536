// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A run split by governor (stats/datasplit.c): tests/fixtures/journal/trygov
 * (a try run's shape: menu and teo on base, patch-1 and base-aa) gives one
 * part per governor, each with its own reference on the base and its A/A
 * partner on base-aa, and compare then judges within a governor only; a run
 * of one governor (patched/) is not split.
 */
#include "testutil.h"

#include <string.h>

#include "stats/compare.h"
#include "stats/datasplit.h"

static void load(struct il_dataset *ds, const char *rel)
{
	struct il_err err = { 0 };

	memset(ds, 0, sizeof(*ds));
	if (il_datajournal_add_run(ds, tu_srcpath(rel), NULL, &err))
		fail_msg("%s", err.msg);
}

static void test_datasplit__by_governor(void **state)
{
	static const char *const want[2][3] = { { "menu@base", "menu@patch-1", "menu@base-aa" },
						{ "teo@base", "teo@patch-1", "teo@base-aa" } };
	struct il_dataset ds;
	struct il_dataset_part *p;
	struct il_err err = { 0 };
	size_t n, total = 0;

	(void)state;
	load(&ds, "tests/fixtures/journal/trygov");
	assert_int_equal(il_datasplit_by_governor(&ds, &p, &n, &err), 0);
	assert_int_equal(n, 2);
	for (size_t g = 0; g < 2; g++) {
		struct il_cmp_opts o = IL_CMP_OPTS_INIT;
		struct il_cmp c;

		assert_string_equal(p[g].governor, g ? "teo" : "menu");
		assert_int_equal(p[g].ds.nvar, 3);
		for (size_t v = 0; v < 3; v++)
			assert_string_equal(p[g].ds.var[v], want[g][v]);
		assert_string_equal(p[g].ds.reference, want[g][0]);
		assert_string_equal(p[g].ds.aa, want[g][2]);
		/* the samples travel with their variants, and the run's record with every part */
		for (size_t i = 0; i < p[g].ds.nrows; i++)
			assert_true(!strncmp(p[g].ds.rows[i].variant, g ? "teo@" : "menu@", g ? 4 : 5));
		assert_true(p[g].ds.counted > 0);
		total += p[g].ds.counted;
		assert_ptr_equal(p[g].ds.meta, ds.meta);
		/* compare judges within the governor: its reference and its A/A partner */
		assert_int_equal(il_compare(&c, &p[g].ds, &o, &err), 0);
		assert_int_equal(c.ref, 0);
		assert_int_equal(c.aa, 2);
		il_compare_release(&c);
	}
	assert_int_equal(total, ds.counted);
	il_datasplit_parts_release(p, n);
	il_dataset_release(&ds);
	/* one governor on two kernels: the run is compared whole */
	load(&ds, "tests/fixtures/journal/patched");
	assert_int_equal(il_datasplit_by_governor(&ds, &p, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(p);
	il_dataset_release(&ds);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_datasplit__by_governor) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
