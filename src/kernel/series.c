// SPDX-License-Identifier: GPL-2.0-or-later
/* A patch series from an mbox's mails (kernel/patchmail.h): version, cover letter, order, completeness, trailers. */
#include "kernel/series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernel/patchmail.h"
#include "util/buf.h"
#include "util/jfields.h"
#include "util/str.h"

void il_series_release(struct il_series *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct il_patch *p = &s->p[i];

		free(p->subject), free(p->author_name), free(p->author_email), free(p->message_id);
		free(p->message), free(p->diff);
		il_strlist_release(&p->files);
		il_strlist_release(&p->trailers);
		free(p->sent_subject);
		il_strlist_release(&p->references);
		il_strlist_release(&p->recipients);
	}
	free(s->p);
	free(s->cover_subject);
	free(s->cover_message_id), free(s->cover_sent_subject), free(s->cover_body), free(s->base_commit);
	free(s->cover_author_email);
	il_strlist_release(&s->cover_references);
	il_strlist_release(&s->cover_recipients);
	il_strlist_release(&s->versions);
	memset(s, 0, sizeof(*s));
}

/* dst gets each string of src (dst empty or not); IL_ENOMEM. */
static int list_copy(struct il_strlist *dst, const struct il_strlist *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (il_strlist_push(dst, src->v[i]))
			return IL_ENOMEM;
	return 0;
}

static int cmp_patch(const void *a, const void *b)
{
	const struct il_patch *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/*
 * The versions the mails have patches of, into out->versions ("1 2"); the
 * version to take into out->version: want, else the highest.
 */
static int pick_version(struct il_series *out, const struct il_patchmail *m, size_t n, int want, const char *label,
			struct il_err *err)
{
	int best = 0;
	char vs[16];

	for (size_t i = 0; i < n; i++) {
		int v, ix, tot;
		const char *rest;

		if (!il_patchmail_subject(m[i].subject, &v, &ix, &tot, &rest) || ix == 0)
			continue;
		snprintf(vs, sizeof(vs), "%d", v);
		if (!il_strlist_has(&out->versions, vs) && il_strlist_push(&out->versions, vs))
			return il_err_oom(err);
		if (v > best)
			best = v;
	}
	if (!best)
		return il_err_set(err, IL_EPARSE, "%s: no patches among its %zu message(s) (no \"[PATCH ...]\" subjects)", label,
				  n);
	if (want) {
		snprintf(vs, sizeof(vs), "%d", want);
		if (!il_strlist_has(&out->versions, vs)) {
			struct il_buf b = IL_BUF_INIT;
			int r;

			il_strlist_join(&out->versions, &b);
			r = il_err_set(err, IL_ENOTFOUND, "%s: no v%d patches (versions present: %s)", label, want, il_buf_str(&b));
			il_buf_release(&b);
			return r;
		}
		best = want;
	}
	out->version = best;
	return 0;
}

/* The cover letter (the 0/N mail) m, subject rest, as out's; a later one replaces an earlier one. */
static int take_cover(struct il_series *out, const struct il_patchmail *m, const char *rest, struct il_err *err)
{
	free(out->cover_subject), free(out->cover_message_id), free(out->cover_sent_subject), free(out->cover_body);
	free(out->cover_author_email);
	il_strlist_release(&out->cover_references);
	out->cover_subject = il_str_sanitize(strdup(rest), false);
	out->cover_message_id = il_str_sanitize(strdup(m->msgid), false);
	out->cover_sent_subject = il_str_sanitize(strdup(m->subject), false);
	out->cover_body = strdup(m->body);
	out->cover_author_email = il_str_sanitize(strdup(m->email), false);
	il_strlist_release(&out->cover_recipients);
	if (!out->cover_author_email || !out->cover_subject || !out->cover_message_id || !out->cover_sent_subject ||
	    !out->cover_body || il_patchmail_refs(&out->cover_references, m->references) ||
	    list_copy(&out->cover_recipients, &m->rcpt) ||
	    (!out->base_commit && il_patchmail_base_commit(m->body, &out->base_commit)))
		return il_err_oom(err);
	return 0;
}

/* Patch ix of tot (subject rest) from the mail m, as the next of out->p (room for it is there). */
static int take_patch(struct il_series *out, const struct il_patchmail *m, int v, int ix, int tot, const char *rest,
		      const char *label, struct il_err *err)
{
	struct il_patch *p;
	const char *body;

	for (size_t k = 0; k < out->n; k++)
		if (out->p[k].index == ix)
			return il_err_set(err, IL_EPARSE, "%s: v%d has patch %d/%d twice ('%s')", label, v, ix, tot, rest);
	p = &out->p[out->n++];
	p->version = v, p->index = ix, p->total = tot;
	/* header text is the sender's: no control bytes reach a terminal or a report */
	p->subject = il_str_sanitize(strdup(rest), false);
	p->author_name = il_str_sanitize(strdup(m->name), false);
	p->author_email = il_str_sanitize(strdup(m->email), false);
	p->message_id = il_str_sanitize(strdup(m->msgid), false);
	p->sent_subject = il_str_sanitize(strdup(m->subject), false);
	if (!p->sent_subject || il_patchmail_refs(&p->references, m->references) || list_copy(&p->recipients, &m->rcpt))
		return il_err_oom(err);
	p->date = m->date;
	p->tz_minutes = m->tz;
	body = m->body;
	if (!p->subject || !p->author_name || !p->author_email || !p->message_id ||
	    il_patchmail_in_body_headers(p, &body) || il_patchmail_split_body(p, rest, body))
		return il_err_oom(err);
	if (!p->diff[0])
		return il_err_set(err, IL_EPARSE, "%s: patch %d/%d '%s' has no diff", label, ix, tot, rest);
	return 0;
}

/* Every patch 1..N of out's version there, once: the first one missing is named. */
static int check_complete(const struct il_series *out, const char *label, struct il_err *err)
{
	int total = out->p[0].total;
	size_t k = 0;

	while (k < out->n && out->p[k].total == total && out->p[k].index == (int)k + 1)
		k++;
	if (k < out->n || (int)out->n != total)
		return il_err_set(err, IL_EPARSE, "%s: v%d has %zu of %d patches: %zu/%d is missing", label, out->version,
				  out->n, total, k + 1, total);
	return 0;
}

/* Trailers given in replies to a patch (an unquoted "Reviewed-by: ..." line), added to that patch's. */
static int reply_trailers(struct il_series *out, const struct il_patchmail *m, size_t n, struct il_err *err)
{
	for (size_t i = 0; i < n; i++) {
		struct il_patch *target = NULL;
		const char *s = m[i].body;

		if (!m[i].in_reply_to)
			continue;
		for (size_t k = 0; k < out->n; k++)
			if (!strcmp(out->p[k].message_id, m[i].in_reply_to))
				target = &out->p[k];
		if (!target || il_patchmail_subject(m[i].subject, &(int){ 0 }, &(int){ 0 }, &(int){ 0 }, &(const char *){ NULL }))
			continue;
		while (*s) {
			const char *nl = strchr(s, '\n');
			size_t len = nl ? (size_t)(nl - s) : strlen(s);

			if (len && s[len - 1] == '\r')
				len--;
			if (il_patchmail_is_trailer(s, len) && strncasecmp(s, "Cc:", 3) && strncasecmp(s, "Signed-off-by:", 14)) {
				char *t = il_str_ndup(s, len);

				if (!t || (!il_strlist_has(&target->trailers, t) && il_strlist_push(&target->trailers, t))) {
					free(t);
					return il_err_oom(err);
				}
				free(t);
			}
			s = nl ? nl + 1 : s + len;
		}
	}
	return 0;
}

int il_series_parse(const char *mbox, size_t len, int want_version, const char *label, struct il_series *out,
		    struct il_err *err)
{
	struct il_patchmail *m = NULL;
	size_t n = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = il_patchmail_read_mbox(mbox, len, label, &m, &n, err)))
		goto out;
	out->messages = n;
	if ((r = pick_version(out, m, n, want_version, label, err)))
		goto out;
	if (!(out->p = calloc(n, sizeof(*out->p)))) {
		r = il_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < n && !r; i++) {
		int v, ix, tot;
		const char *rest;

		if (!il_patchmail_subject(m[i].subject, &v, &ix, &tot, &rest))
			out->replies++;
		else if (v == out->version)
			r = ix == 0 ? take_cover(out, &m[i], rest, err) : take_patch(out, &m[i], v, ix, tot, rest, label, err);
	}
	if (r)
		goto out;
	qsort(out->p, out->n, sizeof(*out->p), cmp_patch);
	/* base-commit: the cover letter's, else the first patch that has one (git puts it in the last) */
	for (size_t i = 0; !r && !out->base_commit && i < n; i++) {
		int v, ix, tot;
		const char *rest;

		if (il_patchmail_subject(m[i].subject, &v, &ix, &tot, &rest) && v == out->version &&
		    il_patchmail_base_commit(m[i].body, &out->base_commit))
			r = il_err_oom(err);
	}
	if (!r && !(r = check_complete(out, label, err)))
		r = reply_trailers(out, m, n, err);
