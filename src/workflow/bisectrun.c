// SPDX-License-Identifier: GPL-2.0-or-later
/* Bisection steps measured through the run engine (see bisectrun.h). */
#include "workflow/bisectrun.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/repo.h"
#include "run/journal.h"
#include "run/plan.h"
#include "stats/dataset.h"
#include "util/buf.h"
#include "util/jsonfile.h"

static const char *gov_label(const json_t *g)
{
	return json_is_string(g) ? json_string_value(g) : json_string_value(json_object_get(g, "label")) ?:
							   json_string_value(json_object_get(g, "governor"));
}

int il_bisect_env_open(struct il_bisect_env *e, const char *plan_path, const char *variant, const struct il_run_opts *run,
		       const char *dir, struct il_err *err)
{
	char *pc = strdup(plan_path), *rp = NULL;
	json_t *kernels, *govs, *g;
	size_t i;
	int r;

	memset(e, 0, sizeof(*e));
	e->run = run;
	e->dir = strdup(dir);
	if ((r = il_json_load(plan_path, &e->plan, err)))
		goto out;
	if (!json_is_object(e->plan)) {
		r = il_err_set(err, IL_EPARSE, "%s: (top level): expected a plan object", plan_path);
		goto out;
	}
	kernels = json_object_get(e->plan, "kernels");
	if (json_array_size(kernels) != 1 || !json_is_string(json_object_get(json_array_get(kernels, 0), "repo"))) {
		r = il_err_set(err, IL_EINVAL, "%s: kernels: expected one entry with \"repo\" (the repository to bisect; "
				  "--good and --bad are its revisions)", plan_path);
		goto out;
	}
	rp = realpath(dirname(pc), NULL);
	if (il_plan_absolutize(e->plan, rp ? rp : ".")) {
		r = il_err_oom(err);
		goto out;
	}
	govs = json_object_get(e->plan, "governors");
	json_array_foreach(govs, i, g)
		if (variant ? gov_label(g) && !strcmp(gov_label(g), variant) : json_array_size(govs) == 1)
			e->gov = json_incref(g);
	if (!e->gov) {
		struct il_buf names = IL_BUF_INIT;

		json_array_foreach(govs, i, g)
			il_buf_printf(&names, "%s%s", i ? ", " : "", gov_label(g) ?: "?");
		r = il_err_set(err, IL_EINVAL, variant ? "%s: governors: no entry labelled '%s' (%s)" :
						  "%s: governors: %s entries (%s): name the one to bisect with --variant",
			       plan_path, variant ? variant : json_array_size(govs) ? "several" : "no",
			       il_buf_str(&names));
		il_buf_release(&names);
		goto out;
	}
	e->repo_path = strdup(json_string_value(json_object_get(json_array_get(kernels, 0), "repo")));
	if ((r = il_repo_open(&e->repo, e->repo_path, err)))
		goto out;
	if (mkdir(dir, 0700) && errno != EEXIST)
		r = il_err_set(err, IL_EIO, "cannot create %s: %s", dir, strerror(errno));
out:
	free(pc);
	free(rp);
	return r;
}

void il_bisect_env_close(struct il_bisect_env *e)
{
	git_repository_free(e->repo);
	json_decref(e->plan), json_decref(e->gov);
	free(e->dir), free(e->repo_path);
	memset(e, 0, sizeof(*e));
}

int il_bisect_env_resolve(struct il_bisect_env *e, const char *rev, char *out, struct il_err *err)
{
	git_oid id;
	int r = il_repo_resolve(e->repo, rev, &id, err);

	if (!r)
		git_oid_tostr(out, GIT_OID_HEXSZ + 1, &id);
	return r;
}

