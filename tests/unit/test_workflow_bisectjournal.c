// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workflow/bisectjournal: the setup record written by its one owner and
 * read back by it into the same options; a journal reopened replays its
 * setup, rounds and verdicts, keeps the setup it has and refuses another
 * bisection's endpoints; a directory without a journal, or a journal
 * without a setup, says so; the setup record under jansson running out of
 * memory is whole or NULL.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workflow/bisectjournal.h"

static char hexes[4][41];

static void opts_for(struct il_bisect_opts *o, const char *dir)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < 4; i++)
		memset(hexes[i], 'a' + i, 40);
	o->dir = dir;
	o->good = hexes[0];
	o->bad = hexes[3];
	for (int i = 1; i < 4; i++)
		assert_int_equal(il_strlist_push(&o->commits, hexes[i]), 0);
	assert_int_equal(il_strlist_push(&o->metrics, "idle.aboves"), 0);
	o->n0 = 5, o->max_n = 17, o->alpha = 0.01, o->floor_pct = 3.5, o->k = 2.5, o->infra_retries = 1;
}

static void opts_release(struct il_bisect_opts *o)
{
	il_strlist_release(&o->commits);
	il_strlist_release(&o->metrics);
}

static size_t lines_of(const char *dir)
{
	char path[4096];
	char *text;
	size_t n;

	snprintf(path, sizeof(path), "%s/bisect.jsonl", dir);
	text = tu_read(path, NULL);
	n = tu_count(text, "\n");
	free(text);
	return n;
}

static void test_workflow_bisectjournal__setup_written_then_read_back(void **state)
{
	char *dir = tu_tmpdir(), good[41], bad[41];
	struct il_bisect_journal bj = IL_BISECT_JOURNAL_INIT;
	struct il_bisect_opts o, back = { .infra_retries = 7 };
	struct il_err err = { 0 };
	json_t *setup;

	(void)state;
	opts_for(&o, dir);
	assert_int_equal(il_bisect_journal_open(&bj, dir, &err), 0);
	assert_null(bj.setup);
	assert_int_equal(il_bisect_journal_setup(&bj, &o, &err), 0);
	assert_non_null(bj.setup);
	il_bisect_journal_close(&bj);
	assert_int_equal(lines_of(dir), 1);

	assert_int_equal(il_bisect_setup_read(dir, &setup, &err), 0);
	assert_string_equal(json_string_value(json_object_get(setup, "type")), "setup");
	assert_true(json_is_number(json_object_get(setup, "time")));
	assert_int_equal(il_bisect_setup_opts(setup, &back, good, bad, &err), 0);
	json_decref(setup);
	assert_string_equal(good, o.good);
	assert_string_equal(bad, o.bad);
	assert_int_equal(back.commits.n, 3);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(back.commits.v[i], o.commits.v[i]);
	assert_int_equal(back.metrics.n, 1);
	assert_string_equal(back.metrics.v[0], "idle.aboves");
	assert_int_equal(back.n0, 5);
	assert_int_equal(back.max_n, 17);
	assert_true(back.alpha == 0.01);
	assert_true(back.floor_pct == 3.5);
	assert_true(back.k == 2.5);
	/* what the record does not hold is left as it was */
	assert_int_equal(back.infra_retries, 7);
	opts_release(&back);
	opts_release(&o);
	tu_rmtree(dir);
	free(dir);
}

