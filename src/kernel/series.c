// SPDX-License-Identifier: GPL-2.0-or-later
/* mbox → ordered patch series, with GMime doing all the MIME work. */
#include "kernel/series.h"
#include "kernel/patchdiff.h"
#include "util/jfields.h"
#include "util/str.h"

#include <ctype.h>
#include <gmime/gmime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"
#include "util/mailbox.h"

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

/* One message as GMime gives it, before we know if it is a patch. */
struct msg {
	char *subject, *name, *email, *msgid, *in_reply_to, *body, *references;
	struct il_strlist rcpt;  /* To and Cc, one mailbox each, as GMime formats them */
	int64_t date;
	int tz;
};

static void msg_free(struct msg *m)
{
	free(m->subject), free(m->name), free(m->email), free(m->msgid), free(m->in_reply_to), free(m->body);
	free(m->references);
	il_strlist_release(&m->rcpt);
}

/* A part that is a patch whatever its type says: an attachment named *.patch or *.diff (Outlook sends them as octets). */
static bool patch_attachment(GMimePart *part)
{
	const char *f = g_mime_part_get_filename(part);
	size_t n = f ? strlen(f) : 0;

	return n > 6 && (!strcasecmp(f + n - 6, ".patch") || !strcasecmp(f + n - 5, ".diff"));
}

/* The decoded content of a part as text into b (its transfer encoding undone; the bytes as sent). */
static void part_bytes(GMimePart *part, struct il_buf *b)
{
	GMimeDataWrapper *dw = g_mime_part_get_content(part);
	GMimeStream *ms;
	GByteArray *ba;

	if (!dw || !(ms = g_mime_stream_mem_new()))
		return;
	if (g_mime_data_wrapper_write_to_stream(dw, ms) >= 0 && (ba = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(ms))))
		il_buf_add(b, ba->data, ba->len);
	g_object_unref(ms);
}

/*
 * Append the decoded text of every text part (the body, and patches sent as
 * text/x-patch attachments) and of every attachment named as a patch.
 */
static void collect_text(GMimeObject *obj, struct il_buf *b)
{
	if (GMIME_IS_PART(obj) && !GMIME_IS_TEXT_PART(obj) && patch_attachment(GMIME_PART(obj))) {
		if (b->len && b->p[b->len - 1] != '\n')
			il_buf_adds(b, "\n");
		part_bytes(GMIME_PART(obj), b);
	} else if (GMIME_IS_MULTIPART(obj)) {
		GMimeMultipart *mp = GMIME_MULTIPART(obj);

		for (int i = 0; i < g_mime_multipart_get_count(mp); i++)
			collect_text(g_mime_multipart_get_part(mp, i), b);
	} else if (GMIME_IS_TEXT_PART(obj)) {
		char *t = g_mime_text_part_get_text(GMIME_TEXT_PART(obj));

		if (t) {
			if (b->len && b->p[b->len - 1] != '\n')
				il_buf_adds(b, "\n");
			il_buf_adds(b, t);
			g_free(t);
		}
	}
}

static char *dup0(const char *s)
{
	return strdup(s ? s : "");
}