static int measure(void *ctx, const char *commit, size_t k, size_t n, struct il_bisect_round *out, struct il_err *err)
{
	struct il_bisect_env *e = ctx;
	struct il_buf run = IL_BUF_INIT, plan = IL_BUF_INIT, jp = IL_BUF_INIT, name = IL_BUF_INIT;
	struct il_dataset ds = { 0 };
	json_t *p = NULL;
	char *made = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	il_buf_printf(&run, "%s/steps", e->dir);
	mkdir(run.p, 0700);
	il_buf_printf(&run, "/%.12s-r%zu", commit, k);
	il_buf_printf(&plan, "%s.json", run.p);
	il_buf_printf(&jp, "%s/journal.jsonl", run.p);
	if (!access(jp.p, F_OK)) {
		r = il_engine_resume(run.p, e->run, err);
	} else {
		char *txt;

		p = json_deep_copy(e->plan);
		/* the plan's kernel name for every commit: one lineage, one object directory, incremental builds */
		il_buf_adds(&name, json_string_value(json_object_get(json_array_get(json_object_get(e->plan, "kernels"), 0),
								   "name")) ?: "bisect");
		if (!p || json_object_set_new(p, "kernels", json_pack("[{s:s,s:s,s:s}]", "name", name.p, "repo",
								      e->repo_path, "commit", commit)) ||
		    json_object_set_new(p, "governors", json_pack("[O]", e->gov)) ||
		    json_object_set_new(p, "iterations", json_integer((json_int_t)n))) {
			r = il_err_oom(err);
			goto out;
		}
		json_object_del(p, "reference");
		txt = il_json_dumps(p, JSON_INDENT(2));
		r = txt ? il_buf_write_file_atomic(plan.p, txt, strlen(txt), err) : il_err_oom(err);
		free(txt);
		if (!r)
			r = il_engine_start(plan.p, run.p, e->run, &made, err);
	}
	if (r)
		goto out;
	out->run = strdup(run.p);
	if ((r = il_datajournal_add_run(&ds, run.p, NULL, err)))
		goto out;
	if (!ds.counted) {
		char *reason;
		bool build;

		il_journal_first_failure(jp.p, &reason, &build);
		out->status = build ? IL_BM_BUILD_FAILED : IL_BM_INFRA_FAILED;
		out->reason = reason ? reason : strdup("no sample was counted");
		goto out;
	}
	out->status = IL_BM_OK;
	if (!(out->values = json_object())) {
		r = il_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < ds.nmet; i++) {
		const struct il_mseries *m = &ds.met[i];
		json_t *a = json_array();
		int bad = 0;

		for (size_t j = 0; a && ds.nvar && j < m->var[0].n; j++)
			bad |= json_array_append_new(a, json_real(m->var[0].v[j]));
		if (bad) {
			json_decref(a);
			a = NULL;
		}
		/* "o" steals a (a NULL one fails the pack) */
		if (json_object_set_new(out->values, m->key,
					json_pack("{s:o,s:s?,s:s?}", "values", a, "better",
						  (m->better == IL_BETTER_NONE ? NULL : il_dataset_better_name(m->better)), "unit",
						  m->unit))) {
			r = il_err_oom(err);
			goto out;
		}
	}
out:
	il_dataset_release(&ds);
	json_decref(p);
	free(made);
	il_buf_release(&run), il_buf_release(&plan), il_buf_release(&jp), il_buf_release(&name);
	return r;
}

static char *subject(void *ctx, const char *commit)
{
	struct il_bisect_env *e = ctx;
	git_oid id;

	return git_oid_fromstr(&id, commit) ? NULL : il_repo_subject(e->repo, &id);
}

static int revert(void *ctx, const char *culprit, const char *onto, char out[41], struct il_err *err)
{
	struct il_bisect_env *e = ctx;
	git_oid c, o, id;
	int r;

	if (git_oid_fromstr(&c, culprit) || git_oid_fromstr(&o, onto))
		return il_err_set(err, IL_EINVAL, "not commit ids: %s, %s", culprit, onto);
	if (!(r = il_repo_revert_onto(e->repo, &c, &o, &id, err)))
		git_oid_tostr(out, 41, &id);
	return r;
}

struct il_bisect_measurer il_bisect_env_measurer(struct il_bisect_env *e)
{
	return (struct il_bisect_measurer){ .measure = measure, .subject = subject, .revert = revert, .ctx = e };
}
