// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A plan's samples on a LAVA host (run/lavarun.h): jobs built, submitted,
 * journaled and re-attached on resume here; their images published by
 * run/artifacts.c, the jobs followed to their end by run/lavafollow.c, their
 * samples collected by run/lavaruncollect.c.
 */
#include "run/lavarun.h"
#include "run/lavaruncollect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "host/lava.h"
#include "run/artifacts.h"
#include "run/kstage.h"
#include "run/lavafollow.h"
#include "run/lavajob.h"
#include "run/record.h"
#include "run/rundir.h"
#include "run/sample.h"
#include "util/clock.h"
#include "util/str.h"

static void job_release(struct il_lavafollow_job *j)
{
	free(j->s);
	il_lava_job_release(&j->st);
	memset(j, 0, sizeof(*j));
}

static void jobs_clear(struct il_lavarun_state *r)
{
	for (size_t i = 0; i < r->njobs; i++)
		job_release(&r->jobs[i]);
	free(r->jobs);
	r->jobs = NULL;
	r->njobs = 0;
}

/* ---- the images a job deploys ---- */

/* The images of plan kernel k: the host's own, with a built variant's image (and modules) in their place. */
static int images(struct il_lavarun_state *r, int k, struct il_artifacts_urls *u, bool *unbuilt, struct il_err *err)
{
	const struct il_lava_cfg *lc = &r->cfg.lava;
	const struct il_kvar *kv = r->in->kv->n ? &r->in->kv->v[k] : NULL;
	char *image = NULL, *modules = NULL;
	int rc = 0;

	memset(u, 0, sizeof(*u));
	*unbuilt = false;
	if (r->dry && r->p->built_kernels) {
		/* not built for a job definition: named as what it will be */
		if (!(u->kernel = il_str_dup_printf("%s/<kernel %s, published when the run builds it>",
						    lc->artifact_url ? lc->artifact_url : "", r->p->kernels.v[k])))
			return il_err_oom(err);
	} else if (kv && !kv->running) {
		/* a kernel that does not build is untestable: its samples become final failures (*unbuilt) */
		if (r->release[k]) {
			free(r->release[k]);
			r->release[k] = NULL;
		}
		if ((rc = il_kstage_build(r->in->c, kv, &image, &modules, &r->release[k], err))) {
			*unbuilt = true;
			return rc;
		}
	} else if (!lc->images.kernel) {
		return il_err_set(err, IL_EINVAL, "LAVA host '%s' has no lava.images.kernel to deploy for the plan's "
				  "kernel '%s'", r->host, r->p->kernels.v[k]);
	}
	rc = il_artifacts_publish_images(lc, image, modules, r->dry != NULL, u, err);
	free(image);
	free(modules);
	return rc;
}

/* ---- building and submitting a job ---- */

/* Job j's "lava-job" record (url NULL: null), its samples with their attempts and nonces; NULL: no memory left. */
static json_t *job_record(const struct il_lavarun_state *r, const struct il_lavafollow_job *j, const char *url)
{
	json_t *rec = il_record_new(IL_REC_LAVA_JOB), *js = json_array(), *ja = json_array(), *jn = json_array();
	int bad = !rec || !js || !ja || !jn;

	for (size_t i = 0; i < j->n; i++) {
		bad |= json_array_append_new(js, json_integer((json_int_t)j->s[i].seq));
		bad |= json_array_append_new(ja, json_integer(j->s[i].attempt));
		bad |= json_array_append_new(jn, json_string(j->s[i].nonce));
	}
	bad |= il_record_set(rec, IL_RF_LAVA_JOB_HOST, json_string(r->host));
	bad |= il_record_set(rec, IL_RF_LAVA_JOB_KERNEL, json_string(r->p->kernels.v[j->kernel]));
	bad |= il_record_set(rec, IL_RF_LAVA_JOB_JOB, json_integer(j->id));
	bad |= il_record_set(rec, IL_RF_LAVA_JOB_URL, url ? json_string(url) : json_null());
	bad |= il_record_set(rec, IL_RF_LAVA_JOB_SEQS, js);
	bad |= il_record_set(rec, IL_RF_LAVA_JOB_ATTEMPTS, ja);
	bad |= il_record_set(rec, IL_RF_LAVA_JOB_NONCES, jn);
	if (bad)
		json_decref(rec), rec = NULL;
	return rec;
}

