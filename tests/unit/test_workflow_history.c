// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The run history index on a real SQLite file in a temp directory: the
 * fixture journals indexed (values as the dataset's own statistics, kernels
 * and commits from the run-start record), a run added twice is one run,
 * a rebuild that meets a corrupt journal skips it with the reason, series in
 * run start order, a step in a metric reported as a change point at its run,
 * and files that are not a history refused.
 */
#include "testutil.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stats/dataset.h"
#include "workflow/history.h"
#include "stats/stats.h"
#include "util/buf.h"
#include "util/jsonfile.h"

/* A temp directory with reports/ (the fixtures copied in) and the history's path. */
struct fx {
	char *tmp;
	char reports[512], db[512];
};

/* reports/NAME/journal.jsonl: text (its last newline dropped: tu_write adds one). */
static void put_journal(const struct fx *f, const char *name, char *text)
{
	char rel[600];
	size_t n = strlen(text);

	if (n && text[n - 1] == '\n')
		text[n - 1] = 0;
	snprintf(rel, sizeof(rel), "/reports/%s/journal.jsonl", name);
	tu_write(f->tmp, rel, text);
}

/* reports/NAME/journal.jsonl: fixture journal SRC, with its run-start time replaced by TIME when given. */
static void put_run(const struct fx *f, const char *name, const char *src, const char *time)
{
	char *text = tu_read(tu_srcpath(src), NULL), *t;

	if (time) {
		assert_non_null(t = strstr(text, "\"time\":\"2026-11-29T20:54:25.966Z\"}"));
		memcpy(t + 8, time, strlen("2026-11-29T20:54:25.966Z"));
	}
	put_journal(f, name, text);
	free(text);
}

/*
 * reports/NAME/journal.jsonl: the run1 fixture as a run of plan
 * "step-fixture" started at time, each sample's pingpong usec_per_loop
 * times factor (every other metric as it is).
 */
static void put_scaled_run(const struct fx *f, const char *name, const char *time, double factor)
{
	char *text = tu_read(tu_srcpath("tests/fixtures/journal/run1/journal.jsonl"), NULL), *nl;
	struct il_buf out = IL_BUF_INIT;

	for (char *line = text; (nl = strchr(line, '\n')); line = nl + 1) {
		json_t *rec, *met;
		char *dump;

		*nl = 0;
		assert_non_null(rec = json_loads(line, 0, NULL));
		if (!strcmp(json_string_value(json_object_get(rec, "type")), "run-start")) {
			json_object_set_new(rec, "plan_name", json_string("step-fixture"));
			json_object_set_new(rec, "time", json_string(time));
		}
		met = json_object_get(rec, "metrics");
		if (json_is_number(json_object_get(met, "usec_per_loop")))
			json_object_set_new(met, "usec_per_loop",
					    json_real(json_number_value(json_object_get(met, "usec_per_loop")) * factor));
		assert_non_null(dump = il_json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER));
		il_buf_printf(&out, "%s\n", dump);
		free(dump);
		json_decref(rec);
	}
	assert_int_equal(il_buf_error(&out), 0);
	free(text);
	text = il_buf_detach(&out);
	put_journal(f, name, text);
	free(text);
}

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->tmp = tu_tmpdir();
	snprintf(f->reports, sizeof(f->reports), "%s/reports", f->tmp);
	snprintf(f->db, sizeof(f->db), "%s/reports/history.sqlite", f->tmp);
	/* two runs of one plan, the later one first by name; and a run of built kernels */
	put_run(f, "a-later", "tests/fixtures/journal/run1/journal.jsonl", "2026-11-30T08:00:00.000Z");
	put_run(f, "b-earlier", "tests/fixtures/journal/run1/journal.jsonl", "2026-11-28T08:00:00.000Z");
	put_run(f, "patched", "tests/fixtures/journal/patched/journal.jsonl", NULL);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	tu_rmtree(f->tmp);
	free(f->tmp);
	free(f);
	return 0;
}

static struct il_history *open_ok(const struct fx *f)
{
	struct il_history *h = NULL;
	struct il_err err = { 0 };

