// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A run's journal read back as a run (run/journalread.c): what comes to the
 * reader's functions (the run-start once, host/stop/run-end records, each
 * sample's final record checked, never its other attempts), and everything
 * that stops the reading with PATH:LINE: two run-starts, a sample before
 * one, a second final record, another parameter set, a metric that is no
 * finite number, an unknown field, a torn last line, no run-start at all.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/journalread.h"

#define START                                                                                                     \
	"{\"type\":\"run-start\",\"plan_name\":\"p\",\"reference\":\"teo\",\"variants\":[{\"label\":\"teo\"," \
	"\"kernel\":\"running\",\"governor\":\"teo\",\"disable\":[]},{\"label\":\"menu\",\"kernel\":\"running\","    \
	"\"governor\":\"menu\",\"disable\":[]}],\"workloads\":{\"w\":{\"workload\":\"w\",\"params\":{\"n\":1},"      \
	"\"metrics\":[{\"name\":\"lat\",\"unit\":\"us\",\"better\":\"lower\"},{\"name\":\"ops\",\"unit\":\"1/s\","  \
	"\"better\":\"higher\"}]}}}\n"
#define HOST "{\"type\":\"host\",\"host\":\"h\",\"kind\":\"ssh\",\"fingerprint\":{}}\n"
#define SAMPLE(seq, final, status, var, it, lat)                                                                  \
	"{\"type\":\"sample\",\"seq\":" #seq ",\"final\":" #final ",\"status\":\"" status "\",\"variant\":\"" var   \
	"\",\"workload\":\"w\",\"params\":{\"n\":1},\"iteration\":" #it ",\"metrics\":{\"lat\":" lat             \
	",\"ops\":100},\"idle\":{\"version\":3,\"total\":{\"idles\":10}}}\n"

struct seen {
	int starts, metas, samples, ok;
	enum il_rec_kind kinds[8];
	char what[16][64];
	int stop_at;         /* the sample call back that returns IL_EINTR (0: none) */
};

static int on_start(const struct il_journal_run *run, void *ctx, struct il_err *err)
{
	struct seen *s = ctx;

	(void)err;
	assert_non_null(run->run_start);
	assert_int_equal(json_array_size(run->variants), 2);
	assert_true(json_is_object(run->workloads));
	assert_int_equal(run->start_line, 1);
	assert_non_null(strstr(run->path, "/journal.jsonl"));
	s->starts++;
	return 0;
}

static int on_meta(const struct il_journal_run *run, json_t *rec, enum il_rec_kind kind, void *ctx, struct il_err *err)
{
	struct seen *s = ctx;

	(void)run, (void)rec, (void)err;
	s->kinds[s->metas++ % 8] = kind;
	return 0;
}

static int on_sample(const struct il_journal_run *run, const struct il_journal_sample *x, void *ctx, struct il_err *err)
{
	struct seen *s = ctx;

	assert_non_null(run->run_start);
	snprintf(s->what[s->samples % 16], sizeof(s->what[0]), "%s %s %s %d", x->variant, x->workload, x->status,
		 x->ok ? x->iteration : -1);
	if (x->ok) {
		assert_int_equal(json_array_size(x->defs), 2);
		assert_true(json_is_number(json_object_get(x->metrics, "lat")));
		assert_non_null(x->wdef);
		assert_true(json_is_object(x->idle));
		s->ok++;
	} else {
		assert_null(x->metrics);
		assert_null(x->idle);
	}
	if (++s->samples == s->stop_at)
		return il_err_set(err, IL_EINTR, "stopped by the reader");
	return 0;
}

static const struct il_journal_reader reader = { .start = on_start, .meta = on_meta, .sample = on_sample };

/* Read text as dir's journal.jsonl. */
static int read_text(const char *text, struct seen *s, struct il_err *err)
{
	char *dir = tu_tmpdir();
	int r;

	tu_write_raw(dir, "journal.jsonl", text);
	r = il_journal_read_run(dir, &reader, s, err);
	tu_rmtree(dir);
	free(dir);
	return r;
}

static void test_journalread__what_comes_back(void **state)
{
	struct seen s = { 0 };
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(read_text(START HOST SAMPLE(0, false, "infra_failed", "teo", 0, "1") SAMPLE(0, true, "ok", "teo", 0, "1.5")
				   SAMPLE(1, true, "failed", "menu", 0, "2")
				   "{\"type\":\"boot\",\"host\":\"h\"}\n{\"type\":\"a-kind-of-tomorrow\",\"x\":1}\n"
				   "{\"type\":\"stop\",\"rounds\":1,\"reason\":\"max\",\"why\":null,\"skipped\":0}\n"
				   "{\"type\":\"run-end\",\"samples\":2}\n",
				   &s, &err),
			 0);
	assert_int_equal(s.starts, 1);
	/* the final records only, ok or not */
	assert_int_equal(s.samples, 2);
	assert_int_equal(s.ok, 1);
	assert_string_equal(s.what[0], "teo w ok 0");
	assert_string_equal(s.what[1], "menu w failed -1");
	/* host, stop and run-end; a boot record and a kind of a later version are no one's business here */
	assert_int_equal(s.metas, 3);
	assert_int_equal(s.kinds[0], IL_REC_HOST);
	assert_int_equal(s.kinds[1], IL_REC_STOP);
	assert_int_equal(s.kinds[2], IL_REC_RUN_END);
	/* a reader's error stops the reading with it */
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	assert_int_equal(read_text(START SAMPLE(0, true, "ok", "teo", 0, "1") SAMPLE(1, true, "ok", "menu", 0, "2"), &s, &err),
			 IL_EINTR);
	assert_int_equal(s.samples, 1);
	assert_string_equal(err.msg, "stopped by the reader");
	/* no functions at all: only the checks */
	{
		static const struct il_journal_reader none = { 0 };
		char *dir = tu_tmpdir();

		tu_write_raw(dir, "journal.jsonl", START HOST SAMPLE(0, true, "ok", "teo", 0, "1"));
		assert_int_equal(il_journal_read_run(dir, &none, NULL, &err), 0);
		tu_rmtree(dir);
		free(dir);
	}
}

