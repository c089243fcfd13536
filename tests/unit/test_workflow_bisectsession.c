// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workflow/bisectsession on a git repository made here (three commits, no
 * host: nothing is measured): a new bisection writes DIR/plan.json and
 * DIR/bisect.json and takes the commits between its endpoints; one refused
 * before its setup record (swapped endpoints, a revision that does not
 * resolve) leaves nothing behind, one whose DIR exists is refused and
 * leaves DIR as it was; a resume takes its options back from the setup
 * record and the directories it began with (unless given again); a
 * directory that is not a bisection's says so.
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/repo.h"
#include "workflow/bisectjournal.h"
#include "workflow/bisectsession.h"
#include "util/jsonfile.h"

struct fx {
	char *tmp;
	char plan[4096], dir[4096], workloads[4096];
	char rev[3][41];            /* the commits, oldest first */
};

static void sh(const char *fmt, const char *arg)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), fmt, arg, arg, arg);
	assert_int_equal(system(cmd), 0);
}

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char path[4096];
	FILE *p;

	if (system("git --version >/dev/null 2>&1")) {
		free(f);
		*state = NULL;
		return 0;
	}
	f->tmp = tu_tmpdir();
	sh("mkdir %s/repo %s/workloads", f->tmp);
	sh("cd %s/repo && git -c init.defaultBranch=main init -q && for i in 1 2 3; do echo $i > f && git add f && "
	   "git -c user.name=T -c user.email=t@e.org commit -qm \"commit $i\"; done", f->tmp);
	snprintf(path, sizeof(path), "cd %s/repo && git rev-list --reverse HEAD", f->tmp);
	assert_non_null(p = popen(path, "r"));
	for (int i = 0; i < 3; i++) {
		assert_non_null(fgets(f->rev[i], sizeof(f->rev[i]), p));
		assert_int_equal(fgetc(p), '\n');
	}
	pclose(p);
	snprintf(f->plan, sizeof(f->plan), "%s/plan.json", f->tmp);
	snprintf(f->dir, sizeof(f->dir), "%s/bis", f->tmp);
	snprintf(f->workloads, sizeof(f->workloads), "%s/workloads", f->tmp);
	{
		char text[8192];

		snprintf(text, sizeof(text), "{\"name\": \"bis\", \"host\": \"nohost\", \"kernels\": [{\"name\": \"linux\", "
			 "\"repo\": \"repo\"}], \"governors\": [\"menu\"], \"workloads\": [\"periodic\"], \"iterations\": 5}");
		tu_write(f->tmp, "/plan.json", text);
	}
	il_repo_git_init();
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	if (!f)
		return 0;
	il_repo_git_shutdown();
	tu_rmtree(f->tmp);
	free(f->tmp);
	free(f);
	return 0;
}

#define NEED_GIT(f)                           \
	do {                                  \
		if (!(f))                     \
			TU_SKIP("git missing"); \
	} while (0)

static struct il_bisect_session_in new_in(const struct fx *f, const char *good, const char *bad)
{
	return (struct il_bisect_session_in){ .plan_path = f->plan, .dir = f->dir, .good = good, .bad = bad,
					      .metric = "idle.aboves,w.x", .alpha = NAN };
}

static bool exists(const char *dir, const char *name)
{
	char p[8192];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !access(p, F_OK);
}

