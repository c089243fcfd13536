// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab history`: the run history index (workflow/history.h) updated or rebuilt, and a plan's history printed. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "report/history.h"
#include "workflow/history.h"
#include "util/str.h"

/* What an update or a rebuild left out, one line each, to stderr (or stdout for a rebuild: its result). */
static void print_skipped(FILE *f, const struct il_history_sync *s)
{
	for (size_t i = 0; i < s->nskipped; i++) {
		char msg[sizeof(((struct il_err *)0)->msg)];

		il_str_lcpy(msg, s->skipped[i].reason, sizeof(msg));
		fprintf(f, "skipped %s: %s\n", s->skipped[i].run_id, il_str_sanitize(msg, false));
	}
}

int il_cmd_history(int argc, char **argv)
{
	const char *dir = "reports", *db = NULL, *host = NULL, *metric = NULL, *fmt = NULL, *out = NULL;
	bool rebuild = false;
	long window = LONG_MIN; /* not given: 20 */
	const struct il_opt opts[] = {
		IL_OPT_BOOL(0, "rebuild", &rebuild, "drop the index and index every run under DIR again"),
		IL_OPT_STR(0, "dir", &dir, "DIR", "where runs are (default ./reports)"),
		IL_OPT_STR(0, "db", &db, "FILE", "the index (default DIR/history.sqlite)"),
		IL_OPT_STR(0, "host", &host, "H", "only runs on host H"),
		IL_OPT_STR(0, "metric", &metric, "KEY[,KEY...]", "only these metrics (full keys or their last parts)"),
		IL_OPT_NUM(0, "window", &window, "N", "change points over each variant's last N runs (default 20; 0: all)"),
		IL_OPT_STR(0, "format", &fmt, "text|csv|json|html", "output format (default text)"),
		IL_OPT_STR('o', "output", &out, "FILE", "write to FILE instead of stdout"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab history PLAN [--host H] [--metric KEY[,KEY]] [--window N] [--format F] [--dir DIR] [--db FILE] [-o FILE]",
		"idlelab history --rebuild [--dir DIR] [--db FILE]",
		"  a plan's metrics across its runs, from an SQLite index of DIR's run journals (new runs added first)", NULL
	};
	struct il_history *h = NULL;
	struct il_history_sync sync = { 0 };
	struct il_strlist only = { 0 };
	struct il_buf path = IL_BUF_INIT, text = IL_BUF_INIT;
	struct il_err err = { 0 };
	enum il_fmt f = IL_FMT_TEXT;
	json_t *hist = NULL;
	struct stat st;
	int nargs, r;

	if ((r = il_opt_parse(argc, argv, opts, usage, &nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	if (rebuild && (nargs || host || metric || fmt || out || window != LONG_MIN))
		return il_opt_error(opts, usage, "--rebuild takes only --dir and --db");
	if (window == LONG_MIN)
		window = 20;
	else if (window < 0)
		return il_opt_error(opts, usage, "--window: expected a number of runs (0: all), got %ld", window);
	if (!rebuild && nargs != 1)
		return il_opt_error(opts, usage, "expected one plan name (or --rebuild)");
	if (fmt && (il_report_fmt_parse(fmt, &f, &err) || f == IL_FMT_MD))
		return il_opt_error(opts, usage, "--format: expected text, csv, json or html, got '%s'", fmt);
	if (metric && il_strlist_split_on(&only, metric, ','))
		return il_cli_fail(&(struct il_err){ IL_ENOMEM, "" });
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		r = il_err_set(&err, IL_ENOTFOUND, "no runs directory '%s'", dir);
		goto done;
	}
	if (!db && il_buf_printf(&path, "%s/history.sqlite", dir)) {
		r = il_err_oom(&err);
		goto done;
	}
	if ((r = il_history_open(&h, db ? db : il_buf_str(&path), &err)))
		goto done;
	if (rebuild) {
		if (!(r = il_history_rebuild(h, dir, &sync, &err))) {
			printf("history %s: %zu run%s indexed from %s, %zu skipped\n", db ? db : il_buf_str(&path), sync.added,
			       sync.added == 1 ? "" : "s", dir, sync.nskipped);
			print_skipped(stdout, &sync);
		}
		goto done;
	}
	if ((r = il_history_update(h, dir, &sync, &err)))
		goto done;
	print_skipped(stderr, &sync);
	if (!(r = il_history_series(h,
				    &(struct il_history_query){ .plan = argv[1], .host = host, .metrics = &only,
								.window = (size_t)window, .cp = IL_CP_OPTS_INIT },
				    &hist, &err)) &&
	    !(r = il_report_history(hist, f, metric != NULL, &text, &err)))
		r = il_cli_output(out, il_buf_str(&text), text.len, &err);
done:
	json_decref(hist);
	il_history_sync_release(&sync);
	il_history_close(h);
	il_strlist_release(&only);
	il_buf_release(&path);
	il_buf_release(&text);
	return r ? il_cli_fail(&err) : IL_EXIT_OK;
}
