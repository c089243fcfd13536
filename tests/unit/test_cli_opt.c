// SPDX-License-Identifier: GPL-2.0-or-later
/* The option parser: numbers checked to the end, options of one action, the table as JSON. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/opt.h"
#include "testutil.h"

static const char *const usage[] = { "idlelab lab up [--table TABLE]", "idlelab lab down|status", NULL };

struct vals {
	const char *table, *src;
	bool json, quiet;
	long cpus;
	double alpha, pct;
};

/* parse the words (argv[0] is the command) against a lab-like table */
static int parse(struct vals *v, int *nargs, char **words, int n)
{
	const struct il_opt opts[] = {
		IL_OPT_STR_FOR("up", 0, "table", &v->table, "TABLE", "up: idle table"),
		IL_OPT_BOOL_FOR("up,status", 0, "json", &v->json, "JSON output (up, status)"),
		IL_OPT_NUM_FOR("build,up", 0, "cpus", &v->cpus, "N", "guest CPUs"),
		IL_OPT_BOOL('q', "quiet", &v->quiet, "no progress"),
		IL_OPT_STR(0, "source", &v->src, "DIR", "source tree"),
		IL_OPT_DBL(0, "alpha", &v->alpha, "A", "significance"),
		IL_OPT_PCT(0, "min-change", &v->pct, "PCT", "smallest change"),
		IL_OPT_END_,
	};
	char *argv[16];
	FILE *keep = stderr;
	int r;

	for (int i = 0; i < n; i++)
		argv[i] = words[i];
	argv[n] = NULL;
	/* the parser prints its usage errors: not into the test's output */
	stderr = fopen("/dev/null", "w");
	r = il_opt_parse(n, argv, opts, usage, nargs);
	fclose(stderr);
	stderr = keep;
	if (!r)
		for (int i = 0; i <= *nargs; i++)
			words[i] = argv[i];
	return r;
}

/* PARSE(v, nargs, WORD...): the words after "lab" */
#define PARSE(v, nargs, ...) parse_words((v), (nargs), __VA_ARGS__, (char *)NULL)