static int submit(struct il_lavarun_state *r, int kernel, const struct il_artifacts_urls *u, const size_t *seqs, size_t n,
		  size_t part, size_t parts, struct il_err *err)
{
	const struct il_plan *p = r->p;
	const struct il_lava_cfg *lc = &r->cfg.lava;
	struct il_lavajob_sample *ls = calloc(n, sizeof(*ls));
	struct il_strlist *argv = calloc(n, sizeof(*argv));
	struct il_buf yaml = IL_BUF_INIT, name = IL_BUF_INIT, tpl = IL_BUF_INIT;
	struct il_lavafollow_job j = { .kernel = kernel, .s = calloc(n, sizeof(*j.s)), .n = n };
	char **cases = calloc(n, sizeof(*cases)), prio[16];
	long *ids = NULL;
	size_t nids = 0;
	json_t *rec = NULL;
	int rc = 0;

	if (!ls || !argv || !j.s || !cases) {
		rc = il_err_oom(err);
		goto out;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		const struct il_spec *s = &r->in->specs[seqs[i]];
		const struct il_plan_wl *w = &p->wl[s->wl];
		char *variant = il_plan_variant(p, s);

		j.s[i].seq = s->seq;
		j.s[i].attempt = r->dry ? 1 : ++r->in->t->attempts[s->seq];
		il_sample_nonce(j.s[i].nonce);
		if ((rc = il_workload_argv(&w->def, w->params, &argv[i], err)))
			break;
		/* idlelab's own workloads by absolute path, where the deployed image has them */
		if (w->def.builtin && argv[i].n && lc->bindir) {
			char *abs = il_str_dup_printf("%s/%s", lc->bindir, argv[i].v[0]);

			if (!abs) {
				rc = il_err_oom(err);
				break;
			}
			free(argv[i].v[0]);
			argv[i].v[0] = abs;
		}
		cases[i] = variant ? il_str_dup_printf("%s-%s", variant, w->label) : NULL;
		free(variant);
		ls[i] = (struct il_lavajob_sample){ .seq = s->seq, .nonce = j.s[i].nonce, .case_name = cases[i],
						    .governor = p->gov[s->gov].governor, .disable = &p->gov[s->gov].disable,
						    .quiesce_s = p->quiesce_s >= 0 ? p->quiesce_s : r->cfg.quiesce_s,
						    .cpus = p->cpus, .timeout_s = p->timeout_s, .argv = &argv[i] };
	}
	if (rc)
		goto out;
	if (lc->job_template && (rc = il_buf_read_file(&tpl, lc->job_template, 1 << 20, err)))
		goto out;
	snprintf(prio, sizeof(prio), "%d", lc->priority);
	il_buf_printf(&name, "idlelab %s: %s, kernel %s, %zu samples", p->name ? p->name : "plan", r->host,
		      p->kernels.v[kernel], n);
	if (parts > 1)
		il_buf_printf(&name, " (part %zu of %zu)", part + 1, parts);
	{
		struct il_lavajob lj = { .job_name = il_buf_str(&name), .device_type = lc->device_type, .tags = &lc->tags,
					 .priority = prio, .visibility = lc->visibility,
					 .template_text = lc->job_template ? il_buf_str(&tpl) : NULL,
					 .template_label = lc->job_template, .kernel_url = u->kernel,
					 .ramdisk_url = u->ramdisk, .dtb_url = u->dtb, .modules_url = u->modules,
					 .disable_union = &r->union_dis, .samples = ls, .nsamples = n };

		if ((rc = il_lavajob_render(&lj, &yaml, err)))
			goto out;
	}
	if (r->dry) {
		il_buf_printf(r->dry, "# %s\n", il_buf_str(&name));
		il_buf_add(r->dry, yaml.p, yaml.len);
		goto out;
	}
	if ((rc = il_lava_submit(&r->conn, il_buf_str(&yaml), &ids, &nids, err)))
		goto out;
	if (nids != 1) {
		rc = il_err_set(err, IL_EPARSE, "LAVA answered %zu job ids for one job", nids);
		goto out;
	}
	j.id = ids[0];
	j.submitted = il_clock_mono_s();
	/* journaled before it is followed: a resumed run follows this job instead of submitting again */
	{
		char *url = il_str_dup_printf("%s/scheduler/job/%ld", lc->url, j.id);

		rec = job_record(r, &j, url);
		il_context_note(r->in->c, r->host, "LAVA job %ld submitted: %zu samples, kernel %s (%s)", j.id, n,
			    p->kernels.v[kernel], url ? url : "");
		free(url);
	}
	if ((rc = il_context_journal(r->in->c, rec, err)))
		goto out;
	{
		struct il_lavafollow_job *nj = realloc(r->jobs, (r->njobs + 1) * sizeof(*nj));

		if (!nj) {
			rc = il_err_oom(err);
			goto out;
		}
		r->jobs = nj;
		r->jobs[r->njobs++] = j;
		j.s = NULL;
	}
out:
	for (size_t i = 0; i < n; i++) {
		if (argv)
			il_strlist_release(&argv[i]);
		if (cases)
			free(cases[i]);
	}
	free(argv);
	free(cases);
	free(ls);
	free(ids);
	free(j.s);
	il_buf_release(&yaml);
	il_buf_release(&name);
	il_buf_release(&tpl);
	return rc;
}

