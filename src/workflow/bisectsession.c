// SPDX-License-Identifier: GPL-2.0-or-later
/* A bisection's directory, its files and the order of its steps (see bisectsession.h). */
#include "workflow/bisectsession.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/repo.h"
#include "run/rundir.h"
#include "workflow/bisectjournal.h"
#include "util/buf.h"
#include "util/jsonfile.h"

/* *out = dir/name's JSON (caller decrefs). */
static int dir_json(const char *dir, const char *name, json_t **out, struct il_err *err)
{
	struct il_buf p = IL_BUF_INIT;
	int r;

	*out = NULL;
	if (il_buf_printf(&p, "%s/%s", dir, name))
		r = il_err_oom(err);
	else
		r = il_json_load(p.p, out, err);
	il_buf_release(&p);
	return r;
}

/* args[key] = dir made absolute (when it exists); IL_ENOMEM only. */
static int keep_dir(json_t *args, const char *key, const char *dir)
{
	char *a = dir ? realpath(dir, NULL) : NULL;
	int r = 0;

	if ((a || dir) && json_object_set_new(args, key, json_string(a ? a : dir)))
		r = IL_ENOMEM;
	free(a);
	return r;
}

/* *dst (owned) = args[key] when recorded; IL_ENOMEM only. */
static int take_dir(char **dst, const json_t *args, const char *key)
{
	const char *v = json_string_value(json_object_get(args, key));

	if (v) {
		free(*dst);
		if (!(*dst = strdup(v)))
			return IL_ENOMEM;
	}
	return 0;
}

/* A new bisection: its directory (which must not exist yet) and what it was given. */
static int begin_new(struct il_bisect_session *s, const struct il_bisect_session_in *in, const struct il_paths *paths,
		     struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	const char *name;
	json_t *p = NULL;
	int r;

	if ((r = il_json_load(in->plan_path, &p, err)))
		return r;
	name = json_string_value(json_object_get(p, "name"));
	if (!il_buf_printf(&b, "bisect-%s", name ? name : "plan"))
		s->dir = in->dir ? strdup(in->dir) : il_rundir_default(b.p);
	il_buf_release(&b);
	json_decref(p);
	if (!s->dir)
		return il_err_oom(err);
	if (!access(s->dir, F_OK))
		return il_err_set(err, IL_EINVAL, "%s exists: 'idlelab bisect --resume %s' continues it, or choose another --out",
				  s->dir, s->dir);
	s->made = true;
	s->args = json_pack("{s:s,s:s?,s:b,s:s,s:s,s:s?,s:b}", "plan", "plan.json", "variant", in->variant, "first_parent",
			    in->first_parent, "good", in->good, "bad", in->bad, "metric", in->metric, "confirm", in->confirm);
	/* where the workloads and hosts were: a resume or a git bisect step may run from anywhere */
	if (!s->args || keep_dir(s->args, "workloads_dir", paths->workloads_dir) ||
	    keep_dir(s->args, "hosts_dir", paths->hosts_dir) ||
	    keep_dir(s->args, "workload_bin", s->run.workload_bin ? s->run.workload_bin : "build/workloads"))
		return il_err_oom(err);
	return 0;
}

/* A resume or a step: what the bisection was given, its setup record, the directories it began with. */
static int go_on(struct il_bisect_session *s, const struct il_bisect_session_in *in, struct il_paths *paths,
		 struct il_err *err)
{
	const char *bin;
	int r;

	if (!(s->dir = strdup(in->dir)))
		return il_err_oom(err);
	if ((r = dir_json(s->dir, "bisect.json", &s->args, err)) == IL_ENOTFOUND)
		return il_err_set(err, IL_ENOTFOUND, "%s: not a bisection directory (no bisect.json)", s->dir);
	if (r || (r = il_bisect_setup_read(s->dir, &s->setup, err)))
		return r;
	/* the directories the bisection began with, unless given again */
	if ((!in->keep_workloads && take_dir(&paths->workloads_dir, s->args, "workloads_dir")) ||
	    (!in->keep_hosts && take_dir(&paths->hosts_dir, s->args, "hosts_dir")))
		return il_err_oom(err);
	bin = json_string_value(json_object_get(s->args, "workload_bin"));
	if (!in->keep_workload_bin && bin)
		s->run.workload_bin = bin;
	s->run.workloads_dir = paths->workloads_dir;
	return 0;
}