static void read_msg(GMimeMessage *gm, struct msg *m)
{
	InternetAddressList *from = g_mime_message_get_from(gm);
	GDateTime *d = g_mime_message_get_date(gm);
	struct il_buf body = IL_BUF_INIT;
	const char *irt = g_mime_object_get_header(GMIME_OBJECT(gm), "In-Reply-To");
	const char *refs = g_mime_object_get_header(GMIME_OBJECT(gm), "References");

	memset(m, 0, sizeof(*m));
	m->subject = dup0(g_mime_message_get_subject(gm));
	if (from && internet_address_list_length(from) > 0) {
		InternetAddress *ia = internet_address_list_get_address(from, 0);

		m->name = dup0(internet_address_get_name(ia));
		m->email = dup0(INTERNET_ADDRESS_IS_MAILBOX(ia) ? internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia)) :
								   "");
	} else {
		m->name = dup0(NULL);
		m->email = dup0(NULL);
	}
	if (d) {
		m->date = g_date_time_to_unix(d);
		m->tz = (int)(g_date_time_get_utc_offset(d) / G_TIME_SPAN_MINUTE);
	}
	m->msgid = dup0(g_mime_message_get_message_id(gm));
	if (irt) {
		/* "<id@host>" -> "id@host", like GMime's own Message-ID */
		const char *lt = strchr(irt, '<'), *gt = lt ? strchr(lt, '>') : NULL;

		m->in_reply_to = il_str_sanitize(lt && gt ? il_str_ndup(lt + 1, (size_t)(gt - lt - 1)) : dup0(irt), false);
	}
	if (refs)
		m->references = strdup(refs);
	/* To and Cc, for the reply-all that b4 and every maintainer's client make */
	for (int k = 0; k < 2; k++) {
		InternetAddressList *l = g_mime_message_get_addresses(gm, k ? GMIME_ADDRESS_TYPE_CC : GMIME_ADDRESS_TYPE_TO);

		for (int i = 0; l && i < internet_address_list_length(l); i++) {
			InternetAddress *ia = internet_address_list_get_address(l, i);
			char *t;

			if (!INTERNET_ADDRESS_IS_MAILBOX(ia) || !(t = internet_address_to_string(ia, NULL, FALSE)))
				continue;
			il_str_sanitize(t, false);
			if (!il_strlist_has(&m->rcpt, t))
				il_strlist_push(&m->rcpt, t);
			g_free(t);
		}
	}
	collect_text(g_mime_message_get_mime_part(gm), &body);
	m->body = il_buf_detach(&body);
	if (!m->body)
		m->body = dup0(NULL);
}

/* A series number: digits only, at most 9999 (larger is no series anyone mails). */
static bool series_num(const char *s, char end, int *out)
{
	long v = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++)
		if ((v = v * 10 + (*s - '0')) > 9999)
			return false;
	*out = (int)v;
	return *s == end;
}

/* "Re:", "AW:", "Fwd:" and their kin (any case) at s: a reply or a forward, never a patch. */
static bool reply_prefix(const char *s)
{
	static const char *const pre[] = { "re:", "aw:", "fwd:", "fw:", "sv:", "vs:", "antw:", "wg:", "tr:", NULL };

	for (const char *const *k = pre; *k; k++)
		if (!strncasecmp(s, *k, strlen(*k)))
			return true;
	return false;
}

/* The tag group [lb, rb] ("[PATCH v2 3/4]", "[RFC PATCH]"): whether it names a PATCH, with its numbers. */
static bool patch_tag(const char *lb, const char *rb, int *version, int *index, int *total, bool *bad)
{
	bool patch = false;

	for (const char *t = lb + 1; t < rb;) {
		const char *e = t;
		char tok[64];
		size_t n;

		while (e < rb && !isspace((unsigned char)*e) && *e != ',')
			e++;
		n = (size_t)(e - t) < sizeof(tok) - 1 ? (size_t)(e - t) : sizeof(tok) - 1;
		memcpy(tok, t, n);
		tok[n] = 0;
		patch |= !strncasecmp(tok, "PATCH", 5);
		/* a number out of range makes the mail no patch of a series (not a wrapped-around index) */
		if ((tok[0] == 'v' || tok[0] == 'V') && isdigit((unsigned char)tok[1])) {
			*bad |= !series_num(tok + 1, 0, version);
		} else if (isdigit((unsigned char)tok[0]) && strchr(tok, '/')) {
			*bad |= !series_num(tok, '/', index) || !series_num(strchr(tok, '/') + 1, 0, total);
		}
		t = e;
		while (t < rb && (isspace((unsigned char)*t) || *t == ','))
			t++;
	}
	return patch;
}

/*
 * "[PATCH v2 3/4] foo" -> version 2, 3 of 4, "foo". The tag groups are read
 * in turn, so a gateway's tag before the PATCH one ("[EXTERNAL] [PATCH
 * 1/1] foo") is passed over. Returns false for subjects without a PATCH tag
 * (plain mail) and for replies and forwards ("Re: [PATCH ...]", also behind
 * such a tag).
 */
