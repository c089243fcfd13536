// SPDX-License-Identifier: GPL-2.0-or-later
/* A bisection's journal and its setup record (see bisectjournal.h). */
#include "workflow/bisectjournal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/buf.h"

static const char *type_of(const json_t *rec)
{
	return json_string_value(json_object_get(rec, "type")) ?: "";
}

json_t *il_bisect_journal_commit(struct il_bisect_journal *bj, const char *c)
{
	json_t *e = json_object_get(bj->commits, c);

	if (!e && json_object_set_new(bj->commits, c, e = json_pack("{s:[]}", "rounds")))
		return NULL;
	return e;
}

static int on_record(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct il_bisect_journal *bj = ctx;
	const char *type = type_of(rec);
	const char *c = json_string_value(json_object_get(rec, "commit"));
	int bad = 0;

	(void)line;
	if (!strcmp(type, "setup")) {
		json_decref(bj->setup);
		bj->setup = json_incref(rec);
	} else if (c && !strcmp(type, "round")) {
		bad = json_array_append(json_object_get(il_bisect_journal_commit(bj, c), "rounds"), rec);
	} else if (c && !strcmp(type, "verdict")) {
		bad = json_object_set(il_bisect_journal_commit(bj, c), "verdict", rec);
	}
	return bad ? il_err_oom(err) : 0;
}

int il_bisect_journal_open(struct il_bisect_journal *bj, const char *dir, struct il_err *err)
{
	struct il_buf p = IL_BUF_INIT;
	int r;

	*bj = (struct il_bisect_journal)IL_BISECT_JOURNAL_INIT;
	if (!(bj->commits = json_object()) || il_buf_printf(&p, "%s/bisect.jsonl", dir)) {
		il_buf_release(&p);
		return il_err_oom(err);
	}
	/* opened first: a torn last line is cut before it is read */
	if (!(r = il_journal_open(&bj->j, p.p, err)))
		r = il_journal_each(p.p, on_record, bj, NULL, err);
	il_buf_release(&p);
	return r;
}

void il_bisect_journal_close(struct il_bisect_journal *bj)
{
	il_journal_close(&bj->j);
	json_decref(bj->commits), json_decref(bj->setup);
	bj->commits = bj->setup = NULL;
}

int il_bisect_journal_append(struct il_bisect_journal *bj, json_t *rec, struct il_err *err)
{
	int r;

	if (!rec || json_object_set_new(rec, "time", json_real((double)time(NULL)))) {
		json_decref(rec);
		return il_err_oom(err);
	}
	r = il_journal_append(&bj->j, rec, err);
	if (!r)
		r = on_record(rec, 0, bj, err);
	json_decref(rec);
	return r;
}

/* l as a JSON array; NULL when memory ran out (a setup record with a commit left out would bisect another range) */
static json_t *strings_json(const struct il_strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < l->n; i++)
		if (json_array_append_new(a, json_string(l->v[i]))) {
			json_decref(a);
			a = NULL;
		}
	return a;
}

json_t *il_bisect_setup_json(const struct il_bisect_opts *o)
{
	/* "o" steals both lists, also when the pack fails */
	return json_pack("{s:s,s:s,s:s,s:o,s:o,s:I,s:I,s:f,s:f,s:f}", "type", "setup", "good", o->good, "bad", o->bad,
			 "commits", strings_json(&o->commits), "metrics", strings_json(&o->metrics), "n0",
			 (json_int_t)o->n0, "max_n", (json_int_t)o->max_n, "alpha", o->alpha, "floor_pct", o->floor_pct,
			 "k", o->k);
}

int il_bisect_journal_setup(struct il_bisect_journal *bj, const struct il_bisect_opts *o, struct il_err *err)
{
	if (bj->setup) {
		const char *g = json_string_value(json_object_get(bj->setup, "good"));
		const char *b = json_string_value(json_object_get(bj->setup, "bad"));

		if (!g || !b || strcmp(g, o->good) || strcmp(b, o->bad))
			return il_err_set(err, IL_EINVAL, "%s/bisect.jsonl is a bisection of %.12s..%.12s, not %.12s..%.12s",
					  o->dir, g ? g : "?", b ? b : "?", o->good, o->bad);
		return 0;
	}
	return il_bisect_journal_append(bj, il_bisect_setup_json(o), err);
}

static int setup_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	json_t **out = ctx;

	(void)line, (void)err;
	if (!*out && !strcmp(type_of(rec), "setup"))
		*out = json_incref(rec);
	return 0;
}

int il_bisect_setup_read(const char *dir, json_t **setup, struct il_err *err)
{
	struct il_buf p = IL_BUF_INIT;
	int r;

	*setup = NULL;
	if (il_buf_printf(&p, "%s/bisect.jsonl", dir)) {
		il_buf_release(&p);
		return il_err_oom(err);
	}
	r = il_journal_each(p.p, setup_rec, setup, NULL, err);
	if (!r && !*setup)
		r = il_err_set(err, IL_EPARSE, "%s: no setup record (not a bisection's journal)", p.p);
	il_buf_release(&p);
	return r;
}

/* list += the strings of the array a */
static int strings_to(struct il_strlist *list, const json_t *a)
{
	const json_t *v;
	size_t i;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && il_strlist_push(list, json_string_value(v)))
			return IL_ENOMEM;
	return 0;
}

int il_bisect_setup_opts(const json_t *setup, struct il_bisect_opts *o, char *good, char *bad, struct il_err *err)
{
	snprintf(good, 41, "%s", json_string_value(json_object_get(setup, "good")) ?: "");
	snprintf(bad, 41, "%s", json_string_value(json_object_get(setup, "bad")) ?: "");
	if (strings_to(&o->commits, json_object_get(setup, "commits")) ||
	    strings_to(&o->metrics, json_object_get(setup, "metrics")))
		return il_err_oom(err);
	o->n0 = (size_t)json_integer_value(json_object_get(setup, "n0"));
	o->max_n = (size_t)json_integer_value(json_object_get(setup, "max_n"));
	o->alpha = json_number_value(json_object_get(setup, "alpha"));
	o->floor_pct = json_number_value(json_object_get(setup, "floor_pct"));
	o->k = json_number_value(json_object_get(setup, "k"));
	return 0;
}