static void test_workflow_bisectsession__new_writes_its_files(void **state)
{
	struct fx *f = *state;
	struct il_bisect_session s;
	struct il_bisect_session_in in;
	struct il_paths paths = { .workloads_dir = NULL };
	struct il_run_opts run = { 0 };
	struct il_err err = { 0 };
	json_t *args, *plan;
	const char *v;
	char p[8192];

	NEED_GIT(f);
	paths.workloads_dir = strdup(f->workloads);
	in = new_in(f, f->rev[0], "HEAD");
	if (il_bisect_session_open(&s, &in, &paths, &run, &err))
		fail_msg("%s", err.msg);
	assert_true(s.made);
	assert_string_equal(s.dir, f->dir);
	assert_string_equal(s.good, f->rev[0]);
	assert_string_equal(s.bad, f->rev[2]);
	/* (good, bad], the last one bad */
	assert_int_equal(s.opts.commits.n, 2);
	assert_string_equal(s.opts.commits.v[0], f->rev[1]);
	assert_string_equal(s.opts.commits.v[1], f->rev[2]);
	assert_int_equal(s.opts.metrics.n, 2);
	/* the plan's iterations, four times that the cap; the defaults for the rest */
	assert_int_equal(s.opts.n0, 5);
	assert_int_equal(s.opts.max_n, 20);
	assert_true(s.opts.alpha == 0.05 && s.opts.floor_pct == 2.0 && s.opts.k == 2.0 && s.opts.infra_retries == 1);
	assert_ptr_equal(s.opts.good, s.good);
	assert_string_equal(s.opts.dir, f->dir);
	assert_false(s.opts.confirm);
	snprintf(p, sizeof(p), "%s/bisect.json", f->dir);
	assert_int_equal(il_json_load(p, &args, &err), 0);
	assert_string_equal(json_string_value(json_object_get(args, "plan")), "plan.json");
	assert_string_equal(json_string_value(json_object_get(args, "bad")), "HEAD");
	assert_string_equal(json_string_value(json_object_get(args, "metric")), "idle.aboves,w.x");
	assert_string_equal(json_string_value(json_object_get(args, "workloads_dir")), f->workloads);
	/* none given: build/workloads (made absolute when it is there) */
	v = json_string_value(json_object_get(args, "workload_bin"));
	assert_true(v && strlen(v) >= 15 && !strcmp(v + strlen(v) - 15, "build/workloads"));
	json_decref(args);
	/* the plan with its repository made absolute */
	snprintf(p, sizeof(p), "%s/plan.json", f->dir);
	assert_int_equal(il_json_load(p, &plan, &err), 0);
	snprintf(p, sizeof(p), "%s/repo", f->tmp);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(plan, "kernels"), 0), "repo")), p);
	json_decref(plan);
	/* refused now (before its setup record): nothing left */
	assert_true(il_bisect_session_discard(&s));
	assert_int_equal(access(f->dir, F_OK), -1);
	il_bisect_session_close(&s);
	il_paths_release(&paths);
}

static void test_workflow_bisectsession__refused_leaves_nothing(void **state)
{
	struct fx *f = *state;
	struct il_bisect_session s;
	struct il_bisect_session_in in;
	struct il_paths paths = { 0 };
	struct il_run_opts run = { 0 };
	struct il_err err = { 0 };

	NEED_GIT(f);
	/* swapped endpoints: both named */
	in = new_in(f, f->rev[2], f->rev[0]);
	assert_int_equal(il_bisect_session_open(&s, &in, &paths, &run, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "is not an ancestor of"));
	assert_true(exists(f->dir, "bisect.json"));
	assert_true(il_bisect_session_discard(&s));
	assert_int_equal(access(f->dir, F_OK), -1);
	il_bisect_session_close(&s);
	/* an endpoint that does not resolve */
	in = new_in(f, "nosuchrev", f->rev[2]);
	assert_true(il_bisect_session_open(&s, &in, &paths, &run, &err) < 0);
	assert_non_null(strstr(err.msg, "nosuchrev"));
	assert_true(il_bisect_session_discard(&s));
	assert_int_equal(access(f->dir, F_OK), -1);
	il_bisect_session_close(&s);
}

static void test_workflow_bisectsession__dir_that_exists_is_refused_and_kept(void **state)
{
	struct fx *f = *state;
	struct il_bisect_session s;
	struct il_bisect_session_in in;
	struct il_paths paths = { 0 };
	struct il_run_opts run = { 0 };
	struct il_err err = { 0 };

	NEED_GIT(f);
	tu_write(f->dir, "/mine", "mine");
	in = new_in(f, f->rev[0], f->rev[2]);
	assert_int_equal(il_bisect_session_open(&s, &in, &paths, &run, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "/bis exists: 'idlelab bisect --resume "));
	assert_false(s.made);
	assert_string_equal(s.dir, f->dir);
	assert_false(il_bisect_session_discard(&s));
	assert_true(exists(f->dir, "mine"));
	assert_false(exists(f->dir, "bisect.json"));
	il_bisect_session_close(&s);
	/* nor is it a bisection to go on with */
	in = (struct il_bisect_session_in){ .dir = f->dir, .alpha = NAN };
	assert_int_equal(il_bisect_session_open(&s, &in, &paths, &run, &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "/bis: not a bisection directory (no bisect.json)"));
	il_bisect_session_close(&s);
}

