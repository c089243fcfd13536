// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab alert send`: a regression alert (report/alert.h) by mail (util/mail.h) and/or webhook, or printed. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/deliver.h"
#include "cli/opt.h"
#include "report/alert.h"
#include "util/http.h"
#include "util/jsonfile.h"
#include "util/mail.h"

/* --dry-run: the mail as it would go (LF line ends) and the webhook JSON; the auth file is checked, not used. */
static int dry_run(const struct il_cli_dest *o, const struct il_mail *m, json_t *hook, struct il_err *err)
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

int il_cmd_alert(int argc, char **argv)
{
	struct il_cli_dest o = { 0 };
	bool dry = false;
	const char *bad;
	const struct il_opt opts[] = {
		IL_CLI_OPT_DEST(&o),
		IL_OPT_BOOL(0, "dry-run", &dry, "print the mail and the webhook JSON instead of sending them"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab alert send ALERT.json [--smtp URL --to ADDR[,ADDR] [--starttls] [--auth-file F] [--from ADDR]]",
		"                              [--webhook URL] [--dry-run]",
		"  a regression alert (lkp style: the mail and/or a webhook) from a JSON description (docs/alerts.md)", NULL
	};
	struct il_err err = { 0 };
	char *subject = NULL, *body = NULL;
	json_t *in = NULL, *hook = NULL;
	struct il_mail m;
	int nargs, r;

	if ((r = il_opt_parse(argc, argv, opts, usage, &nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	if (nargs != 2 || strcmp(argv[1], "send"))
		return il_opt_error(opts, usage, "expected 'send ALERT.json'");
	if (!dry && !il_deliver_any(&o))
		return il_opt_error(opts, usage, "nothing to send to: give --smtp, --webhook or --dry-run");
	if ((bad = il_deliver_check(&o, dry))) {
		il_deliver_release(&o);
		return il_opt_error(opts, usage, "%s", bad);
	}
	if ((r = il_json_load(argv[2], &in, &err)) || (r = il_alert_compose(in, &subject, &body, &hook, &err)))
		goto done;
	m = il_deliver_mail(&o, subject, body);
	if (dry)
		r = dry_run(&o, &m, hook, &err);
	else {
		r = il_deliver_send(&o, subject, body, hook) ? IL_EXIT_FAIL : IL_EXIT_OK;
		goto out;
	}
done:
	r = r ? il_cli_fail(&err) : IL_EXIT_OK;
out:
	json_decref(in);
	json_decref(hook);
	free(subject);
	free(body);
	il_deliver_release(&o);
	return r;
}
