// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `idlelab bisect PLAN --good REV --bad REV`, `--resume DIR`, and `--step
 * DIR` for `git bisect run` (exit 0 good, 1 bad, 125 skip, 255 error): the
 * options and what is printed; the bisection's directory, its files and
 * the order of its steps are workflow/bisectsession.h's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "stats/decide.h"
#include "cli/opt.h"
#include "cli/clipaths.h"
#include "cli/cliprogress.h"
#include "kernel/repo.h"
#include "report/bisect.h"
#include "workflow/bisectsession.h"
#include "util/buf.h"

enum { GIT_BISECT_GOOD = 0, GIT_BISECT_BAD = 1, GIT_BISECT_SKIP = 125, GIT_BISECT_ABORT = 255 };

/* --step: rev measured against the endpoints, said on stdout; git bisect run's exit status. */
static int step_verdict(struct il_bisect_session *s, const char *rev)
{
	struct il_bisect_step st;
	struct il_err err = { 0 };
	char hex[41];
	int rc;

	if (il_bisect_session_step(s, rev, hex, &st, &err)) {
		il_cli_note(NULL, "idlelab: error: %s\n", err.msg);
		return GIT_BISECT_ABORT;
	}
	printf("%.12s %s%s%s\n", hex, st.verdict, st.reason ? ": " : "", st.reason ? st.reason : "");
	rc = !strcmp(st.verdict, "skip") ? GIT_BISECT_SKIP : strstr(st.verdict, "good") ? GIT_BISECT_GOOD : GIT_BISECT_BAD;
	il_bisect_step_release(&st);
	return rc;
}

/* The answer as JSON or as the report, to ofile or stdout. */
static int output(const struct il_bisect_session *s, const struct il_bisect_result *res, bool json, const char *ofile,
		  struct il_err *err)
{
	struct il_buf t = IL_BUF_INIT;
	int r;

	if (json)
		return il_cli_output_json(ofile, il_bisect_session_json(s, res), err); /* takes the JSON */
	if (!(r = il_report_bisect(res, &t)))
		r = il_cli_output(ofile, t.p, t.len, err);
	il_buf_release(&t);
	return r;
}

/* A bisection that failed: what is left of it, and how to go on; the exit status. */
static int failed(struct il_bisect_session *s, int r, const struct il_err *err, bool step)
{
	if (il_bisect_session_discard(s)) {
		/* refused before it began: nothing to continue */
		if (r != IL_EINTR)
			return il_cli_fail(err);
		il_cli_note(NULL, "idlelab: %s\n", err->msg);
		return 130;
	}
	if (r == IL_EINTR) {
		il_cli_note(NULL, "idlelab: %s (idlelab bisect --resume %s continues)\n", err->msg, s->dir ? s->dir : "DIR");
		return 130;
	}
	if (step) {
		il_cli_note(NULL, "idlelab: error: %s\n", err->msg);
		return GIT_BISECT_ABORT;
	}
	if (s->dir)
		fprintf(stderr, "idlelab: bisection directory: %s\n", s->dir);
	return il_cli_fail(err);
}

int il_cmd_bisect(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	struct il_cli_dirs dirs = { 0 };
	const char *good = NULL, *bad = NULL, *metric = NULL, *variant = NULL, *out = NULL, *resume = NULL, *step = NULL;
	const char *rev = NULL, *ofile = NULL;
	double alpha = NAN;   /* not given: 0.05 */
	long n0 = 0, max_n = 0;
	bool first_parent = false, json = false, quiet = false, confirm = false;
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "good", &good, "REV", "a revision without the regression"),
		IL_OPT_STR(0, "bad", &bad, "REV", "a later revision with it"),
		IL_OPT_STR(0, "metric", &metric, "KEY[,KEY]", "metrics to bisect on (default: every one with a direction)"),
		IL_OPT_STR(0, "variant", &variant, "LABEL", "the plan's governors entry to measure (default: its only one)"),
		IL_OPT_BOOL(0, "first-parent", &first_parent, "follow only first parents"),
		IL_OPT_BOOL(0, "confirm", &confirm, "then measure the culprit reverted on bad: like good confirms it"),
		IL_OPT_NUM(0, "samples", &n0, "N", "samples in a commit's first round (default: the plan's iterations, at least 3)"),
		IL_OPT_NUM(0, "max-samples", &max_n, "N", "cap on one commit's samples, reached by doubling (default 4 x --samples)"),
		IL_OPT_DBL(0, "alpha", &alpha, "A", "significance of each decision (default 0.05)"),
		IL_OPT_STR(0, "out", &out, "DIR", "the bisection's directory (default reports/<date>-bisect-<plan name>)"),
		IL_OPT_STR(0, "resume", &resume, "DIR", "continue a bisection where it stopped"),
		IL_OPT_STR(0, "step", &step, "DIR", "git bisect run: measure --rev against DIR's endpoints"),
		IL_OPT_STR(0, "rev", &rev, "REV", "with --step: the revision (default HEAD of the plan's repository)"),
		IL_CLI_OPTS_MEASURE(&dirs),
		IL_OPT_BOOL(0, "json", &json, "JSON output"),
		IL_OPT_STR('o', "output", &ofile, "FILE", "write the result here"),
		IL_OPT_BOOL('q', "quiet", &quiet, "no progress output"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab bisect PLAN --good REV --bad REV [--metric KEY[,KEY]] [--variant LABEL] [--first-parent] [--confirm]",
		"               [--json] [-o FILE]",
		"idlelab bisect --resume DIR [--json] [-o FILE]",
		"idlelab bisect --step DIR [--rev REV]    (git bisect run: exit 0 good, 1 bad, 125 skip)", NULL };
	struct il_cli_runprog prog = { isatty(STDERR_FILENO), false, false };
	struct il_run_opts ro;
	struct il_bisect_session_in in;
	struct il_bisect_session s = { 0 };
	struct il_bisect_result res = { 0 };
	struct il_err err = { 0 };
	int nargs, r, rc;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (!!resume + !!step > 1 || ((resume || step) && nargs) || (!resume && !step && nargs != 1))
		return il_opt_error(opts, usage, "expected one plan, or --resume DIR, or --step DIR");
	if (resume || step) {
		/* what a bisection measures is fixed when it begins (DIR/bisect.json): never silently another */
		const char *fixed = good ? "--good" : bad ? "--bad" : metric ? "--metric" : variant ? "--variant" :
				    first_parent ? "--first-parent" : n0 ? "--samples" : max_n ? "--max-samples" :
				    !isnan(alpha) ? "--alpha" : out ? "--out" : step && confirm ? "--confirm" : NULL;

		if (fixed)
			return il_opt_error(opts, usage, "%s cannot be given with %s: the bisection in %s keeps what it "
					    "began with (bisect.json); start another with --out", fixed,
					    resume ? "--resume" : "--step", resume ? resume : step);
	}
	if (rev && !step)
		return il_opt_error(opts, usage, "--rev is for --step");
	if (!resume && !step && (!good || !bad))
		return il_opt_error(opts, usage, "--good and --bad are required");
	if (n0 < 0 || max_n < 0 || (!isnan(alpha) && !il_decide_alpha_ok(alpha)))
		return il_opt_error(opts, usage, "--samples and --max-samples are counts, --alpha is in (0, 0.5)");
	prog.quiet = quiet;
	ro = (struct il_run_opts){ .paths = &paths, .workloads_dir = paths.workloads_dir,
				   .workload_bin = paths.workload_bin, .stop = &il_cli_stop,
				   .cb = il_cli_run_event, .cb_ctx = &prog, .progress = quiet ? NULL : il_cli_progress };
	in = (struct il_bisect_session_in){ .plan_path = resume || step ? NULL : argv[1],
					    .dir = resume ? resume : step ? step : out, .good = good, .bad = bad,
					    .metric = metric, .variant = variant, .first_parent = first_parent,
					    .confirm = confirm, .n0 = (size_t)n0, .max_n = (size_t)max_n, .alpha = alpha,
					    .keep_workloads = dirs.workloads, .keep_hosts = dirs.hosts,
					    .keep_workload_bin = dirs.workload_bin };
	il_cli_stop_on_signals();
	il_repo_git_init();
	if ((r = il_bisect_session_open(&s, &in, &paths, &ro, &err)))
		goto fail;
	if (step) {
		rc = step_verdict(&s, rev);
		goto out;
	}
	if (!quiet)
		fprintf(stderr, "idlelab: bisecting %zu commits %.12s..%.12s in %s\n", s.opts.commits.n, s.good, s.bad, s.dir);
	if ((r = il_bisect_session_run(&s, &res, &err)) || (r = output(&s, &res, json, ofile, &err)))
		goto fail;
	rc = strcmp(res.state, "no-difference") ? IL_EXIT_OK : IL_EXIT_FAIL;
	goto out;
fail:
	rc = failed(&s, r, &err, step);
out:
	il_bisect_result_release(&res);
	il_bisect_session_close(&s);
	il_repo_git_shutdown();
	return rc;
}
