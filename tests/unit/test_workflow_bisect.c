// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workflow/bisect: the decisions on simulated measurements (a commit's metric
 * drawn around a level with seeded noise): the culprit named, a commit that
 * does not build and a lost host skipped (never blamed), doubling on an
 * ambiguous commit, endpoints that do not differ, skips hiding the
 * culprit, and a bisection killed mid-way resumed from its journal without
 * measuring a journalled round again.
 */
#include "testutil.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/bisect.h"
#include "workflow/bisect.h"
#include "workflow/bisectjournal.h"
#include "util/buf.h"

#define NC 12

struct sim {
	double level[NC + 2];   /* c0 (good) .. cNC (bad), then the confirmation's revert commit */
	int build_fail[NC + 2];
	int infra_fail[NC + 2]; /* rounds lost before it works; < 0: always */
	size_t calls, stop_after;
	size_t samples[NC + 2];
	bool revert_conflicts;
};

/* the commits, and the revert the confirmation makes (index NC + 1) */
static char hexes[NC + 2][41];

static int idx(const char *c)
{
	for (int i = 0; i <= NC + 1; i++)
		if (!strcmp(hexes[i], c))
			return i;
	return -1;
}

static double noise(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(*s >> 11) / 9007199254740992.0) * 2 - 1;
}

static int measure(void *ctx, const char *commit, size_t k, size_t n, struct il_bisect_round *out, struct il_err *err)
{
	struct sim *s = ctx;
	int i = idx(commit);
	uint64_t seed = (uint64_t)(i * 7919 + (int)k * 104729 + 17);
	json_t *a = json_array();

	memset(out, 0, sizeof(*out));
	if (s->stop_after && s->calls >= s->stop_after) {
		json_decref(a);
		return il_err_set(err, IL_EINTR, "interrupted");
	}
	s->calls++;
	if (s->build_fail[i]) {
		json_decref(a);
		out->status = IL_BM_BUILD_FAILED;
		out->reason = strdup("kernel 'x' did not build, so it is untestable");
		return 0;
	}
	if (s->infra_fail[i]) {
		if (s->infra_fail[i] > 0)
			s->infra_fail[i]--;
		json_decref(a);
		out->status = IL_BM_INFRA_FAILED;
		out->reason = strdup("host 'lab' did not come back within 180 s");
		return 0;
	}
	for (size_t j = 0; j < n; j++)
		json_array_append_new(a, json_real(s->level[i] * (1 + 0.04 * noise(&seed))));
	s->samples[i] += n;
	out->values = json_pack("{s:{s:o,s:s,s:s},s:{s:[f],s:n}}", "w.idle.aboves", "values", a, "better", "lower", "unit",
				"count", "w.other", "values", 1.0, "better");
	out->run = strdup("steps/x");
	return 0;
}

static int revert(void *ctx, const char *culprit, const char *onto, char out[41], struct il_err *err)
{
	struct sim *s = ctx;

	if (s->revert_conflicts)
		return il_err_set(err, IL_EINVAL, "%.12s does not revert cleanly on %.12s (conflicts in x.c)", culprit, onto);
	snprintf(out, 41, "%s", hexes[NC + 1]);
	return 0;
}

static char *subject(void *ctx, const char *commit)
{
	char *s = NULL;

	(void)ctx;
	return asprintf(&s, "commit %d", idx(commit)) < 0 ? NULL : s;
}

static void opts_for(struct il_bisect_opts *o, const char *dir)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i <= NC + 1; i++)
		snprintf(hexes[i], sizeof(hexes[i]), "%040x", 0xc0ffee00 + i);
	o->dir = dir;
	o->good = hexes[0];
	o->bad = hexes[NC];
	for (int i = 1; i <= NC; i++)
		assert_int_equal(0, il_strlist_push(&o->commits, hexes[i]));
	o->n0 = 4, o->max_n = 16, o->alpha = 0.05, o->floor_pct = 2, o->k = 2, o->infra_retries = 1;
}

