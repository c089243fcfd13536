// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab alert send`: a regression alert (report/alert.h) by mail (util/mail.h) and/or webhook, or printed. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "report/alert.h"
#include "util/http.h"
#include "util/jsonfile.h"
#include "util/mail.h"

/* What a mail and a webhook need besides the alert itself. */
struct send_opts {
	const char *smtp, *auth_file, *from, *webhook;
	bool starttls, dry_run;
	struct il_strlist to;
};

/* --dry-run: the mail as it would go (LF line ends) and the webhook JSON; the auth file is checked, not used. */
static int dry_run(const struct send_opts *o, const struct il_mail *m, json_t *hook, struct il_err *err)
{
	struct il_buf text = IL_BUF_INIT;
	char *user = NULL, *password = NULL;
	int r;

	if (o->auth_file && (r = il_mail_auth_read(o->auth_file, &user, &password, err)))
		return r;
	free(user);
	il_mail_auth_wipe(password);
	if (!(r = il_mail_compose(m, false, &text, err)) && !(r = il_cli_output(NULL, text.p, text.len, err)) &&
	    !(r = il_cli_output(NULL, "\n", 1, err)))
		r = il_cli_output_json(NULL, json_incref(hook), err);
	il_buf_release(&text);
	return r;
}

/* Mail, then webhook: both are tried, each failure printed; IL_EXIT_FAIL when either failed. */
static int deliver(const struct send_opts *o, const struct il_mail *m, const json_t *hook)
{
	struct il_err err = { 0 };
	int rc = IL_EXIT_OK;
	char *shown;

	if (o->smtp) {
		if (il_mail_send(m, &err))
			rc = il_cli_fail(&err);
		else if ((shown = il_http_url_shown(o->smtp))) {
			printf("alert: mail sent to %zu recipient%s via %s\n", o->to.n, o->to.n == 1 ? "" : "s", shown);
			free(shown);
		}
	}
	if (o->webhook) {
		if (il_alert_post_webhook(o->webhook, hook, NULL, &err))
			rc = il_cli_fail(&err);
		else if ((shown = il_http_url_shown(o->webhook))) {
			printf("alert: webhook posted to %s\n", shown);
			free(shown);
		}
	}
	return rc;
}

int cmd_alert(int argc, char **argv)
{
	struct send_opts o = { 0 };
	const char *to = NULL;
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "smtp", &o.smtp, "URL", "send the mail through this server: smtp://HOST:PORT or smtps://HOST:PORT"),
		IL_OPT_BOOL(0, "starttls", &o.starttls, "with smtp://: require STARTTLS (fail rather than send in clear)"),
		IL_OPT_STR(0, "auth-file", &o.auth_file, "F", "log in with F's one line \"user:password\" (mode 0600, yours)"),
		IL_OPT_STR(0, "from", &o.from, "ADDR", "the sender (default idlelab@HOSTNAME)"),
		IL_OPT_STR(0, "to", &to, "ADDR[,ADDR]", "the recipients"),
		IL_OPT_STR(0, "webhook", &o.webhook, "URL", "POST the alert's JSON (idlelab-alert/1) to URL"),
		IL_OPT_BOOL(0, "dry-run", &o.dry_run, "print the mail and the webhook JSON instead of sending them"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab alert send ALERT.json [--smtp URL --to ADDR[,ADDR] [--starttls] [--auth-file F] [--from ADDR]]",
		"                              [--webhook URL] [--dry-run]",
		"  a regression alert (lkp style: the mail and/or a webhook) from a JSON description (docs/alerts.md)", NULL
	};
	struct il_err err = { 0 };
	char host[256] = "", from[300], *subject = NULL, *body = NULL;
	json_t *in = NULL, *hook = NULL;
	struct il_mail m;
	int nargs, r;

	if ((r = il_opt_parse(argc, argv, opts, usage, &nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	if (nargs != 2 || strcmp(argv[1], "send"))
		return il_opt_error(opts, usage, "expected 'send ALERT.json'");
	if (!o.dry_run && !o.smtp && !o.webhook)
		return il_opt_error(opts, usage, "nothing to send to: give --smtp, --webhook or --dry-run");
	if (o.smtp && !to)
		return il_opt_error(opts, usage, "--smtp needs --to");
	if (!o.smtp && !o.dry_run && (to || o.starttls || o.auth_file || o.from))
		return il_opt_error(opts, usage, "--to, --from, --starttls and --auth-file go with --smtp");
	if (to && il_strlist_split_on(&o.to, to, ','))
		return il_cli_fail(&(struct il_err){ IL_ENOMEM, "out of memory" });
	if (!o.from) {
		/* the sender's domain names the machine the nightly ran on, as cron's mail does */
		if (gethostname(host, sizeof(host) - 1) || !*host)
			snprintf(host, sizeof(host), "localhost");
		snprintf(from, sizeof(from), "idlelab@%s", host);
		o.from = from;
	}
	if ((r = il_json_load(argv[2], &in, &err)) || (r = il_alert_compose(in, &subject, &body, &hook, &err)))
		goto done;
	m = (struct il_mail){ .url = o.smtp, .starttls = o.starttls, .auth_file = o.auth_file, .from = o.from,
			      .to = &o.to, .subject = subject, .body = body, .timeout_s = 60 };
	if (o.dry_run)
		r = dry_run(&o, &m, hook, &err);
	else {
		r = deliver(&o, &m, hook);
		goto out;
	}
done:
	r = r ? il_cli_fail(&err) : IL_EXIT_OK;
out:
	json_decref(in);
	json_decref(hook);
	free(subject);
	free(body);
	il_strlist_release(&o.to);
	return r;
}
