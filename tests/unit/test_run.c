// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Plans, matrix order, the journal, runner output frames, and the engine
 * end to end on the local host against a materialised fixture tree (real
 * sh runner, real files; the SSH and real-sysfs runs are in tests/e2e).
 */
#include "testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/quote.h"
#include "lab/labhost.h"
#include "run/engine.h"
#include "run/journal.h"
#include "run/plan.h"
#include "run/tally.h"
#include "run/record.h"
#include "run/rundir.h"
#include "run/runner.h"
#include "run/sample.h"

static const char *wl_dir(void)
{
	static char path[4096];
	const char *src = getenv("IL_SRCDIR");

	snprintf(path, sizeof(path), "%s/workloads", src ? src : ".");
	return path;
}

static int plan_from(const char *text, struct il_plan *p, struct il_err *err)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	int r;

	assert_non_null(j);
	r = il_plan_from_json(p, j, wl_dir(), "plan.json", err);
	json_decref(j);
	return r;
}

static void test_plan__errors_name_the_path(void **state)
{
	static const struct {
		const char *json, *msg;
	} bad[] = {
		{ "{\"host\":\"local\",\"workloads\":[\"periodic\"]}", "plan.json: name: expected a run name (required)" },
		{ "{\"name\":\"a b\",\"workloads\":[\"periodic\"]}", "name: 'a b' must be" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\", \"pingpong\", {\"workload\":\"fio\",\"params\":{\"runtime\":\"10\"}}]}",
		  "plan.json: workloads[2].params.runtime: expected integer" },
		{ "{\"name\":\"x\",\"workloads\":[{\"workload\":\"nosuch\"}]}", "workloads[0]: workload 'nosuch': no definition" },
		{ "{\"name\":\"x\",\"workloads\":[]}", "workloads: expected a non-empty array" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"governors\":[\"menu\",\"menu\"]}", "label 'menu' is used twice" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"governors\":[\"menu;reboot\"]}", "governors[0]: 'menu;reboot' is not a governor name" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"order\":\"sideways\"}",
		  "order: expected \"interleave\", \"blocked\", \"random\" or \"balanced\"" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"iterations\":0}", "iterations: expected an integer from 1 to 100000" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"iterations\":\"5\"}", "iterations: expected an integer from 1 to 100000" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"reference\":\"teo\"}", "reference: 'teo' is not one of" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"iterations\":{\"min\":1,\"max\":9}}", "with 2 <= N <= M" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"iterations\":{\"min\":9,\"max\":5}}", "with 2 <= N <= M" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"iterations\":{\"min\":5}}", "with 2 <= N <= M" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"iterations\":{\"min\":5,\"max\":9},\"order\":\"blocked\"}",
		  "(adaptive) needs one host and order interleave, random or balanced" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"iterations\":{\"min\":5,\"max\":9,\"step\":0}}",
		  "iterations.step: expected an integer from 1 to 100000" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"iterations\":{\"min\":5,\"max\":9,\"stride\":2}}",
		  "with 2 <= N <= M" },
		{ "{\"name\":\"x\",\"hosts\":[\"a\",\"b\"],\"workloads\":[\"periodic\"],\"iterations\":{\"min\":5,\"max\":9}}",
		  "(adaptive) needs one host" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"kernels\":[{\"commit\":\"abc\"}]}",
		  "kernels[0].name: expected a string" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"cpus\":\"0-\"}", "cpus:" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"itrations\":3}", "itrations: unknown field" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"governors\":[{\"governor\":\"teo\",\"disable\":\"C3\"}]}",
		  "governors[0].disable: expected an array" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"min_sample_s\":-1}", "min_sample_s: expected seconds in [0, 86400]" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"min_idles\":1.5}", "min_idles: expected an integer" },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"idle_cpus\":\"2-1\"}", "plan.json: idle_cpus: " },
		{ "{\"name\":\"x\",\"workloads\":[\"periodic\"],\"idle_cpus\":\",\"}", "idle_cpus: expected a non-empty CPU list" },
	};
	struct il_err err = { 0 };
	struct il_plan p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_not_equal(plan_from(bad[i].json, &p, &err), 0);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("case %zu: got '%s', expected '%s'", i, err.msg, bad[i].msg);
	}
}

static void test_plan__defaults_and_variants(void **state)
{
	struct il_err err = { 0 };
	struct il_diff_opts o;
	struct il_plan p;

	(void)state;
	assert_int_equal(plan_from("{\"name\":\"x\",\"host\":\"local\",\"workloads\":[\"periodic\"],\"governors\":[\"menu\","
				   "{\"label\":\"teo-nodeep\",\"governor\":\"teo\",\"disable\":[\"ret-deep\",2]}],"
				   "\"cpus\":\"3,1-2\"}",
				   &p, &err),
			 0);
	assert_int_equal(p.iterations, 5);
	assert_int_equal(p.warmup, 0);
	assert_int_equal(p.retries, 2);
	/* balanced by default: the order effects measured on the arm64 lab (docs/plan.md "order") */
	assert_int_equal(p.order, IL_ORDER_BALANCED);
	assert_string_equal(p.reference, "menu");
	assert_string_equal(p.cpus, "1-3");
	assert_string_equal(p.gov[1].label, "teo-nodeep");
	assert_string_equal(p.gov[1].disable.v[1], "2");
	assert_true(json_is_integer(json_object_get(p.wl[0].params, "seed")));
	/* no limits: the minimum length by clock, every CPU, no minimum of idles */
	il_plan_diff_opts(&p, &o);
	assert_true(p.min_sample_s < 0 && o.min_sample_s < 0);
	assert_null(o.cpus);
	assert_int_equal(o.min_idles, 0);
	assert_null(p.idle_cpus);
	il_plan_release(&p);
	assert_int_equal(plan_from("{\"name\":\"x\",\"workloads\":[\"periodic\"],\"min_sample_s\":0.5,\"min_idles\":100,"
				   "\"idle_cpus\":\"3,1-2\"}", &p, &err), 0);
	assert_string_equal(p.idle_cpus, "1-3");
	il_plan_diff_opts(&p, &o);
	assert_true(o.min_sample_s == 0.5);
	assert_int_equal(o.min_idles, 100);
	assert_non_null(o.cpus);
	assert_int_equal(o.cpus->n, 3);
	assert_int_equal(o.cpus->cpu[0], 1);
	il_plan_release(&p);
}

/* The run order of the plan text: "A0 B0 ..." (w: a warmup; with_kernel: ".KERNEL" after each). */
static char *matrix_string(const char *text, bool with_kernel)
{
	struct il_err err = { 0 };
	struct il_plan p;
	struct il_spec *s;
	size_t n;
	struct il_buf b = IL_BUF_INIT;

	if (plan_from(text, &p, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(il_plan_matrix(&p, &s, &n, &err), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].seq, i);
		il_buf_printf(&b, "%s%s%d%s", i ? " " : "", p.gov[s[i].gov].label, s[i].iteration, s[i].warmup ? "w" : "");
		if (with_kernel)
			il_buf_printf(&b, ".%s", p.kernels.v[s[i].kernel]);
	}
	free(s);
	il_plan_release(&p);
	return il_buf_detach(&b);
}