/* ---- resume: the jobs a stopped run left in flight ---- */

struct reattach {
	struct il_lavarun_state *r;
	struct il_err *err;
};

static int reattach_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct reattach *ra = ctx;
	struct il_lavarun_state *r = ra->r;
	json_t *seqs = json_object_get(rec, "seqs"), *att = json_object_get(rec, "attempts"),
	       *non = json_object_get(rec, "nonces");
	const char *host = json_string_value(json_object_get(rec, "host"));
	const char *kernel = json_string_value(json_object_get(rec, "kernel"));
	struct il_lavafollow_job j = { 0 };
	bool pending = false;
	int k = -1;

	(void)line;
	(void)err;
	if (il_record_kind_of(rec) != IL_REC_LAVA_JOB || !host || strcmp(host, r->host) || !kernel ||
	    json_array_size(seqs) != json_array_size(att) || json_array_size(seqs) != json_array_size(non))
		return 0;
	for (size_t i = 0; i < r->p->kernels.n; i++)
		if (!strcmp(r->p->kernels.v[i], kernel))
			k = (int)i;
	if (k < 0)
		return 0;
	/* a job is in flight when one of its samples is not final and has no record of this attempt yet */
	for (size_t i = 0; i < json_array_size(seqs); i++) {
		json_int_t s = json_integer_value(json_array_get(seqs, i));

		if (s >= 0 && (size_t)s < r->in->t->n && !r->in->t->final[s] &&
		    r->in->t->attempts[s] < (int)json_integer_value(json_array_get(att, i)))
			pending = true;
	}
	if (!pending)
		return 0;
	j.id = (long)json_integer_value(json_object_get(rec, "job"));
	j.kernel = k;
	j.n = json_array_size(seqs);
	j.submitted = il_clock_mono_s();
	if (!(j.s = calloc(j.n, sizeof(*j.s))))
		return il_err_oom(ra->err);
	for (size_t i = 0; i < j.n; i++) {
		j.s[i].seq = (size_t)json_integer_value(json_array_get(seqs, i));
		j.s[i].attempt = (int)json_integer_value(json_array_get(att, i));
		snprintf(j.s[i].nonce, sizeof(j.s[i].nonce), "%s", json_string_value(json_array_get(non, i)) ?: "");
		if (j.s[i].seq < r->in->t->n && r->in->t->attempts[j.s[i].seq] < j.s[i].attempt)
			r->in->t->attempts[j.s[i].seq] = j.s[i].attempt;
	}
	{
		struct il_lavafollow_job *nj = realloc(r->jobs, (r->njobs + 1) * sizeof(*nj));

		if (!nj) {
			free(j.s);
			return il_err_oom(ra->err);
		}
		r->jobs = nj;
		r->jobs[r->njobs++] = j;
	}
	il_context_note(r->in->c, r->host, "LAVA job %ld was in flight when the run stopped: following it again", j.id);
	return 0;
}

