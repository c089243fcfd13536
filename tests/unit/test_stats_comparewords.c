// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a comparison says in words (stats/comparewords.c) on hand-made
 * datasets: the verdict sentence (a difference, all the same, no key
 * metric), the bypassed governor's warning, the metrics left out for their
 * noise; each only when there is something to say.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"

/* s begins with prefix */
#define STARTS(s, prefix) assert_int_equal(strncmp((s), (prefix), strlen(prefix)), 0)

static double ref[] = { 100, 101, 99, 100.5, 99.5, 100 }, worse[] = { 130, 131, 129, 130.5, 129.5, 130 };
static double same[] = { 100.1, 100.9, 99.1, 100.4, 99.6, 100 }, noise[] = { 1, 100, 1, 100, 1, 100 };

/* Reference "ref" against "x" on w.m (lower is better) and w.noisy (secondary). */
struct two {
	struct il_values vals[2][2];
	char *var[2];
	struct il_mseries m[2];
	struct il_dataset ds;
};

static void two(struct two *t, double *x, bool key)
{
	t->vals[0][0] = (struct il_values){ .n = 6, .v = ref };
	t->vals[0][1] = (struct il_values){ .n = 6, .v = x };
	t->vals[1][0] = (struct il_values){ .n = 6, .v = noise };
	t->vals[1][1] = (struct il_values){ .n = 6, .v = noise };
	t->var[0] = "ref", t->var[1] = "x";
	t->m[0] = (struct il_mseries){ .key = "w.m", .group = "w", .metric = "m", .unit = "us", .better = IL_BETTER_LOWER,
				       .key_metric = key, .var = t->vals[0] };
	t->m[1] = (struct il_mseries){ .key = "w.noisy", .group = "w", .metric = "noisy", .unit = "us",
				       .better = IL_BETTER_LOWER, .var = t->vals[1] };
	t->ds = (struct il_dataset){ .title = "t", .nvar = 2, .var = t->var, .reference = "ref", .nmet = 2, .met = t->m };
}

static void compare(struct il_cmp *c, const struct il_dataset *ds, double max_cv_pct)
{
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_err err = { 0 };

	o.resamples = 50;
	o.max_cv_pct = max_cv_pct;
	if (il_compare(c, ds, &o, &err))
		fail_msg("%s", err.msg);
}

static void test_comparewords__sentence(void **state)
{
	struct two t;
	struct il_cmp c;
	struct il_buf b = IL_BUF_INIT;

	(void)state;
	two(&t, worse, true);
	compare(&c, &t.ds, 0);
	assert_int_equal(il_compare_sentence(&c, &b), 0);
	STARTS(il_buf_str(&b), "x worse on w.m (+30.0%, p=");
	assert_non_null(strstr(il_buf_str(&b), " [key metrics: p Holm-adjusted per variant over up to 1, alpha 0.05]"));
	assert_non_null(strstr(il_buf_str(&b), "; secondary metrics (exploratory, BH q-values): 0 of 1 comparisons differ."));
	/* nothing to warn about */
	il_buf_reset(&b);
	assert_false(il_compare_aa_warning(&c, &b));
	assert_false(il_compare_bypass_warning(&c, &b));
	assert_false(il_compare_dropped_note(&c, &b));
	assert_int_equal(b.len, 0);
	il_compare_release(&c);

	two(&t, same, true);
	compare(&c, &t.ds, 0);
	assert_int_equal(il_compare_sentence(&c, &b), 0);
	STARTS(il_buf_str(&b), "no difference above noise in 1 of 1 key comparisons [");
	il_compare_release(&c);

	/* x the reference's A/A partner: no comparison left to make, and the host was not quiet */
	il_buf_reset(&b);
	two(&t, worse, true);
	t.ds.aa = "x";
	compare(&c, &t.ds, 0);
	assert_int_equal(il_compare_sentence(&c, &b), 0);
	STARTS(il_buf_str(&b), "no key comparison could be made; the A/A pair ref / x differs on 1 key "
			       "metric (host not quiet): its floor raised to the A/A floor");
	il_buf_reset(&b);
	assert_true(il_compare_aa_warning(&c, &b));
	STARTS(il_buf_str(&b), "host not quiet: ref / x differ on the key metric w.m (+30.0%, p=");
	assert_non_null(strstr(il_buf_str(&b), ": its noise floor is raised to the A/A floor; changes within it are unreliable, "
					       "larger ones keep their verdict"));
	il_compare_release(&c);
	il_buf_release(&b);
}

static void test_comparewords__bypass_and_dropped(void **state)
{
	struct il_row rows[3] = {
		{ .group = "w", .variant = "x" }, { .group = "w", .variant = "x" }, { .group = "w", .variant = "ref" }
	};
	struct two t;
	struct il_cmp c;
	struct il_buf b = IL_BUF_INIT;

	(void)state;
	two(&t, worse, true);
	rows[0].idle = json_pack("{s:{s:s}}", "governor_bypass", "why", "CPU latency limit 0 us (held by PID 7/x)");
	t.ds.rows = rows, t.ds.nrows = 3;
	assert_true(il_compare_row_bypassed(&rows[0]));
	assert_false(il_compare_row_bypassed(&rows[1]));
	compare(&c, &t.ds, 25);
	assert_true(il_compare_bypass_warning(&c, &b));
	assert_string_equal(il_buf_str(&b), "governor bypassed in 1 of 2 samples of x (CPU latency limit 0 us (held by PID "
					    "7/x)); their idle metrics are marked bypassed, not better or worse");
	il_buf_reset(&b);
	/* w.noisy (CV about 100%) left out at --max-cv 25 */
	assert_int_equal(c.ndropped, 1);
	assert_true(il_compare_dropped_note(&c, &b));
	STARTS(il_buf_str(&b), "metrics left out, CV above 25% (a metric of noise on this host): w.noisy (");
	il_buf_reset(&b);
	assert_int_equal(il_compare_sentence(&c, &b), 0);
	assert_non_null(strstr(il_buf_str(&b), "; governor bypassed (CPU latency limit 0) in 1 sample: "));
	il_compare_release(&c);
	json_decref(rows[0].idle);
	il_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comparewords__sentence),
		cmocka_unit_test(test_comparewords__bypass_and_dropped),
	};

	return cmocka_run_group_tests_name("stats_comparewords", tests, NULL, NULL);
}