static char *order_string(const char *extra)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "{\"name\":\"x\",\"host\":\"local\",\"workloads\":[\"periodic\"],\"governors\":[\"A\",\"B\",\"C\"],"
		 "\"iterations\":2%s}",
		 extra);
	return matrix_string(text, false);
}

static void test_plan__matrix_order(void **state)
{
	char *a, *b;

	(void)state;
	/* the default: balanced (a Williams square's rows; for three, 0 1 2 then 1 2 0) */
	a = order_string("");
	assert_string_equal(a, "A0 B0 C0 B1 C1 A1");
	free(a);
	a = order_string(",\"order\":\"interleave\"");
	assert_string_equal(a, "A0 B0 C0 A1 B1 C1");
	free(a);
	a = order_string(",\"warmup\":1,\"order\":\"interleave\"");
	assert_string_equal(a, "A0w B0w C0w A0 B0 C0 A1 B1 C1");
	free(a);
	a = order_string(",\"order\":\"blocked\"");
	assert_string_equal(a, "A0 A1 B0 B1 C0 C1");
	free(a);
	/* random: reproducible for a seed, every round a permutation of all variants */
	a = order_string(",\"order\":\"random\",\"seed\":7");
	b = order_string(",\"order\":\"random\",\"seed\":7");
	assert_string_equal(a, b);
	free(b);
	for (int round = 0; round < 2; round++) {
		char want[4];

		for (const char *g = "ABC"; *g; g++) {
			snprintf(want, sizeof(want), "%c%d", *g, round);
			assert_non_null(strstr(a, want));
		}
	}
	free(a);
	{
		/* some seed among a few gives a different order than interleave and balanced */
		bool differs = false;

		for (int seed = 1; seed < 6 && !differs; seed++) {
			char extra[64];

			snprintf(extra, sizeof(extra), ",\"order\":\"random\",\"seed\":%d", seed);
			a = order_string(extra);
			differs = strcmp(a, "A0 B0 C0 A1 B1 C1") != 0 && strcmp(a, "A0 B0 C0 B1 C1 A1") != 0;
			free(a);
		}
		assert_true(differs);
	}
}

/*
 * order "balanced": n governors over n rounds (2n for an odd n) put each in
 * every position once (twice) and right after every other one once (twice):
 * Williams squares, the rows counted from the first counted round.
 */
static void test_plan__balanced_order(void **state)
{
	(void)state;
	for (size_t n = 2; n <= 5; n++) {
		size_t rows = n % 2 ? 2 * n : n, pos[5][5] = { { 0 } }, after[5][5] = { { 0 } }, ns;
		char text[512], govs[64] = "";
		struct il_err err = { 0 };
		struct il_plan p;
		struct il_spec *s;

		for (size_t g = 0; g < n; g++)
			snprintf(govs + strlen(govs), sizeof(govs) - strlen(govs), "%s\"%c\"", g ? "," : "", (char)('A' + g));
		snprintf(text, sizeof(text),
			 "{\"name\":\"x\",\"host\":\"local\",\"workloads\":[\"periodic\"],\"governors\":[%s],"
			 "\"iterations\":%zu,\"warmup\":1,\"order\":\"balanced\"}",
			 govs, rows);
		assert_int_equal(plan_from(text, &p, &err), 0);
		assert_int_equal(il_plan_matrix(&p, &s, &ns, &err), 0);
		assert_int_equal(ns, n * (rows + 1));
		for (size_t i = n; i < ns; i++) {
			size_t k = (i - n) % n;

			assert_false(s[i].warmup);
			assert_int_equal(s[i].iteration, (int)((i - n) / n));
			pos[s[i].gov][k]++;
			if (k)
				after[s[i - 1].gov][s[i].gov]++;
		}
		for (size_t a = 0; a < n; a++)
			for (size_t b = 0; b < n; b++) {
				assert_int_equal(pos[a][b], rows / n);
				if (a != b)
					assert_int_equal(after[a][b], rows / n);
			}
		free(s);
		il_plan_release(&p);
	}
}

/* The run order of an adaptive plan on kernels x and y: "A0w.x ... B4.y" (w: a warmup). */
static char *stage_string(const char *iterations, int nkernels)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "{\"name\":\"x\",\"host\":\"local\",\"workloads\":[\"periodic\"],\"governors\":[\"A\",\"B\"],"
		 "\"kernels\":[{\"name\":\"x\"}%s],\"iterations\":%s,\"warmup\":1,\"order\":\"interleave\"}",
		 nkernels > 1 ? ",{\"name\":\"y\"}" : "", iterations);
	return matrix_string(text, true);
}

/*
 * Adaptive runs look in stages: with several kernels each stage is every
 * kernel's block of the stage's rounds in turn (the warmup in the first), the
 * default step is min, and the looks are min, every step after it, and max;
 * with one kernel a stage is a round, the order that of a fixed plan.
 */
static void test_plan__adaptive_stages(void **state)
{
	char *a;

	(void)state;
	a = stage_string("{\"min\":2,\"max\":5}", 2);
	assert_string_equal(a, "A0w.x B0w.x A0.x B0.x A1.x B1.x A0w.y B0w.y A0.y B0.y A1.y B1.y "
			       "A2.x B2.x A3.x B3.x A2.y B2.y A3.y B3.y A4.x B4.x A4.y B4.y");
	free(a);
	a = stage_string("{\"min\":2,\"max\":4,\"step\":1}", 2);
	assert_string_equal(a, "A0w.x B0w.x A0.x B0.x A1.x B1.x A0w.y B0w.y A0.y B0.y A1.y B1.y "
			       "A2.x B2.x A2.y B2.y A3.x B3.x A3.y B3.y");
	free(a);
	a = stage_string("{\"min\":2,\"max\":3}", 1);
	assert_string_equal(a, "A0w.x B0w.x A0.x B0.x A1.x B1.x A2.x B2.x");
	free(a);
	/* min 2, max 5, step 2: looks after 2, 4 and 5 rounds */
	assert_int_equal(il_plan_adaptive_looks(2, 5, 2), 3);
	assert_false(il_plan_adaptive_look_at(2, 5, 2, 1));
	assert_true(il_plan_adaptive_look_at(2, 5, 2, 2));
	assert_false(il_plan_adaptive_look_at(2, 5, 2, 3));
	assert_true(il_plan_adaptive_look_at(2, 5, 2, 4));
	assert_true(il_plan_adaptive_look_at(2, 5, 2, 5));
	/* step 1: every round from min, as one kernel's runs always looked */
	assert_int_equal(il_plan_adaptive_looks(5, 40, 1), 36);
	assert_int_equal(il_plan_adaptive_looks(5, 20, 5), 4);
	assert_int_equal(il_plan_adaptive_looks(4, 4, 4), 1);
}

static int count_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	size_t *n = ctx;

	(void)err;
	assert_int_equal(json_integer_value(json_object_get(rec, "seq")), (json_int_t)(line - 1));
	(*n)++;
	return 0;
}