static int parse_words(struct vals *v, int *nargs, ...)
{
	char *w[16] = { "lab" };
	int n = 1;
	va_list ap;

	va_start(ap, nargs);
	while (n < 15 && (w[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	return parse(v, nargs, w, n);
}

static void test_cli_opt__actions(void **state)
{
	struct vals v = { 0 };
	int n = 0;

	(void)state;
	/* an option of the action given, before or after the action word */
	assert_int_equal(PARSE(&v, &n, "up", "--table", "pseries"), IL_OPT_OK);
	assert_int_equal(n, 1);
	assert_string_equal(v.table, "pseries");
	assert_int_equal(PARSE(&v, &n, "--json", "status"), IL_OPT_OK);
	assert_true(v.json);
	assert_int_equal(PARSE(&v, &n, "--cpus=4", "build"), IL_OPT_OK);
	assert_int_equal(v.cpus, 4);
	/* with another action: a usage error from the parser itself */
	assert_int_equal(PARSE(&v, &n, "down", "--table", "pseries"), IL_OPT_ERROR);
	assert_int_equal(PARSE(&v, &n, "--json", "down"), IL_OPT_ERROR);
	assert_int_equal(PARSE(&v, &n, "status", "--cpus", "2"), IL_OPT_ERROR);
	/* an action whose name is a prefix of a listed one is another action */
	assert_int_equal(PARSE(&v, &n, "stat", "--json"), IL_OPT_ERROR);
	/* options of every action go anywhere; no action at all is the command's to say */
	assert_int_equal(PARSE(&v, &n, "down", "-q", "--source", "."), IL_OPT_OK);
	assert_int_equal(PARSE(&v, &n, "--table", "x"), IL_OPT_OK);
	assert_int_equal(n, 0);
	/* after "--" an option-like word is an argument, not an option of the action */
	assert_int_equal(PARSE(&v, &n, "down", "--", "--table"), IL_OPT_OK);
	assert_int_equal(n, 2);
}

static void test_cli_opt__numbers_to_the_end(void **state)
{
	struct vals v = { .alpha = NAN, .pct = NAN };
	int n = 0;

	(void)state;
	assert_int_equal(PARSE(&v, &n, "up", "--alpha", "0.01"), IL_OPT_OK);
	assert_true(v.alpha == 0.01);
	assert_int_equal(PARSE(&v, &n, "up", "--alpha", "0.05abc"), IL_OPT_ERROR);
	assert_int_equal(PARSE(&v, &n, "up", "--alpha", "nan"), IL_OPT_ERROR);
	assert_int_equal(PARSE(&v, &n, "up", "--alpha", ""), IL_OPT_ERROR);
	assert_int_equal(PARSE(&v, &n, "up", "--min-change", "2.5%"), IL_OPT_OK);
	assert_true(v.pct == 2.5);
	assert_int_equal(PARSE(&v, &n, "up", "--min-change", "2.5"), IL_OPT_OK);
	assert_int_equal(PARSE(&v, &n, "up", "--min-change", "2.5%%"), IL_OPT_ERROR);
	assert_int_equal(PARSE(&v, &n, "up", "--cpus", "4x"), IL_OPT_ERROR);
}

/* --dump-options: every kind has its name (the man pages and the completion read them), actions said */
static void test_cli_opt__dump(void **state)
{
	struct vals v = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *keep = stdout, *m = open_memstream(&buf, &len);
	json_error_t je;
	json_t *j, *o;
	size_t i;
	int n = 0;

	(void)state;
	assert_non_null(m);
	stdout = m;
	assert_int_equal(PARSE(&v, &n, "--dump-options"), IL_OPT_HELP);
	stdout = keep;
	fclose(m);
	assert_non_null(j = json_loads(buf, 0, &je));
	assert_int_equal(json_array_size(json_object_get(j, "options")), 7);
	json_array_foreach(json_object_get(j, "options"), i, o) {
		const char *k = json_string_value(json_object_get(o, "kind")), *l = json_string_value(json_object_get(o, "long"));

		assert_non_null(k);
		if (!strcmp(l, "alpha"))
			assert_string_equal(k, "number");
		else if (!strcmp(l, "min-change"))
			assert_string_equal(k, "percent");
		else if (!strcmp(l, "json"))
			assert_string_equal(json_string_value(json_object_get(o, "actions")), "up,status");
		else if (!strcmp(l, "source"))
			assert_null(json_object_get(o, "actions"));
	}
	json_decref(j);
	free(buf);
}

/* the table as JSON whole or (jansson out of memory) IL_ENOMEM and nothing printed, never a key short */
static void test_cli_opt__dump_out_of_memory(void **state)
{
	const char *table = NULL;
	bool json = false;
	const struct il_opt opts[] = {
		IL_OPT_STR_FOR("up", 0, "table", &table, "TABLE", "up: idle table"),
		IL_OPT_BOOL('j', "json", &json, "JSON output"),
		IL_OPT_END_,
	};
	char *whole = NULL;
	size_t wlen = 0;
	FILE *m = open_memstream(&whole, &wlen);
	long n = 0;

	(void)state;
	assert_non_null(m);
	assert_int_equal(il_opt_dump(m, opts, usage), 0);
	fclose(m);
	assert_non_null(strstr(whole, "\"long\":\"table\""));
	assert_non_null(strstr(whole, "\"short\":\"j\""));
	for (bool hit = true; hit; n += tu_oom_stride()) {
		char *buf = NULL;
		size_t len = 0;
		int r;

		assert_non_null(m = open_memstream(&buf, &len));
		tu_json_oom(n);
		r = il_opt_dump(m, opts, usage);
		hit = tu_json_oom_end();
		fclose(m);
		if (r) {
			assert_int_equal(r, IL_ENOMEM);
			assert_true(hit);
			assert_int_equal(len, 0);
		} else
			assert_string_equal(buf, whole);
		free(buf);
	}
	assert_true(n > 10);
	free(whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_opt__actions),
		cmocka_unit_test(test_cli_opt__numbers_to_the_end),
		cmocka_unit_test(test_cli_opt__dump),
		cmocka_unit_test(test_cli_opt__dump_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
