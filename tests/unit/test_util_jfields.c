// SPDX-License-Identifier: GPL-2.0-or-later
/* util/jfields: the one config validator — types, ranges, required, unknown keys, storing. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "util/jfields.h"
#include "util/strlist.h"

struct cfg {
	char *name;
	int port;
	long long big;
	double ratio;
	bool on;
	struct il_strlist words;
	const json_t *sub;
};

static const struct il_jfield fields[] = {
	{ .key = "name", .type = IL_JF_STRING, .required = true, .what = "a host name", .store = true,
	  .off = offsetof(struct cfg, name) },
	IL_JF_RANGE("port", IL_JF_INT, 1, 65535, struct cfg, port),
	IL_JF_AT("big", IL_JF_INT64, struct cfg, big),
	IL_JF_RANGE("ratio", IL_JF_NUMBER, 0, 1, struct cfg, ratio),
	IL_JF_AT("on", IL_JF_BOOL, struct cfg, on),
	IL_JF_AT("words", IL_JF_STRINGS, struct cfg, words),
	IL_JF_AT("sub", IL_JF_OBJECT, struct cfg, sub),
	IL_JF("note", IL_JF_ANY),
};

static int read_text(const char *text, struct cfg *c, const char *path, struct il_err *err)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	int r;

	assert_non_null(j);
	r = il_jfields_read(j, fields, IL_JF_COUNT(fields), c, "x.json", path, err);
	json_decref(j);
	return r;
}

static void release(struct cfg *c)
{
	free(c->name);
	il_strlist_release(&c->words);
	memset(c, 0, sizeof(*c));
}

static void test_util_jfields__stores_valid_fields(void **state)
{
	struct cfg c = { .port = 22 };
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(read_text("{\"name\": \"a\", \"big\": 9007199254740993, \"ratio\": 0.5, \"on\": true,"
				   " \"words\": [\"x\", \"y\"], \"note\": [1], \"port\": null}", &c, NULL, &err), 0);
	assert_string_equal(c.name, "a");
	assert_int_equal(c.port, 22); /* null counts as absent: the default stays */
	assert_true(c.big == 9007199254740993LL);
	assert_true(c.ratio == 0.5);
	assert_true(c.on);
	assert_int_equal(c.words.n, 2);
	assert_string_equal(c.words.v[1], "y");
	assert_null(c.sub); /* sub was not stored because it was absent; the json_t borrowed otherwise */
	release(&c);
}

static void test_util_jfields__one_message_shape(void **state)
{
	static const struct {
		const char *text, *path, *msg;
	} cases[] = {
		{ "[1]", NULL, "x.json: (top level): expected an object" },
		{ "{\"port\": 1}", NULL, "x.json: name: expected a host name (required)" },
		{ "{\"name\": \"\"}", NULL, "x.json: name: expected a host name" },
		{ "{\"name\": \"a\", \"port\": 0}", NULL, "x.json: port: expected an integer from 1 to 65535" },
		{ "{\"name\": \"a\", \"port\": 2.5}", NULL, "x.json: port: expected an integer from 1 to 65535" },
		{ "{\"name\": \"a\", \"ratio\": 2}", "hosts[3]", "x.json: hosts[3].ratio: expected a number from 0 to 1" },
		{ "{\"name\": \"a\", \"on\": 1}", NULL, "x.json: on: expected true or false" },
		{ "{\"name\": \"a\", \"words\": [\"x\", 3]}", NULL, "x.json: words: expected an array of non-empty strings" },
		{ "{\"name\": \"a\", \"sub\": []}", "a.b", "x.json: a.b.sub: expected an object" },
		{ "{\"name\": \"a\", \"prot\": 22}", NULL,
		  "x.json: prot: unknown key (known: name, port, big, ratio, on, words, sub, note)" },
	};
	struct il_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cfg c = { 0 };

		memset(&err, 0, sizeof(err));
		assert_int_equal(read_text(cases[i].text, &c, cases[i].path, &err), IL_EPARSE);
		if (strcmp(err.msg, cases[i].msg))
			fail_msg("case %zu: '%s', expected '%s'", i, err.msg, cases[i].msg);
		release(&c);
	}
	assert_int_equal(il_jfields_bad(&err, "p.json", "workloads[2]", "params", "%d things", 3), IL_EPARSE);
	assert_string_equal(err.msg, "p.json: workloads[2].params: expected 3 things");
	il_jfields_bad(&err, "p.json", "", "governors", "a non-empty array");
	assert_string_equal(err.msg, "p.json: governors: expected a non-empty array");
}

static void test_util_jfields__string_with_nul_refused(void **state)
{
	json_t *j = json_pack("{s:s#}", "name", "a\0b", (size_t)3);
	struct cfg c = { 0 };
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_jfields_read(j, fields, IL_JF_COUNT(fields), &c, "x.json", NULL, &err), IL_EPARSE);
	assert_string_equal(err.msg, "x.json: name: expected a host name");
	json_decref(j);
	release(&c);
}

static void test_util_jfields__unknown_key_noun(void **state)
{
	json_t *j = json_pack("{s:s,s:i}", "name", "a", "colour", 1);
	struct cfg c = { 0 };
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_jfields_read_as(j, fields, 2, &c, "w.json", "params.x", "field", &err), IL_EPARSE);
	assert_string_equal(err.msg, "w.json: params.x.colour: unknown field (known: name, port)");
	json_decref(j);
	release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_jfields__stores_valid_fields),
		cmocka_unit_test(test_util_jfields__one_message_shape),
		cmocka_unit_test(test_util_jfields__string_with_nul_refused),
		cmocka_unit_test(test_util_jfields__unknown_key_noun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
