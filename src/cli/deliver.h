/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a regression alert goes, as `alert send` and `nightly` take it on
 * their command lines: the SMTP server, recipients, STARTTLS, the auth file,
 * the sender, and/or a webhook; its checks and its delivery (mail, then
 * webhook, both tried, each outcome printed).
 */
#ifndef IL_CLI_DELIVER_H
#define IL_CLI_DELIVER_H
#include <stdbool.h>
#include <jansson.h>
#include "cli/opt.h"
#include "workflow/nightlyq.h"
#include "util/err.h"
#include "util/mail.h"
#include "util/strlist.h"

struct il_cli_dest {
	const char *smtp, *auth_file, *from, *webhook, *to_arg;
	bool starttls;
	bool kcidb;             /* nightly --kcidb: each measured night's results to $KCIDB_REST */
	const char *kcidb_origin;
	long kcidb_deadline;    /* seconds for one night's submission (0: 300) */
	struct il_strlist to;   /* from to_arg, by il_deliver_check */
	char from_buf[300];
};

#define IL_CLI_OPT_DEST(d)                                                                                             \
	IL_OPT_STR(0, "smtp", &(d)->smtp, "URL", "mail the alert through this server: smtp://HOST:PORT or smtps://HOST:PORT"), \
	IL_OPT_BOOL(0, "starttls", &(d)->starttls, "with smtp://: require STARTTLS (fail rather than send in clear)"),   \
	IL_OPT_STR(0, "auth-file", &(d)->auth_file, "F", "log in with F's one line \"user:password\" (mode 0600, yours)"), \
	IL_OPT_STR(0, "from", &(d)->from, "ADDR", "the sender (default idlelab@HOSTNAME)"),                             \
	IL_OPT_STR(0, "to", &(d)->to_arg, "ADDR[,ADDR]", "the recipients"),                                              \
	IL_OPT_STR(0, "webhook", &(d)->webhook, "URL", "POST the alert's JSON (idlelab-alert/1) to URL")

/* nightly's: every measured night's results to KernelCI's database, owed until processed */
#define IL_CLI_OPT_KCIDB(d)                                                                                            \
	IL_OPT_BOOL(0, "kcidb", &(d)->kcidb, "submit each measured night to $KCIDB_REST (https://TOKEN@host; docs/export.md)"), \
	IL_OPT_STR(0, "kcidb-origin", &(d)->kcidb_origin, "NAME", "the KCIDB origin KernelCI gave this lab (default idlelab)"), \
	IL_OPT_NUM(0, "kcidb-deadline", &(d)->kcidb_deadline, "S", "one night's submission within S seconds (default 300)")

/* The options' combination (NULL: fine, else what is wrong); fills to and the default sender. */
const char *il_deliver_check(struct il_cli_dest *d, bool dry_run);
/* Whether anything is to be sent. */
bool il_deliver_any(const struct il_cli_dest *d);
/* The mail of subject and body for d. */
struct il_mail il_deliver_mail(const struct il_cli_dest *d, const char *subject, const char *body);
/* Whether d names destination which. */
bool il_deliver_has(const struct il_cli_dest *d, enum il_nightly_dest which);
/*
 * Deliver to one destination of d; success printed ("alert: mail sent ...",
 * the URL redacted), a failure left in err for the caller. id (may be NULL)
 * names the alert the same way on every attempt: the mail's Message-ID
 * (ID@domain) and the webhook's Idempotency-Key header, so a receiver can
 * tell an alert sent again (a kill between its acceptance and the record)
 * from a new one. accepted (may be NULL) is called as soon as the
 * destination took the alert, before the mail dialogue's goodbye: where a
 * delivery is recorded.
 */
int il_deliver_send_one(const struct il_cli_dest *d, enum il_nightly_dest which, const char *subject,
			 const char *body, const json_t *hook, const char *id, void (*accepted)(void *ctx), void *ctx,
			 struct il_err *err);
/* Mail, then webhook: both tried, each failure printed; 0 when everything asked for went out. */
int il_deliver_send(const struct il_cli_dest *d, const char *subject, const char *body, const json_t *hook);
void il_deliver_release(struct il_cli_dest *d);
#endif