/* levels: 100 before the culprit, 200 from it on */
static void step_at(struct sim *s, int culprit)
{
	for (int i = 0; i <= NC; i++)
		s->level[i] = i >= culprit ? 200 : 100;
}

static const struct il_bisect_step *step_of(const struct il_bisect_result *r, int i)
{
	for (size_t k = 0; k < r->nsteps; k++)
		if (!strcmp(r->steps[k].commit, hexes[i]))
			return &r->steps[k];
	return NULL;
}

/* every test's bisection: a simulation, its options over a fresh directory, the result */
struct fx {
	struct sim s;
	struct il_bisect_opts o;
	struct il_bisect_measurer m;
	struct il_bisect_result r;
	struct il_err err;
	char *dir;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = tu_tmpdir();
	opts_for(&f->o, f->dir);
	f->m = (struct il_bisect_measurer){ measure, subject, &f->s, revert };
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	il_bisect_result_release(&f->r);
	il_strlist_release(&f->o.commits);
	tu_rmtree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static void test_workflow_bisect__names_the_culprit_skips_not_blamed(void **state)
{
	struct fx *f = *state;
	struct il_bisect_result *r = &f->r;
	json_t *j;

	step_at(&f->s, 9);
	f->s.build_fail[6] = 1;  /* the first probe (the middle) does not build */
	f->s.infra_fail[7] = -1; /* its neighbour loses the host every time */
	f->s.infra_fail[10] = 1; /* loses it once, then works */
	assert_int_equal(il_bisect_run(&f->o, &f->m, r, &f->err), 0);
	assert_string_equal(r->state, "found");
	assert_string_equal(r->first_bad, hexes[9]);
	assert_non_null(step_of(r, 6));
	assert_string_equal(step_of(r, 6)->verdict, "skip");
	assert_non_null(strstr(step_of(r, 6)->reason, "does not build"));
	assert_non_null(step_of(r, 7));
	assert_string_equal(step_of(r, 7)->verdict, "skip");
	assert_non_null(strstr(step_of(r, 7)->reason, "host or boot failure, retried"));
	/* only metrics with a direction are candidates: the other is not listed */
	assert_non_null(json_object_get(r->endpoints, "w.idle.aboves"));
	assert_true(json_is_true(json_object_get(json_object_get(r->endpoints, "w.idle.aboves"), "bisected")));
	assert_null(json_object_get(r->endpoints, "w.other"));
	for (size_t i = 0; i < r->nsteps; i++)
		if (strcmp(r->steps[i].verdict, "skip"))
			assert_true(r->steps[i].p_wrong < 0.05);
	assert_true(r->p_wrong < 0.2);
	assert_false(r->weak);
	assert_string_equal(step_of(r, 9) ? step_of(r, 9)->subject : "commit 9", "commit 9");
	j = il_bisect_result_json(r);
	assert_string_equal(json_string_value(json_object_get(j, "first_bad")), hexes[9]);
	json_decref(j);
}

/*
 * The confirmation: the culprit reverted on bad is measured like a step; like
 * good confirms, still bad does not; a revert that conflicts is said, not
 * measured; a resume does not measure it again.
 */
static void test_workflow_bisect__confirmation(void **state)
{
	struct fx *f = *state;
	struct il_bisect_result r2 = { 0 };
	struct il_buf t = IL_BUF_INIT;
	json_t *j;

	step_at(&f->s, 9);
	f->s.level[NC + 1] = 100; /* reverting the culprit restores good */
	f->o.confirm = true;
	assert_int_equal(il_bisect_run(&f->o, &f->m, &f->r, &f->err), 0);
	assert_string_equal(f->r.first_bad, hexes[9]);
	assert_non_null(f->r.confirm);
	assert_string_equal(f->r.confirm->verdict, "good");
	assert_int_equal(f->s.samples[NC + 1], 4);
	il_report_bisect(&f->r, &t);
	assert_non_null(strstr(t.p, "\nconfirmation: 000000000000 (the culprit reverted on bad), 4 samples: like good: "
				    "confirmed\n"));
	j = il_bisect_result_json(&f->r);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "confirmation"), "verdict")), "good");
	json_decref(j);
	/* resumed: the journal has it, nothing is measured again */
	f->s.calls = 0;
	assert_int_equal(il_bisect_run(&f->o, &f->m, &r2, &f->err), 0);
	assert_int_equal(f->s.calls, 0);
	assert_string_equal(r2.confirm->verdict, "good");
	il_bisect_result_release(&r2);
	il_buf_release(&t);
}

