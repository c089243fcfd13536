// SPDX-License-Identifier: GPL-2.0-or-later
/* The nightly's alert queue: what is owed to which destination (see nightlyq.h). */
#include "workflow/nightlyq.h"

#include <stdlib.h>
#include <string.h>

#include "run/journal.h"
#include "workflow/nightly.h"
#include "util/buf.h"
#include "util/jfields.h"
#include "util/clock.h"

static const char *const dest_names[IL_NIGHTLY_NDESTS] = {
	[IL_NIGHTLY_MAIL] = "mail",
	[IL_NIGHTLY_WEBHOOK] = "webhook",
	[IL_NIGHTLY_KCIDB] = "kcidb",
};

const char *il_nightly_dest_name(enum il_nightly_dest d)
{
	return d < IL_NIGHTLY_NDESTS ? dest_names[d] : "?";
}

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The entry of run in q (an array of owed entries), or NULL. */
static json_t *entry_of(json_t *q, const char *run)
{
	return il_jfields_find(q, "run", run);
}

static void remove_entry(json_t *q, const json_t *e)
{
	size_t i;
	json_t *x;

	json_array_foreach(q, i, x)
		if (x == e) {
			json_array_remove(q, i);
			return;
		}
}

static void drop_dest(json_t *owed, const char *dest)
{
	for (size_t i = json_array_size(owed); i-- > 0;)
		if (!strcmp(json_string_value(json_array_get(owed, i)) ?: "", dest))
			json_array_remove(owed, i);
}

json_t *il_nightlyq_owed(const json_t *past)
{
	json_t *q = json_array(), *rec, *e;
	size_t i;

	if (!q)
		return NULL;
	json_array_foreach(past, i, rec) {
		const char *type = str(rec, "type"), *run = str(rec, "run");

		if (!type || !run)
			continue;
		if (!strcmp(type, "nightly")) {
			const json_t *owed = json_object_get(rec, "owed");
			json_t *list = json_array(), *d;
			int bad = !list;
			size_t k;

			/* a verdict journaled again for the same run (a resumed night) replaces the promise */
			if ((e = entry_of(q, run)))
				remove_entry(q, e);
			/* mail and webhook send the alert: without one (not a new regression) they have nothing to send */
			json_array_foreach(owed, k, d)
				if (!bad && json_is_string(d) &&
				    (json_is_object(json_object_get(rec, "alert")) ||
				     !strcmp(json_string_value(d), il_nightly_dest_name(IL_NIGHTLY_KCIDB))))
					bad = json_array_append(list, d);
			/* a destination left out would never be tried again: no queue rather than a short one */
			if (bad) {
				json_decref(list);
				json_decref(q);
				return NULL;
			}
			if (!json_array_size(list)) {
				json_decref(list);
				continue;
			}
			/* the alert goes with a regression's entry; KCIDB's document is made from the record */
			e = json_pack("{s:s,s:s?,s:s?,s:O*,s:O,s:o}", "run", run, "commit", str(rec, "commit"), "time",
				      str(rec, "time"), "alert", json_object_get(rec, "alert"), "record", rec, "owed", list);
			if (!e || json_array_append_new(q, e)) {
				json_decref(q);
				return NULL;
			}
		} else if (!strcmp(type, "nightly-alert") && json_is_true(json_object_get(rec, "delivered")) &&
			   str(rec, "destination") && (e = entry_of(q, run))) {
			drop_dest(json_object_get(e, "owed"), str(rec, "destination"));
			if (!json_array_size(json_object_get(e, "owed")))
				remove_entry(q, e);
		}
	}
	return q;
}

bool il_nightlyq_owes(const json_t *e, enum il_nightly_dest d)
{
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(e, "owed"), i, v)
		if (!strcmp(json_string_value(v) ?: "", il_nightly_dest_name(d)))
			return true;
	return false;
}

json_t *il_nightlyq_delivery(const char *plan, const char *host, const json_t *e, enum il_nightly_dest d, const char *why)
{
	char iso[40];
	json_t *rec;

	il_clock_iso_now(iso, sizeof(iso));
	rec = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s?,s:s,s:b}", "type", "nightly-alert", "time", iso, "plan", plan, "host",
			host, "run", str(e, "run"), "commit", str(e, "commit"), "destination", il_nightly_dest_name(d),
			"delivered", !why);
	if (rec && why && json_object_set_new(rec, "error", json_string(why))) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

/* ---- a delivery attempt, journaled the instant its outcome is known (nightly.h) ---- */

int il_nightly_delivery_begin(const struct il_nightly_opts *o, const struct il_nightly_result *res, const json_t *e,
			      enum il_nightly_dest d, struct il_nightly_delivery *dv, struct il_err *err)
{
	struct il_buf jp = IL_BUF_INIT;
	json_t *rec = il_nightlyq_delivery(res->plan, res->host, e, d, NULL);
	int r;

	*dv = (struct il_nightly_delivery){ .j = { .fd = -1 }, .res = res, .owed = e, .d = d };
	il_buf_printf(&jp, "%s/nightly.jsonl", o->dir);
	if (!rec || il_buf_error(&jp) || !(dv->line = il_journal_line(rec)))
		r = il_err_oom(err);
	else
		r = il_journal_open(&dv->j, jp.p, err);
	json_decref(rec);
	il_buf_release(&jp);
	return r;
}

int il_nightly_delivery_done(struct il_nightly_delivery *dv, const char *why, struct il_err *err)
{
	json_t *rec;
	int r;

	if (dv->j.fd < 0)
		return il_err_set(err, IL_EINVAL, "the nightly journal is not open for the delivery record");
	if (!why)
		return il_journal_append_line(&dv->j, dv->line, err);
	if (!(rec = il_nightlyq_delivery(dv->res->plan, dv->res->host, dv->owed, dv->d, why)))
		return il_err_oom(err);
	r = il_journal_append(&dv->j, rec, err);
	json_decref(rec);
	return r;
}

void il_nightly_delivery_end(struct il_nightly_delivery *dv)
{
	if (dv->j.fd >= 0)
		il_journal_close(&dv->j);
	free(dv->line);
	dv->line = NULL;
}
