/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A reply on linux-pm with a run's Tested-by block (`idlelab try`): one
 * RFC 5322 message composed with GMime — From, To (the answered message's
 * author), Subject "Re: ...", Date, Message-ID, In-Reply-To and References
 * (the answered message's References, root first, then its own id) — whose
 * text is a quoted line of the answered message and the block
 * il_testedby_report makes (the same rules, the same code as `idlelab
 * tested-by`). Ready for `git send-email --in-reply-to` or `mutt -H`.
 */
#ifndef IL_REPORT_REPLY_H
#define IL_REPORT_REPLY_H
#include <stdint.h>
#include "report/report.h"
#include "util/strlist.h"

struct il_reply_opts {
	const char *from;              /* "Name <email>": the sender, and the Tested-by's identity */
	const char *to;                /* the answered message's author's address, or NULL/"" */
	const struct il_strlist *cc;   /* the answered message's To and Cc (reply-all: the list), or NULL */
	const char *subject;           /* the answered message's Subject as sent */
	const char *in_reply_to;       /* its Message-ID, without <> */
	const struct il_strlist *references; /* its References (root first, without <>), or NULL */
	const char *quote;             /* the line quoted from it ("> ..."), or NULL */
	int64_t date;                  /* seconds since the epoch */
	const char *id_domain;         /* the new Message-ID's right-hand side (NULL: the From address's domain) */
	bool force;                    /* as tested-by --force */
};

/* One part of the evidence: a comparison, and the line that says what it compares (NULL: none). */
struct il_reply_part {
	const char *title;             /* "menu: each kernel against menu on the base (patch 1/2: menu@patch-1)" */
	const struct il_cmp *c;
};

/*
 * Append the whole message (headers and body, LF line ends) to out; its
 * evidence the Tested-by block of each part in turn (report/testedby.c), the
 * rules and platform once, the trailer once at the end.
 */
int il_reply_compose(const struct il_reply_part *parts, size_t nparts, const struct il_reply_opts *o, struct il_buf *out,
		     struct il_err *err);

#endif
