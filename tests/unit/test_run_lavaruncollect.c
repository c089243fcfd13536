// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A finished LAVA job's samples journaled (run/lavaruncollect.c), for the
 * two ends that need no server: a job idlelab gave up on (each sample not
 * yet final an infrastructure failure saying why, with the job's id, its
 * device and the device's fingerprint file; a final sample left alone), and
 * a job someone canceled in LAVA (its samples interrupted, the run stopped).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/journal.h"
#include "run/lavaruncollect.h"
#include "run/plan.h"
#include "run/record.h"
#include "run/tally.h"

struct fx {
	char *dir, jpath[600];
	struct il_plan plan;
	struct il_spec *specs;
	size_t n;
	struct il_tally t;
	struct il_journal j;
	struct il_run_opts o;
	struct il_run_ctx c;
	struct il_kvars kv;
	struct il_lavarun in;
	struct il_lavarun_state r;
	struct il_lavafollow_job job;
	char device[16];
};

static void fx_open(struct fx *f, long id)
{
	char wl[4096];
	const char *src = getenv("IL_SRCDIR");
	json_error_t je;
	json_t *pj = json_loads("{\"name\":\"lv\",\"host\":\"board\",\"workloads\":[\"periodic\"],\"governors\":[\"teo\","
				"\"menu\"],\"iterations\":2}",
				0, &je);
	struct il_err err = { 0 };

	memset(f, 0, sizeof(*f));
	f->dir = tu_tmpdir();
	snprintf(wl, sizeof(wl), "%s/workloads", src ? src : ".");
	snprintf(f->jpath, sizeof(f->jpath), "%s/journal.jsonl", f->dir);
	assert_non_null(pj);
	if (il_plan_from_json(&f->plan, pj, wl, "plan.json", &err) || il_plan_matrix(&f->plan, &f->specs, &f->n, &err) ||
	    il_tally_init(&f->t, f->n, &err) || il_journal_open(&f->j, f->jpath, &err))
		fail_msg("%s", err.msg);
	json_decref(pj);
	f->c = (struct il_run_ctx){ .dir = f->dir, .j = &f->j, .plan = &f->plan, .o = &f->o };
	f->in = (struct il_lavarun){ .c = &f->c, .specs = f->specs, .t = &f->t, .kv = &f->kv, .host = 0 };
	f->r = (struct il_lavarun_state){ .in = &f->in, .p = &f->plan, .host = "board" };
	assert_non_null(f->r.release = calloc(f->plan.kernels.n, sizeof(*f->r.release)));
	/* every sample of the plan in one job, its first attempt */
	snprintf(f->device, sizeof(f->device), "qemu-01");
	f->job = (struct il_lavafollow_job){ .id = id, .kernel = 0, .n = f->n };
	assert_non_null(f->job.s = calloc(f->n, sizeof(*f->job.s)));
	for (size_t i = 0; i < f->n; i++) {
		f->job.s[i].seq = f->specs[i].seq;
		f->job.s[i].attempt = 1;
		snprintf(f->job.s[i].nonce, sizeof(f->job.s[i].nonce), "n%zu", i);
	}
	f->job.st.actual_device = f->device;
}

static void fx_close(struct fx *f)
{
	free(f->job.s);
	free(f->r.release);
	il_strlist_release(&f->r.fp_devices);
	il_journal_close(&f->j);
	il_tally_release(&f->t);
	free(f->specs);
	il_plan_release(&f->plan);
	tu_rmtree(f->dir);
	free(f->dir);
}

static int add_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	(void)line, (void)err;
	return il_record_kind_of(rec) == IL_REC_SAMPLE ? json_array_append(ctx, rec) : 0;
}

/* The journal's sample records (caller owns). */
static json_t *samples(const struct fx *f)
{
	json_t *a = json_array();
	struct il_err err = { 0 };

	if (il_journal_each(f->jpath, add_rec, a, NULL, &err))
		fail_msg("%s", err.msg);
	return a;
}

static void test_lavaruncollect__given_up(void **state)
{
	struct fx f;
	struct il_err err = { 0 };
	json_t *a, *e;
	size_t i;

	(void)state;
	fx_open(&f, 42);
	assert_true(f.n >= 4);
	snprintf(f.job.why, sizeof(f.job.why), "LAVA job 42 waited past its queue time-out (600 s): canceled");
	f.job.st.health = IL_LAVA_INCOMPLETE;
	f.t.final[1] = true; /* made final before (an earlier job): left alone */
	assert_int_equal(il_lavarun_collect(&f.r, &f.job, &err), 0);
	a = samples(&f);
	assert_int_equal(json_array_size(a), f.n - 1);
	json_array_foreach(a, i, e) {
		const char *fp = json_string_value(json_object_get(e, "fingerprint"));

		assert_int_not_equal(json_integer_value(json_object_get(e, "seq")), 1);
		assert_string_equal(json_string_value(json_object_get(e, "status")), "infra_failed");
		assert_string_equal(json_string_value(json_object_get(e, "reason")), f.job.why);
		/* retried per the plan: not final after one failure */
		assert_false(json_is_true(json_object_get(e, "final")));
		assert_int_equal(json_integer_value(json_object_get(e, "attempt")), 1);
		assert_int_equal(json_integer_value(json_object_get(e, "lava_job")), 42);
		assert_string_equal(json_string_value(json_object_get(e, "device")), "qemu-01");
		assert_string_equal(json_string_value(json_object_get(e, "host")), "board");
		assert_non_null(fp);
		assert_non_null(strstr(fp, "board@qemu-01"));
	}
	assert_int_equal(f.in.ran, 0);
	assert_int_equal(f.t.done, 0);
	json_decref(a);
	fx_close(&f);
}

static void test_lavaruncollect__canceled_in_lava(void **state)
{
	struct fx f;
	struct il_err err = { 0 };
	json_t *a, *e;
	size_t i;

	(void)state;
	fx_open(&f, 43);
	f.job.st.health = IL_LAVA_CANCELED;
	assert_int_equal(il_lavarun_collect(&f.r, &f.job, &err), IL_EINTR);
	assert_string_equal(err.msg, "LAVA job 43 was canceled (in LAVA): the run stops as interrupted; 'idlelab run "
				     "--resume' submits its samples again");
	a = samples(&f);
	assert_int_equal(json_array_size(a), f.n);
	json_array_foreach(a, i, e) {
		assert_string_equal(json_string_value(json_object_get(e, "status")), "interrupted");
		assert_string_equal(json_string_value(json_object_get(e, "reason")), "LAVA job 43 was canceled");
		assert_false(json_is_true(json_object_get(e, "final")));
		assert_int_equal(json_integer_value(json_object_get(e, "lava_job")), 43);
	}
	json_decref(a);
	fx_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lavaruncollect__given_up),
		cmocka_unit_test(test_lavaruncollect__canceled_in_lava),
	};

	return cmocka_run_group_tests_name("run_lavaruncollect", tests, NULL, NULL);
}
