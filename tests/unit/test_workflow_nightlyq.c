// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The nightly's alert queue: a regression's alert is owed to the
 * destinations its verdict record names until a delivery record says each
 * one took it; failed attempts change nothing, a verdict journaled again for
 * the same run (a resumed night) replaces the promise, delivery records of
 * other runs or of destinations not owed are ignored.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "workflow/nightlyq.h"

static json_t *records(const char *text)
{
	json_error_t je;
	json_t *a = json_loads(text, 0, &je);

	if (!a)
		fail_msg("fixture: %s (line %d)", je.text, je.line);
	return a;
}

static const char *owed_str(const json_t *e)
{
	static char buf[64];
	size_t i, n = 0;
	json_t *v;

	buf[0] = 0;
	json_array_foreach(json_object_get(e, "owed"), i, v)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "," : "", json_string_value(v));
	return buf;
}

static void test_nightlyq__owed(void **state)
{
	json_t *past = records(
		"[{\"type\":\"nightly-start\",\"run\":\"r/1\"},"
		" {\"type\":\"nightly\",\"run\":\"r/1\",\"verdict\":\"baseline\"},"
		" {\"type\":\"nightly\",\"run\":\"r/2\",\"commit\":\"c2\",\"time\":\"t2\",\"verdict\":\"regression\","
		"  \"alert\":{\"a\":2},\"owed\":[\"mail\",\"webhook\"]},"
		" {\"type\":\"nightly-alert\",\"run\":\"r/2\",\"destination\":\"mail\",\"delivered\":false,\"error\":\"down\"},"
		" {\"type\":\"nightly-alert\",\"run\":\"r/2\",\"destination\":\"webhook\",\"delivered\":true},"
		" {\"type\":\"nightly-alert\",\"run\":\"r/9\",\"destination\":\"mail\",\"delivered\":true},"
		" {\"type\":\"nightly\",\"run\":\"r/3\",\"commit\":\"c3\",\"verdict\":\"regression\",\"repeat\":true},"
		" {\"type\":\"nightly\",\"run\":\"r/4\",\"commit\":\"c4\",\"verdict\":\"regression\","
		"  \"alert\":{\"a\":4},\"owed\":[\"mail\"]},"
		" {\"type\":\"nightly\",\"run\":\"r/5\",\"commit\":\"c5\",\"verdict\":\"regression\","
		"  \"alert\":{\"a\":5},\"owed\":[]},"
		" {\"type\":\"nightly\",\"run\":\"r/6\",\"commit\":\"c6\",\"verdict\":\"regression\",\"owed\":[\"mail\"]},"
		" {\"type\":\"nightly\",\"run\":\"r/7\",\"commit\":\"c7\",\"verdict\":\"good\",\"owed\":[\"kcidb\",\"mail\"]},"
		" {\"type\":\"nightly\",\"run\":\"r/8\",\"commit\":\"c8\",\"verdict\":\"good\",\"owed\":[\"kcidb\"]},"
		" {\"type\":\"nightly-alert\",\"run\":\"r/8\",\"destination\":\"kcidb\",\"delivered\":true}]");
	json_t *q;

	(void)state;
	q = il_nightlyq_owed(past);
	assert_non_null(q);
	/*
	 * r/2's mail (its webhook went out), r/4's mail, r/7's KCIDB submission (a good night: its results, no
	 * alert, so not its mail); r/3 a repeat, r/5 owed nowhere, r/6 has no alert to send, r/8 was submitted
	 */
	assert_int_equal(json_array_size(q), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(q, 2), "run")), "r/7");
	assert_string_equal(owed_str(json_array_get(q, 2)), "kcidb");
	assert_true(il_nightlyq_owes(json_array_get(q, 2), IL_NIGHTLY_KCIDB));
	assert_null(json_object_get(json_array_get(q, 2), "alert"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(q, 2), "record"), "verdict")),
			    "good");
	assert_string_equal(json_string_value(json_object_get(json_array_get(q, 0), "run")), "r/2");
	assert_string_equal(owed_str(json_array_get(q, 0)), "mail");
	assert_true(il_nightlyq_owes(json_array_get(q, 0), IL_NIGHTLY_MAIL));
	assert_false(il_nightlyq_owes(json_array_get(q, 0), IL_NIGHTLY_WEBHOOK));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_array_get(q, 0), "alert"), "a")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(q, 0), "time")), "t2");
	assert_string_equal(json_string_value(json_object_get(json_array_get(q, 1), "run")), "r/4");
	json_decref(q);

	/* r/2's mail delivered at last: only r/4 is left; delivering it twice changes nothing */
	json_array_append_new(past, json_pack("{s:s,s:s,s:s,s:b}", "type", "nightly-alert", "run", "r/2", "destination",
					      "mail", "delivered", 1));
	json_array_append_new(past, json_pack("{s:s,s:s,s:s,s:b}", "type", "nightly-alert", "run", "r/2", "destination",
					      "mail", "delivered", 1));
	json_array_append_new(past, json_pack("{s:s,s:s,s:s,s:b}", "type", "nightly-alert", "run", "r/7", "destination",
					      "kcidb", "delivered", 1));
	q = il_nightlyq_owed(past);
	assert_int_equal(json_array_size(q), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(q, 0), "run")), "r/4");
	json_decref(q);

	/* r/4 journaled again (a resumed night): its new promise replaces the old one, in its place in time */
	json_array_append_new(past, json_pack("{s:s,s:s,s:s,s:{s:i},s:[s,s]}", "type", "nightly", "run", "r/4",
					      "verdict", "regression", "alert", "a", 44, "owed", "mail", "webhook"));
	q = il_nightlyq_owed(past);
	assert_int_equal(json_array_size(q), 1);
	assert_string_equal(owed_str(json_array_get(q, 0)), "mail,webhook");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_array_get(q, 0), "alert"), "a")), 44);
	json_decref(q);
	json_decref(past);
}

static void test_nightlyq__delivery_record(void **state)
{
	json_t *e = json_pack("{s:s,s:s}", "run", "/r/20261202-nightly-nt-abc", "commit", "abc");
	json_t *ok = il_nightlyq_delivery("nt", "fb", e, IL_NIGHTLY_WEBHOOK, NULL);
	json_t *no = il_nightlyq_delivery("nt", "fb", e, IL_NIGHTLY_MAIL, "mail via smtp://h:25/: refused");

	(void)state;
	assert_string_equal(json_string_value(json_object_get(ok, "type")), "nightly-alert");
	assert_string_equal(json_string_value(json_object_get(ok, "destination")), "webhook");
	assert_true(json_is_true(json_object_get(ok, "delivered")));
	assert_null(json_object_get(ok, "error"));
	assert_string_equal(json_string_value(json_object_get(ok, "run")), "/r/20261202-nightly-nt-abc");
	assert_true(json_is_false(json_object_get(no, "delivered")));
	assert_string_equal(json_string_value(json_object_get(no, "error")), "mail via smtp://h:25/: refused");
	assert_string_equal(il_nightly_dest_name(IL_NIGHTLY_MAIL), "mail");
	assert_string_equal(il_nightly_dest_name(IL_NIGHTLY_NDESTS), "?");
	json_decref(ok), json_decref(no), json_decref(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nightlyq__owed),
		cmocka_unit_test(test_nightlyq__delivery_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