static void test_workflow_bisectjournal__reopened_replays_and_keeps_its_setup(void **state)
{
	char *dir = tu_tmpdir();
	struct il_bisect_journal bj = IL_BISECT_JOURNAL_INIT;
	struct il_bisect_opts o;
	struct il_err err = { 0 };
	json_t *c;

	(void)state;
	opts_for(&o, dir);
	assert_int_equal(il_bisect_journal_open(&bj, dir, &err), 0);
	assert_int_equal(il_bisect_journal_setup(&bj, &o, &err), 0);
	assert_int_equal(il_bisect_journal_append(&bj, json_pack("{s:s,s:s,s:i,s:s}", "type", "round", "commit", hexes[1],
								 "round", 0, "status", "ok"),
						  &err),
			 0);
	assert_int_equal(il_bisect_journal_append(&bj, json_pack("{s:s,s:s,s:s}", "type", "verdict", "commit", hexes[1],
								 "verdict", "good"),
						  &err),
			 0);
	/* appended records are known at once */
	assert_int_equal(json_array_size(json_object_get(il_bisect_journal_commit(&bj, hexes[1]), "rounds")), 1);
	il_bisect_journal_close(&bj);

	assert_int_equal(il_bisect_journal_open(&bj, dir, &err), 0);
	assert_non_null(bj.setup);
	c = il_bisect_journal_commit(&bj, hexes[1]);
	assert_int_equal(json_array_size(json_object_get(c, "rounds")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(c, "verdict"), "verdict")), "good");
	/* a commit not journalled is new, with no rounds */
	assert_int_equal(json_array_size(json_object_get(il_bisect_journal_commit(&bj, hexes[2]), "rounds")), 0);
	assert_null(json_object_get(il_bisect_journal_commit(&bj, hexes[2]), "verdict"));
	/* the same bisection: its setup is not written again */
	assert_int_equal(il_bisect_journal_setup(&bj, &o, &err), 0);
	assert_int_equal(lines_of(dir), 3);
	/* another one's endpoints: refused, both pairs named */
	o.good = hexes[1];
	assert_int_equal(il_bisect_journal_setup(&bj, &o, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "/bisect.jsonl is a bisection of aaaaaaaaaaaa..dddddddddddd, "
					"not bbbbbbbbbbbb..dddddddddddd"));
	assert_int_equal(lines_of(dir), 3);
	il_bisect_journal_close(&bj);
	opts_release(&o);
	tu_rmtree(dir);
	free(dir);
}

static void test_workflow_bisectjournal__no_setup_is_said(void **state)
{
	char *dir = tu_tmpdir();
	struct il_err err = { 0 };
	json_t *setup = (json_t *)1;

	(void)state;
	/* no journal at all */
	assert_true(il_bisect_setup_read(dir, &setup, &err) < 0);
	assert_null(setup);
	/* a journal without a setup record */
	tu_write(dir, "/bisect.jsonl", "{\"type\":\"round\",\"commit\":\"x\",\"round\":0}"); /* its newline added */
	assert_int_equal(il_bisect_setup_read(dir, &setup, &err), IL_EPARSE);
	assert_null(setup);
	if (!strstr(err.msg, "no setup record (not a bisection's journal)"))
		fail_msg("%s", err.msg);
	tu_rmtree(dir);
	free(dir);
}

/* Out of memory at any of its allocations, the setup record is whole or NULL, never a part of it. */
static void test_workflow_bisectjournal__setup_json_is_whole_or_null(void **state)
{
	struct il_bisect_opts o;
	json_t *whole, *j;
	bool hit = true;
	long n;

	(void)state;
	opts_for(&o, "/nonexistent");
	assert_non_null(whole = il_bisect_setup_json(&o));
	for (n = 0; hit; n += tu_oom_stride()) {
		tu_json_oom(n);
		j = il_bisect_setup_json(&o);
		hit = tu_json_oom_end();
		if (j)
			assert_true(json_equal(j, whole));
		else
			assert_true(hit);
		json_decref(j);
	}
	assert_true(n > 5);
	json_decref(whole);
	opts_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workflow_bisectjournal__setup_written_then_read_back),
		cmocka_unit_test(test_workflow_bisectjournal__reopened_replays_and_keeps_its_setup),
		cmocka_unit_test(test_workflow_bisectjournal__no_setup_is_said),
		cmocka_unit_test(test_workflow_bisectjournal__setup_json_is_whole_or_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
