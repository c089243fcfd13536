// SPDX-License-Identifier: GPL-2.0-or-later
/* A regression alert's destinations from the command line, and its delivery (see deliver.h). */
#include "cli/deliver.h"

#include "report/kcidb.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/alert.h"
#include "util/http.h"
#include "util/str.h"

const char *il_deliver_check(struct il_cli_dest *d, bool dry_run)
{
	if (d->smtp && !d->to_arg)
		return "--smtp needs --to";
	if (!d->smtp && !dry_run && (d->to_arg || d->starttls || d->auth_file || d->from))
		return "--to, --from, --starttls and --auth-file go with --smtp";
	if (d->to_arg && il_strlist_split_on(&d->to, d->to_arg, ','))
		return il_err_strerror(IL_ENOMEM);
	if ((d->kcidb_origin || d->kcidb_deadline) && !d->kcidb)
		return "--kcidb-origin and --kcidb-deadline go with --kcidb";
	if (d->kcidb_deadline < 0 || d->kcidb_deadline > 86400)
		return "--kcidb-deadline: expected 1 to 86400 seconds";
	if (!d->kcidb_origin)
		d->kcidb_origin = "idlelab";
	if (d->kcidb && !il_kcidb_origin_ok(d->kcidb_origin))
		return "--kcidb-origin: expected lower-case letters, digits and '_' (KCIDB's ^[a-z0-9_]+$)";
	if (d->kcidb && !getenv("KCIDB_REST"))
		return "--kcidb needs KCIDB_REST (https://TOKEN@host: the service and the token KernelCI gave)";
	if (!d->from) {
		char host[256] = "";

		/* the sender's domain names the machine the nightly ran on, as cron's mail does */
		if (gethostname(host, sizeof(host) - 1) || !*host)
			snprintf(host, sizeof(host), "localhost");
		snprintf(d->from_buf, sizeof(d->from_buf), "idlelab@%s", host);
		d->from = d->from_buf;
	}
	return NULL;
}

bool il_deliver_any(const struct il_cli_dest *d)
{
	return d->smtp || d->webhook;
}

struct il_mail il_deliver_mail(const struct il_cli_dest *d, const char *subject, const char *body)
{
	return (struct il_mail){ .url = d->smtp, .starttls = d->starttls, .auth_file = d->auth_file, .from = d->from,
				 .to = &d->to, .subject = subject, .body = body, .timeout_s = 60 };
}

bool il_deliver_has(const struct il_cli_dest *d, enum il_nightly_dest which)
{
	return which == IL_NIGHTLY_MAIL ? d->smtp != NULL : which == IL_NIGHTLY_WEBHOOK ? d->webhook != NULL :
	       which == IL_NIGHTLY_KCIDB ? d->kcidb : false;
}

int il_deliver_send_one(const struct il_cli_dest *d, enum il_nightly_dest which, const char *subject,
			 const char *body, const json_t *hook, const char *id, void (*accepted)(void *ctx), void *ctx,
			 struct il_err *err)
{
	struct il_mail m = il_deliver_mail(d, subject, body);
	struct il_strlist hdr = { 0 };
	char *shown = NULL;
	int r;

	if (!il_deliver_has(d, which))
		return il_err_set(err, IL_EINVAL, "no %s destination given", il_nightly_dest_name(which));
	if (which == IL_NIGHTLY_MAIL) {
		m.accepted = accepted, m.accepted_ctx = ctx, m.message_id = id;
		if (!(r = il_mail_send(&m, err)) && (shown = il_http_url_shown(d->smtp)))
			printf("alert: mail sent to %zu recipient%s via %s\n", d->to.n, d->to.n == 1 ? "" : "s", shown);
	} else {
		if (id) {
			char *h = il_str_dup_printf("Idempotency-Key: %s", id);

			if (!h || il_strlist_push(&hdr, h)) {
				free(h);
				il_strlist_release(&hdr);
				return il_err_oom(err);
			}
			free(h);
		}
		if (!(r = il_alert_post_webhook(d->webhook, hook, &hdr, accepted, ctx, err))) {
			if ((shown = il_http_url_shown_nopath(d->webhook)))
				printf("alert: webhook posted to %s\n", shown);
		}
	}
	il_strlist_release(&hdr);
	free(shown);
	fflush(stdout);
	return r;
}

int il_deliver_send(const struct il_cli_dest *d, const char *subject, const char *body, const json_t *hook)
{
	struct il_err err = { 0 };
	int rc = 0;

	for (int w = 0; w < IL_NIGHTLY_NDESTS; w++)
		if (il_deliver_has(d, (enum il_nightly_dest)w) &&
		    il_deliver_send_one(d, (enum il_nightly_dest)w, subject, body, hook, NULL, NULL, NULL, &err))
			rc = il_cli_fail(&err);
	return rc;
}

void il_deliver_release(struct il_cli_dest *d)
{
	il_strlist_release(&d->to);
}
