// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reply mail of `idlelab try`: its headers and MIME structure from
 * GMime, its text the Tested-by block of report/testedby.c.
 */
#include "report/reply.h"

#include <gmime/gmime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/mailbox.h"

/* "Name <a@b>" -> a GMime mailbox list of one; NULL when it does not parse as one mailbox. */
static InternetAddressList *one_address(const char *s)
{
	InternetAddressList *l = internet_address_list_parse(NULL, s);

	if (l && internet_address_list_length(l) == 1 &&
	    INTERNET_ADDRESS_IS_MAILBOX(internet_address_list_get_address(l, 0)))
		return l;
	if (l)
		g_object_unref(l);
	return NULL;
}

/* Whether address a is b's (addresses compare without case: their domains do, and lists' local parts in practice). */
static bool same_addr(const char *a, const char *b)
{
	const char *lt = b ? strchr(b, '<') : NULL;

	if (!a || !b)
		return false;
	if (lt) {
		const char *gt = strchr(lt, '>');

		return gt && (size_t)(gt - lt - 1) == strlen(a) && !strncasecmp(lt + 1, a, strlen(a));
	}
	return !strcasecmp(a, b);
}

static bool in_list(InternetAddressList *l, const char *a)
{
	for (int i = 0; l && i < internet_address_list_length(l); i++) {
		InternetAddress *ia = internet_address_list_get_address(l, i);

		if (INTERNET_ADDRESS_IS_MAILBOX(ia) && same_addr(a, internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia))))
			return true;
	}
	return false;
}

/*
 * The message raw into out with a References header of our own, folded
 * between ids: GMime parses the value it is given and drops every id after
 * one without an '@' (GMime 3.2), which would lose the parent and the patch
 * itself from the thread. The header goes last among the headers, before
 * the blank line that ends them. IL_ENOMEM.
 */
static int add_with_references(struct il_buf *out, const char *raw, const struct il_buf *refs)
{
	const char *body = strstr(raw, "\n\n"), *p = il_buf_str(refs);
	size_t col;

	if (!refs->len || !body)
		return il_buf_adds(out, raw);
	il_buf_add(out, raw, (size_t)(body - raw) + 1);
	il_buf_adds(out, "References:");
	col = 11;
	while (*p) {
		const char *e = strchr(p, ' ');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (col > 11 && col + 1 + n > 78) {
			il_buf_adds(out, "\n");
			col = 0;
		}
		il_buf_adds(out, " ");
		il_buf_add(out, p, n);
		col += 1 + n;
		p += n;
		while (*p == ' ')
			p++;
	}
	il_buf_adds(out, body);
	return il_buf_error(out) == IL_ENOMEM ? IL_ENOMEM : 0;
}

/*
 * The evidence: one Tested-by block, or one a part (a governor against
 * itself on the base), each under its title; the rules and the platform in
 * the first, the trailer once, at the end of the last.
 */
static int blocks(const struct il_reply_part *parts, size_t n, const struct il_reply_opts *o, struct il_buf *b,
		  struct il_err *err)
{
	int r = 0;

	for (size_t i = 0; !r && i < n; i++) {
		struct il_tb_opts tb = { .as = o->from, .force = o->force, .no_header = i > 0, .no_trailer = i + 1 < n };

		if (parts[i].title)
			il_buf_printf(b, "%s%s\n\n", i ? "\n" : "", parts[i].title);
		r = il_testedby_report(parts[i].c, &tb, b, err);
	}
	return r;
}

int il_reply_compose(const struct il_reply_part *parts, size_t nparts, const struct il_reply_opts *o, struct il_buf *out,
		     struct il_err *err)
{
	struct il_buf block = IL_BUF_INIT, text = IL_BUF_INIT, subj = IL_BUF_INIT, refs = IL_BUF_INIT, mid = IL_BUF_INIT;
	InternetAddressList *from = NULL, *to = NULL;
	GMimeMessage *msg = NULL;
	GMimeTextPart *part = NULL;
	GDateTime *date = NULL;
	char *raw = NULL, rnd[17];
	const char *domain = o->id_domain;
	unsigned char bytes[8];
	int r;