/* A resume: the options from the setup record (its one owner), the directories the bisection began with. */
static void test_workflow_bisectsession__resume_takes_back_what_it_began_with(void **state)
{
	struct fx *f = *state;
	struct il_bisect_session s;
	struct il_bisect_session_in in;
	struct il_bisect_journal bj = IL_BISECT_JOURNAL_INIT;
	struct il_paths paths = { 0 };
	struct il_run_opts run = { .workload_bin = "/opt/bin" };
	struct il_err err = { 0 };

	NEED_GIT(f);
	paths.workloads_dir = strdup(f->workloads);
	paths.hosts_dir = strdup("hosts-then");
	in = new_in(f, f->rev[0], f->rev[2]);
	in.n0 = 4, in.alpha = 0.01, in.confirm = true;
	assert_int_equal(il_bisect_session_open(&s, &in, &paths, &run, &err), 0);
	/* the bisection begins: its setup journalled (as il_bisect_run does) */
	assert_int_equal(il_bisect_journal_open(&bj, s.dir, &err), 0);
	assert_int_equal(il_bisect_journal_setup(&bj, &s.opts, &err), 0);
	il_bisect_journal_close(&bj);
	/* refused now, it is kept: --resume goes on with it */
	assert_false(il_bisect_session_discard(&s));
	il_bisect_session_close(&s);
	assert_true(exists(f->dir, "bisect.jsonl"));

	/* elsewhere, with other directories: the recorded ones win, unless given again */
	free(paths.workloads_dir), free(paths.hosts_dir);
	paths.workloads_dir = strdup("workloads-now");
	paths.hosts_dir = strdup("hosts-now");
	run.workload_bin = "bin-now";
	in = (struct il_bisect_session_in){ .dir = f->dir, .alpha = NAN, .keep_hosts = true };
	if (il_bisect_session_open(&s, &in, &paths, &run, &err))
		fail_msg("%s", err.msg);
	assert_false(s.made);
	assert_string_equal(s.good, f->rev[0]);
	assert_string_equal(s.bad, f->rev[2]);
	assert_int_equal(s.opts.commits.n, 2);
	assert_string_equal(s.opts.commits.v[1], f->rev[2]);
	assert_int_equal(s.opts.metrics.n, 2);
	assert_string_equal(s.opts.metrics.v[1], "w.x");
	assert_int_equal(s.opts.n0, 4);
	assert_int_equal(s.opts.max_n, 16);
	assert_true(s.opts.alpha == 0.01);
	assert_true(s.opts.confirm); /* given when it began */
	assert_string_equal(paths.workloads_dir, f->workloads);
	assert_string_equal(s.run.workloads_dir, f->workloads);
	assert_string_equal(paths.hosts_dir, "hosts-now");
	assert_string_equal(s.run.workload_bin, "/opt/bin");
	assert_false(il_bisect_session_discard(&s));
	il_bisect_session_close(&s);
	assert_true(exists(f->dir, "bisect.json"));
	il_paths_release(&paths);
}

static void test_workflow_bisectsession__json_names_the_dir(void **state)
{
	struct il_bisect_session s = { .dir = "reports/x" };
	struct il_bisect_result res = { .state = "no-difference" };
	json_t *j;

	(void)state;
	assert_non_null(j = il_bisect_session_json(&s, &res));
	assert_string_equal(json_string_value(json_object_get(j, "dir")), "reports/x");
	assert_string_equal(json_string_value(json_object_get(j, "state")), "no-difference");
	json_decref(j);
}

#define FX_TEST(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_workflow_bisectsession__new_writes_its_files),
		FX_TEST(test_workflow_bisectsession__refused_leaves_nothing),
		FX_TEST(test_workflow_bisectsession__dir_that_exists_is_refused_and_kept),
		FX_TEST(test_workflow_bisectsession__resume_takes_back_what_it_began_with),
		cmocka_unit_test(test_workflow_bisectsession__json_names_the_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