/* Still bad with the culprit reverted: not confirmed; a conflicting revert: said, not measured. */
static void test_workflow_bisect__confirmation_fails(void **state)
{
	struct fx *f = *state;
	struct il_buf t = IL_BUF_INIT;
	char *dir2 = tu_tmpdir();
	struct il_bisect_result r2 = { 0 };

	step_at(&f->s, 9);
	f->s.level[NC + 1] = 200;
	f->o.confirm = true;
	assert_int_equal(il_bisect_run(&f->o, &f->m, &f->r, &f->err), 0);
	assert_string_equal(f->r.confirm->verdict, "bad");
	il_report_bisect(&f->r, &t);
	assert_non_null(strstr(t.p, "still bad: NOT confirmed"));
	f->s.revert_conflicts = true;
	f->o.dir = dir2;
	assert_int_equal(il_bisect_run(&f->o, &f->m, &r2, &f->err), 0);
	assert_null(r2.confirm);
	assert_non_null(strstr(r2.confirm_note, "does not revert cleanly"));
	il_buf_reset(&t);
	il_report_bisect(&r2, &t);
	assert_non_null(strstr(t.p, "\nconfirmation: not measured: 000000000000 does not revert cleanly on 000000000000"));
	il_bisect_result_release(&r2);
	il_buf_release(&t);
	tu_rmtree(dir2);
	free(dir2);
}

static void test_workflow_bisect__ambiguous_commit_doubles_then_weak(void **state)
{
	struct fx *f = *state;
	const struct il_bisect_step *st;

	step_at(&f->s, 4);
	f->s.level[6] = 150; /* the first probe sits half-way: no side can be taken */
	assert_int_equal(il_bisect_run(&f->o, &f->m, &f->r, &f->err), 0);
	assert_non_null(st = step_of(&f->r, 6));
	assert_int_equal(st->n, 16); /* 4, +4, +8: doubled to the cap */
	assert_int_equal(f->s.samples[6], 16);
	assert_true(!strcmp(st->verdict, "weak-good") || !strcmp(st->verdict, "weak-bad"));
	assert_non_null(strstr(st->reason, "undecided after 16 samples"));
	assert_true(f->r.weak);
}

static void test_workflow_bisect__endpoints_that_do_not_differ(void **state)
{
	struct fx *f = *state;

	step_at(&f->s, NC + 1); /* all 100 */
	f->s.level[NC] = 101;    /* 1%: under the floor */
	assert_int_equal(il_bisect_run(&f->o, &f->m, &f->r, &f->err), 0);
	assert_string_equal(f->r.state, "no-difference");
	assert_int_equal(f->r.nsteps, 0);
	/* only the endpoints were measured: good twice, bad once */
	assert_int_equal(f->s.calls, 3);
}

static void test_workflow_bisect__skips_hide_the_culprit(void **state)
{
	struct fx *f = *state;

	step_at(&f->s, 6);
	f->s.build_fail[5] = f->s.build_fail[6] = 1;
	assert_int_equal(il_bisect_run(&f->o, &f->m, &f->r, &f->err), 0);
	assert_string_equal(f->r.state, "range");
	/* 5 and 6 untestable, 7 bad: the first bad is one of them */
	assert_int_equal(f->r.range.n, 3);
	assert_string_equal(f->r.range.v[0], hexes[5]);
	assert_string_equal(f->r.range.v[1], hexes[6]);
	assert_string_equal(f->r.range.v[2], hexes[7]);
}