	if ((r = il_mailbox_check(o->from, "the sender", err)))
		return r;
	if (!(from = one_address(o->from)))
		return il_err_set(err, IL_EINVAL, "the sender: expected \"Name <email>\", got '%s'", o->from);
	if ((r = blocks(parts, nparts, o, &block, err))) {
		g_object_unref(from);
		return r;
	}
	/* the text: who wrote what, the quoted line, then the evidence */
	if (o->quote && *o->quote)
		il_buf_printf(&text, "On the series \"%s\":\n\n> %s\n\n", o->subject ? o->subject : "", o->quote);
	il_buf_add(&text, block.p ? block.p : "", block.len);
	il_buf_printf(&subj, "%s%s", o->subject && !strncasecmp(o->subject, "Re:", 3) ? "" : "Re: ",
		      o->subject ? o->subject : "");
	for (size_t i = 0; o->references && i < o->references->n; i++)
		if (!o->in_reply_to || strcmp(o->references->v[i], o->in_reply_to))
			il_buf_printf(&refs, "%s<%s>", refs.len ? " " : "", o->references->v[i]);
	if (o->in_reply_to)
		il_buf_printf(&refs, "%s<%s>", refs.len ? " " : "", o->in_reply_to);
	if (!domain) {
		const char *addr = internet_address_mailbox_get_addr(
			INTERNET_ADDRESS_MAILBOX(internet_address_list_get_address(from, 0)));

		domain = addr && strchr(addr, '@') ? strchr(addr, '@') + 1 : "localhost";
	}
	if (getentropy(bytes, sizeof(bytes)))
		memset(bytes, 0, sizeof(bytes));
	for (size_t i = 0; i < sizeof(bytes); i++)
		snprintf(rnd + 2 * i, 3, "%02x", bytes[i]);
	il_buf_printf(&mid, "idlelab-try.%lld.%s@%s", (long long)o->date, rnd, domain);
	if (il_buf_error(&text) || il_buf_error(&subj) || il_buf_error(&refs) || il_buf_error(&mid)) {
		r = il_err_oom(err);
		goto out;
	}
	msg = g_mime_message_new(TRUE);
	internet_address_list_add(g_mime_message_get_from(msg), internet_address_list_get_address(from, 0));
	if (o->to && *o->to && (to = one_address(o->to)))
		internet_address_list_add(g_mime_message_get_to(msg), internet_address_list_get_address(to, 0));
	/* reply-all, as b4 and a maintainer's client do: the message's To and Cc (the list) in Cc, less the author and us */
	for (size_t i = 0; o->cc && i < o->cc->n; i++) {
		InternetAddressList *one = one_address(o->cc->v[i]);
		const char *a = one ? internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(
						internet_address_list_get_address(one, 0))) : NULL;

		if (a && !same_addr(a, o->to) && !same_addr(a, internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(
								      internet_address_list_get_address(from, 0)))) &&
		    !in_list(g_mime_message_get_cc(msg), a))
			internet_address_list_add(g_mime_message_get_cc(msg), internet_address_list_get_address(one, 0));
		if (one)
			g_object_unref(one);
	}
	g_mime_message_set_subject(msg, il_buf_str(&subj), "utf-8");
	date = g_date_time_new_from_unix_utc(o->date);
	g_mime_message_set_date(msg, date);
	g_mime_message_set_message_id(msg, il_buf_str(&mid));
	if (o->in_reply_to) {
		char *irt = g_strdup_printf("<%s>", o->in_reply_to);

		g_mime_object_set_header(GMIME_OBJECT(msg), "In-Reply-To", irt, NULL);
		g_free(irt);
	}
	part = g_mime_text_part_new_with_subtype("plain");
	g_mime_text_part_set_text(part, il_buf_str(&text));
	/* plain text a maintainer's tools read as is: 8bit when it is not ASCII, never base64 */
	g_mime_part_set_content_encoding(GMIME_PART(part), GMIME_CONTENT_ENCODING_8BIT);
	for (size_t i = 0; i < text.len; i++)
		if ((unsigned char)text.p[i] >= 0x80) {
			g_mime_part_set_content_encoding(GMIME_PART(part), GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE);
			break;
		}
	g_mime_message_set_mime_part(msg, GMIME_OBJECT(part));
	raw = g_mime_object_to_string(GMIME_OBJECT(msg), NULL);
	if (!raw || add_with_references(out, raw, &refs))
		r = il_err_oom(err);
out:
	g_free(raw);
	if (part)
		g_object_unref(part);
	if (msg)
		g_object_unref(msg);
	if (date)
		g_date_time_unref(date);
	if (to)
		g_object_unref(to);
	g_object_unref(from);
	il_buf_release(&block), il_buf_release(&text), il_buf_release(&subj), il_buf_release(&refs), il_buf_release(&mid);
	return r;
}