	if (il_history_open(&h, f->db, &err))
		fail_msg("%s", err.msg);
	return h;
}

/* The integer a query of the database at path returns. */
static long long count(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long n = -1;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* The object of variant in metric key of a series (NULL: none). */
static json_t *variant_obj(json_t *s, const char *key, const char *variant)
{
	size_t i, k;
	json_t *m, *v;

	json_array_foreach(json_object_get(s, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "key")), key))
			json_array_foreach(json_object_get(m, "variants"), k, v)
				if (!strcmp(json_string_value(json_object_get(v, "variant")), variant))
					return v;
	return NULL;
}

/* The points of key and variant in a series object. */
static json_t *points(json_t *s, const char *key, const char *variant)
{
	return json_object_get(variant_obj(s, key, variant), "points");
}

/* il_history_series as `idlelab history` asks (change points over the last 20 points, the defaults). */
static int series(struct il_history *h, const char *plan, const char *host, const struct il_strlist *metrics,
		  json_t **out, struct il_err *err)
{
	return il_history_series(h,
				 &(struct il_history_query){ .plan = plan, .host = host, .metrics = metrics, .window = 20,
							     .cp = IL_CP_OPTS_INIT },
				 out, err);
}

static void test_history__new_file_is_private_and_versioned(void **state)
{
	struct fx *f = *state;
	struct il_history *h = open_ok(f);
	struct stat st;

	il_history_close(h);
	assert_int_equal(stat(f->db, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(count(f->db, "PRAGMA user_version"), IL_HISTORY_SCHEMA);
	/* and it opens again */
	il_history_close(open_ok(f));
}

static void test_history__indexes_the_fixture_runs(void **state)
{
	struct fx *f = *state;
	struct il_history *h = open_ok(f);
	struct il_history_sync s;
	struct il_dataset ds = { 0 };
	struct il_err err = { 0 };
	struct il_desc d;
	json_t *ser = NULL, *p, *run;
	char dir[600];
	int mi;

	assert_int_equal(il_history_rebuild(h, f->reports, &s, &err), 0);
	assert_int_equal(s.added, 3);
	assert_int_equal(s.nskipped, 0);
	il_history_sync_release(&s);
	assert_int_equal(count(f->db, "SELECT count(*) FROM runs"), 3);
	assert_int_equal(count(f->db, "SELECT count(*) FROM runs WHERE complete = 1"), 3);

	/* the values are the dataset's own statistics */
	assert_int_equal(series(h, "teo-menu-fixture", NULL, NULL, &ser, &err), 0);
	snprintf(dir, sizeof(dir), "%s/a-later", f->reports);
	assert_int_equal(il_datajournal_add_run(&ds, dir, NULL, &err), 0);
	mi = -1;
	for (size_t i = 0; i < ds.nmet; i++)
		if (!strcmp(ds.met[i].key, "pingpong.usec_per_loop"))
			mi = (int)i;
	assert_true(mi >= 0);
	il_stats_desc_compute(ds.met[mi].var[il_dataset_var(&ds, "ladder")].v, ds.met[mi].var[il_dataset_var(&ds, "ladder")].n, &d);
	assert_non_null(p = points(ser, "pingpong.usec_per_loop", "ladder"));
	assert_int_equal(json_array_size(p), 2);
	/* run start order, not name order: b-earlier first */
	assert_string_equal(json_string_value(json_object_get(json_array_get(p, 0), "run")), "b-earlier");
	assert_string_equal(json_string_value(json_object_get(json_array_get(p, 1), "run")), "a-later");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(p, 1), "n")), d.n);
	assert_true(json_real_value(json_object_get(json_array_get(p, 1), "mean")) == d.mean);
	assert_true(json_real_value(json_object_get(json_array_get(p, 1), "median")) == d.median);
	assert_true(json_real_value(json_object_get(json_array_get(p, 1), "stdev")) == d.stdev);
	/* the same journal twice: no change */
	assert_true(fabs(json_real_value(json_object_get(json_array_get(p, 1), "change_pct"))) < 1e-9);
	assert_string_equal(json_string_value(json_object_get(json_array_get(p, 1), "kernel")), "running");
	assert_true(json_is_null(json_object_get(json_array_get(p, 1), "commit")));
	run = json_array_get(json_object_get(ser, "runs"), 0);
	assert_string_equal(json_string_value(json_object_get(run, "run")), "b-earlier");
	assert_string_equal(json_string_value(json_array_get(json_object_get(run, "hosts"), 0)), "local");
	assert_true(json_is_true(json_object_get(run, "complete")));
	assert_int_equal(json_array_size(json_object_get(ser, "runs")), 2);
	json_decref(ser);
	il_dataset_release(&ds);

	/* built kernels: each variant's kernel and its commit from the run-start record */
	assert_int_equal(series(h, "teo-series-fixture", "kvm7", NULL, &ser, &err), 0);
	assert_non_null(p = points(ser, "pingpong.usec_per_loop", "menu@teo-1"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(p, 0), "kernel")), "teo-1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(p, 0), "commit")),
			    "8f627f86062e1b2c3d4e5f60718293a4b5c6d7e8f901");
	assert_string_equal(json_string_value(json_object_get(json_array_get(p, 0), "governor")), "menu");
	json_decref(ser);
	assert_int_equal(count(f->db, "SELECT count(*) FROM metrics WHERE variant = 'menu-again@teo-1' AND "
				      "gov_label = 'menu-again' AND kernel = 'teo-1'") > 0, 1);
	il_history_close(h);
}

