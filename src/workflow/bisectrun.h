/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Measuring bisection steps for real (workflow/bisect.h's measurer): a plan
 * with one kernel entry naming a repository ("repo") gives the build, the
 * host, the workloads and the governor variant; each round of a commit is a
 * run of that plan with the kernel replaced by the commit and `iterations`
 * set to the round's size, in DIR/steps/<commit12>-r<K>/ (its plan beside
 * it). A round whose run was interrupted is resumed, never restarted. The
 * round's values are the run's counted samples (stats/dataset.h); none
 * counted is a build failure when the kernel did not build, else a host or
 * boot failure, with the journal's reason.
 */
#ifndef IL_WORKFLOW_BISECTRUN_H
#define IL_WORKFLOW_BISECTRUN_H
#include <stdbool.h>
#include <jansson.h>
#include <git2.h>
#include "run/engine.h"
#include "workflow/bisect.h"
#include "util/err.h"

struct il_bisect_env {
	const struct il_run_opts *run;  /* borrowed: paths, workloads, progress, stop */
	char *dir;                      /* the bisection's directory */
	json_t *plan;                   /* the user's plan, paths made absolute */
	json_t *gov;                    /* its governors entry being bisected */
	char *repo_path;
	git_repository *repo;
};

/*
 * Check the plan (one kernel entry with "repo"; the governors entry labelled
 * variant, or the only one) and open its repository; dir is created (0700
 * when new). Released with il_bisect_env_close, also after a failure.
 */
int il_bisect_env_open(struct il_bisect_env *e, const char *plan_path, const char *variant, const struct il_run_opts *run,
		       const char *dir, struct il_err *err);
void il_bisect_env_close(struct il_bisect_env *e);

/* A revision of the plan's repository as 40 hex (out has 41 bytes). */
int il_bisect_env_resolve(struct il_bisect_env *e, const char *rev, char *out, struct il_err *err);

/* The measurer over e (e must outlive its use). */
struct il_bisect_measurer il_bisect_env_measurer(struct il_bisect_env *e);

#endif