static void test_journal__append_reload_torn(void **state)
{
	char *dir = tu_tmpdir(), path[512];
	struct il_journal j;
	struct il_err err = { 0 };
	size_t n = 0, torn = 0;
	json_t *rec;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/journal.jsonl", dir);
	assert_int_equal(il_journal_open(&j, path, &err), 0);
	for (int i = 0; i < 3; i++) {
		rec = json_pack("{s:s,s:i,s:s}", "type", "sample", "seq", i, "text", "line\nbreak \"quoted\"");

		assert_int_equal(il_journal_append(&j, rec, &err), 0);
		json_decref(rec);
	}
	il_journal_close(&j);
	assert_int_equal(il_journal_each(path, count_rec, &n, &torn, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(torn, 0);
	/* a crash in the middle of an append leaves a torn last line: skipped, reported, repairable */
	f = fopen(path, "a");
	fputs("{\"type\":\"sample\",\"seq\":3,\"sta", f);
	fclose(f);
	n = 0;
	assert_int_equal(il_journal_each(path, count_rec, &n, &torn, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(torn, 29);
	/* opening for the next append cuts it: appended after it, a record would share its line */
	assert_int_equal(il_journal_open(&j, path, &err), 0);
	assert_int_equal(j.torn, 29);
	il_journal_close(&j);
	n = 0;
	assert_int_equal(il_journal_each(path, count_rec, &n, &torn, &err), 0);
	assert_int_equal(torn, 0);
	/* a torn line longer than one read of the tail (4 KiB), after a whole one */
	f = fopen(path, "a");
	for (int i = 0; i < 3000; i++)
		fputs("xy", f);
	fclose(f);
	assert_int_equal(il_journal_open(&j, path, &err), 0);
	assert_int_equal(j.torn, 6000);
	rec = json_pack("{s:s,s:i}", "type", "sample", "seq", 3);
	assert_int_equal(il_journal_append(&j, rec, &err), 0);
	json_decref(rec);
	il_journal_close(&j);
	n = 0;
	assert_int_equal(il_journal_each(path, count_rec, &n, &torn, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(torn, 0);
	/* a disk that fills up in the middle of an append: the part written is taken back */
	{
		pid_t pid = fork();
		int st;

		assert_true(pid >= 0);
		if (!pid) {
			struct stat sb;
			struct rlimit rl;
			json_t *big = json_pack("{s:s,s:s}", "type", "sample", "pad", "0123456789012345678901234567890123456789");

			signal(SIGXFSZ, SIG_IGN);
			stat(path, &sb);
			rl.rlim_cur = rl.rlim_max = (rlim_t)sb.st_size + 10;
			if (il_journal_open(&j, path, &err) || setrlimit(RLIMIT_FSIZE, &rl))
				_exit(2);
			_exit(il_journal_append(&j, big, &err) == IL_EIO && strstr(err.msg, "cannot append") ? 0 : 3);
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	n = 0;
	assert_int_equal(il_journal_each(path, count_rec, &n, &torn, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(torn, 0);
	/* damage in the middle is an error naming the line, never skipped */
	f = fopen(path, "a");
	fputs("{\"type\":\"sample\",\"seq\":4}\nnot json\n{\"type\":\"sample\",\"seq\":6}\n", f);
	fclose(f);
	n = 0;
	assert_int_equal(il_journal_each(path, count_rec, &n, &torn, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "journal.jsonl:6:"));
	f = fopen(path, "w");
	fputs("[1,2]\n", f);
	fclose(f);
	assert_int_equal(il_journal_each(path, count_rec, &n, &torn, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, ":1: expected an object"));
	tu_rmtree(dir);
	free(dir);
}

static void test_runner__frames(void **state)
{
	struct il_runner_out o;
	struct il_err err = { 0 };
	/* the workload printed something that looks like a frame: byte counts keep it data */
	const char ok[] = "@@N1 uname 6.1.0 aarch64\n@@N1 pre 4\nab\n\n@@N1 post 3\ncd\n@@N1 out 16\n@@N1 status 99\n\n"
			  "@@N1 err 0\n@@N1 status 0\n@@N1 end\n";

	(void)state;
	assert_int_equal(il_runner_parse(ok, sizeof(ok) - 1, "N1", &o, &err), 0);
	assert_string_equal(o.release, "6.1.0");
	assert_string_equal(o.machine, "aarch64");
	assert_int_equal(o.pre.len, 4);
	assert_string_equal(il_buf_str(&o.out), "@@N1 status 99\n\n");
	assert_int_equal(o.status, 0);
	assert_true(o.complete);
	assert_false(o.has_qos);
	il_runner_out_release(&o);
	{
		/* the PM QoS scan taken during the workload, when it ran: once at most */
		const char *q = "@@N1 uname 6.1.0 x86_64\n@@N1 pre 0\n@@N1 post 0\n@@N1 out 0\n@@N1 err 0\n"
				"@@N1 qos 23\n/dev/cpu_dma_latency:0\n@@N1 status 0\n@@N1 end\n";
		const char *q2 = "@@N1 qos 0\n@@N1 qos 0\n";

		assert_int_equal(il_runner_parse(q, strlen(q), "N1", &o, &err), 0);
		assert_true(o.has_qos);
		assert_string_equal(il_buf_str(&o.qos), "/dev/cpu_dma_latency:0\n");
		il_runner_out_release(&o);
		assert_int_equal(il_runner_parse(q2, strlen(q2), "N1", &o, &err), IL_EPARSE);
		assert_non_null(strstr(err.msg, "a second qos frame"));
		il_runner_out_release(&o);
	}
	{
		/* the idle trace frame (runners/trace.sh), when the sample was traced */
		const char *q = "@@N1 uname 6.1.0 x86_64\n@@N1 pre 0\n@@N1 post 0\n@@N1 out 0\n@@N1 err 0\n"
				"@@N1 trace 18\n#idlelab trace v1\n@@N1 status 0\n@@N1 end\n";

		assert_int_equal(il_runner_parse(q, strlen(q), "N1", &o, &err), 0);
		assert_true(o.has_trace);
		assert_string_equal(il_buf_str(&o.trace), "#idlelab trace v1\n");
		assert_false(o.has_qos);
		il_runner_out_release(&o);
	}
	{
		const char *f = "@@N1 fail workload program 'x' not found on the host\n";

		assert_int_equal(il_runner_parse(f, strlen(f), "N1", &o, &err), 0);
	}
	assert_string_equal(o.fail, "workload program 'x' not found on the host");
	il_runner_out_release(&o);
	/* truncated: connection lost in the middle */
	assert_int_equal(il_runner_parse(ok, 40, "N1", &o, &err), IL_EPARSE);
	il_runner_out_release(&o);
	assert_int_equal(il_runner_parse("@@N1 out 100\nshort\n", 19, "N1", &o, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "announces 100 bytes"));
	il_runner_out_release(&o);
	assert_int_equal(il_runner_parse("Welcome to the host!\n", 21, "N1", &o, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "unexpected text 'Welcome"));
	il_runner_out_release(&o);
	/* one output is one sample: frames printed before the runner's own (by its workload) are refused */
	{
		static const char *const twice[] = { "@@N1 uname 6.1.0 aarch64\n", "@@N1 pre 0\n", "@@N1 post 0\n",
						     "@@N1 out 0\n", "@@N1 err 0\n", "@@N1 status 0\n" };

		for (size_t i = 0; i < sizeof(twice) / sizeof(*twice); i++) {
			struct il_buf b = IL_BUF_INIT;

			il_buf_printf(&b, "%s%s", twice[i], ok);
			assert_int_equal(il_runner_parse(b.p, b.len, "N1", &o, &err), IL_EPARSE);
			assert_non_null(strstr(err.msg, "a second"));
			il_runner_out_release(&o);
			il_buf_release(&b);
		}
	}
}

/* ---- the engine on a fixture tree ---- */

struct fixture_run {
	char *dir, *root, *wl, *out;
	size_t stop_after;
	volatile sig_atomic_t stop;
	size_t ends;
};

static void on_ev(const struct il_run_event *ev, void *ctx)
{
	struct fixture_run *f = ctx;

	if (ev->kind == IL_EV_SAMPLE_END && ++f->ends == f->stop_after)
		f->stop = SIGINT;
}

static void setup_fixture(struct fixture_run *f)
{
	char path[600];

	memset(f, 0, sizeof(*f));
	f->dir = tu_tmpdir();
	f->root = malloc(600);
	f->wl = malloc(600);
	f->out = malloc(600);
	snprintf(f->root, 600, "%s/root", f->dir);
	snprintf(f->wl, 600, "%s/workloads", f->dir);
	snprintf(f->out, 600, "%s/run", f->dir);
	tu_materialize(tu_fixture("labvm-arm64-before.txt"), f->root);
	for (int c = 0; c < 2; c++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c);
		tu_write(f->root, path, "schedutil\n");
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_available_governors", c);
		tu_write(f->root, path, "performance schedutil\n");
	}
	/* prints how many arguments it got: hostile text must arrive as exactly one */
	tu_write(f->wl, "/argc.json",
		 "{\"description\":\"count arguments\",\"argv\":[\"sh\",\"-c\",\"printf 'args: %s\\\\n' \\\"$#\\\"\",\"sh\","
		 "\"{text}\"],\"params\":{\"text\":{\"type\":\"string\",\"default\":\"x\"}},\"parser\":\"idlelab-kv\","
		 "\"metrics\":{\"args\":{\"unit\":\"count\",\"better\":\"higher\"}}}\n");
	tu_write(f->dir, "/plan.json",
		 "{\"name\":\"fx\",\"host\":\"local\",\"governors\":[\"teo\",{\"label\":\"menu-nodeep\",\"governor\":\"menu\","
		 "\"disable\":[\"ret-deep\"]}],\"workloads\":[{\"workload\":\"argc\",\"params\":{\"text\":\"a b; $(touch /tmp/"
		 "idlelab-pwned) `id` 'q' \\\"dq\\\"\"}}],\"iterations\":3,\"warmup\":1,\"cpufreq_governor\":\"performance\","
		 /* a fixture tree's clock does not move: no minimum sample length */
		 "\"min_sample_s\":0}");
}

static void teardown_fixture(struct fixture_run *f)
{
	tu_rmtree(f->dir);
	free(f->dir);
	free(f->root);
	free(f->wl);
	free(f->out);
}

struct tally {
	size_t final_n, ok, warmup, interrupted, nonfinal, hosts;
	bool seen[64];
	bool dup;
};

static int tally_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct tally *t = ctx;
	const char *type = json_string_value(json_object_get(rec, "type"));
	json_int_t seq = json_integer_value(json_object_get(rec, "seq"));

	(void)line, (void)err;
	if (!strcmp(type, "interrupted"))
		t->interrupted++;
	if (!strcmp(type, "host")) {
		/* the built-in local host is of kind "local" (the lab's kind comes from lab/labhost.c) */
		assert_string_equal(json_string_value(json_object_get(rec, "kind")), "local");
		t->hosts++;
	}
	if (strcmp(type, "sample"))
		return 0;
	if (!json_is_true(json_object_get(rec, "final"))) {
		t->nonfinal++;
		return 0;
	}
	if (t->seen[seq])
		t->dup = true;
	t->seen[seq] = true;
	t->final_n++;
	if (!strcmp(json_string_value(json_object_get(rec, "status")), "ok")) {
		t->ok++;
		assert_true(json_number_value(json_object_get(json_object_get(rec, "metrics"), "args")) == 1.0);
		assert_string_equal(json_string_value(json_object_get(rec, "governor_read")),
				    json_string_value(json_object_get(rec, "governor")));
		assert_true(json_is_object(json_object_get(rec, "idle")));
	}
	if (!strcmp(json_string_value(json_object_get(rec, "status")), "warmup"))
		t->warmup++;
	return 0;
}

static void assert_restored(const struct fixture_run *f)
{
	char path[700], *s;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpuidle/current_governor", f->root);
	s = tu_read(path, NULL);
	assert_true(!strncmp(s, "menu", 4));
	free(s);
	for (int c = 0; c < 2; c++) {
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpuidle/state2/disable", f->root, c);
		s = tu_read(path, NULL);
		assert_int_equal(atoi(s), 0);
		free(s);
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", f->root, c);
		s = tu_read(path, NULL);
		assert_true(!strncmp(s, "schedutil", 9));
		free(s);
	}
}

/*
 * Frames are the runner's only when the runner exited 0: whole, valid frames (a workload's own,
 * printed to its runner's output before it killed the runner) with the transport's exit 137
 * are no sample, whatever values and snapshots they carry.
 */
static void test_sample__frames_need_the_runners_exit(void **state)
{
	struct fixture_run f;
	struct il_plan plan;
	struct il_run_ctx c = { 0 };
	struct il_err err = { 0 };
	struct il_spec *specs = NULL;
	struct il_buf text = IL_BUF_INIT, gov = IL_BUF_INIT;
	char path[700];
	char *pre = tu_read(tu_fixture("labvm-arm64-before.txt"), NULL);
	char *post = tu_read(tu_fixture("labvm-arm64-after.txt"), NULL);
	size_t n = 0, sp = 0;

	(void)state;
	setup_fixture(&f);
	snprintf(path, sizeof(path), "%s/plan.json", f.dir);
	if (il_plan_load(&plan, path, f.wl, &err) || il_plan_matrix(&plan, &specs, &n, &err))
		fail_msg("%s", err.msg);
	c.plan = &plan;
	/* a counted sample (the plan starts with a warmup) */
	while (sp < n && specs[sp].warmup)
		sp++;
	assert_true(sp < n);
	/* the governor the sample's variant asks for, as the snapshots would read it back */
	il_buf_printf(&gov, "current_governor:%s\n", plan.gov[specs[sp].gov].governor);
	for (int i = 0; i < 2; i++) {
		char **d = i ? &post : &pre, *at = strstr(*d, "current_governor:menu\n");
		struct il_buf t = IL_BUF_INIT;

		assert_non_null(at);
		il_buf_printf(&t, "%.*s%s%s", (int)(at - *d), *d, il_buf_str(&gov), at + strlen("current_governor:menu\n"));
		free(*d);
		*d = il_buf_detach(&t);
	}
	il_buf_printf(&text, "@@N1 uname 6.1.0 aarch64\n@@N1 pre %zu\n%s@@N1 post %zu\n%s@@N1 out 8\nargs: 1\n"
		      "@@N1 err 0\n@@N1 status 0\n@@N1 end\n", strlen(pre), pre, strlen(post), post);
	for (int exit_code = 0; exit_code <= 137; exit_code += 137) {
		struct il_sample_result oc = { 0 };

		il_sample_judge(&c, &specs[sp], "N1", "h", text.p, text.len, exit_code, "", &oc);
		if (!exit_code) {
			/* the same frames from a runner that exited 0 are a sample */
			if (strcmp(oc.status, "ok"))
				fail_msg("exit 0: %s: %s", oc.status, oc.reason);
			assert_true(json_number_value(json_object_get(oc.metrics, "args")) == 1.0);
			/* no PM QoS scan (a workload shorter than a second): nothing said either way */
			assert_null(json_object_get(oc.idle, "governor_bypass"));
		} else {
			assert_string_equal(oc.status, "infra_failed");
			assert_non_null(strstr(oc.reason, "the runner exited 137"));
			assert_null(oc.metrics);
			assert_null(oc.idle);
		}
		il_sample_result_release(&oc);
	}
	/* the scan saw /dev/cpu_dma_latency held at 0: the sample says the governor was bypassed, and by whom */
	{
		static const char qos[] = "/proc/4242/fd/3:/dev/cpu_dma_latency\n/proc/4242/comm:cyclictest\n"
					  "/dev/cpu_dma_latency:0\n";
		static const char *const dumps[] = { qos, "/dev/cpu_dma_latency:20\n", "garbage\n" };

		for (int i = 0; i < 3; i++) {
			struct il_sample_result oc = { 0 };
			struct il_buf t = IL_BUF_INIT;
			json_t *by, *cav;
			size_t k;
			json_t *e;
			bool said = false;

			il_buf_printf(&t, "@@N1 uname 6.1.0 aarch64\n@@N1 pre %zu\n%s@@N1 post %zu\n%s@@N1 out 8\nargs: 1\n"
				      "@@N1 err 0\n@@N1 qos %zu\n%s@@N1 status 0\n@@N1 end\n", strlen(pre), pre, strlen(post), post,
				      strlen(dumps[i]), dumps[i]);
			il_sample_judge(&c, &specs[sp], "N1", "h", t.p, t.len, 0, "", &oc);
			if (strcmp(oc.status, "ok"))
				fail_msg("qos %d: %s: %s", i, oc.status, oc.reason);
			by = json_object_get(oc.idle, "governor_bypass");
			cav = json_object_get(oc.idle, "caveats");
			json_array_foreach(cav, k, e)
				said |= strstr(json_string_value(e), i == 2 ? "the PM QoS scan taken during the workload could not"
									    : "governor bypassed: ") == json_string_value(e);
			if (i == 0) {
				assert_int_equal(json_integer_value(json_object_get(by, "cpu_latency_us")), 0);
				assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(by, "holders"), 0),
										   "pid")), 4242);
				assert_non_null(strstr(json_string_value(json_object_get(by, "why")),
						       "governor bypassed: CPU latency limit 0 us (held by PID 4242/cyclictest)"));
				assert_true(said);
			} else {
				/* a limit of 20 us is no bypass; an unreadable scan is a caveat, never a failed sample */
				assert_null(by);
				assert_true(said == (i == 2));
			}
			il_sample_result_release(&oc);
			il_buf_release(&t);
		}
	}
	/*
	 * a traced sample (runners/trace.sh): the trace frame reduced into idle.trace; a trace whose
	 * window has more of cpu0's WFI exits than its counters moved disagrees with them, and one that
	 * has none of cpu1's while its counters moved does not see cpu1 (caveats both, the sample
	 * stays); a trace that lost events, or has no window, is an invalid sample (measured again)
	 */
	{
		static const char head[] = "#idlelab trace v1\n#idlelab hz=250\n#idlelab tick=function\n"
					   "#idlelab cpu=0 entries=4 overrun=0 commit_overrun=0 dropped=0\n"
					   "# tracer: function\n";
		static const char marks[] = "  sh-1 [000] ..... 10.000001: tracing_mark_write: idlelab-pre\n"
					    "  sh-1 [000] ..... 10.000002: tracing_mark_write: idlelab-begin\n"
					    "  sh-1 [000] ..... 11.000002: tracing_mark_write: idlelab-end\n"
					    "  sh-1 [000] ..... 11.000003: tracing_mark_write: idlelab-post\n";
		static const char *const tails[] = { marks, "CPU:0 [LOST 37 EVENTS]\n", "" };

		plan.wl[specs[sp].wl].trace = true;
		for (int i = 0; i < 3; i++) {
			struct il_sample_result oc = { 0 };
			struct il_buf t = IL_BUF_INIT, tr = IL_BUF_INIT;
			json_t *cav, *e;
			size_t k;
			bool said = false;

			il_buf_printf(&tr, "%s%s", head, i == 1 ? marks : "");
			if (i == 0) {
				/* the markers with 500 WFI periods of cpu0 between begin and end (its WFI moved 24) */
				il_buf_add(&tr, marks, (size_t)(strstr(marks, "  sh-1 [000] ..... 11.000002") - marks));
				for (int x = 0; x < 500; x++)
					il_buf_printf(&tr, "  <idle>-0 [000] d..1. 10.%06d: cpu_idle: state=0 cpu_id=0\n"
							   "  <idle>-0 [000] d..1. 10.%06d: cpu_idle: state=4294967295 cpu_id=0\n",
						      1000 + 2 * x, 1001 + 2 * x);
				il_buf_adds(&tr, strstr(marks, "  sh-1 [000] ..... 11.000002"));
			} else {
				il_buf_adds(&tr, tails[i]);
			}
			il_buf_printf(&t, "@@N1 uname 6.1.0 aarch64\n@@N1 pre %zu\n%s@@N1 post %zu\n%s@@N1 out 8\nargs: 1\n"
				      "@@N1 err 0\n@@N1 trace %zu\n%s@@N1 status 0\n@@N1 end\n", strlen(pre), pre, strlen(post),
				      post, tr.len, il_buf_str(&tr));
			il_sample_judge(&c, &specs[sp], "N1", "h", t.p, t.len, 0, "", &oc);
			if (i == 0) {
				if (strcmp(oc.status, "ok"))
					fail_msg("traced: %s: %s", oc.status, oc.reason);
				assert_non_null(json_object_get(json_object_get(oc.idle, "trace"), "states"));
				assert_true(json_is_false(json_object_get(json_object_get(json_object_get(oc.idle, "trace"),
											  "check"), "ok")));
				cav = json_object_get(oc.idle, "caveats");
				json_array_foreach(cav, k, e)
					said |= !!strstr(json_string_value(e), "the idle trace disagrees with the counters: cpu0 ");
				assert_true(said);
				said = false;
				json_array_foreach(cav, k, e)
					said |= !strcmp(json_string_value(e), "tracing does not see CPU 1's idle entries (its "
									      "counters moved 406, the trace has none)");
				assert_true(said);
			} else {
				assert_string_equal(oc.status, "invalid");
				assert_true(oc.retryable);
				assert_non_null(strstr(oc.reason, i == 1 ? "lost 37 events on cpu0" : "idlelab-"));
			}
			il_sample_result_release(&oc);
			il_buf_release(&t);
			il_buf_release(&tr);
		}
		/* the plan asks for a trace and the runner sent none */
		{
			struct il_sample_result oc = { 0 };

			il_sample_judge(&c, &specs[sp], "N1", "h", text.p, text.len, 0, "", &oc);
			assert_string_equal(oc.status, "infra_failed");
			assert_non_null(strstr(oc.reason, "no idle trace"));
			il_sample_result_release(&oc);
		}
		plan.wl[specs[sp].wl].trace = false;
	}
	free(specs);
	il_plan_release(&plan);
	il_buf_release(&text);
	il_buf_release(&gov);
	free(pre);
	free(post);
	teardown_fixture(&f);
}

static void test_engine__fixture_run_interrupt_resume(void **state)
{
	struct fixture_run f;
	struct il_err err = { 0 };
	struct il_run_opts o = { 0 };
	struct tally t = { 0 };
	char plan[700], journal[700];
	char *run_dir = NULL;
	struct stat st;

	(void)state;
	setup_fixture(&f);
	snprintf(plan, sizeof(plan), "%s/plan.json", f.dir);
	snprintf(journal, sizeof(journal), "%s/journal.jsonl", f.out);
	o.workloads_dir = f.wl;
	o.sysfs_root = f.root;
	o.stop = &f.stop;
	o.cb = on_ev;
	o.cb_ctx = &f;
	f.stop_after = 3;
	unlink("/tmp/idlelab-pwned");
	/* stopped after 3 samples: IL_EINTR, the journal says so, the host is restored */
	assert_int_equal(il_engine_start(plan, f.out, &o, &run_dir, &err), IL_EINTR);
	assert_string_equal(run_dir, f.out);
	free(run_dir);
	assert_non_null(strstr(err.msg, "--resume"));
	assert_int_equal(il_journal_each(journal, tally_rec, &t, NULL, &err), 0);
	assert_int_equal(t.final_n, 3);
	assert_int_equal(t.interrupted, 1);
	assert_int_equal(t.hosts, 1);
	assert_restored(&f);
	/* resume: exactly the planned samples, none twice */
	f.stop = 0;
	f.stop_after = 0;
	assert_int_equal(il_engine_resume(f.out, &o, &err), 0);
	memset(&t, 0, sizeof(t));
	assert_int_equal(il_journal_each(journal, tally_rec, &t, NULL, &err), 0);
	assert_int_equal(t.final_n, 8);
	assert_int_equal(t.ok, 6);
	assert_int_equal(t.warmup, 2);
	assert_false(t.dup);
	assert_restored(&f);
	/* the hostile parameter never reached a shell as code */
	assert_int_not_equal(stat("/tmp/idlelab-pwned", &st), 0);
	/* a complete run resumes to nothing */
	assert_int_equal(il_engine_resume(f.out, &o, &err), 0);
	{
		json_t *sum;

		assert_int_equal(il_run_summary(f.out, f.wl, NULL, &sum, &err), 0);
		assert_true(json_is_true(json_object_get(sum, "complete")));
		assert_int_equal(json_integer_value(json_object_get(sum, "planned")), 8);
		assert_int_equal(json_integer_value(json_object_get(json_object_get(sum, "by_status"), "ok")), 6);
		json_decref(sum);
	}
	/* starting again into the same directory is refused */
	assert_int_equal(il_engine_start(plan, f.out, &o, &run_dir, &err), IL_EIO);
	assert_non_null(strstr(err.msg, "--resume"));
	free(run_dir);
	teardown_fixture(&f);
}

struct judge_ctx {
	int calls, decide_at; /* decided once this many rounds are done (0: never) */
	int futile_at;        /* the rest futile once this many rounds are done (0: never) */
	int rounds_seen[16];
};

/* A stand-in for the stop rule: counts the final ok samples of the journal it is asked about */
static int judge_stub(void *ctx, const char *run_dir, struct il_buf *why, struct il_err *err)
{
	struct judge_ctx *j = ctx;
	struct tally t = { 0 };
	char path[700];

	snprintf(path, sizeof(path), "%s/journal.jsonl", run_dir);
	if (il_journal_each(path, tally_rec, &t, NULL, err))
		return IL_EPARSE;
	/* two variants a round */
	j->rounds_seen[j->calls++ % 16] = (int)(t.ok / 2);
	il_buf_printf(why, "stub: %zu rounds", t.ok / 2);
	if (j->futile_at && (int)(t.ok / 2) >= j->futile_at)
		return 2;
	return j->decide_at && (int)(t.ok / 2) >= j->decide_at;
}

static json_t *stop_record(const char *journal)
{
	json_t *found = NULL;
	char *text = tu_read(journal, NULL), *line = text;

	while (line && *line) {
		char *nl = strchr(line, '\n');
		json_t *rec;

		if (nl)
			*nl = 0;
		rec = json_loads(line, 0, NULL);
		if (rec && !strcmp(json_string_value(json_object_get(rec, "type")) ?: "", "stop")) {
			json_decref(found);
			found = rec;
		} else {
			json_decref(rec);
		}
		line = nl ? nl + 1 : NULL;
	}
	free(text);
	return found;
}

/*
 * Adaptive iterations {"min": 2, "max": 5}: the stop rule is asked after each
 * complete round from the 2nd; decided after 3 the run stops there (the rounds
 * left are never run, the stop record says why, resume runs nothing); never
 * decided, it runs 5 rounds and says the maximum was reached.
 */
static void test_engine__adaptive_rounds_stop_when_decided(void **state)
{
	struct fixture_run f;
	struct il_err err = { 0 };
	struct il_run_opts o = { 0 };
	struct judge_ctx j = { .decide_at = 3 };
	struct tally t = { 0 };
	char plan[700], journal[700], *run_dir = NULL;
	json_t *stop;

	(void)state;
	setup_fixture(&f);
	tu_write(f.dir, "/adaptive.json",
		 "{\"name\":\"fx\",\"host\":\"local\",\"governors\":[\"teo\",\"menu\"],\"workloads\":[\"argc\"],"
		 "\"iterations\":{\"min\":2,\"max\":5},\"warmup\":1,\"min_sample_s\":0}");
	snprintf(plan, sizeof(plan), "%s/adaptive.json", f.dir);
	snprintf(journal, sizeof(journal), "%s/journal.jsonl", f.out);
	o.workloads_dir = f.wl;
	o.sysfs_root = f.root;
	o.judge = judge_stub;
	o.judge_ctx = &j;
	assert_int_equal(il_engine_start(plan, f.out, &o, &run_dir, &err), 0);
	free(run_dir);
	/* asked after rounds 2 and 3 (the warmup is not a round) */
	assert_int_equal(j.calls, 2);
	assert_int_equal(j.rounds_seen[0], 2);
	assert_int_equal(j.rounds_seen[1], 3);
	assert_int_equal(il_journal_each(journal, tally_rec, &t, NULL, &err), 0);
	assert_int_equal(t.ok, 6);
	assert_non_null(stop = stop_record(journal));
	assert_int_equal(json_integer_value(json_object_get(stop, "rounds")), 3);
	assert_string_equal(json_string_value(json_object_get(stop, "reason")), "decided");
	assert_string_equal(json_string_value(json_object_get(stop, "why")), "stub: 3 rounds");
	assert_int_equal(json_integer_value(json_object_get(stop, "skipped")), 4);
	json_decref(stop);
	/* resume: nothing left to run, nothing judged again */
	assert_int_equal(il_engine_resume(f.out, &o, &err), 0);
	assert_int_equal(j.calls, 2);
	{
		json_t *sum;

		assert_int_equal(il_run_summary(f.out, f.wl, NULL, &sum, &err), 0);
		assert_true(json_is_true(json_object_get(sum, "complete")));
		json_decref(sum);
	}
	tu_rmtree(f.out);
	/* never decided: every round, then the last judgement and "max" */
	j = (struct judge_ctx){ 0 };
	memset(&t, 0, sizeof(t));
	assert_int_equal(il_engine_start(plan, f.out, &o, &run_dir, &err), 0);
	free(run_dir);
	assert_int_equal(j.calls, 4); /* after rounds 2, 3, 4 and 5 */
	assert_int_equal(il_journal_each(journal, tally_rec, &t, NULL, &err), 0);
	assert_int_equal(t.ok, 10);
	assert_non_null(stop = stop_record(journal));
	assert_int_equal(json_integer_value(json_object_get(stop, "rounds")), 5);
	assert_string_equal(json_string_value(json_object_get(stop, "reason")), "max");
	assert_int_equal(json_integer_value(json_object_get(stop, "skipped")), 0);
	json_decref(stop);
	tu_rmtree(f.out);
	/* futile at round 2: the stop record says so */
	j = (struct judge_ctx){ .futile_at = 2 };
	assert_int_equal(il_engine_start(plan, f.out, &o, &run_dir, &err), 0);
	free(run_dir);
	assert_non_null(stop = stop_record(journal));
	assert_int_equal(json_integer_value(json_object_get(stop, "rounds")), 2);
	assert_string_equal(json_string_value(json_object_get(stop, "reason")), "futile");
	json_decref(stop);
	tu_rmtree(f.out);
	/* a step of 2: looked at after rounds 2 and 4, then the last judgement at 5; the record keeps the step */
	j = (struct judge_ctx){ 0 };
	tu_write(f.dir, "/stepped.json",
		 "{\"name\":\"fx\",\"host\":\"local\",\"governors\":[\"teo\",\"menu\"],\"workloads\":[\"argc\"],"
		 "\"iterations\":{\"min\":2,\"max\":5,\"step\":2},\"min_sample_s\":0}");
	snprintf(plan, sizeof(plan), "%s/stepped.json", f.dir);
	assert_int_equal(il_engine_start(plan, f.out, &o, &run_dir, &err), 0);
	free(run_dir);
	assert_int_equal(j.calls, 3);
	assert_int_equal(j.rounds_seen[0], 2);
	assert_int_equal(j.rounds_seen[1], 4);
	assert_int_equal(j.rounds_seen[2], 5);
	{
		char *copy = tu_read(journal, NULL);

		assert_non_null(strstr(copy, "\"adaptive\":{\"min\":2,\"max\":5,\"step\":2}"));
		free(copy);
	}
	tu_rmtree(f.out);
	/* --until-decided makes a fixed plan adaptive: the plan's 3 iterations the first look */
	j = (struct judge_ctx){ .decide_at = 3 };
	o.until_decided = 6;
	snprintf(plan, sizeof(plan), "%s/plan.json", f.dir);
	assert_int_equal(il_engine_start(plan, f.out, &o, &run_dir, &err), 0);
	free(run_dir);
	assert_int_equal(j.calls, 1);
	{
		char *copy = tu_read(journal, NULL);

		assert_non_null(strstr(copy, "\"adaptive\":{\"min\":3,\"max\":6}"));
		free(copy);
	}
	teardown_fixture(&f);
}

static void test_engine__host_validation(void **state)
{
	struct fixture_run f;
	struct il_err err = { 0 };
	struct il_run_opts o = { 0 };
	char plan[700];
	char *run_dir = NULL;

	(void)state;
	setup_fixture(&f);
	o.workloads_dir = f.wl;
	o.sysfs_root = f.root;
	snprintf(plan, sizeof(plan), "%s/bad-gov.json", f.dir);
	tu_write(f.dir, "/bad-gov.json", "{\"name\":\"b\",\"host\":\"local\",\"governors\":[\"haltpoll\"],\"workloads\":[\"argc\"]}");
	assert_int_equal(il_engine_start(plan, NULL, &o, &run_dir, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "no governor 'haltpoll' (available: ladder menu teo)"));
	if (run_dir)
		tu_rmtree(run_dir);
	free(run_dir);
	snprintf(plan, sizeof(plan), "%s/bad-state.json", f.dir);
	tu_write(f.dir, "/bad-state.json", "{\"name\":\"b\",\"host\":\"local\",\"governors\":[{\"governor\":\"teo\","
					   "\"disable\":[\"C6\"]}],\"workloads\":[\"argc\"]}");
	assert_int_equal(il_engine_start(plan, f.out, &o, &run_dir, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "has no idle state 'C6'"));
	free(run_dir);
	teardown_fixture(&f);
}

/* The plan's limits reach the sample stage: a sample that breaks one is invalid with the reason, and retried. */
static int collect_invalid(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct il_strlist *reasons = ctx;

	(void)line, (void)err;
	if (strcmp(json_string_value(json_object_get(rec, "type")), "sample"))
		return 0;
	assert_string_equal(json_string_value(json_object_get(rec, "status")), "invalid");
	assert_true(json_is_null(json_object_get(rec, "idle")));
	return il_strlist_push(reasons, json_string_value(json_object_get(rec, "reason")));
}

static void test_engine__plan_limits_make_samples_invalid(void **state)
{
	static const struct {
		const char *limits, *reason;
	} cases[] = {
		/* the fixture tree's clocks stand still: 0 s of uptime, where 1 s is the default with that clock */
		{ "", "the sample lasted 0.000 s, less than min_sample_s 1 s (uptime clock)" },
		/* and its counters too: 0 idle entries on the measured cpu1 */
		{ ",\"min_sample_s\":0,\"min_idles\":1,\"idle_cpus\":\"1\"",
		  "too few idle entries: 0 on cpus 1, fewer than min_idles 1" },
	};
	struct fixture_run f;
	struct il_err err = { 0 };
	struct il_run_opts o = { 0 };
	char plan[700], journal[700], text[400];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct il_strlist reasons = { 0 };
		char *run_dir = NULL;

		setup_fixture(&f);
		o.workloads_dir = f.wl;
		o.sysfs_root = f.root;
		snprintf(plan, sizeof(plan), "%s/limits.json", f.dir);
		snprintf(journal, sizeof(journal), "%s/journal.jsonl", f.out);
		snprintf(text, sizeof(text), "{\"name\":\"lim\",\"host\":\"local\",\"workloads\":[\"argc\"],\"iterations\":1,"
			 "\"retries\":1%s}", cases[i].limits);
		tu_write(f.dir, "/limits.json", text);
		assert_int_equal(il_engine_start(plan, f.out, &o, &run_dir, &err), 0);
		free(run_dir);
		assert_int_equal(il_journal_each(journal, collect_invalid, &reasons, NULL, &err), 0);
		/* tried twice (retries 1), invalid both times, for the same reason */
		assert_int_equal(reasons.n, 2);
		assert_string_equal(reasons.v[0], cases[i].reason);
		assert_string_equal(reasons.v[1], cases[i].reason);
		il_strlist_release(&reasons);
		teardown_fixture(&f);
	}
}

/* The journal schema is one list: writers cannot set a field of another kind, readers name the unknown. */
static void test_record__schema_one_list(void **state)
{
	json_t *rec = il_record_new(IL_REC_SAMPLE);
	struct il_err err = { 0 };
	char name[64];

	(void)state;
	assert_int_equal(il_record_kind_of(rec), IL_REC_SAMPLE);
	assert_int_equal(il_record_set(rec, IL_RF_SAMPLE_SEQ, json_integer(3)), 0);
	assert_int_equal(il_record_set(rec, IL_RF_ANY_TIME, json_string("t")), 0);
	/* a boot record's field is refused in a sample record, and nothing is set */
	assert_int_equal(il_record_set(rec, IL_RF_BOOT_STEPS, json_array()), IL_EINVAL);
	assert_null(json_object_get(rec, "steps"));
	assert_int_equal(il_record_check(rec, "j.jsonl", 4, &err), 0);
	json_object_set_new(rec, "colour", json_string("red"));
	assert_int_equal(il_record_check(rec, "j.jsonl", 4, &err), IL_EPARSE);
	assert_string_equal(err.msg, "j.jsonl:4: unknown field 'colour' in a sample record (written by another idlelab "
				     "version?)");
	json_decref(rec);
	/* a kind this version does not know is skipped by readers, not refused */
	rec = json_pack("{s:s,s:i}", "type", "calibration", "x", 1);
	assert_int_equal(il_record_kind_of(rec), IL_REC_ANY);
	assert_int_equal(il_record_check(rec, "j.jsonl", 5, &err), 0);
	json_decref(rec);
	assert_string_equal(il_record_kind_name(IL_REC_RUN_END), "run-end");
	assert_string_equal(il_rundir_sample_name(name, sizeof(name), 7, 2, true), "samples/7-2.err");
	assert_string_equal(il_rundir_name(IL_RUNDIR_JOURNAL), "journal.jsonl");
}

/* The journal's host kind comes from how the host was loaded, never from its name. */
static void test_lease__host_kind(void **state)
{
	char *dir = tu_tmpdir();
	struct il_paths paths = { 0 };
	struct il_host_cfg h;
	struct il_err err = { 0 };

	(void)state;
	paths.hosts_dir = dir;
	paths.cache_dir = dir;
	tu_write(dir, "/labvm-real.json", "{\"address\": \"127.0.0.1\"}");
	/* a running lab instance as lab.c leaves it: state.json in the cache's lab/run/NAME */
	tu_write(dir, "/lab/run/labvm/state.json", "{\"port\": 2222, \"identity\": \"/k\", \"known_hosts\": \"/kh\"}");
	assert_int_equal(il_lab_host_load(&h, &paths, "local", &err), 0);
	assert_string_equal(il_lab_host_kind(&h), "local");
	il_host_release(&h);
	/* named like a lab instance, but an SSH host of the inventory */
	assert_int_equal(il_lab_host_load(&h, &paths, "labvm-real", &err), 0);
	assert_string_equal(il_lab_host_kind(&h), "ssh");
	il_host_release(&h);
	/* the built-in lab host, loaded from its running instance */
	if (il_lab_host_load(&h, &paths, "labvm", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(h.port, 2222);
	assert_string_equal(il_lab_host_kind(&h), "lab");
	il_host_release(&h);
	/* a host file with "labvm" is the lab too, whatever its name */
	tu_write(dir, "/bench7.json", "{\"labvm\": \"labvm\"}");
	if (il_lab_host_load(&h, &paths, "bench7", &err))
		fail_msg("%s", err.msg);
	assert_string_equal(il_lab_host_kind(&h), "lab");
	il_host_release(&h);
	tu_rmtree(dir);
	free(dir);
}

/* The one retry policy (SSH and LAVA hosts alike): infrastructure failures spend the budget. */
static void test_tally__retry_policy(void **state)
{
	struct il_tally t;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_tally_init(&t, 4, &err), 0);
	assert_true(il_tally_attempt(&t, 0, "ok", false, 2));
	assert_true(il_tally_attempt(&t, 0, "warmup", true, 2));
	assert_true(il_tally_attempt(&t, 1, "workload_failed", false, 2));
	/* retries 1: one attempt more after the first failure, the second is final */
	assert_false(il_tally_attempt(&t, 2, "infra_failed", true, 1));
	assert_true(il_tally_attempt(&t, 2, "invalid", true, 1));
	assert_int_equal(t.failures[2], 2);
	assert_true(il_tally_attempt(&t, 3, "infra_failed", false, 5));
	assert_false(il_tally_attempt(&t, 3, "interrupted", false, 0));
	assert_int_equal(t.failures[3], 1);
	il_tally_release(&t);
}

/*
 * The sample script goes to the host as the argument of `sh -c` in one SSH
 * exec request, and dropbear (the lab's sshd) refuses a command over its
 * MAX_CMD_LEN of 9000 bytes: the script, quoted as sent, leaves 2000 bytes
 * for a sample's arguments (paths and values of state writes, the workload's argv).
 */
static void test_runner__sample_script_fits_dropbear(void **state)
{
	char *script = il_runner_sample_script();
	char *argv[] = { (char *)"sh", (char *)"-c", script, (char *)"idlelab", NULL };
	struct il_buf cmd = IL_BUF_INIT;

	(void)state;
	assert_non_null(script);
	assert_int_equal(il_quote_argv(&cmd, argv), 0);
	if (cmd.len > 9000 - 2000)
		fail_msg("the quoted sample script is %zu bytes: over dropbear's 9000-byte MAX_CMD_LEN less 2000 for "
			 "its arguments", cmd.len);
	il_buf_release(&cmd);
	free(script);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runner__sample_script_fits_dropbear),
		cmocka_unit_test(test_tally__retry_policy),
		cmocka_unit_test(test_plan__errors_name_the_path),
		cmocka_unit_test(test_plan__defaults_and_variants),
		cmocka_unit_test(test_plan__matrix_order),
		cmocka_unit_test(test_plan__adaptive_stages),
		cmocka_unit_test(test_plan__balanced_order),
		cmocka_unit_test(test_journal__append_reload_torn),
		cmocka_unit_test(test_record__schema_one_list),
		cmocka_unit_test(test_runner__frames),
		cmocka_unit_test(test_sample__frames_need_the_runners_exit),
		cmocka_unit_test(test_engine__fixture_run_interrupt_resume),
		cmocka_unit_test(test_engine__host_validation),
		cmocka_unit_test(test_engine__adaptive_rounds_stop_when_decided),
		cmocka_unit_test(test_lease__host_kind),
		cmocka_unit_test(test_engine__plan_limits_make_samples_invalid),
	};

	return cmocka_run_group_tests_name("run", tests, NULL, NULL);
}
