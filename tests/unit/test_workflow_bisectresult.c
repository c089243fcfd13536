// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workflow/bisectresult: a bisection's answer as JSON (docs/bisect.md): its
 * steps in order, a skip's p_wrong null, the confirmation measured or the
 * note why not; under jansson running out of memory the JSON is whole or
 * NULL, never a part of it; release leaves the result empty.
 */
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workflow/bisectresult.h"

static void step(struct il_bisect_step *s, const char *commit, const char *verdict, const char *reason, double p)
{
	memset(s, 0, sizeof(*s));
	s->commit = strdup(commit);
	s->subject = strdup("cpuidle: menu: a change");
	s->verdict = strdup(verdict);
	s->reason = reason ? strdup(reason) : NULL;
	s->n = 8;
	s->p_wrong = p;
	s->metrics = isfinite(p) ? json_pack("{s:{s:f}}", "w.idle.aboves", "median", 12.5) : NULL;
}

static void found(struct il_bisect_result *r, bool measured)
{
	memset(r, 0, sizeof(*r));
	r->state = strdup("found");
	r->first_bad = strdup("c2");
	r->endpoints = json_pack("{s:{s:f,s:b}}", "w.idle.aboves", "change_pct", 40.0, "bisected", 1);
	r->nsteps = 2;
	r->steps = calloc(2, sizeof(*r->steps));
	step(&r->steps[0], "c1", "skip", "does not build: x", NAN);
	step(&r->steps[1], "c2", "bad", NULL, 0.001);
	r->samples = 40;
	r->p_wrong = 0.001;
	if (measured) {
		r->confirm = calloc(1, sizeof(*r->confirm));
		step(r->confirm, "r1", "good", NULL, 0.002);
	} else {
		r->confirm_note = strdup("c2 does not revert cleanly on c2");
	}
}

static void test_workflow_bisectresult__json(void **state)
{
	struct il_bisect_result r;
	json_t *j, *steps;

	(void)state;
	found(&r, false);
	assert_non_null(j = il_bisect_result_json(&r));
	assert_string_equal(json_string_value(json_object_get(j, "schema")), "idlelab-bisect/1");
	assert_string_equal(json_string_value(json_object_get(j, "first_bad")), "c2");
	assert_int_equal(json_array_size(json_object_get(j, "range")), 0);
	steps = json_object_get(j, "steps");
	assert_int_equal(json_array_size(steps), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(steps, 0), "verdict")), "skip");
	assert_true(json_is_null(json_object_get(json_array_get(steps, 0), "p_wrong")));
	assert_true(json_is_null(json_object_get(json_array_get(steps, 0), "metrics")));
	assert_true(json_number_value(json_object_get(json_array_get(steps, 1), "p_wrong")) == 0.001);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "confirmation"), "verdict")), "not measured");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "confirmation"), "reason")),
			    "c2 does not revert cleanly on c2");
	json_decref(j);
	il_bisect_result_release(&r);
	assert_null(r.state);
	assert_int_equal(r.nsteps, 0);

	found(&r, true);
	assert_non_null(j = il_bisect_result_json(&r));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "confirmation"), "commit")), "r1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "confirmation"), "verdict")), "good");
	json_decref(j);
	il_bisect_result_release(&r);
	assert_null(r.confirm);
}

/* Out of memory at any of its allocations, the answer's JSON is whole or NULL, never a part of it. */
static void test_workflow_bisectresult__json_is_whole_or_null(void **state)
{
	for (int measured = 0; measured < 2; measured++) {
		struct il_bisect_result r;
		json_t *whole, *j;
		bool hit = true;
		long n;

		(void)state;
		found(&r, measured);
		assert_non_null(whole = il_bisect_result_json(&r));
		for (n = 0; hit; n += tu_oom_stride()) {
			tu_json_oom(n);
			j = il_bisect_result_json(&r);
			hit = tu_json_oom_end();
			if (j)
				assert_true(json_equal(j, whole));
			else
				assert_true(hit);
			json_decref(j);
		}
		assert_true(n > 10);
		json_decref(whole);
		il_bisect_result_release(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workflow_bisectresult__json),
		cmocka_unit_test(test_workflow_bisectresult__json_is_whole_or_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
