// SPDX-License-Identifier: GPL-2.0-or-later
/* Patch mail: an mbox's messages through GMime, and one mail read as a patch (subject tag, body, trailers). */
#include "kernel/patchmail.h"

#include <ctype.h>
#include <gmime/gmime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernel/patchdiff.h"
#include "util/buf.h"
#include "util/mailbox.h"

void il_patchmail_free(struct il_patchmail *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].subject), free(m[i].name), free(m[i].email), free(m[i].msgid), free(m[i].in_reply_to);
		free(m[i].body), free(m[i].references);
		il_strlist_release(&m[i].rcpt);
	}
	free(m);
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

/* m from GMime's message (m is the caller's to free, also after an error). IL_ENOMEM. */
static int read_msg(GMimeMessage *gm, struct il_patchmail *m)
{
	InternetAddressList *from = g_mime_message_get_from(gm);
	GDateTime *d = g_mime_message_get_date(gm);
	struct il_buf body = IL_BUF_INIT;
	const char *irt = g_mime_object_get_header(GMIME_OBJECT(gm), "In-Reply-To");
	const char *refs = g_mime_object_get_header(GMIME_OBJECT(gm), "References");
	bool bad = false;

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
		bad |= !m->in_reply_to;
	}
	if (refs)
		bad |= !(m->references = strdup(refs));
	/* To and Cc, for the reply-all that b4 and every maintainer's client make */
	for (int k = 0; k < 2; k++) {
		InternetAddressList *l = g_mime_message_get_addresses(gm, k ? GMIME_ADDRESS_TYPE_CC : GMIME_ADDRESS_TYPE_TO);

		for (int i = 0; l && i < internet_address_list_length(l); i++) {
			InternetAddress *ia = internet_address_list_get_address(l, i);
			char *t;

			if (!INTERNET_ADDRESS_IS_MAILBOX(ia) || !(t = internet_address_to_string(ia, NULL, FALSE)))
				continue;
			il_str_sanitize(t, false);
			if (!il_strlist_has(&m->rcpt, t) && il_strlist_push(&m->rcpt, t))
				bad = true;
			g_free(t);
		}
	}
	collect_text(g_mime_message_get_mime_part(gm), &body);
	bad |= il_buf_error(&body) != 0;
	m->body = il_buf_detach(&body);
	return bad || !m->subject || !m->name || !m->email || !m->msgid || !m->body ? IL_ENOMEM : 0;
}

int il_patchmail_read_mbox(const char *mbox, size_t len, const char *label, struct il_patchmail **out, size_t *n,
			   struct il_err *err)
{
	GMimeStream *stream;
	GMimeParser *parser;
	size_t cap = 0;
	int r = 0;

	*out = NULL, *n = 0;
	if (len < 5 || strncmp(mbox, "From ", 5))
		return il_err_set(err, IL_EPARSE, "%s: not an mbox (it does not start with a \"From \" line)", label);
	il_mailbox_gmime_init();
	stream = g_mime_stream_mem_new_with_buffer(mbox, len);
	parser = g_mime_parser_new_with_stream(stream);
	g_mime_parser_set_format(parser, GMIME_FORMAT_MBOX);
	while (!r && !g_mime_parser_eos(parser)) {
		GMimeMessage *gm = g_mime_parser_construct_message(parser, NULL);

		if (!gm)
			break;
		if (*n == cap) {
			struct il_patchmail *nm = realloc(*out, (cap = cap ? cap * 2 : 16) * sizeof(*nm));

			if (!nm) {
				g_object_unref(gm);
				r = il_err_oom(err);
				break;
			}
			*out = nm;
		}
		if (read_msg(gm, &(*out)[(*n)++]))
			r = il_err_oom(err);
		g_object_unref(gm);
	}
	g_object_unref(parser);
	g_object_unref(stream);
	return r;
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

/* The tag groups are read in turn, so that a gateway's tag before the PATCH one is passed over. */
bool il_patchmail_subject(const char *s, int *version, int *index, int *total, const char **rest)
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

bool il_patchmail_is_trailer(const char *line, size_t n)
{
	static const char *const keys[] = { "Signed-off-by:", "Reviewed-by:", "Tested-by:", "Acked-by:", "Fixes:",
					    "Link:", "Reported-by:", "Suggested-by:", "Co-developed-by:", "Closes:",
					    "Cc:", NULL };

	for (const char *const *k = keys; *k; k++)
		if (n > strlen(*k) && !strncasecmp(line, *k, strlen(*k)))
			return true;
	return false;
}

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

/* "From: Rafael J. Wysocki <rafael.j.wysocki@intel.com>" in a mail from rafael@kernel.org names the author. */
int il_patchmail_in_body_headers(struct il_patch *p, const char **body)
{
	const char *s = *body, *v;
	bool any = false;

	il_mailbox_gmime_init(); /* its address and date parsers */
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

/*
 * The message ends at the first "---" line: what follows, up to the diff, is
 * the diffstat and the notes a sender keeps out of the commit ("v1 -> v2"
 * between two "---" lines).
 */
int il_patchmail_split_body(struct il_patch *p, const char *subject, const char *body)
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
			if (!r) /* not over a trailer that failed */
				r = il_patchdiff_normalize(s, (size_t)(end - s), &diff, &p->files);
			break;
		}
		if (n == 3 && !strncmp(s, "---", 3)) {
			past_sep = true;
		} else if (!past_sep) {
			il_buf_add(&msg, s, n);
			il_buf_adds(&msg, "\n");
			if (il_patchmail_is_trailer(s, n)) {
				char *t = il_str_ndup(s, n);

				if (!t)
					r = IL_ENOMEM;
				else if (il_str_sanitize(t, false) && !il_strlist_has(&p->trailers, t))
					r |= il_strlist_push(&p->trailers, t);
				free(t);
			}
		}
		s = nl ? nl + 1 : s + strlen(s);
	}
	while (msg.len && (msg.p[msg.len - 1] == '\n' || msg.p[msg.len - 1] == ' '))
		msg.p[--msg.len] = 0;
	r |= il_buf_adds(&msg, "\n"); /* IL_ENOMEM once any append to msg failed: a message cut short is none */
	p->message = il_buf_detach(&msg);
	p->diff = il_buf_detach(&diff);
	if (!p->diff)
		p->diff = strdup("");
	return !r && p->message && p->diff ? 0 : IL_ENOMEM;
}

int il_patchmail_refs(struct il_strlist *out, const char *refs)
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

int il_patchmail_base_commit(const char *body, char **out)
{
	*out = NULL;
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
				return (*out = il_str_ndup(v, h)) ? 0 : IL_ENOMEM;
		}
		s = nl ? nl + 1 : NULL;
	}
	return 0;
}