/* ---- the host ---- */

/* Follow every job in r->jobs to its end and journal its samples. */
static int finish_jobs(struct il_lavarun_state *r, struct il_err *err)
{
	int rc = il_lavafollow_jobs(r->in->c, r->host, &r->conn, &r->cfg.lava, r->jobs, r->njobs, err);

	for (size_t i = 0; i < r->njobs && !rc; i++)
		rc = il_lavarun_collect(r, &r->jobs[i], err);
	jobs_clear(r);
	return rc;
}

static bool pending(const struct il_lavarun_state *r, const struct il_spec *s)
{
	return s->host == r->in->host && !r->in->t->final[s->seq];
}

static int no_images(struct il_lavarun_state *r, const size_t *seqs, size_t n, struct il_err *err);

/* Kernel block by kernel block, as the matrix orders them; a round per retry (one round when dry). */
static int blocks(struct il_lavarun_state *r, struct il_err *err)
{
	struct il_lavarun *in = r->in;
	const struct il_plan *p = r->p;
	size_t *seqs = calloc(in->t->n ? in->t->n : 1, sizeof(*seqs));
	int rc = 0;

	if (!seqs)
		return il_err_oom(err);
	for (int k = 0; k < (int)p->kernels.n && !rc; k++) {
		for (int round = 0; !rc; round++) {
			struct il_artifacts_urls u;
			size_t n = 0, parts;
			bool unbuilt;

			for (size_t i = 0; i < in->t->n; i++)
				if (in->specs[i].kernel == k && pending(r, &in->specs[i]))
					seqs[n++] = i;
			if (!n || (r->dry && round))
				break;
			if (round > p->retries + 1) {
				rc = il_err_set(err, IL_EIO, "LAVA host '%s': samples still pending after %d rounds", r->host,
						round);
				break;
			}
			if (!r->dry && il_context_stopped(in->c)) {
				rc = IL_EINTR;
				break;
			}
			if ((rc = images(r, k, &u, &unbuilt, err))) {
				/* an unbuilt kernel's samples are final failures; anything else stops the run */
				if (!r->dry && unbuilt)
					rc = no_images(r, seqs, n, err);
				break;
			}
			/* the block's samples dealt out over at most `boards` jobs, in run order within each */
			parts = r->cfg.lava.boards > 0 ? (size_t)r->cfg.lava.boards : 1;
			if (parts > n)
				parts = n;
			for (size_t part = 0; part < parts && !rc; part++) {
				size_t m = 0, *mine = calloc(n, sizeof(*mine));

				if (!mine) {
					rc = il_err_oom(err);
					break;
				}
				for (size_t i = part; i < n; i += parts)
					mine[m++] = seqs[i];
				rc = submit(r, k, &u, mine, m, part, parts, err);
				free(mine);
			}
			il_artifacts_urls_release(&u);
			if (!rc && !r->dry)
				rc = finish_jobs(r, err);
		}
	}
	free(seqs);
	return rc;
}

/* A block whose kernel did not build: its samples cannot run, final failures, never data. */
static int no_images(struct il_lavarun_state *r, const size_t *seqs, size_t n, struct il_err *err)
{
	struct il_lavarun *in = r->in;
	struct il_err why = *err;
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		char *variant = il_plan_variant(r->p, &in->specs[seqs[i]]);
		json_t *rec = il_sample_fail_record(in->c, r->host, &in->specs[seqs[i]], variant ? variant : "?",
						    ++in->t->attempts[seqs[i]], why.msg);

		rc = rec ? il_context_journal(in->c, rec, err) : il_err_oom(err);
		if (!rc)
			il_tally_final(in->t, seqs[i]);
		free(variant);
	}
	return rc;
}

