/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RFC 5322 mailboxes ("Name <addr@domain>") made and checked with GMime: the
 * one test of a sender, where `try` takes its identity (before hours of
 * measuring) and where its reply is composed, so that what passes the first
 * passes the second. Also GMime's one initialization for the process.
 */
#ifndef IL_UTIL_MAILBOX_H
#define IL_UTIL_MAILBOX_H

#include "util/buf.h"
#include "util/err.h"

/* g_mime_init() once per process: GMime's global tables do not survive init/shutdown cycles. */
void il_mailbox_gmime_init(void);

/*
 * The mailbox of name and addr into out, the name quoted where RFC 5322 wants
 * it (a git user.name "Intel: Jo" is "\"Intel: Jo\" <jo@example.org>"), then
 * checked as il_mailbox_check checks. IL_EINVAL naming what (e.g. "the
 * sender (user.name/user.email of REPO)"); IL_ENOMEM.
 */
int il_mailbox_make(const char *name, const char *addr, const char *what, struct il_buf *out, struct il_err *err);

/*
 * Whether s is exactly one mailbox with a name and an address holding an '@'
 * (no group, no list, no CR or LF, no control bytes). IL_EINVAL with
 * "WHAT: expected \"Name <email>\", got 'S'".
 */
int il_mailbox_check(const char *s, const char *what, struct il_err *err);

#endif
