// SPDX-License-Identifier: GPL-2.0-or-later
/* C string helpers (util/str.c): copies, lines, names and the one sanitizer of shown text. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "util/str.h"

/* The one sanitizer: what a host, a repository or a server wrote never acts on a terminal. */
static void test_util_str__sanitize(void **state)
{
	char a[] = "ok\tx\033[2J\x9b\xc2\x9b\x7f\r\nend\xff\xc3\xa9";
	char b[] = "line\nnext";
	char c[] = "abc\xe2\x82"; /* a cut-short euro sign */
	char d[] = "z\xc2";
	char e[] = "\xe2\x82\xac";

	(void)state;
	/* ESC, a lone C1 byte, C1 U+009B in UTF-8, DEL, CR, an invalid byte: '?' each (the length stays); é stays */
	assert_string_equal(il_str_sanitize(a, false), "ok\tx?[2J??????end?\xc3\xa9");
	assert_string_equal(il_str_sanitize(b, true), "line\nnext");
	assert_string_equal(il_str_sanitize(b, false), "line?next");
	assert_null(il_str_sanitize(NULL, false));
	/* in pieces: a sequence cut by the end of a piece waits for the next one */
	assert_int_equal(il_str_sanitize_n(c, 5, false, true), 3);
	assert_int_equal(il_str_sanitize_n(c, 5, false, false), 5);
	assert_string_equal(c, "abc??");
	assert_int_equal(il_str_sanitize_n(d, 2, false, true), 1);
	assert_int_equal(il_str_sanitize_n(e, 3, false, true), 3);
	assert_string_equal(e, "\xe2\x82\xac");
	/* NUL inside a piece is a control byte */
	{
		char f[] = { 'a', 0, 'b' };

		assert_int_equal(il_str_sanitize_n(f, 3, false, false), 3);
		assert_memory_equal(f, "a?b", 3);
	}
}

static void test_util_str__names(void **state)
{
	(void)state;
	assert_true(il_str_name_ok("teo-2.x_y", "-_.", 64));
	assert_false(il_str_name_ok("", "-_.", 64));
	assert_false(il_str_name_ok("a b", "-_.", 64));
	assert_false(il_str_name_ok("menu;reboot", "-_.", 64));
	assert_false(il_str_name_ok("a+b", "-_.", 64));
	assert_true(il_str_name_ok("a+b", "+", 64));
	assert_false(il_str_name_ok("abcdefghijklmnop", "", 15));
}

static void test_util_str__copies(void **state)
{
	char *p = il_str_dup_printf("cpu%d idle %.3f s of %s", 3, 1.25, "1 s"), *e = il_str_dup_printf("%s", "");
	char *n = il_str_ndup("abcdef", 3);
	char small[4], fits[8];

	(void)state;
	assert_string_equal(p, "cpu3 idle 1.250 s of 1 s");
	assert_string_equal(e, "");
	assert_string_equal(n, "abc");
	/* a bounded copy: always terminated, false when cut */
	assert_false(il_str_lcpy(small, "abcdef", sizeof(small)));
	assert_string_equal(small, "abc");
	assert_true(il_str_lcpy(fits, "abcdef", sizeof(fits)));
	assert_string_equal(fits, "abcdef");
	assert_false(il_str_lcpy(fits, "x", 0));
	assert_string_equal(fits, "abcdef");
	IL_FREE_ALL(p, e, n, NULL);
}

/* Lines of a text: without their newline, the last one whether or not it has one. */
static void test_util_str__next_line(void **state)
{
	static const char text[] = "one\n\nthree";
	const char *p = text, *end = text + strlen(text), *line;
	size_t n;

	(void)state;
	assert_true(il_str_next_line(&p, end, &line, &n));
	assert_int_equal(n, 3);
	assert_memory_equal(line, "one", 3);
	assert_true(il_str_next_line(&p, end, &line, &n));
	assert_int_equal(n, 0);
	assert_true(il_str_next_line(&p, end, &line, &n));
	assert_int_equal(n, 5);
	assert_memory_equal(line, "three", 5);
	assert_false(il_str_next_line(&p, end, &line, &n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_str__sanitize),
		cmocka_unit_test(test_util_str__names),
		cmocka_unit_test(test_util_str__copies),
		cmocka_unit_test(test_util_str__next_line),
	};

	return cmocka_run_group_tests_name("util_str", tests, NULL, NULL);
}