static bool parse_subject(const char *s, int *version, int *index, int *total, const char **rest)
{
	const char *lb, *rb;

	*version = 1, *index = 1, *total = 1;
	for (;;) {
		bool bad = false;

		while (isspace((unsigned char)*s))
			s++;
		if (reply_prefix(s))
			return false;
		if (*s != '[' || !(rb = strchr(s, ']')))
			return false;
		lb = s;
		if (patch_tag(lb, rb, version, index, total, &bad)) {
			if (bad)
				return false;
			break;
		}
		*version = 1, *index = 1, *total = 1;
		s = rb + 1;
	}
	for (*rest = rb + 1; isspace((unsigned char)**rest); (*rest)++)
		;
	return true;
}

static bool is_trailer(const char *line, size_t n)
{
	static const char *const keys[] = { "Signed-off-by:", "Reviewed-by:", "Tested-by:", "Acked-by:", "Fixes:",
					    "Link:", "Reported-by:", "Suggested-by:", "Co-developed-by:", "Closes:",
					    "Cc:", NULL };

	for (const char *const *k = keys; *k; k++)
		if (n > strlen(*k) && !strncasecmp(line, *k, strlen(*k)))
			return true;
	return false;
}

/*
 * Split a patch mail body into commit message body, diff, files, trailers.
 * The message ends at the first "---" line (what follows, up to the diff,
 * is the diffstat and the notes a sender keeps out of the commit: "v1 -> v2"
 * between two "---" lines); the diff starts where git mailinfo would break
 * the mail (kernel/patchdiff.h), in whichever form it was sent.
 */
/* Whether the line s[0..n) is the in-body header name ("From", "Date") and its ':', any case. */
static bool in_body_header(const char *s, size_t n, const char *name, const char **value)
{
	size_t k = strlen(name);

	if (n <= k || strncasecmp(s, name, k) || s[k] != ':')
		return false;
	for (*value = s + k + 1; *value < s + n && (**value == ' ' || **value == '\t'); (*value)++)
		;
	return true;
}

/*
 * The in-body "From:" and "Date:" lines at the top of a patch's body, as
 * git mailinfo takes them (they name the author when someone else sends the
 * mail: "From: Rafael J. Wysocki <rafael.j.wysocki@intel.com>" in a mail
 * from rafael@kernel.org): p's author and date replaced, *body moved past
 * them and the blank line that ends them. Lines that do not parse are left
 * in the body. IL_ENOMEM.
 */
static int in_body_headers(struct il_patch *p, const char **body)
{
	const char *s = *body, *v;
	bool any = false;

	while (*s == '\n' || (*s == '\r' && s[1] == '\n'))
		s += *s == '\r' ? 2 : 1;
	for (;;) {
		const char *nl = strchr(s, '\n'), *next;
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		bool ok = false;
		char *val;

		next = nl ? nl + 1 : s + n;
		if (n && s[n - 1] == '\r')
			n--;
		if (!n) {
			if (any)
				*body = next; /* the blank line that ends them */
			return 0;
		}
		if (!in_body_header(s, n, "From", &v) && !in_body_header(s, n, "Date", &v))
			return 0;
		if (!(val = il_str_ndup(v, (size_t)(s + n - v))))
			return IL_ENOMEM;
		if (tolower((unsigned char)s[0]) == 'f') {
			InternetAddressList *l = internet_address_list_parse(NULL, val);
			InternetAddress *ia = l && internet_address_list_length(l) > 0 ? internet_address_list_get_address(l, 0) : NULL;

			if ((ok = ia && INTERNET_ADDRESS_IS_MAILBOX(ia))) {
				free(p->author_name), free(p->author_email);
				p->author_name = il_str_sanitize(dup0(internet_address_get_name(ia)), false);
				p->author_email = il_str_sanitize(dup0(internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia))), false);
			}
			if (l)
				g_object_unref(l);
		} else {
			GDateTime *d = g_mime_utils_header_decode_date(val);

			if ((ok = d != NULL)) {
				p->date = g_date_time_to_unix(d);
				p->tz_minutes = (int)(g_date_time_get_utc_offset(d) / G_TIME_SPAN_MINUTE);
				g_date_time_unref(d);
			}
		}
		free(val);
		if (!p->author_name || !p->author_email)
			return IL_ENOMEM;
		if (!ok)
			return 0; /* not an address or a date: the body's own text */
		any = true;
		*body = s = next;
	}
}

