/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Patch mail: the messages of an mbox as GMime reads them (folded and RFC
 * 2047 headers, quoted-printable and base64 bodies, charsets, patches sent as
 * attachments), and what one mail says as a patch: the "[PATCH vN M/N]" tag
 * of its subject, the in-body From: and Date: lines, its body split into
 * commit message, diff and trailers, its References, a "base-commit:" line.
 * Putting the mails together into a series is kernel/series.c's.
 */
#ifndef IL_KERNEL_PATCHMAIL_H
#define IL_KERNEL_PATCHMAIL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/series.h"
#include "util/err.h"
#include "util/str.h"

/* One message of an mbox, before anyone knows whether it is a patch. Everything owned. */
struct il_patchmail {
	char *subject, *name, *email, *msgid; /* as GMime decodes them; "" when absent, never NULL */
	char *in_reply_to;       /* without the <>, sanitized; NULL when absent */
	char *references;        /* the References header as sent; NULL when absent */
	char *body;              /* the text of its text parts and of its patch attachments; never NULL */
	struct il_strlist rcpt;  /* To and Cc, one mailbox each, as GMime formats them, sanitized */
	int64_t date;            /* seconds since the epoch (0 without a Date) */
	int tz;                  /* the sender's UTC offset, in minutes */
};

/*
 * The messages of mbox[0..len) into *out, *n of them (the caller frees them
 * with il_patchmail_free, also after an error). label names the mbox in
 * errors: IL_EPARSE when it does not start with a "From " line; IL_ENOMEM.
 */
int il_patchmail_read_mbox(const char *mbox, size_t len, const char *label, struct il_patchmail **out, size_t *n,
			   struct il_err *err);
void il_patchmail_free(struct il_patchmail *m, size_t n);

/*
 * "[PATCH v2 3/4] foo" -> version 2, 3 of 4, *rest "foo" (within s); "vN"
 * missing: 1, "M/N" missing: 1/1. Tag groups without PATCH before it are
 * passed over ("[EXTERNAL] [PATCH 1/1] foo"). False for subjects without a
 * PATCH tag (plain mail), for replies and forwards ("Re: [PATCH ...]", also
 * behind such a tag) and for numbers no series has (past 9999).
 */
bool il_patchmail_subject(const char *s, int *version, int *index, int *total, const char **rest);

/* Whether line[0..n) is a trailer: "Signed-off-by:", "Reviewed-by:", "Fixes:", "Cc:" ... (any case), with a value. */
bool il_patchmail_is_trailer(const char *line, size_t n);

/*
 * The in-body "From:" and "Date:" lines at the top of a patch's body, as git
 * mailinfo takes them (they name the author when someone else sends the mail):
 * p's author and date replaced, *body moved past them and the blank line that
 * ends them. Lines that do not parse are left in the body. IL_ENOMEM.
 */
int il_patchmail_in_body_headers(struct il_patch *p, const char **body);

/*
 * A patch mail's body into p->message (subject, blank line, the body up to
 * the first "---" line), p->diff (from where git mailinfo would break the
 * mail, in whichever form it was sent: kernel/patchdiff.h), p->files and
 * p->trailers (those of the message, sanitized, each once). What lies between
 * "---" and the diff (a diffstat, "v1 -> v2" notes) is kept out of both.
 * IL_ENOMEM.
 */
int il_patchmail_split_body(struct il_patch *p, const char *subject, const char *body);

/*
 * "<a@b> <c@d>" (folded or not) -> "a@b", "c@d" appended to out, in order,
 * each once (sanitized); malformed ones skipped. IL_ENOMEM.
 */
int il_patchmail_refs(struct il_strlist *out, const char *refs);

/*
 * The commit of the first "base-commit: HEX" line of body (git format-patch
 * --base puts it after the patch or in the cover letter), 7 to 64 hex digits,
 * into *out (the caller frees; NULL when there is none). IL_ENOMEM.
 */
int il_patchmail_base_commit(const char *body, char **out);

#endif