static void test_journalread__refused(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ START START, "journal.jsonl:2: a second run-start record (the first is at line 1): two runs wrote this journal" },
		{ SAMPLE(0, true, "ok", "teo", 0, "1") START, "journal.jsonl:1: sample before the run-start record" },
		{ START SAMPLE(0, true, "ok", "teo", 0, "1") SAMPLE(0, true, "ok", "teo", 1, "1"),
		  "journal.jsonl:3: sample 0 has a second final record (the first is at line 2)" },
		{ START "{\"type\":\"sample\",\"seq\":0,\"final\":true,\"status\":\"ok\",\"variant\":\"teo\",\"workload\":\"w\","
			"\"params\":{\"n\":2},\"iteration\":0,\"metrics\":{\"lat\":1,\"ops\":1}}\n",
		  "journal.jsonl:2: workload 'w' ran with params {\"n\":2}, but the run-start record (line 1) says {\"n\":1}" },
		{ START SAMPLE(0, true, "ok", "teo", 0, "\"fast\""), "journal.jsonl:2: metrics.lat: expected a finite number" },
		{ START "{\"type\":\"sample\",\"seq\":0,\"final\":true,\"status\":\"ok\",\"variant\":\"teo\",\"workload\":\"w\","
			"\"iteration\":0,\"metrics\":{\"lat\":1}}\n",
		  "journal.jsonl:2: metrics.ops: expected a finite number" },
		{ START "{\"type\":\"sample\",\"seq\":0,\"final\":true,\"status\":\"ok\",\"variant\":\"teo\",\"workload\":\"x\","
			"\"iteration\":0,\"metrics\":{}}\n",
		  "journal.jsonl:2: workload 'x' is not in the run-start record" },
		{ START "{\"type\":\"sample\",\"seq\":0,\"final\":true,\"status\":\"ok\",\"variant\":\"teo\",\"workload\":\"w\","
			"\"metrics\":{\"lat\":1,\"ops\":1}}\n",
		  "journal.jsonl:2: iteration: expected integer" },
		{ START "{\"type\":\"sample\",\"seq\":\"0\",\"final\":true,\"status\":\"ok\",\"variant\":\"teo\",\"workload\":\"w\"}\n",
		  "journal.jsonl:2: sample record: seq must be an integer, variant, workload and status strings" },
		{ START "{\"type\":\"sample\",\"seq\":0,\"final\":true,\"status\":\"ok\",\"variant\":\"teo\",\"workload\":\"w\","
			"\"iteration\":0,\"metrics\":[]}\n",
		  "journal.jsonl:2: metrics: expected an object in an ok sample" },
		{ START "{\"type\":\"sample\",\"seq\":0,\"colour\":1}\n", "journal.jsonl:2: unknown field 'colour' in a sample record" },
		{ "{\"type\":\"run-start\",\"variants\":[]}\n", "journal.jsonl:1: run-start record lacks workloads or variants" },
		{ "{\"type\":\"run-start\",\"variants\":[{\"label\":1}],\"workloads\":{}}\n",
		  "journal.jsonl:1: variants[0].label: expected a string" },
		{ HOST, "journal.jsonl: no run-start record (not an idlelab journal?)" },
		{ "", "journal.jsonl: no run-start record (not an idlelab journal?)" },
		{ START "{\"type\":\"sample\",\"seq\":4", "journal.jsonl: the last line is truncated (" },
	};
	struct il_err err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct seen s = { 0 };
		int r = read_text(cases[i].text, &s, &err);

		if (r != IL_EPARSE || !strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: r=%d '%s', expected '%s'", i, r, err.msg, cases[i].msg);
	}
	/* a journal that is not there names itself */
	{
		char *dir = tu_tmpdir();
		struct seen s = { 0 };

		assert_int_equal(il_journal_read_run(dir, &reader, &s, &err), IL_ENOTFOUND);
		assert_non_null(strstr(err.msg, "journal.jsonl"));
		tu_rmtree(dir);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_journalread__what_comes_back),
		cmocka_unit_test(test_journalread__refused),
	};

	return cmocka_run_group_tests_name("run_journalread", tests, NULL, NULL);
}