static void test_workflow_bisect__killed_then_resumed(void **state)
{
	struct fx *f = *state;
	struct sim t = { 0 };
	struct il_bisect_measurer m2 = { measure, subject, &t, revert };
	char *whole_dir = tu_tmpdir();
	size_t whole;

	/* the whole bisection elsewhere, for its number of rounds */
	f->o.dir = whole_dir;
	step_at(&f->s, 3);
	assert_int_equal(il_bisect_run(&f->o, &f->m, &f->r, &f->err), 0);
	assert_string_equal(f->r.first_bad, hexes[3]);
	whole = f->s.calls;
	il_bisect_result_release(&f->r);
	tu_rmtree(whole_dir);
	free(whole_dir);
	/* killed after 5 rounds, then resumed: the same answer, no round measured twice */
	f->o.dir = f->dir;
	memset(&f->s, 0, sizeof(f->s));
	step_at(&f->s, 3);
	f->s.stop_after = 5;
	assert_int_equal(il_bisect_run(&f->o, &f->m, &f->r, &f->err), IL_EINTR);
	il_bisect_result_release(&f->r);
	step_at(&t, 3);
	assert_int_equal(il_bisect_run(&f->o, &m2, &f->r, &f->err), 0);
	assert_string_equal(f->r.state, "found");
	assert_string_equal(f->r.first_bad, hexes[3]);
	assert_int_equal(f->s.calls + t.calls, whole);
	/* the samples of the rounds before the kill count too */
	assert_int_equal(f->r.samples, 4 * whole);
	/* another pair of endpoints in the same directory is refused */
	il_bisect_result_release(&f->r);
	f->o.good = hexes[1];
	assert_int_equal(il_bisect_run(&f->o, &m2, &f->r, &f->err), IL_EINVAL);
	assert_non_null(strstr(f->err.msg, "is a bisection of"));
}

static void test_workflow_bisect__step_mode(void **state)
{
	struct fx *f = *state;
	struct il_bisect_step st;
	json_t *setup;

	step_at(&f->s, 5);
	assert_int_equal(il_bisect_classify(&f->o, &f->m, hexes[2], &st, &f->err), 0);
	assert_string_equal(st.verdict, "good");
	il_bisect_step_release(&st);
	assert_int_equal(il_bisect_classify(&f->o, &f->m, hexes[8], &st, &f->err), 0);
	assert_string_equal(st.verdict, "bad");
	il_bisect_step_release(&st);
	assert_int_equal(il_bisect_setup_read(f->dir, &setup, &f->err), 0);
	assert_string_equal(json_string_value(json_object_get(setup, "good")), hexes[0]);
	json_decref(setup);
}

static void test_workflow_bisect__fixed_n(void **state)
{
	struct fx *f = *state;

	/* no doubling: every commit gets n0 = max_n samples */
	f->o.n0 = f->o.max_n = 10;
	step_at(&f->s, 9);
	f->s.build_fail[6] = 1;
	f->s.infra_fail[7] = -1;
	assert_int_equal(il_bisect_run(&f->o, &f->m, &f->r, &f->err), 0);
	assert_string_equal(f->r.first_bad, hexes[9]);
	for (size_t i = 0; i < f->r.nsteps; i++)
		assert_true(f->r.steps[i].n == 10 || f->r.steps[i].n == 0);
}

#define FX_TEST(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_workflow_bisect__names_the_culprit_skips_not_blamed),
		FX_TEST(test_workflow_bisect__confirmation),
		FX_TEST(test_workflow_bisect__confirmation_fails),
		FX_TEST(test_workflow_bisect__ambiguous_commit_doubles_then_weak),
		FX_TEST(test_workflow_bisect__endpoints_that_do_not_differ),
		FX_TEST(test_workflow_bisect__skips_hide_the_culprit),
		FX_TEST(test_workflow_bisect__killed_then_resumed),
		FX_TEST(test_workflow_bisect__step_mode),
		FX_TEST(test_workflow_bisect__fixed_n),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
