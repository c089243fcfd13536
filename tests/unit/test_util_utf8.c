// SPDX-License-Identifier: GPL-2.0-or-later
/* UTF-8 sequences (util/utf8.c): what is valid, and text made valid. */
#include "testutil.h"

#include "util/buf.h"
#include "util/utf8.h"

/* Each byte that does not start valid UTF-8 becomes U+FFFD; valid text is kept as it is. */
static void test_util_utf8__add(void **state)
{
	static const char *const cases[][2] = {
		{ "caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80" },
		{ "a\xff" "b\xc3", "a\xef\xbf\xbd" "b\xef\xbf\xbd" },
		/* an overlong '/', a surrogate, past U+10FFFF: every byte of them */
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct il_buf b = IL_BUF_INIT;

		assert_int_equal(il_utf8_add(&b, cases[i][0]), 0);
		assert_string_equal(il_buf_str(&b), cases[i][1]);
		il_buf_release(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util_utf8__add),
	};

	return cmocka_run_group_tests_name("util_utf8", tests, NULL, NULL);
}
