// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the alert input (docs/alerts.md), as `alert send` and a
 * nightly's owed alerts give it to il_alert_compose. An alert that composes
 * must also make a mail the SMTP rules accept (one-line subject, body lines
 * of at most 998 bytes, no control bytes): a nightly must never be left with
 * an alert it can compose but not send.
 */
#include <string.h>

#include "fuzz.h"
#include "report/alert.h"
#include "util/buf.h"
#include "util/mail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *in = fuzz_json(data, size), *hook = NULL;
	struct il_err err = { 0 };
	char *subject = NULL, *body = NULL;
	int r;

	if (!in)
		return 0;
	r = il_alert_compose(in, &subject, &body, &hook, &err);
	fuzz_check(r);
	if (!r) {
		struct il_strlist to = { 0 };
		struct il_buf mail = IL_BUF_INIT;
		struct il_mail m = { .url = "smtp://127.0.0.1:25/", .from = "nightly@example.org", .to = &to,
				     .subject = subject, .body = body };

		if (il_strlist_push(&to, "pm@example.org"))
			abort();
		if (!subject || !body || !hook || il_mail_compose(&m, true, &mail, &err))
			abort();
		il_strlist_release(&to);
		il_buf_release(&mail);
	}
	free(subject), free(body);
	json_decref(hook);
	json_decref(in);
	return 0;
}
