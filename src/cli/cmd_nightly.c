// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `idlelab nightly PLAN`: one nightly regression check (workflow/nightly.h),
 * its alert delivered (cli/deliver.h) or printed, its verdict journaled.
 * Runs once and exits, for a systemd timer or cron (docs/nightly.md):
 * 0 nothing new or no regression, 3 a regression, 1 a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/deliver.h"
#include "cli/opt.h"
#include "cli/clipaths.h"
#include "cli/cliprogress.h"
#include "kernel/repo.h"
#include "report/alert.h"
#include "report/kcidb.h"
#include "report/nightly.h"
#include "util/kcidbrest.h"
#include "workflow/nightly.h"
#include "util/buf.h"
#include "util/str.h"
#include "util/jsonfile.h"

enum { EXIT_REGRESSION = 3 };

/* One delivery attempt of an owed alert: journaled the moment the destination took it. */
struct attempt {
	struct il_nightly_delivery dv;
	bool accepted, journaled;
	struct il_err jerr;
};

static void on_accepted(void *ctx)
{
	struct attempt *a = ctx;

	a->accepted = true;
	a->journaled = !il_nightly_delivery_done(&a->dv, NULL, &a->jerr);
}

/* The KCIDB document of the owed night e (its verdict record and run), submitted to $KCIDB_REST. */
static int submit_night(const struct il_nightly_opts *no, const json_t *e, const struct il_cli_dest *dest,
			struct il_buf *sid, struct il_err *err)
{
	const char *origin = dest->kcidb_origin;
	struct il_kcidb_rest rest = { .url = getenv("KCIDB_REST"), .deadline_s = dest->kcidb_deadline };
	json_t *doc = NULL;
	char *txt = NULL;
	int r = il_kcidb_night(no->dir, json_object_get(e, "record"), origin, &doc, err);

	if (!r && !(txt = il_json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER)))
		r = il_err_oom(err);
	if (!r)
		r = il_kcidbrest_submit(&rest, txt, sid, err);
	free(txt);
	json_decref(doc);
	return r;
}

/*
 * Deliver every alert still owed (this night's and earlier ones that did not
 * go out) to the destinations given here, each attempt journaled (and listed
 * in done; *unlisted set when memory ran out there); true when none failed.
 * An alert owed to a destination not given this time stays owed.
 */
