// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `idlelab run PLAN | --resume DIR`, `idlelab runs`, `idlelab show DIR`.
 * The signal handlers live here: SIGINT/SIGTERM set a flag the engine polls,
 * so the current sample is abandoned cleanly and the host restored.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/clipaths.h"
#include "cli/opt.h"
#include "cli/cliprogress.h"
#include "run/engine.h"
#include "run/rundir.h"
#include "stats/compare.h"

/* An adaptive run's stop rule: the one decision code (stats/compare.c) */
static int judge(void *ctx, const char *run_dir, struct il_buf *why, struct il_err *err)
{
	(void)ctx;
	return il_compare_run_decided(run_dir, why, err);
}

int il_cmd_run(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	const char *resume = NULL, *out = NULL, *host = NULL, *root = NULL;
	struct il_cli_dirs dirs = { 0 };
	bool quiet = false, until = false;
	long max_it = 0;
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "resume", &resume, "RUN_DIR", "continue an interrupted run where it stopped"),
		IL_OPT_STR(0, "host", &host, "NAME", "run on this host instead of the plan's"),
		IL_OPT_STR(0, "out", &out, "DIR", "run directory (default reports/<date>-<plan name>)"),
		IL_CLI_OPTS_MEASURE(&dirs),
		IL_OPT_STR(0, "sysfs-root", &root, "DIR", "local host only: sysfs under DIR (fixture trees)"),
		IL_OPT_BOOL(0, "until-decided", &until,
			    "adaptive: from the plan's iterations, a round at a time until every key comparison is decided"),
		IL_OPT_NUM(0, "max-iterations", &max_it, "N", "with --until-decided: at most N rounds (default 40)"),
		IL_OPT_BOOL('q', "quiet", &quiet, "no progress output"),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab run PLAN [--host H] [--out DIR] [--until-decided [--max-iterations N]] [-q]",
					     "idlelab run --resume RUN_DIR [-q]", NULL };
	struct il_cli_runprog prog = { isatty(STDERR_FILENO), false, false };
	struct il_run_opts ro = { 0 };
	struct il_err err = { 0 };
	char *dir = NULL;
	int nargs, r;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if ((resume && nargs) || (!resume && nargs != 1))
		return il_opt_error(opts, usage, resume ? "--resume takes no plan" : "expected one plan file");
	if (max_it && !until)
		return il_opt_error(opts, usage, "--max-iterations goes with --until-decided");
	if (max_it < 0 || max_it > 100000)
		return il_opt_error(opts, usage, "--max-iterations: expected 2..100000");
	if (until && resume)
		return il_opt_error(opts, usage, "--until-decided is for a new run (a resumed run keeps its plan)");
	prog.quiet = quiet;
	ro = (struct il_run_opts){ .paths = &paths, .workloads_dir = paths.workloads_dir,
				   .workload_bin = paths.workload_bin, .host = host,
				   .sysfs_root = root, .stop = &il_cli_stop, .cb = il_cli_run_event, .cb_ctx = &prog,
				   .progress = quiet ? NULL : il_cli_progress, .judge = judge,
				   .until_decided = until ? (int)(max_it ? max_it : 40) : 0 };
	il_cli_stop_on_signals();
	if (resume)
		r = il_engine_resume(resume, &ro, &err);
	else
		r = il_engine_start(argv[1], out, &ro, &dir, &err);
	if (prog.bar_shown)
		fputc('\n', stderr);
	if (r == IL_EINTR) {
		il_cli_note(NULL, "idlelab: %s\n", err.msg);
		free(dir);
		return 130;
	}
	if (r) {
		if (dir)
			fprintf(stderr, "idlelab: run directory: %s\n", dir);
		free(dir);
		return il_cli_fail(&err);
	}
	if (!quiet)
		fprintf(stderr, "idlelab: run complete: %s\n", dir ? dir : resume);
	if (dir)
		printf("%s\n", dir);
	free(dir);
	return IL_EXIT_OK;
}

static void print_summary(json_t *s)
{
	const char *k;
	json_t *v;

	printf("%s: plan %s, %lld/%lld samples done%s", json_string_value(json_object_get(s, "run_dir")),
	       json_string_value(json_object_get(s, "plan")), (long long)json_integer_value(json_object_get(s, "done")),
	       (long long)json_integer_value(json_object_get(s, "planned")),
	       json_is_true(json_object_get(s, "complete")) ? ", complete" : ", incomplete (idlelab run --resume DIR)");
	json_object_foreach(json_object_get(s, "by_status"), k, v)
		printf(", %s %lld", k, (long long)json_integer_value(v));
	if (json_object_get(s, "stop"))
		printf(", stopped after %lld rounds (%s)", (long long)json_integer_value(json_object_get(json_object_get(s, "stop"), "rounds")),
		       json_string_value(json_object_get(json_object_get(s, "stop"), "reason")) ?: "?");
	if (json_integer_value(json_object_get(s, "interruptions")))
		printf(", interrupted %lld time(s)", (long long)json_integer_value(json_object_get(s, "interruptions")));
	printf("\n");
}

int il_cmd_show(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	struct il_cli_dirs dirs = { 0 };
	bool json = false;
	const struct il_opt opts[] = {
		IL_OPT_BOOL(0, "json", &json, "JSON output"),
		IL_CLI_OPT_WORKLOADS_DIR(&dirs),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab show RUN_DIR [--json]", NULL };
	struct il_err err = { 0 };
	json_t *s;
	int nargs, r;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (nargs != 1)
		return il_opt_error(opts, usage, "expected one run directory");
	if (il_run_summary(argv[1], paths.workloads_dir, paths.cache_dir, &s, &err))
		return il_cli_fail(&err);
	if (json)
		return il_cli_output_json(NULL, s, &err) ? il_cli_fail(&err) : IL_EXIT_OK;
	print_summary(s);
	json_decref(s);
	return IL_EXIT_OK;
}

int il_cmd_runs(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	struct il_cli_dirs dirs = { 0 };
	const char *dir = "reports";
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "dir", &dir, "DIR", "where runs are (default ./reports)"),
		IL_CLI_OPT_WORKLOADS_DIR(&dirs),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab runs [list] [--dir DIR]", NULL };
	struct il_strlist names = { 0 };
	struct il_err err = { 0 };
	int nargs, r;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (nargs > 1 || (nargs == 1 && strcmp(argv[1], "list")))
		return il_opt_error(opts, usage, "unknown action '%s'", argv[1]);
	if (il_rundir_list(&names, dir, &err))
		return il_cli_fail(&err);
	for (size_t i = 0; i < names.n; i++) {
		char path[4096];
		json_t *s;

		snprintf(path, sizeof(path), "%s/%s", dir, names.v[i]);
		if (il_run_summary(path, paths.workloads_dir, paths.cache_dir, &s, &err)) {
			printf("%s: unreadable: %s\n", path, err.msg);
			continue;
		}
		print_summary(s);
		json_decref(s);
	}
	il_strlist_release(&names);
	return IL_EXIT_OK;
}
