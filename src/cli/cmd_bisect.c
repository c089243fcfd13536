// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `idlelab bisect PLAN --good REV --bad REV`, `--resume DIR`, and `--step
 * DIR` for `git bisect run` (exit 0 good, 1 bad, 125 skip, 255 error).
 * DIR/bisect.json keeps what the command was given, DIR/plan.json the plan
 * with its paths made absolute, so a resume needs nothing else.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "stats/decide.h"
#include "cli/opt.h"
#include "cli/paths.h"
#include "cli/progress.h"
#include "kernel/repo.h"
#include "report/bisect.h"
#include "run/rundir.h"
#include "workflow/bisectrun.h"
#include "util/buf.h"
#include "util/jsonfile.h"

enum { GIT_BISECT_GOOD = 0, GIT_BISECT_BAD = 1, GIT_BISECT_SKIP = 125, GIT_BISECT_ABORT = 255 };

static int args_json(const char *dir, json_t **out, struct il_err *err)
{
	struct il_buf p = IL_BUF_INIT;
	int r;

	il_buf_printf(&p, "%s/bisect.json", dir);
	r = il_json_load(p.p, out, err);
	if (r == IL_ENOTFOUND)
		r = il_err_set(err, IL_ENOTFOUND, "%s: not a bisection directory (no bisect.json)", dir);
	il_buf_release(&p);
	return r;
}

/* args[key] = dir made absolute (when it exists) */
static void keep_dir(json_t *args, const char *key, const char *dir)
{
	char *a = dir ? realpath(dir, NULL) : NULL;

	if (a || dir)
		json_object_set_new(args, key, json_string(a ? a : dir));
	free(a);
}

/*
 * A bisection this command began and that was refused before its setup record (an endpoint that
 * does not resolve, a swapped range, too few samples) leaves nothing behind: the corrected
 * command must not find "DIR exists", nor --resume a directory with nothing to resume. Only the
 * files the command writes go, then the directory (this command made it; rmdir keeps anything
 * else). Whether dir is gone (or was never made).
 */
static bool discard_refused(const char *dir)
{
	static const char *const made[] = { "plan.json", "bisect.json", "bisect.jsonl" };
	struct il_err e = { 0 };
	json_t *setup = NULL;

	if (!il_bisect_setup_read(dir, &setup, &e)) {
		/* the setup is journalled: a bisection that --resume continues */
		json_decref(setup);
		return false;
	}
	for (size_t i = 0; i < sizeof(made) / sizeof(*made); i++) {
		struct il_buf p = IL_BUF_INIT;

		if (!il_buf_printf(&p, "%s/%s", dir, made[i]))
			unlink(p.p);
		il_buf_release(&p);
	}
	return !rmdir(dir) || errno == ENOENT;
}

/* *dst (owned) = args[key] when recorded */
static void take_dir(char **dst, const json_t *args, const char *key)
{
	const char *v = json_string_value(json_object_get(args, key));

	if (v) {
		free(*dst);
		*dst = strdup(v);
	}
}

int cmd_bisect(int argc, char **argv)
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
	struct il_bisect_opts bo = { .alpha = 0.05, .floor_pct = 2.0, .k = 2.0, .infra_retries = 1 };
	struct il_bisect_env env = { 0 };
	struct il_bisect_measurer m;
	struct il_bisect_result res = { 0 };
	struct il_err err = { 0 };
	json_t *args = NULL, *setup = NULL, *v;
	char *dir = NULL, good_hex[41], bad_hex[41];
	bool made = false;
	int nargs, r, rc = IL_EXIT_FAIL;
	size_t i;

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
	if (!isnan(alpha))
		bo.alpha = alpha;
	prog.quiet = quiet;
	ro = (struct il_run_opts){ .paths = &paths, .workloads_dir = paths.workloads_dir,
				   .workload_bin = paths.workload_bin, .stop = &il_cli_stop,
				   .cb = il_cli_run_event, .cb_ctx = &prog, .progress = quiet ? NULL : il_cli_progress };
	il_cli_stop_on_signals();
	il_git_init();
	if (resume || step) {
		dir = strdup(resume ? resume : step);
		if ((r = args_json(dir, &args, &err)) || (r = il_bisect_setup_read(dir, &setup, &err)))
			goto fail;
	} else {
		json_t *p = NULL;
		const char *name;

		if ((r = il_json_load(argv[1], &p, &err)))
			goto fail;
		name = json_string_value(json_object_get(p, "name"));
		{
			struct il_buf b = IL_BUF_INIT;

			il_buf_printf(&b, "bisect-%s", name ? name : "plan");
			dir = out ? strdup(out) : il_rundir_default(b.p);
			il_buf_release(&b);
		}
		json_decref(p);
		if (!access(dir, F_OK)) {
			r = il_err_set(&err, IL_EINVAL, "%s exists: 'idlelab bisect --resume %s' continues "
				       "it, or choose another --out", dir, dir);
			goto fail;
		}
		made = true;
		args = json_pack("{s:s,s:s?,s:b,s:s,s:s,s:s?,s:b}", "plan", "plan.json", "variant", variant, "first_parent",
				 first_parent, "good", good, "bad", bad, "metric", metric, "confirm", confirm);
		/* where the workloads and hosts were: a resume or a git bisect step may run from anywhere */
		keep_dir(args, "workloads_dir", paths.workloads_dir);
		keep_dir(args, "hosts_dir", paths.hosts_dir);
		keep_dir(args, "workload_bin", ro.workload_bin ? ro.workload_bin : "build/workloads");
	}
	if (resume || step) {
		/* the directories the bisection began with, unless given again */
		if (!dirs.workloads)
			take_dir(&paths.workloads_dir, args, "workloads_dir");
		if (!dirs.hosts)
			take_dir(&paths.hosts_dir, args, "hosts_dir");
		if (!dirs.workload_bin && json_is_string(json_object_get(args, "workload_bin")))
			ro.workload_bin = json_string_value(json_object_get(args, "workload_bin"));
		ro.workloads_dir = paths.workloads_dir;
	}
	{
		struct il_buf pp = IL_BUF_INIT;

		il_buf_printf(&pp, "%s/plan.json", dir);
		r = il_bisect_env_open(&env, resume || step ? pp.p : argv[1],
				       json_string_value(json_object_get(args, "variant")), &ro, dir, &err);
		if (!r && !resume && !step) {
			char *txt = json_dumps(env.plan, JSON_INDENT(2)), *at = json_dumps(args, JSON_INDENT(2));
			struct il_buf ap = IL_BUF_INIT;

			il_buf_printf(&ap, "%s/bisect.json", dir);
			if (!(r = il_write_file_atomic(pp.p, txt, strlen(txt), &err)))
				r = il_write_file_atomic(ap.p, at, strlen(at), &err);
			free(txt), free(at);
			il_buf_release(&ap);
		}
		il_buf_release(&pp);
		if (r)
			goto fail;
	}
	bo.dir = dir;
	if (setup) {
		snprintf(good_hex, sizeof(good_hex), "%s", json_string_value(json_object_get(setup, "good")) ?: "");
		snprintf(bad_hex, sizeof(bad_hex), "%s", json_string_value(json_object_get(setup, "bad")) ?: "");
		json_array_foreach(json_object_get(setup, "commits"), i, v)
			il_strlist_push(&bo.commits, json_string_value(v));
		json_array_foreach(json_object_get(setup, "metrics"), i, v)
			il_strlist_push(&bo.metrics, json_string_value(v));
		bo.n0 = (size_t)json_integer_value(json_object_get(setup, "n0"));
		bo.max_n = (size_t)json_integer_value(json_object_get(setup, "max_n"));
		bo.alpha = json_number_value(json_object_get(setup, "alpha"));
		bo.floor_pct = json_number_value(json_object_get(setup, "floor_pct"));
		bo.k = json_number_value(json_object_get(setup, "k"));
	} else {
		git_oid g, b;
		json_t *it = json_object_get(env.plan, "iterations");

		if ((r = il_bisect_env_resolve(&env, good, good_hex, &err)) || (r = il_bisect_env_resolve(&env, bad, bad_hex, &err)))
			goto fail;
		git_oid_fromstr(&g, good_hex), git_oid_fromstr(&b, bad_hex);
		if ((r = il_repo_range(env.repo, &g, &b, first_parent, &bo.commits, &err)))
			goto fail;
		if (metric)
			il_strlist_split_on(&bo.metrics, metric, ',');
		bo.n0 = n0 ? (size_t)n0 : json_is_integer(it) && json_integer_value(it) > 3 ? (size_t)json_integer_value(it) : 3;
		bo.max_n = max_n ? (size_t)max_n : 4 * bo.n0;
	}
	bo.good = good_hex, bo.bad = bad_hex;
	/* given when the bisection began (kept for --resume), or now */
	bo.confirm = confirm || json_is_true(json_object_get(args, "confirm"));
	m = il_bisect_env_measurer(&env);
	if (step) {
		struct il_bisect_step st;
		char hex[41];

		r = il_bisect_env_resolve(&env, rev ? rev : "HEAD", hex, &err);
		if (!r)
			r = il_bisect_classify(&bo, &m, hex, &st, &err);
		if (r) {
			il_cli_note(NULL, "idlelab: error: %s\n", err.msg);
			rc = GIT_BISECT_ABORT;
			goto out;
		}
		printf("%.12s %s%s%s\n", hex, st.verdict, st.reason ? ": " : "", st.reason ? st.reason : "");
		rc = !strcmp(st.verdict, "skip") ? GIT_BISECT_SKIP : strstr(st.verdict, "good") ? GIT_BISECT_GOOD : GIT_BISECT_BAD;
		il_bisect_step_release(&st);
		goto out;
	}
	if (!quiet)
		fprintf(stderr, "idlelab: bisecting %zu commits %.12s..%.12s in %s\n", bo.commits.n, good_hex, bad_hex, dir);
	if ((r = il_bisect_run(&bo, &m, &res, &err)))
		goto fail;
	if (json) {
		json_t *j = il_bisect_result_json(&res);

		json_object_set_new(j, "dir", json_string(dir));
		r = il_cli_output_json(ofile, j, &err); /* takes j */
	} else {
		struct il_buf t = IL_BUF_INIT;

		il_report_bisect(&res, &t);
		r = il_cli_output(ofile, t.p, t.len, &err);
		il_buf_release(&t);
	}
	if (r)
		goto fail;
	rc = strcmp(res.state, "no-difference") ? IL_EXIT_OK : IL_EXIT_FAIL;
	goto out;
fail:
	if (made && discard_refused(dir)) {
		/* refused before it began: nothing to continue */
		rc = r == IL_EINTR ? (il_cli_note(NULL, "idlelab: %s\n", err.msg), 130) : il_cli_fail(&err);
	} else if (r == IL_EINTR) {
		il_cli_note(NULL, "idlelab: %s (idlelab bisect --resume %s continues)\n", err.msg, dir ? dir : "DIR");
		rc = 130;
	} else {
		if (dir && !step)
			fprintf(stderr, "idlelab: bisection directory: %s\n", dir);
		rc = step ? (il_cli_note(NULL, "idlelab: error: %s\n", err.msg), GIT_BISECT_ABORT) : il_cli_fail(&err);
	}
out:
	il_bisect_result_release(&res);
	il_bisect_env_close(&env);
	il_strlist_release(&bo.commits);
	il_strlist_release(&bo.metrics);
	json_decref(args), json_decref(setup);
	free(dir);
	il_git_shutdown();
	return rc;
}