static void test_history__series_filters_and_errors(void **state)
{
	struct fx *f = *state;
	struct il_history *h = open_ok(f);
	struct il_history_sync s;
	struct il_strlist only = { 0 };
	struct il_err err = { 0 };
	json_t *ser = NULL;

	assert_int_equal(il_history_update(h, f->reports, &s, &err), 0);
	il_history_sync_release(&s);
	assert_int_equal(0, il_strlist_push(&only, "usec_per_loop"));
	assert_int_equal(series(h, "teo-menu-fixture", NULL, &only, &ser, &err), 0);
	assert_int_equal(json_array_size(json_object_get(ser, "metrics")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(ser, "metrics"), 0), "key")),
			    "pingpong.usec_per_loop");
	json_decref(ser);
	assert_int_equal(series(h, "teo-menu-fixture", "kvm7", NULL, &ser, &err), IL_ENOTFOUND);
	assert_null(ser);
	assert_int_equal(series(h, "nope", NULL, NULL, &ser, &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "no run of plan 'nope'"));
	assert_non_null(strstr(err.msg, "plans: teo-menu-fixture, teo-series-fixture"));
	il_strlist_release(&only);
	assert_int_equal(0, il_strlist_push(&only, "no-such-metric"));
	assert_int_equal(series(h, "teo-menu-fixture", NULL, &only, &ser, &err), IL_ENOTFOUND);
	il_strlist_release(&only);
	il_history_close(h);
}