static int split_body(struct il_patch *p, const char *subject, const char *body)
{
	struct il_buf msg = IL_BUF_INIT, diff = IL_BUF_INIT;
	const char *s = body, *end = body + strlen(body);
	bool past_sep = false;
	int r = 0;

	il_buf_printf(&msg, "%s\n\n", subject);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		if (n && s[n - 1] == '\r')
			n--;
		if (il_patchdiff_starts(s, end)) {
			r = il_patchdiff_normalize(s, (size_t)(end - s), &diff, &p->files);
			break;
		}
		if (n == 3 && !strncmp(s, "---", 3)) {
			past_sep = true;
		} else if (!past_sep) {
			il_buf_add(&msg, s, n);
			il_buf_adds(&msg, "\n");
			if (is_trailer(s, n)) {
				char *t = il_str_ndup(s, n);

				if (t && il_str_sanitize(t, false) && !il_strlist_has(&p->trailers, t))
					r |= il_strlist_push(&p->trailers, t);
				free(t);
			}
		}
		s = nl ? nl + 1 : s + strlen(s);
	}
	while (msg.len && (msg.p[msg.len - 1] == '\n' || msg.p[msg.len - 1] == ' '))
		msg.p[--msg.len] = 0;
	il_buf_adds(&msg, "\n");
	p->message = il_buf_detach(&msg);
	p->diff = il_buf_detach(&diff);
	if (!p->diff)
		p->diff = strdup("");
	return !r && p->message && p->diff ? 0 : IL_ENOMEM;
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

/* "<a@b> <c@d>" (folded or not) -> "a@b", "c@d", in order; malformed tokens are skipped. */
static int push_refs(struct il_strlist *out, const char *refs)
{
	for (const char *s = refs ? refs : ""; (s = strchr(s, '<'));) {
		const char *gt = strchr(s, '>');
		char *id;

		if (!gt)
			break;
		if (gt > s + 1 && !memchr(s + 1, '<', (size_t)(gt - s - 1))) {
			if (!(id = il_str_ndup(s + 1, (size_t)(gt - s - 1))))
				return IL_ENOMEM;
			if (il_str_sanitize(id, false) && !il_strlist_has(out, id) && il_strlist_push(out, id)) {
				free(id);
				return IL_ENOMEM;
			}
			free(id);
		}
		s = gt + 1;
	}
	return 0;
}

/* The first "base-commit: HEX" line of body (git format-patch --base puts it after the patch or in the cover). */
static char *find_base_commit(const char *body)
{
	for (const char *s = body; s && *s;) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s), h = 0;

		if (n > 13 && !strncmp(s, "base-commit:", 12)) {
			const char *v = s + 12;

			while (*v == ' ' || *v == '\t')
				v++;
			while (v + h < s + n && isxdigit((unsigned char)v[h]))
				h++;
			if (h >= 7 && h <= 64)
				return il_str_ndup(v, h);
		}
		s = nl ? nl + 1 : NULL;
	}
	return NULL;
}

int il_series_parse(const char *mbox, size_t len, int want_version, const char *label, struct il_series *out,
		    struct il_err *err)
{
	GMimeStream *stream;
	GMimeParser *parser;
	struct msg *msgs = NULL;
	size_t nmsgs = 0, cap = 0;
	int best = 0, r = 0;