static bool deliver_owed(const struct il_nightly_opts *no, const struct il_nightly_result *res,
			 const struct il_cli_dest *dest, json_t *done, bool *unlisted)
{
	const json_t *e;
	size_t i;
	bool ok = true;

	json_array_foreach(res->owed, i, e) {
		const char *run = json_string_value(json_object_get(e, "run")), *base = strrchr(run, '/');
		bool tonight = res->run && !strcmp(run, res->run);
		char *subject = NULL, *body = NULL, *id;
		json_t *hook = NULL;
		struct il_err err = { 0 };
		int r;

		base = base ? base + 1 : run;
		/* the alert's one name on every attempt: the run's id, in characters a Message-ID takes */
		id = il_str_dup_printf("%.160s.nightly.idlelab", base);
		for (char *p = id; p && *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_+=", *p))
				*p = '_';
		r = il_alert_compose(json_object_get(e, "alert"), &subject, &body, &hook, &err);
		for (int w = 0; w < IL_NIGHTLY_NDESTS; w++) {
			enum il_nightly_dest d = (enum il_nightly_dest)w;
			struct attempt a = { .accepted = false };

			if (!il_nightlyq_owes(e, d))
				continue;
			if (!il_deliver_has(dest, d)) {
				fprintf(stderr, "idlelab: the alert of %s is still owed to the %s destination (none given now)\n",
					base, il_nightly_dest_name(d));
				continue;
			}
			if (!tonight)
				printf("alert: the alert of %s (%s), undelivered so far: delivering it now\n", base,
				       json_string_value(json_object_get(e, "time")) ?: "an earlier nightly");
			if (il_nightly_delivery_begin(no, res, e, d, &a.dv, &a.jerr)) {
				/* nowhere to record it: not sent, or it would go out again tomorrow */
				il_cli_fail(&a.jerr);
				il_nightly_delivery_end(&a.dv);
				ok = false;
				continue;
			}
			if (d == IL_NIGHTLY_KCIDB) {
				/* the night's results, a regression or not: taken once KCIDB has processed them */
				struct il_buf sid = IL_BUF_INIT;

				if (!submit_night(no, e, dest, &sid, &err)) {
					on_accepted(&a);
					printf("kcidb: the results of %s submitted to KCIDB (submission %s)\n", base, il_buf_str(&sid));
				}
				il_buf_release(&sid);
			} else if (!r) {
				il_deliver_send_one(dest, d, subject, body, hook, id, on_accepted, &a, &err);
			}
			if (a.accepted && a.journaled) {
				/* taken by the destination and recorded: what came after (the rest of an answer) is not a failure */
				if (json_array_append_new(done, json_pack("{s:s,s:s,s:b}", "run", base, "destination",
									  il_nightly_dest_name(d), "delivered", 1)))
					*unlisted = true;
			} else if (a.accepted) {
				/* delivered, but the journal could not say so: it may go out once more tomorrow */
				ok = false;
				il_cli_fail(&a.jerr);
			} else {
				ok = false;
				il_cli_fail(&err);
				if (json_array_append_new(done, json_pack("{s:s,s:s,s:b,s:s}", "run", base, "destination",
									  il_nightly_dest_name(d), "delivered", 0, "error",
									  err.msg)))
					*unlisted = true;
				if (il_nightly_delivery_done(&a.dv, err.msg, &a.jerr))
					il_cli_fail(&a.jerr);
			}
			il_nightly_delivery_end(&a.dv);
		}
		json_decref(hook);
		free(subject), free(body), free(id);
	}
	return ok;
}

int il_cmd_nightly(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	struct il_cli_dirs dirs = { 0 };
	struct il_cli_dest dest = { 0 };
	const char *dir = "reports", *db = NULL, *host = NULL, *ofile = NULL, *bad;
	bool force = false, rebaseline = false, json = false, quiet = false, unlisted = false;
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "dir", &dir, "DIR", "the runs directory: nightly.jsonl, the runs, history.sqlite (default ./reports)"),
		IL_OPT_STR(0, "db", &db, "FILE", "the history index (default DIR/history.sqlite)"),
		IL_OPT_STR(0, "host", &host, "H", "run on host H instead of the plan's"),
		IL_OPT_BOOL(0, "force", &force, "measure the tip even when it was measured"),
		IL_OPT_BOOL(0, "rebaseline", &rebaseline, "take this nightly as the new baseline (accept a known change)"),
		IL_CLI_OPT_DEST(&dest),
		IL_CLI_OPT_KCIDB(&dest),
		IL_CLI_OPTS_MEASURE(&dirs),
		IL_CLI_OPT_CACHE(&dirs),
		IL_OPT_BOOL(0, "json", &json, "JSON output (idlelab-nightly/1)"),
		IL_OPT_STR('o', "output", &ofile, "FILE", "write the outcome here"),
		IL_OPT_BOOL('q', "quiet", &quiet, "no progress output"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab nightly PLAN [--dir DIR] [--host H] [--force] [--rebaseline]",
		"                     [--smtp URL --to ADDR[,ADDR] [--starttls] [--auth-file F] [--from ADDR]] [--webhook URL]",
		"                     [--kcidb [--kcidb-origin NAME]]",
		"  build, boot and measure the tip of the plan's track.branch when it is new, compare it with the last",
		"  good nightly; exit 0 nothing new or no regression, 3 regression (alerted once), 1 failure", NULL
	};
	struct il_cli_runprog prog = { isatty(STDERR_FILENO), false, false };
	struct il_nightly_result res = { .lock_fd = -1 };
	struct il_nightly_opts no;
	struct il_run_opts ro;
	struct il_err err = { 0 };
	struct il_buf text = IL_BUF_INIT;
	char *subject = NULL, *body = NULL;
	json_t *done = NULL;
	bool delivered = true;
	int nargs, r, rc = IL_EXIT_FAIL;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (nargs != 1)
		return il_opt_error(opts, usage, "expected one plan");
	if ((bad = il_deliver_check(&dest, false))) {
		il_deliver_release(&dest);
		return il_opt_error(opts, usage, "%s", bad);
	}
	prog.quiet = quiet;
	ro = (struct il_run_opts){ .paths = &paths, .workloads_dir = paths.workloads_dir, .host = host,
				   .workload_bin = paths.workload_bin, .stop = &il_cli_stop,
				   .cb = il_cli_run_event, .cb_ctx = &prog, .progress = quiet ? NULL : il_cli_progress };
	no = (struct il_nightly_opts){ .run = &ro, .plan_path = argv[1], .dir = dir, .db = db, .force = force,
				       .rebaseline = rebaseline };
	for (int w = 0; w < IL_NIGHTLY_NDESTS; w++)
		no.dest[w] = il_deliver_has(&dest, (enum il_nightly_dest)w);
	il_cli_stop_on_signals();
	il_repo_git_init();
	if ((r = il_nightly_run(&no, &res, &err))) {
		if (r == IL_EINTR) {
			il_cli_note(NULL, "idlelab: %s (the next nightly resumes %s)\n", err.msg, res.run ? res.run : "the run");
			rc = 130;
		} else {
			if (res.run)
				fprintf(stderr, "idlelab: nightly run: %s\n", res.run);
			rc = il_cli_fail(&err);
		}
		goto out;
	}
	/* the verdict is journaled already: what follows can fail without losing it */
	if (!(done = json_array())) {
		rc = il_cli_fail(&(struct il_err){ IL_ENOMEM, "" });
		goto out;
	}
	delivered = deliver_owed(&no, &res, &dest, done, &unlisted);
	if (res.verdict == IL_NIGHTLY_REGRESSION && !res.repeat && !il_deliver_any(&dest) &&
	    (r = il_alert_compose(res.alert, &subject, &body, NULL, &err))) {
		rc = il_cli_fail(&err);
		goto out;
	}
	if (json) {
		json_t *j = il_report_nightly_json(&res);

		/* a JSON short of a key or a delivery is not written: j NULL makes it IL_ENOMEM */
		if (unlisted || (j && res.alert && !res.repeat &&
				 json_object_set_new(j, "alerted", json_boolean(delivered && il_deliver_any(&dest)))) ||
		    (j && json_array_size(done) && json_object_set(j, "deliveries", done))) {
			json_decref(j);
			j = NULL;
		}
		r = il_cli_output_json(ofile, j, &err); /* takes j */
	} else {
		il_report_nightly(&res, &text);
		/* no destination: the alert itself is the output (cron mails it) */
		if (res.verdict == IL_NIGHTLY_REGRESSION && !res.repeat && !il_deliver_any(&dest))
			il_buf_printf(&text, "\nSubject: %s\n\n%s", subject, body);
		r = il_cli_output(ofile, text.p, text.len, &err);
	}
	if (r) {
		rc = il_cli_fail(&err);
		goto out;
	}
	switch (res.verdict) {
	case IL_NIGHTLY_REGRESSION:
		rc = delivered ? EXIT_REGRESSION : IL_EXIT_FAIL;
		break;
	case IL_NIGHTLY_FAILED:
		rc = IL_EXIT_FAIL;
		break;
	default:
		rc = delivered ? IL_EXIT_OK : IL_EXIT_FAIL;
	}
out:
	il_nightly_result_release(&res);
	il_deliver_release(&dest);
	il_buf_release(&text);
	json_decref(done);
	free(subject), free(body);
	il_repo_git_shutdown();
	return rc;
}