static void test_history__a_step_is_a_change_point_at_its_run(void **state)
{
	struct fx *f = *state;
	struct il_history *h = open_ok(f);
	struct il_history_sync s;
	struct il_err err = { 0 };
	json_t *ser = NULL, *v, *c, *m;
	size_t i, k, nchanges = 0;
	char name[16], time[32];

	/* ten nightlies; from n06 on, pingpong is 10% slower (lower is better: worse) */
	for (int n = 1; n <= 10; n++) {
		snprintf(name, sizeof(name), "n%02d", n);
		snprintf(time, sizeof(time), "2026-11-%02dT03:00:00.000Z", n);
		put_scaled_run(f, name, time, n < 6 ? 1.0 : 1.1);
	}
	assert_int_equal(il_history_update(h, f->reports, &s, &err), 0);
	assert_int_equal(s.nskipped, 0);
	il_history_sync_release(&s);
	if (series(h, "step-fixture", NULL, NULL, &ser, &err))
		fail_msg("%s", err.msg);
	assert_non_null(v = variant_obj(ser, "pingpong.usec_per_loop", "ladder"));
	assert_int_equal(json_array_size(json_object_get(v, "changes")), 1);
	c = json_array_get(json_object_get(v, "changes"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "run")), "n06");
	assert_string_equal(json_string_value(json_object_get(c, "since_run")), "n05");
	assert_true(json_is_null(json_object_get(c, "commit")) && json_is_null(json_object_get(c, "since_commit")));
	assert_true(fabs(json_real_value(json_object_get(c, "change_pct")) - 10) < 1e-6);
	assert_true(fabs(json_real_value(json_object_get(c, "after")) / json_real_value(json_object_get(c, "before")) - 1.1) <
		    1e-9);
	assert_true(json_real_value(json_object_get(c, "p")) < 0.05);
	assert_true(json_is_true(json_object_get(c, "worse")));
	/* every metric that did not move has none; every variant of the one that did has this one */
	json_array_foreach(json_object_get(ser, "metrics"), i, m)
		json_array_foreach(json_object_get(m, "variants"), k, v) {
			assert_true(json_is_array(json_object_get(v, "changes")));
			nchanges += json_array_size(json_object_get(v, "changes"));
		}
	assert_int_equal(nchanges, 4);
	json_decref(ser);

	/* a window of the last 4 runs sees only the new level */
	assert_int_equal(il_history_series(h,
					   &(struct il_history_query){ .plan = "step-fixture", .window = 4,
								       .cp = IL_CP_OPTS_INIT },
					   &ser, &err),
			 0);
	assert_int_equal(json_array_size(json_object_get(variant_obj(ser, "pingpong.usec_per_loop", "ladder"), "changes")),
			 0);
	json_decref(ser);
	/* options out of range are the caller's error */
	assert_int_equal(il_history_series(h, &(struct il_history_query){ .plan = "step-fixture" }, &ser, &err), IL_EINVAL);
	assert_null(ser);
	il_history_close(h);
}

