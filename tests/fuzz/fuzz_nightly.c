// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: a runs directory's nightly.jsonl as a nightly reads it
 * before it decides anything: opened for appending (a torn last line cut),
 * read record by record, the alerts still owed worked out (workflow/nightlyq.h)
 * and each composed as it would be delivered. Whatever a crash, a full disk
 * or a hand edit left there is refused by name or used, never a crash.
 */
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"
#include "report/alert.h"
#include "run/journal.h"
#include "workflow/nightlyq.h"

static int collect(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	(void)line, (void)err;
	return json_array_append(ctx, rec) ? IL_ENOMEM : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path;
	struct il_journal j;
	struct il_err err = { 0 };
	json_t *past = json_array(), *owed, *e;
	size_t i;
	int r;

	fuzz_scratch("nightly.jsonl", data, size, &path);
	if (!past)
		abort();
	if (il_journal_open(&j, path, &err))
		abort();
	il_journal_close(&j);
	r = il_journal_each(path, collect, past, NULL, &err);
	fuzz_check(r);
	if (!r && (owed = il_nightlyq_owed(past))) {
		json_array_foreach(owed, i, e) {
			char *subject = NULL, *body = NULL;
			json_t *d = il_nightlyq_delivery("p", "h", e, IL_NIGHTLY_MAIL, NULL);

			fuzz_check(il_alert_compose(json_object_get(e, "alert"), &subject, &body, NULL, &err));
			free(subject), free(body);
			json_decref(d);
		}
		json_decref(owed);
	}
	json_decref(past);
	return 0;
}