	memset(out, 0, sizeof(*out));
	if (len < 5 || strncmp(mbox, "From ", 5))
		return il_err_set(err, IL_EPARSE, "%s: not an mbox (it does not start with a \"From \" line)", label);
	il_mailbox_gmime_init();
	stream = g_mime_stream_mem_new_with_buffer(mbox, len);
	parser = g_mime_parser_new_with_stream(stream);
	g_mime_parser_set_format(parser, GMIME_FORMAT_MBOX);
	while (!g_mime_parser_eos(parser)) {
		GMimeMessage *gm = g_mime_parser_construct_message(parser, NULL);

		if (!gm)
			break;
		if (nmsgs == cap) {
			struct msg *nm = realloc(msgs, (cap = cap ? cap * 2 : 16) * sizeof(*nm));

			if (!nm) {
				g_object_unref(gm);
				r = il_err_oom(err);
				goto out;
			}
			msgs = nm;
		}
		read_msg(gm, &msgs[nmsgs++]);
		g_object_unref(gm);
	}
	out->messages = nmsgs;
	/* which versions are there */
	for (size_t i = 0; i < nmsgs; i++) {
		int v, ix, tot;
		const char *rest;
		char vs[16];

		if (!parse_subject(msgs[i].subject, &v, &ix, &tot, &rest) || ix == 0)
			continue;
		snprintf(vs, sizeof(vs), "%d", v);
		if (!il_strlist_has(&out->versions, vs))
			il_strlist_push(&out->versions, vs);
		if (v > best)
			best = v;
	}
	if (!best) {
		r = il_err_set(err, IL_EPARSE, "%s: no patches among its %zu message(s) (no \"[PATCH ...]\" subjects)", label,
			       nmsgs);
		goto out;
	}
	if (want_version) {
		char vs[16];

		snprintf(vs, sizeof(vs), "%d", want_version);
		if (!il_strlist_has(&out->versions, vs)) {
			struct il_buf b = IL_BUF_INIT;

			il_strlist_join(&out->versions, &b);
			r = il_err_set(err, IL_ENOTFOUND, "%s: no v%d patches (versions present: %s)", label, want_version,
				       il_buf_str(&b));
			il_buf_release(&b);
			goto out;
		}
		best = want_version;
	}
	out->version = best;
	out->p = calloc(nmsgs, sizeof(*out->p));
	if (!out->p) {
		r = il_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < nmsgs; i++) {
		int v, ix, tot;
		const char *rest, *body;
		struct il_patch *p;

		if (!parse_subject(msgs[i].subject, &v, &ix, &tot, &rest)) {
			out->replies++;
			continue;
		}
		if (v != best)
			continue;
		if (ix == 0) {
			free(out->cover_subject), free(out->cover_message_id), free(out->cover_sent_subject), free(out->cover_body);
			free(out->cover_author_email);
			il_strlist_release(&out->cover_references);
			out->cover_subject = il_str_sanitize(strdup(rest), false);
			out->cover_message_id = il_str_sanitize(strdup(msgs[i].msgid), false);
			out->cover_sent_subject = il_str_sanitize(strdup(msgs[i].subject), false);
			out->cover_body = strdup(msgs[i].body);
			out->cover_author_email = il_str_sanitize(strdup(msgs[i].email), false);
			il_strlist_release(&out->cover_recipients);
			if (!out->cover_author_email || !out->cover_subject || !out->cover_message_id || !out->cover_sent_subject || !out->cover_body ||
			    push_refs(&out->cover_references, msgs[i].references) ||
			    list_copy(&out->cover_recipients, &msgs[i].rcpt)) {
				r = il_err_oom(err);
				goto out;
			}
			if (!out->base_commit)
				out->base_commit = find_base_commit(msgs[i].body);
			continue;
		}
		for (size_t k = 0; k < out->n; k++)
			if (out->p[k].index == ix) {
				r = il_err_set(err, IL_EPARSE, "%s: v%d has patch %d/%d twice ('%s')", label, v, ix, tot, rest);
				goto out;
			}
		p = &out->p[out->n++];
		p->version = v, p->index = ix, p->total = tot;
		/* header text is the sender's: no control bytes reach a terminal or a report */
		p->subject = il_str_sanitize(strdup(rest), false);
		p->author_name = il_str_sanitize(strdup(msgs[i].name), false);
		p->author_email = il_str_sanitize(strdup(msgs[i].email), false);
		p->message_id = il_str_sanitize(strdup(msgs[i].msgid), false);
		p->sent_subject = il_str_sanitize(strdup(msgs[i].subject), false);
		if (!p->sent_subject || push_refs(&p->references, msgs[i].references) ||
		    list_copy(&p->recipients, &msgs[i].rcpt)) {
			r = il_err_oom(err);
			goto out;
		}
		p->date = msgs[i].date;
		p->tz_minutes = msgs[i].tz;
		body = msgs[i].body;
		if (!p->subject || !p->author_name || !p->author_email || !p->message_id || in_body_headers(p, &body) ||
		    split_body(p, rest, body)) {
			r = il_err_oom(err);
			goto out;
		}
		if (!p->diff[0]) {
			r = il_err_set(err, IL_EPARSE, "%s: patch %d/%d '%s' has no diff", label, ix, tot, rest);
			goto out;
		}
	}
	qsort(out->p, out->n, sizeof(*out->p), cmp_patch);
	/* base-commit: the cover letter's, else the first patch that has one (git puts it in the last) */
	for (size_t i = 0; !out->base_commit && i < nmsgs; i++) {
		int v, ix, tot;
		const char *rest;

		if (parse_subject(msgs[i].subject, &v, &ix, &tot, &rest) && v == best)
			out->base_commit = find_base_commit(msgs[i].body);
	}
	for (size_t k = 0; k < out->n; k++) {
		if (out->p[k].total != out->p[0].total || out->p[k].index != (int)k + 1) {
			r = il_err_set(err, IL_EPARSE, "%s: v%d has %zu of %d patches: %zu/%d is missing", label, best, out->n,
				       out->p[0].total, k + 1, out->p[0].total);
			goto out;
		}
	}
	if ((int)out->n != out->p[0].total) {
		r = il_err_set(err, IL_EPARSE, "%s: v%d has %zu of %d patches: %zu/%d is missing", label, best, out->n,
			       out->p[0].total, out->n + 1, out->p[0].total);
		goto out;
	}
	/* trailers given in replies to a patch (Reviewed-by: ... in an unquoted line) */
	for (size_t i = 0; i < nmsgs; i++) {
		struct il_patch *target = NULL;
		const char *s = msgs[i].body;

		if (!msgs[i].in_reply_to)
			continue;
		for (size_t k = 0; k < out->n; k++)
			if (!strcmp(out->p[k].message_id, msgs[i].in_reply_to))
				target = &out->p[k];
		if (!target || parse_subject(msgs[i].subject, &(int){ 0 }, &(int){ 0 }, &(int){ 0 }, &(const char *){ NULL }))
			continue;
		while (*s) {
			const char *nl = strchr(s, '\n');
			size_t n = nl ? (size_t)(nl - s) : strlen(s);

			if (n && s[n - 1] == '\r')
				n--;
			if (is_trailer(s, n) && strncasecmp(s, "Cc:", 3) && strncasecmp(s, "Signed-off-by:", 14)) {
				char *t = il_str_ndup(s, n);

				if (t && !il_strlist_has(&target->trailers, t))
					il_strlist_push(&target->trailers, t);
				free(t);
			}
			s = nl ? nl + 1 : s + n;
		}
	}
out:
	for (size_t i = 0; i < nmsgs; i++)
		msg_free(&msgs[i]);
	free(msgs);
	g_object_unref(parser);
	g_object_unref(stream);
	if (r)
		il_series_release(out);
	return r;
}

json_t *il_series_to_json(const struct il_series *s)
{
	json_t *o = json_object(), *a = json_array();

	for (size_t i = 0; i < s->n; i++) {
		const struct il_patch *p = &s->p[i];

		json_array_append_new(a, json_pack("{s:i,s:i,s:i,s:s,s:s,s:s,s:I,s:s,s:o,s:o}", "index", p->index, "total",
						   p->total, "version", p->version, "subject", p->subject, "author",
						   p->author_name, "email", p->author_email, "date", (json_int_t)p->date,
						   "message_id", p->message_id, "files", il_jf_strlist_json(&p->files), "trailers",
						   il_jf_strlist_json(&p->trailers)));
	}
	json_object_set_new(o, "version", json_integer(s->version));
	json_object_set_new(o, "versions_seen", il_jf_strlist_json(&s->versions));
	json_object_set_new(o, "cover", s->cover_subject ? json_string(s->cover_subject) : json_null());
	json_object_set_new(o, "base_commit", s->base_commit ? json_string(s->base_commit) : json_null());
	json_object_set_new(o, "messages", json_integer((json_int_t)s->messages));
	json_object_set_new(o, "replies", json_integer((json_int_t)s->replies));
	json_object_set_new(o, "patches", a);
	return o;
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