/* The plan and its repository; a new bisection writes DIR/plan.json and DIR/bisect.json. */
static int open_env(struct il_bisect_session *s, const struct il_bisect_session_in *in, struct il_err *err)
{
	struct il_buf pp = IL_BUF_INIT, ap = IL_BUF_INIT;
	char *txt = NULL, *at = NULL;
	int r;

	if (il_buf_printf(&pp, "%s/plan.json", s->dir) || il_buf_printf(&ap, "%s/bisect.json", s->dir)) {
		r = il_err_oom(err);
		goto out;
	}
	r = il_bisect_env_open(&s->env, in->plan_path ? in->plan_path : pp.p,
			       json_string_value(json_object_get(s->args, "variant")), &s->run, s->dir, err);
	if (r || !in->plan_path)
		goto out;
	if (!(txt = il_json_dumps(s->env.plan, JSON_INDENT(2))) || !(at = il_json_dumps(s->args, JSON_INDENT(2))))
		r = il_err_oom(err);
	else if (!(r = il_buf_write_file_atomic(pp.p, txt, strlen(txt), err)))
		r = il_buf_write_file_atomic(ap.p, at, strlen(at), err);
out:
	free(txt), free(at);
	il_buf_release(&pp), il_buf_release(&ap);
	return r;
}

/* A new bisection's options: the endpoints resolved, the commits between them, the rounds' sizes. */
static int opts_new(struct il_bisect_session *s, const struct il_bisect_session_in *in, struct il_err *err)
{
	json_t *it = json_object_get(s->env.plan, "iterations");
	git_oid g, b;
	int r;

	if ((r = il_bisect_env_resolve(&s->env, in->good, s->good, err)) ||
	    (r = il_bisect_env_resolve(&s->env, in->bad, s->bad, err)))
		return r;
	git_oid_fromstr(&g, s->good), git_oid_fromstr(&b, s->bad);
	if ((r = il_repo_range(s->env.repo, &g, &b, in->first_parent, &s->opts.commits, err)))
		return r;
	if (in->metric && il_strlist_split_on(&s->opts.metrics, in->metric, ','))
		return il_err_oom(err);
	s->opts.n0 = in->n0 ? in->n0 :
		     json_is_integer(it) && json_integer_value(it) > 3 ? (size_t)json_integer_value(it) : 3;
	s->opts.max_n = in->max_n ? in->max_n : 4 * s->opts.n0;
	if (!isnan(in->alpha))
		s->opts.alpha = in->alpha;
	return 0;
}

int il_bisect_session_open(struct il_bisect_session *s, const struct il_bisect_session_in *in, struct il_paths *paths,
			   const struct il_run_opts *run, struct il_err *err)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->run = *run;
	s->opts = (struct il_bisect_opts){ .alpha = 0.05, .floor_pct = 2.0, .k = 2.0, .infra_retries = 1 };
	r = in->plan_path ? begin_new(s, in, paths, err) : go_on(s, in, paths, err);
	if (!r)
		r = open_env(s, in, err);
	if (!r)
		r = s->setup ? il_bisect_setup_opts(s->setup, &s->opts, s->good, s->bad, err) : opts_new(s, in, err);
	if (r)
		return r;
	s->opts.dir = s->dir;
	s->opts.good = s->good, s->opts.bad = s->bad;
	/* given when the bisection began (kept for --resume), or now */
	s->opts.confirm = in->confirm || json_is_true(json_object_get(s->args, "confirm"));
	s->m = il_bisect_env_measurer(&s->env);
	return 0;
}

int il_bisect_session_run(struct il_bisect_session *s, struct il_bisect_result *res, struct il_err *err)
{
	return il_bisect_run(&s->opts, &s->m, res, err);
}

int il_bisect_session_step(struct il_bisect_session *s, const char *rev, char *hex, struct il_bisect_step *st,
			   struct il_err *err)
{
	int r = il_bisect_env_resolve(&s->env, rev ? rev : "HEAD", hex, err);

	memset(st, 0, sizeof(*st));
	return r ? r : il_bisect_classify(&s->opts, &s->m, hex, st, err);
}

json_t *il_bisect_session_json(const struct il_bisect_session *s, const struct il_bisect_result *res)
{
	json_t *j = il_bisect_result_json(res);

	if (j && json_object_set_new(j, "dir", json_string(s->dir))) {
		json_decref(j);
		return NULL;
	}
	return j;
}

bool il_bisect_session_discard(struct il_bisect_session *s)
{
	static const char *const made[] = { "plan.json", "bisect.json", "bisect.jsonl" };
	struct il_err e = { 0 };
	json_t *setup = NULL;

	if (!s->made || !s->dir)
		return false;
	if (!il_bisect_setup_read(s->dir, &setup, &e)) {
		/* the setup is journalled: a bisection that --resume continues */
		json_decref(setup);
		return false;
	}
	for (size_t i = 0; i < sizeof(made) / sizeof(*made); i++) {
		struct il_buf p = IL_BUF_INIT;

		if (!il_buf_printf(&p, "%s/%s", s->dir, made[i]))
			unlink(p.p);
		il_buf_release(&p);
	}
	return !rmdir(s->dir) || errno == ENOENT;
}

void il_bisect_session_close(struct il_bisect_session *s)
{
	il_bisect_env_close(&s->env);
	il_strlist_release(&s->opts.commits);
	il_strlist_release(&s->opts.metrics);
	json_decref(s->args), json_decref(s->setup);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}