static void test_history__adding_again_replaces(void **state)
{
	struct fx *f = *state;
	struct il_history *h = open_ok(f);
	struct il_history_sync s;
	struct il_err err = { 0 };
	char dir[600];
	long long rows;

	snprintf(dir, sizeof(dir), "%s/a-later", f->reports);
	assert_int_equal(il_history_add_run(h, dir, &err), 0);
	rows = count(f->db, "SELECT count(*) FROM metrics");
	assert_true(rows > 0);
	assert_int_equal(il_history_add_run(h, dir, &err), 0);
	assert_int_equal(count(f->db, "SELECT count(*) FROM metrics"), rows);
	assert_int_equal(count(f->db, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(count(f->db, "SELECT count(*) FROM run_hosts"), 1);
	/* an update finds it known (same journal) and adds the other two */
	assert_int_equal(il_history_update(h, f->reports, &s, &err), 0);
	assert_int_equal(s.unchanged, 1);
	assert_int_equal(s.added, 2);
	il_history_sync_release(&s);
	assert_int_equal(il_history_update(h, f->reports, &s, &err), 0);
	assert_int_equal(s.unchanged, 3);
	assert_int_equal(s.added, 0);
	il_history_sync_release(&s);
	/* a directory without a journal is an error that leaves the index alone */
	snprintf(dir, sizeof(dir), "%s", f->tmp);
	assert_int_equal(il_history_add_run(h, dir, &err), IL_ENOTFOUND);
	assert_int_equal(count(f->db, "SELECT count(*) FROM runs"), 3);
	il_history_close(h);
}

static void test_history__rebuild_skips_a_corrupt_journal(void **state)
{
	struct fx *f = *state;
	struct il_history *h = open_ok(f);
	struct il_history_sync s;
	struct il_err err = { 0 };
	char *text = tu_read(tu_srcpath("tests/fixtures/journal/run1/journal.jsonl"), NULL), *end;

	put_journal(f, "broken", (char[]){ "{\"type\":\"run-start\"\nnot json\n" });
	/* an incomplete run: the samples after the 20th and the run-end record cut off */
	end = text;
	for (int i = 0; i < 22; i++)
		end = strchr(end, '\n') + 1;
	*end = 0;
	put_journal(f, "cut", text);
	free(text);
	assert_int_equal(il_history_rebuild(h, f->reports, &s, &err), 0);
	assert_int_equal(s.added, 4);
	assert_int_equal(s.nskipped, 1);
	assert_string_equal(s.skipped[0].run_id, "broken");
	assert_non_null(strstr(s.skipped[0].reason, "broken/journal.jsonl:1"));
	il_history_sync_release(&s);
	assert_int_equal(count(f->db, "SELECT complete FROM runs WHERE run_id = 'cut'"), 0);
	assert_int_equal(count(f->db, "SELECT count(*) FROM runs WHERE complete = 1"), 3);
	/* an update does not read it again, but still says why it is not there */
	assert_int_equal(il_history_update(h, f->reports, &s, &err), 0);
	assert_int_equal(s.added, 0);
	assert_int_equal(s.nskipped, 1);
	assert_non_null(strstr(s.skipped[0].reason, "broken/journal.jsonl:1"));
	il_history_sync_release(&s);
	/* repaired, it is indexed by the next update */
	put_run(f, "broken", "tests/fixtures/journal/run1/journal.jsonl", NULL);
	assert_int_equal(il_history_update(h, f->reports, &s, &err), 0);
	assert_int_equal(s.added, 1);
	assert_int_equal(s.nskipped, 0);
	il_history_sync_release(&s);
	assert_int_equal(count(f->db, "SELECT count(*) FROM skipped"), 0);
	/* a reports directory that is not there */
	assert_int_equal(il_history_rebuild(h, "/nonexistent-reports", &s, &err), IL_ENOTFOUND);
	il_history_sync_release(&s);
	assert_int_equal(count(f->db, "SELECT count(*) FROM runs"), 5);
	il_history_close(h);
}

static void test_history__other_files_are_refused(void **state)
{
	struct fx *f = *state;
	struct il_history *h = NULL;
	struct il_err err = { 0 };
	sqlite3 *db = NULL;
	char path[600], link[600];

	/* an SQLite database of something else */
	snprintf(path, sizeof(path), "%s/other.sqlite", f->tmp);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(il_history_open(&h, path, &err), IL_EINVAL);
	assert_null(h);
	assert_non_null(strstr(err.msg, "other.sqlite' is an SQLite database but not an idlelab history"));
	/* a file that is not SQLite at all */
	tu_write(f->tmp, "/notes.txt", "this is not a database, it is a long enough line of text to have a header\n");
	snprintf(path, sizeof(path), "%s/notes.txt", f->tmp);
	/* damaged (IL_EPARSE), told apart from refused, so a nightly can make its own index again */
	assert_int_equal(il_history_open(&h, path, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "notes.txt' is not an SQLite database"));
	/* an index with its pages overwritten: damaged too */
	il_history_close(open_ok(f));
	{
		FILE *fp = fopen(f->db, "r+");
		char junk[4096];

		memset(junk, 0x5a, sizeof(junk));
		assert_non_null(fp);
		assert_int_equal(fseek(fp, 100, SEEK_SET), 0);
		assert_int_equal(fwrite(junk, 1, sizeof(junk), fp), sizeof(junk));
		fclose(fp);
	}
	assert_int_equal(il_history_open(&h, f->db, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "malformed"));
	unlink(f->db);
	/* a history of another schema version */
	il_history_close(open_ok(f));
	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(il_history_open(&h, f->db, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "schema version 99"));
	/* a symbolic link */
	snprintf(link, sizeof(link), "%s/link.sqlite", f->tmp);
	assert_int_equal(symlink(f->db, link), 0);
	assert_int_equal(il_history_open(&h, link, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "symbolic link"));
	/* a directory that is not there */
	assert_int_not_equal(il_history_open(&h, "/nonexistent-dir/history.sqlite", &err), 0);
	assert_null(h);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
	const struct CMUnitTest tests[] = {
		T(test_history__new_file_is_private_and_versioned),
		T(test_history__indexes_the_fixture_runs),
		T(test_history__series_filters_and_errors),
		T(test_history__a_step_is_a_change_point_at_its_run),
		T(test_history__adding_again_replaces),
		T(test_history__rebuild_skips_a_corrupt_journal),
		T(test_history__other_files_are_refused),
	};
#undef T
	return cmocka_run_group_tests_name("stats_history", tests, NULL, NULL);
}