out:
	il_patchmail_free(m, n);
	if (r)
		il_series_release(out);
	return r;
}

json_t *il_series_to_json(const struct il_series *s)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < s->n; i++) {
		const struct il_patch *p = &s->p[i];

		/* json_array_append_new drops a NULL or a failed append's object: the whole answer fails */
		if (json_array_append_new(a, json_pack("{s:i,s:i,s:i,s:s,s:s,s:s,s:I,s:s,s:o,s:o}", "index", p->index, "total",
							p->total, "version", p->version, "subject", p->subject, "author",
							p->author_name, "email", p->author_email, "date", (json_int_t)p->date,
							"message_id", p->message_id, "files", il_jfields_strlist_json(&p->files),
							"trailers", il_jfields_strlist_json(&p->trailers)))) {
			json_decref(a);
			return NULL;
		}
	}
	/* "s?": null for a series without a cover letter or a base commit; "o" takes a even when json_pack fails */
	return json_pack("{s:i,s:o,s:s?,s:s?,s:I,s:I,s:o}", "version", s->version, "versions_seen",
			 il_jfields_strlist_json(&s->versions), "cover", s->cover_subject, "base_commit", s->base_commit,
			 "messages", (json_int_t)s->messages, "replies", (json_int_t)s->replies, "patches", a);
}

int il_series_select(const char *spec, size_t n, struct il_cpuset *out, struct il_err *err)
{
	int r = il_cpuset_parse(out, spec, err);

	if (r)
		return il_err_prefix(err, "patches: ");
	for (size_t i = 0; i < out->n; i++)
		if (out->cpu[i] < 1 || (size_t)out->cpu[i] > n) {
			r = il_err_set(err, IL_EINVAL, "patches: %d is not in 1-%zu", out->cpu[i], n);
			il_cpuset_release(out);
			return r;
		}
	return 0;
}