static int setup(struct il_lavarun_state *r, struct il_err *err)
{
	const struct il_plan *p = r->p;
	int rc;

	if (!(r->release = calloc(p->kernels.n ? p->kernels.n : 1, sizeof(*r->release))))
		return il_err_oom(err);
	if ((rc = il_host_load(&r->cfg, r->in->c->o->paths, r->host, err)))
		return rc;
	if (r->cfg.kind != IL_HOST_LAVA)
		return il_err_set(err, IL_EINVAL, "host '%s' is not a LAVA host (its host file has no \"lava\" section)",
				  r->host);
	for (size_t g = 0; g < p->ngov; g++)
		for (size_t d = 0; d < p->gov[g].disable.n; d++)
			if (!il_strlist_has(&r->union_dis, p->gov[g].disable.v[d]) &&
			    il_strlist_push(&r->union_dis, p->gov[g].disable.v[d]))
				return il_err_oom(err);
	return 0;
}

static void teardown(struct il_lavarun_state *r)
{
	for (size_t k = 0; r->release && k < r->p->kernels.n; k++)
		free(r->release[k]);
	free(r->release);
	jobs_clear(r);
	il_strlist_release(&r->union_dis);
	il_strlist_release(&r->fp_devices);
	il_lava_conn_release(&r->conn);
	il_host_release(&r->cfg);
}

int il_lavarun_host(struct il_lavarun *in, struct il_err *err)
{
	struct il_lavarun_state r = { .in = in, .p = in->c->plan, .host = in->c->plan->hosts.v[in->host] };
	int rc;

	if (!(rc = setup(&r, err)))
		rc = il_lava_conn_open(&r.conn, &r.cfg.lava, err);
	/* jobs a stopped run left in flight first: never submitted twice */
	if (!rc) {
		char *jp = il_rundir_join(in->c->dir, "journal.jsonl");
		struct reattach ra = { &r, err };

		rc = jp ? il_journal_each(jp, reattach_rec, &ra, NULL, err) : il_err_oom(err);
		free(jp);
		if (!rc && r.njobs)
			rc = finish_jobs(&r, err);
	}
	if (!rc)
		rc = blocks(&r, err);
	teardown(&r);
	return rc;
}

int il_lavarun_jobdefs(struct il_lavarun *in, struct il_buf *out, struct il_err *err)
{
	struct il_lavarun_state r = { .in = in, .p = in->c->plan, .host = in->c->plan->hosts.v[in->host], .dry = out };
	int rc;

	if (!(rc = setup(&r, err)))
		rc = blocks(&r, err);
	teardown(&r);
	return rc;
}

int il_lavarun_jobdef_plan(const char *plan_path, const struct il_run_opts *o, struct il_buf *out,
			   struct il_err *err)
{
	struct il_plan plan;
	struct il_spec *specs = NULL;
	struct il_tally t = { 0 };
	struct il_kvars kv = { 0 };
	struct il_run_ctx c = { .o = o };
	size_t n = 0, found = 0;
	int rc;

	if ((rc = il_plan_load(&plan, plan_path, o->workloads_dir, err)))
		return rc;
	if (o->host) {
		/* the same replacement il_engine_start makes */
		struct il_plan p2;

		json_object_del(plan.json, "hosts");
		if (json_object_set_new(plan.json, "host", json_string(o->host))) {
			rc = il_err_oom(err);
			goto out;
		}
		if ((rc = il_plan_from_json(&p2, plan.json, o->workloads_dir, plan_path, err)))
			goto out;
		il_plan_release(&plan);
		plan = p2;
	}
	c.plan = &plan;
	if ((rc = il_plan_matrix(&plan, &specs, &n, err)) || (rc = il_tally_init(&t, n, err)))
		goto out;
	for (size_t h = 0; h < plan.hosts.n && !rc; h++) {
		struct il_host_cfg cfg;
		struct il_err e = { 0 };
		struct il_lavarun lr = { .c = &c, .specs = specs, .t = &t, .kv = &kv, .host = (int)h };

		if (il_host_load(&cfg, o->paths, plan.hosts.v[h], &e) || cfg.kind != IL_HOST_LAVA) {
			if (!e.code)
				il_host_release(&cfg);
			continue;
		}
		il_host_release(&cfg);
		found++;
		rc = il_lavarun_jobdefs(&lr, out, err);
	}
	if (!rc && !found)
		rc = il_err_set(err, IL_EINVAL, "%s: none of the plan's hosts is a LAVA host (a host file with a \"lava\" "
				"section; docs/lava.md)", plan_path);
out:
	il_tally_release(&t);
	free(specs);
	il_plan_release(&plan);
	return rc;
}
