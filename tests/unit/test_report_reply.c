// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reply of idlelab try, parsed back with GMime: From, To, Subject "Re:",
 * In-Reply-To, References (root first, then the answered message), a
 * Message-ID and Date, the quoted line, and the very block tested-by prints.
 */
#include "testutil.h"

#include <gmime/gmime.h>
#include <stdio.h>
#include <string.h>

#include "report/reply.h"
#include "stats/dataset.h"

static void test_reply__compose(void **state)
{
	struct il_dataset ds = { 0 };
	struct il_cmp_opts co = IL_CMP_OPTS_INIT;
	struct il_cmp c = { 0 };
	struct il_strlist refs = { 0 };
	struct il_buf mail = IL_BUF_INIT, block = IL_BUF_INIT;
	struct il_tb_opts tb = { .as = "Tess Ter <tess@example.org>" };
	struct il_err err = { 0 };
	struct il_reply_opts o = { .from = "Tess Ter <tess@example.org>", .to = "a@b.org",
				   .subject = "[PATCH v2 0/2] cpuidle: teo: things", .in_reply_to = "cover@b.org",
				   .references = &refs, .quote = "This makes teo tick less.", .date = 1764662400 };
	GMimeStream *st;
	GMimeParser *p;
	GMimeMessage *m;
	char *text;

	(void)state;
	assert_int_equal(0, il_strlist_push(&refs, "root@b.org"));
	assert_int_equal(il_datajournal_add_run(&ds, tu_srcpath("tests/fixtures/journal/patched"), NULL, &err), 0);
	assert_int_equal(il_compare(&c, &ds, &co, &err), 0);
	assert_int_equal(il_reply_compose(&(struct il_reply_part){ NULL, &c }, 1, &o, &mail, &err), 0);
	assert_int_equal(il_testedby_report(&c, &tb, &block, &err), 0);
	st = g_mime_stream_mem_new_with_buffer(mail.p, mail.len);
	p = g_mime_parser_new_with_stream(st);
	assert_non_null(m = g_mime_parser_construct_message(p, NULL));
	assert_string_equal(g_mime_message_get_subject(m), "Re: [PATCH v2 0/2] cpuidle: teo: things");
	assert_string_equal(g_mime_object_get_header(GMIME_OBJECT(m), "In-Reply-To"), "<cover@b.org>");
	assert_string_equal(g_mime_object_get_header(GMIME_OBJECT(m), "References"), "<root@b.org> <cover@b.org>");
	assert_non_null(strstr(g_mime_message_get_message_id(m), "@example.org"));
	assert_non_null(g_mime_message_get_date(m));
	assert_int_equal(g_date_time_to_unix(g_mime_message_get_date(m)), 1764662400);
	text = internet_address_list_to_string(g_mime_message_get_from(m), NULL, FALSE);
	assert_string_equal(text, "Tess Ter <tess@example.org>");
	g_free(text);
	text = internet_address_list_to_string(g_mime_message_get_to(m), NULL, FALSE);
	assert_string_equal(text, "a@b.org");
	g_free(text);
	text = g_mime_text_part_get_text(GMIME_TEXT_PART(g_mime_message_get_mime_part(m)));
	assert_non_null(strstr(text, "\n> This makes teo tick less.\n"));
	assert_non_null(strstr(text, il_buf_str(&block)));
	assert_non_null(strstr(text, "Tested-by: Tess Ter <tess@example.org>"));
	g_free(text);
	g_object_unref(m);
	g_object_unref(p);
	g_object_unref(st);
	/*
	 * a thread whose ids are not all addr-spec (a Message-ID without '@', as some tools send): GMime would
	 * drop every id after it from References; the header is written whole, folded between ids
	 */
	{
		static const char *const ids[] = { "root@b.org", "noat", "v1-cover.1764662400.git.someone@long.example.org",
						   "v2-cover.1764662400.git.someone@long.example.org" };
		struct il_strlist many = { 0 };
		const char *h, *e;

		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
			assert_int_equal(0, il_strlist_push(&many, ids[i]));
		o.references = &many;
		il_buf_reset(&mail);
		assert_int_equal(il_reply_compose(&(struct il_reply_part){ NULL, &c }, 1, &o, &mail, &err), 0);
		assert_non_null(h = strstr(mail.p, "\nReferences: <root@b.org> <noat>"));
		e = strstr(h, "\n\n");
		assert_non_null(e);
		for (size_t i = 2; i < sizeof(ids) / sizeof(ids[0]); i++) {
			char want[128];

			snprintf(want, sizeof(want), "<%s>", ids[i]);
			assert_true(strstr(h, want) && strstr(h, want) < e);
		}
		assert_true(strstr(h, "<cover@b.org>") && strstr(h, "<cover@b.org>") < e);
		for (const char *l = h + 1; l < e; l = strchr(l, '\n') + 1)
			assert_true(strchr(l, '\n') - l <= 78);
		o.references = &refs;
		il_strlist_release(&many);
	}
	/* reply-all: the answered message's To and Cc in Cc, once each, less its author (To) and the sender */
	{
		struct il_strlist cc = { 0 };

		assert_int_equal(0, il_strlist_push(&cc, "linux-pm@vger.kernel.org"));
		assert_int_equal(0, il_strlist_push(&cc, "Au Thor <A@b.org>"));
		assert_int_equal(0, il_strlist_push(&cc, "Tess Ter <tess@example.org>"));
		assert_int_equal(0, il_strlist_push(&cc, "Linux PM <linux-pm@vger.kernel.org>"));
		assert_int_equal(0, il_strlist_push(&cc, "\"Intel: Jo\" <jo@example.org>"));
		o.cc = &cc;
		il_buf_reset(&mail);
		assert_int_equal(il_reply_compose(&(struct il_reply_part){ NULL, &c }, 1, &o, &mail, &err), 0);
		st = g_mime_stream_mem_new_with_buffer(mail.p, mail.len);
		p = g_mime_parser_new_with_stream(st);
		assert_non_null(m = g_mime_parser_construct_message(p, NULL));
		text = internet_address_list_to_string(g_mime_message_get_cc(m), NULL, FALSE);
		assert_string_equal(text, "linux-pm@vger.kernel.org, \"Intel: Jo\" <jo@example.org>");
		g_free(text);
		text = internet_address_list_to_string(g_mime_message_get_to(m), NULL, FALSE);
		assert_string_equal(text, "a@b.org");
		g_free(text);
		g_object_unref(m);
		g_object_unref(p);
		g_object_unref(st);
		o.cc = NULL;
		il_strlist_release(&cc);
	}
	/* a sender that is no mailbox is refused */
	o.from = "nobody";
	il_buf_reset(&mail);
	assert_int_not_equal(il_reply_compose(&(struct il_reply_part){ NULL, &c }, 1, &o, &mail, &err), 0);
	assert_non_null(strstr(err.msg, "'nobody'"));
	il_compare_release(&c);
	il_dataset_release(&ds);
	il_buf_release(&mail), il_buf_release(&block);
	il_strlist_release(&refs);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_reply__compose) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
