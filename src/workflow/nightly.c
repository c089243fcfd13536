// SPDX-License-Identifier: GPL-2.0-or-later
/* One nightly: the tip measured, judged against the last good nightly and over the last ones (see nightly.h). */
#include "workflow/nightly.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/quote.h"
#include "kernel/repo.h"
#include "run/journal.h"
#include "run/plan.h"
#include "run/rundir.h"
#include "stats/compare.h"
#include "stats/dataset.h"
#include "workflow/nightlydrift.h"
#include "util/buf.h"
#include "util/jfields.h"
#include "util/jsonfile.h"
#include "util/clock.h"
#include "util/str.h"
#include "util/strlist.h"

static const char *const verdict_names[IL_NIGHTLY_NVERDICTS] = {
	[IL_NIGHTLY_UNCHANGED] = "unchanged",
	[IL_NIGHTLY_BASELINE] = "baseline",
	[IL_NIGHTLY_GOOD] = "good",
	[IL_NIGHTLY_REGRESSION] = "regression",
	[IL_NIGHTLY_FAILED] = "failed",
};

const char *il_nightly_verdict_name(enum il_nightly_verdict v)
{
	return v < IL_NIGHTLY_NVERDICTS ? verdict_names[v] : "?";
}

/* The plan's "track" section (docs/nightly.md "The track section"). */
struct track {
	char *repo, *branch, *remote;
	struct il_strlist metrics;
	double floor_pct, alpha;
	int window;
};

#define TRACK_STR(k, req, w, m) \
	{ .key = (k), .type = IL_JF_STRING, .required = (req), .what = (w), .store = true, .off = offsetof(struct track, m) }
static const struct il_jfield track_fields[] = {
	TRACK_STR("repo", true, "a git repository (a path, relative to the plan)", repo),
	TRACK_STR("branch", true, "a branch name", branch),
	TRACK_STR("remote", false, "a remote of the repository to fetch the branch from", remote),
	IL_JF_AT("metrics", IL_JF_STRINGS, struct track, metrics),
	{ .key = "floor_pct", .type = IL_JF_NUMBER, .ranged = true, .min = 0, .max = 1000, .what = "a percentage in [0, 1000]",
	  .store = true, .off = offsetof(struct track, floor_pct) },
	{ .key = "alpha", .type = IL_JF_NUMBER, .ranged = true, .min = 1e-6, .max = 0.5, .what = "a number in (0, 0.5]",
	  .store = true, .off = offsetof(struct track, alpha) },
	{ .key = "window", .type = IL_JF_INT, .ranged = true, .min = 4, .max = 1000, .what = "nightlies, 4 to 1000",
	  .store = true, .off = offsetof(struct track, window) },
};

static void track_release(struct track *t)
{
	IL_FREE_ALL(t->repo, t->branch, t->remote);
	il_strlist_release(&t->metrics);
}

/* What one invocation works with. */
struct nt {
	const struct il_nightly_opts *o;
	struct il_nightly_result *res;
	json_t *plan;             /* the user's plan, paths absolute */
	struct track t;
	char *journal;            /* DIR/nightly.jsonl */
	int lock_fd;
	git_repository *repo;
	/* from the journal, this plan and host only (borrowed from past) */
	json_t *past;             /* every record of this plan and host, in order */
	const json_t *last_start, *last_verdict, *epoch;
};

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* A run directory that still has its journal. */
static bool run_exists(const char *dir)
{
	struct il_buf b = IL_BUF_INIT;
	bool ok;

	il_buf_printf(&b, "%s/journal.jsonl", dir ? dir : "");
	ok = dir && !access(b.p, R_OK);
	il_buf_release(&b);
	return ok;
}

static int past_rec(json_t *rec, size_t line, void *ctx, struct il_err *err)
{
	struct nt *n = ctx;
	const char *type = str(rec, "type");

	(void)line, (void)err;
	if (!str(rec, "plan") || strcmp(str(rec, "plan"), n->res->plan) || !str(rec, "host") ||
	    strcmp(str(rec, "host"), n->res->host))
		return 0;
	json_array_append(n->past, rec);
	if (!strcmp(type, "nightly-start"))
		n->last_start = rec;
	else if (!strcmp(type, "nightly")) {
		n->last_verdict = rec;
		if (!strcmp(str(rec, "verdict") ?: "", "baseline"))
			n->epoch = rec;
	}
	return 0;
}

/* The last good nightly (baseline or good) whose run is still there, or NULL. */
static const json_t *last_good(const struct nt *n)
{
	for (size_t i = json_array_size(n->past); i-- > 0;) {
		const json_t *r = json_array_get(n->past, i);
		const char *v = str(r, "verdict");

		if (!strcmp(str(r, "type"), "nightly") && v && (!strcmp(v, "baseline") || !strcmp(v, "good")) &&
		    run_exists(str(r, "run")))
			return r;
		if (r == n->epoch)
			break;
	}
	return NULL;
}

/* The last verdict record that measured commit (any verdict but an infrastructure failure), or NULL. */
static const json_t *measured(const struct nt *n, const char *commit)
{
	for (size_t i = json_array_size(n->past); i-- > 0;) {
		const json_t *r = json_array_get(n->past, i);

		if (!strcmp(str(r, "type"), "nightly") && !strcmp(str(r, "commit") ?: "", commit) &&
		    (strcmp(str(r, "verdict") ?: "", "failed") || json_is_true(json_object_get(r, "build_failed"))))
			return r;
	}
	return NULL;
}

static int lock_journal(struct nt *n, struct il_err *err)
{
	n->lock_fd = open(n->journal, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (n->lock_fd < 0)
		return il_err_set(err, IL_EIO, "cannot open %s: %s", n->journal, strerror(errno));
	if (flock(n->lock_fd, LOCK_EX | LOCK_NB))
		return il_err_set(err, IL_EINVAL, "%s: another nightly of this runs directory is running (%s)", n->journal,
				  strerror(errno));
	return 0;
}

/* The plan, its track section and its one host. */
static int load_plan(struct nt *n, struct il_err *err)
{
	const struct il_nightly_opts *o = n->o;
	const json_t *track, *hosts, *kernels;
	char *pc = strdup(o->plan_path), *pdir = NULL;
	int r;

	if ((r = il_json_load(o->plan_path, &n->plan, err)))
		goto out;
	if (!json_is_object(n->plan)) {
		r = il_err_set(err, IL_EPARSE, "%s: (top level): expected a plan object", o->plan_path);
		goto out;
	}
	pdir = pc ? realpath(dirname(pc), NULL) : NULL;
	il_plan_absolutize(n->plan, pdir ? pdir : ".");
	track = json_object_get(n->plan, "track");
	if (!json_is_object(track)) {
		r = il_err_set(err, IL_EINVAL, "%s: track: expected an object naming the repository and branch to follow "
				  "(required for a nightly; docs/nightly.md)", o->plan_path);
		goto out;
	}
	n->t.floor_pct = 2.0, n->t.alpha = 0.05, n->t.window = 10;
	if ((r = il_jf_read(track, track_fields, IL_JF_COUNT(track_fields), &n->t, o->plan_path, "track", err)))
		goto out;
	kernels = json_object_get(n->plan, "kernels");
	if (json_array_size(kernels) > 1) {
		r = il_err_set(err, IL_EINVAL, "%s: kernels: expected at most one entry (a nightly builds one kernel: the "
				  "tip of track.branch)", o->plan_path);
		goto out;
	}
	hosts = json_object_get(n->plan, "hosts");
	n->res->plan = json_string_value(json_object_get(n->plan, "name")) ? strdup(str(n->plan, "name")) : NULL;
	if (o->run->host)
		n->res->host = strdup(o->run->host);
	else if (str(n->plan, "host"))
		n->res->host = strdup(str(n->plan, "host"));
	else if (json_array_size(hosts) == 1 && json_is_string(json_array_get(hosts, 0)))
		n->res->host = strdup(json_string_value(json_array_get(hosts, 0)));
	if (!n->res->plan) {
		r = il_err_set(err, IL_EPARSE, "%s: name: expected a run name (required)", o->plan_path);
		goto out;
	}
	if (!n->res->host) {
		r = il_err_set(err, IL_EINVAL, "%s: host: expected one host (a nightly compares a host with itself; "
				  "use one plan per host, or --host)", o->plan_path);
		goto out;
	}
	n->res->branch = strdup(n->t.branch);
out:
	free(pc);
	free(pdir);
	return r;
}

/* The plan of this nightly: the user's with its one kernel being the tip. */
static char *tip_plan(const struct nt *n)
{
	json_t *p = json_deep_copy(n->plan), *k = json_deep_copy(json_array_get(json_object_get(n->plan, "kernels"), 0));
	char *txt;

	if (!k)
		k = json_pack("{s:s}", "name", "tip");
	/* the tip replaces whatever the entry was built from; its name (and object directory) stays, so builds are incremental */
	json_object_del(k, "tarball");
	json_object_del(k, "base");
	json_object_set_new(k, "repo", json_string(n->t.repo));
	json_object_set_new(k, "commit", json_string(n->res->tip));
	json_object_set_new(p, "kernels", json_pack("[o]", k));
	txt = json_dumps(p, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(p);
	return txt;
}

static int journal_append(const struct nt *n, json_t *rec, struct il_err *err)
{
	struct il_journal j;
	int r;

	if (!rec)
		return il_err_oom(err);
	if (!(r = il_journal_open(&j, n->journal, err))) {
		r = il_journal_append(&j, rec, err);
		il_journal_close(&j);
	}
	json_decref(rec);
	return r;
}

/* A new run of the tip, or the interrupted one of the same tip resumed. */
static int measure(struct nt *n, struct il_err *err)
{
	const struct il_nightly_opts *o = n->o;
	const json_t *ls = n->last_start;
	char stamp[32], iso[40], *txt = NULL, *made = NULL;
	struct il_buf dir = IL_BUF_INIT, tmp = IL_BUF_INIT;
	int r, fd;

	/* a start without its verdict: the previous nightly was stopped or crashed */
	if (ls && (!n->last_verdict || strcmp(str(n->last_verdict, "run") ?: "", str(ls, "run") ?: "")) &&
	    run_exists(str(ls, "run"))) {
		if (!strcmp(str(ls, "commit") ?: "", n->res->tip)) {
			n->res->run = strdup(str(ls, "run"));
			return il_run_resume(n->res->run, o->run, err);
		}
		/* the branch moved on: that night is given up, said so in the journal */
		il_clock_iso_now(iso, sizeof(iso));
		if ((r = journal_append(n, json_pack("{s:s,s:s,s:s,s:s,s:s,s:O,s:s,s:s,s:s,s:b}", "type", "nightly", "time",
						     iso, "plan", n->res->plan, "host", n->res->host, "branch",
						     n->res->branch, "commit", json_object_get(ls, "commit"), "run",
						     str(ls, "run"), "verdict", "failed", "reason",
						     "interrupted, and the branch moved on", "alerted", 0),
					err)))
			return r;
	}
	{
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	}
	il_buf_printf(&dir, "%s/%s-nightly-%s-%.12s", o->dir, stamp, n->res->plan, n->res->tip);
	il_buf_printf(&tmp, "%s/.nightly-plan.XXXXXX", o->dir);
	if (il_buf_error(&dir) || il_buf_error(&tmp) || !(txt = tip_plan(n))) {
		r = il_err_oom(err);
		goto out;
	}
	/* the plan beside the runs, exclusively created, only until the run has its own copy */
	if ((fd = mkstemp(tmp.p)) < 0) {
		r = il_err_set(err, IL_EIO, "cannot create %s: %s", tmp.p, strerror(errno));
		goto out;
	}
	close(fd);
	if ((r = il_write_file_atomic(tmp.p, txt, strlen(txt), err)))
		goto unlink;
	il_clock_iso_now(iso, sizeof(iso));
	n->res->run = realpath(o->dir, NULL);
	if (n->res->run) {
		struct il_buf a = IL_BUF_INIT;

		il_buf_printf(&a, "%s/%s", n->res->run, strrchr(dir.p, '/') + 1);
		free(n->res->run);
		n->res->run = il_buf_detach(&a);
	}
	if (!n->res->run) {
		r = il_err_oom(err);
		goto unlink;
	}
	if ((r = journal_append(n, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "type", "nightly-start", "time", iso, "plan",
					     n->res->plan, "host", n->res->host, "branch", n->res->branch, "commit",
					     n->res->tip, "run", n->res->run),
				err)))
		goto unlink;
	r = il_run_start(tmp.p, n->res->run, o->run, &made, err);
unlink:
	unlink(tmp.p);
out:
	free(txt);
	free(made);
	il_buf_release(&dir), il_buf_release(&tmp);
	return r;
}

/* "VARIANT|KEY": what a regression is, for "reported already" */
static json_t *reg_key(const char *variant, const char *key)
{
	struct il_buf b = IL_BUF_INIT;
	json_t *j;

	il_buf_printf(&b, "%s|%s", variant, key);
	j = il_buf_error(&b) ? NULL : json_string(b.p);
	il_buf_release(&b);
	return j;
}

/*
 * Variant v of the tip against the baseline: a dataset of the two (and the
 * baseline's A/A partner when v is its reference), compared by compare's
 * rules (its decision family: the key metrics, or track.metrics); each key
 * metric appended to res->compared, the worse ones to regs.
 */
static int compare_variant(struct nt *n, const struct il_dataset *base, const struct il_dataset *tip, const char *v,
			   json_t *regs, struct il_err *err)
{
	struct il_cmp_opts co = IL_CMP_OPTS_INIT;
	struct il_dataset pair = { 0 };
	struct il_cmp c = { 0 };
	int r = 0;

	if (il_dataset_pick(&pair, base, v, "baseline") || il_dataset_pick(&pair, tip, v, "tip"))
		goto out; /* a variant new since the baseline: nothing to compare it with */
	if (base->aa && base->reference && !strcmp(base->reference, v) && !il_dataset_pick(&pair, base, base->aa, "baseline-again"))
		pair.aa = strdup("baseline-again");
	pair.reference = strdup("baseline");
	co.only = n->t.metrics.n ? &n->t.metrics : NULL;
	co.alpha = n->t.alpha;
	co.floor_pct = n->t.floor_pct;
	if ((r = il_compare(&c, &pair, &co, err))) {
		if (r == IL_EINVAL && co.only)
			il_err_prefix(err, "%s: track.metrics: ", n->o->plan_path);
		goto out;
	}
	for (size_t i = 0; i < c.nmet; i++) {
		const struct il_mseries *m = &pair.met[c.met[i]];
		const struct il_mres *b = il_cmp_res(&c, i, (size_t)il_dataset_var(&pair, "baseline"));
		const struct il_mres *x = il_cmp_res(&c, i, (size_t)il_dataset_var(&pair, "tip"));
		json_t *e;

		if (!c.key[i])
			continue; /* secondary metrics: context (exploratory), never an alert */
		e = json_pack("{s:s,s:s,s:s,s:s,s:s?,s:s,s:o,s:o,s:I,s:o,s:o,s:I,s:o,s:o,s:o,s:s}", "variant", v, "key",
			      m->key, "workload", m->group, "metric", m->metric, "unit", *m->unit ? m->unit : NULL, "better",
			      il_better_name(m->better), "baseline_mean", il_jf_num(b->d.mean), "baseline_stdev", il_jf_num(b->d.stdev),
			      "n_baseline", (json_int_t)b->d.n, "mean", il_jf_num(x->d.mean), "stdev", il_jf_num(x->d.stdev), "n",
			      (json_int_t)x->d.n, "change_pct", il_jf_num(x->change_pct), "p", il_jf_num(x->p), "threshold_pct",
			      il_jf_num(x->threshold_pct), "verdict", x->verdict);
		json_array_append_new(n->res->compared, e);
		if (!strcmp(x->verdict, "worse") && isfinite(x->p))
			json_array_append(regs, e);
	}
out:
	il_compare_release(&c);
	il_dataset_release(&pair);
	return r;
}

/* A regression of the alert input (docs/alerts.md) from a compared entry. */
static json_t *alert_reg(const json_t *e)
{
	json_t *a = json_object();
	static const char *const keys[] = { "workload", "metric", "variant", "unit", "better", "baseline_mean",
					    "baseline_stdev", "mean", "stdev", "change_pct", "p", "n_baseline", "n",
					    "kind", "since" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(e, keys[i]);

		if (v && !json_is_null(v))
			json_object_set(a, keys[i], v);
	}
	/* a single sample has no stdev: 0 keeps the table honest about n */
	if (!json_object_get(a, "stdev"))
		json_object_set_new(a, "stdev", json_real(0));
	if (!json_object_get(a, "baseline_stdev"))
		json_object_set_new(a, "baseline_stdev", json_real(0));
	return a;
}

/* The keys reported already against this baseline (the last regression record with it), or NULL. */
static const json_t *reported_before(const struct nt *n)
{
	for (size_t i = json_array_size(n->past); i-- > 0;) {
		const json_t *r = json_array_get(n->past, i);

		if (strcmp(str(r, "type"), "nightly") || !strcmp(str(r, "verdict") ?: "", "failed"))
			continue;
		if (strcmp(str(r, "verdict") ?: "", "regression") ||
		    strcmp(str(json_object_get(r, "baseline"), "run") ?: "", n->res->base_run))
			return NULL;
		return json_object_get(r, "reported");
	}
	return NULL;
}

static bool has_string(const json_t *a, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return true;
	return false;
}

static json_t *alert_input(struct nt *n, const json_t *regs)
{
	struct il_buf range = IL_BUF_INIT, repro = IL_BUF_INIT, bis = IL_BUF_INIT, plan = IL_BUF_INIT, good = IL_BUF_INIT,
		      bad = IL_BUF_INIT;
	const json_t *worst = NULL, *e;
	json_t *a, *list = json_array();
	size_t i;

	json_array_foreach(regs, i, e) {
		json_array_append_new(list, alert_reg(e));
		if (!worst || fabs(json_number_value(json_object_get(e, "change_pct"))) >
				      fabs(json_number_value(json_object_get(worst, "change_pct"))))
			worst = e;
	}
	il_buf_printf(&range, "%.12s..%.12s", n->res->base_commit, n->res->tip);
	il_buf_printf(&plan, "%s/plan.json", n->res->run);
	il_buf_printf(&good, "%.12s", n->res->base_commit);
	il_buf_printf(&bad, "%.12s", n->res->tip);
	{
		char *run[] = { "idlelab", "run", plan.p, NULL };
		/* the label as the plan has it: a variant label may carry "@kernel" */
		char *label = strdup(str(worst, "variant")), *at = label ? strchr(label, '@') : NULL;
		char *bisect[] = { "idlelab", "bisect", plan.p, "--good", good.p, "--bad", bad.p, "--metric",
				   (char *)str(worst, "key"), "--variant", label, NULL };

		if (at)
			*at = 0;
		if (json_array_size(json_object_get(n->plan, "governors")) < 2 || !label)
			bisect[9] = NULL;
		il_sh_quote_shown(&repro, run);
		il_sh_quote_shown(&bis, bisect);
		free(label);
	}
	a = json_pack("{s:s,s:s,s:s,s:s,s:s?,s:{s:s,s:s},s:s,s:s,s:o,s:s,s:s}", "plan", n->res->plan, "host", n->res->host,
		      "branch", n->res->branch, "commit", n->res->tip, "subject", n->res->subject, "baseline", "commit",
		      n->res->base_commit, "run", strrchr(n->res->base_run, '/') ? strrchr(n->res->base_run, '/') + 1 : n->res->base_run,
		      "run", strrchr(n->res->run, '/') + 1, "range", range.p, "regressions", list, "reproduce", repro.p,
		      "bisect", bis.p);
	il_buf_release(&range), il_buf_release(&repro), il_buf_release(&bis), il_buf_release(&plan);
	il_buf_release(&good), il_buf_release(&bad);
	return a;
}

/* Judge the measured tip: failed, the first baseline, good, or a regression (with its alert). */
static int judge(struct nt *n, struct il_err *err)
{
	struct il_nightly_result *res = n->res;
	struct il_dataset base = { 0 }, tip = { 0 };
	const json_t *good, *before;
	json_t *regs = json_array(), *e;
	bool repeat = true;
	size_t i;
	int r;

	if ((r = il_dataset_add_run(&tip, res->run, NULL, err)))
		goto out;
	if (!tip.counted) {
		char *jp = il_rundir_path(res->run, IL_RUNDIR_JOURNAL);

		il_journal_first_failure(jp, &res->reason, &res->build_failed);
		free(jp);
		if (!res->reason)
			res->reason = strdup("no sample was counted");
		res->verdict = IL_NIGHTLY_FAILED;
		goto out;
	}
	good = n->o->rebaseline ? NULL : last_good(n);
	if (!good) {
		res->verdict = IL_NIGHTLY_BASELINE;
		goto out;
	}
	res->base_run = strdup(str(good, "run"));
	snprintf(res->base_commit, sizeof(res->base_commit), "%s", str(good, "commit") ?: "");
	if ((r = il_dataset_add_run(&base, res->base_run, NULL, err)))
		goto out;
	for (i = 0; i < tip.nvar; i++)
		if ((!tip.aa || strcmp(tip.var[i], tip.aa)) && (r = compare_variant(n, &base, &tip, tip.var[i], regs, err)))
			goto out;
	{
		struct il_nightly_drift_in in = { .dir = n->o->dir, .db = n->o->db, .plan = res->plan, .host = res->host,
						  .run = res->run, .metrics = n->t.metrics.n ? &n->t.metrics : NULL,
						  .alpha = n->t.alpha, .floor_pct = n->t.floor_pct, .window = n->t.window,
						  .past = n->past, .epoch = n->epoch };

		if ((r = il_nightly_drift(&in, regs, &res->drift_note, err)))
			goto out;
	}
	if (!json_array_size(regs)) {
		res->verdict = IL_NIGHTLY_GOOD;
		goto out;
	}
	res->verdict = IL_NIGHTLY_REGRESSION;
	res->alert = alert_input(n, regs);
	before = reported_before(n);
	res->reported = before ? json_deep_copy(before) : json_array();
	res->reported_before = before ? json_deep_copy(before) : json_array();
	json_array_foreach(regs, i, e) {
		json_t *k = reg_key(str(e, "variant"), str(e, "key"));

		repeat &= has_string(before, json_string_value(k));
		if (!has_string(res->reported, json_string_value(k)))
			json_array_append(res->reported, k);
		json_decref(k);
	}
	res->repeat = before && repeat;
	if (!res->alert || !res->reported)
		r = il_err_oom(err);
out:
	json_decref(regs);
	il_dataset_release(&base);
	il_dataset_release(&tip);
	return r;
}

/*
 * The night's verdict into the journal (all but unchanged), before any alert
 * is composed: a commit subject or a mail server can no longer keep it out.
 * A new regression's alert input goes with it, owed to the destinations the
 * caller delivers to; its keys count as reported against the baseline from
 * here on (the alert stays owed until delivered, so nothing is lost).
 */
static int record_verdict(struct nt *n, struct il_err *err)
{
	const struct il_nightly_result *res = n->res;
	json_t *rec, *owed = json_array();
	char iso[40];

	il_clock_iso_now(iso, sizeof(iso));
	rec = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s?,s:s?,s:s}", "type", "nightly", "time", iso, "plan", res->plan,
			"host", res->host, "branch", res->branch, "commit", res->tip, "subject", res->subject, "run",
			res->run, "verdict", il_nightly_verdict_name(res->verdict));
	if (!rec || !owed) {
		json_decref(rec), json_decref(owed);
		return il_err_oom(err);
	}
	if (res->base_run)
		json_object_set_new(rec, "baseline", json_pack("{s:s,s:s}", "run", res->base_run, "commit", res->base_commit));
	if (res->reason)
		json_object_set_new(rec, "reason", json_string(res->reason));
	if (res->drift_note)
		json_object_set_new(rec, "drift_note", json_string(res->drift_note));
	if (res->verdict == IL_NIGHTLY_FAILED)
		json_object_set_new(rec, "build_failed", json_boolean(res->build_failed));
	/* every measured night is owed to KCIDB (its results, a regression or not) */
	if (res->verdict != IL_NIGHTLY_FAILED && n->o->dest[IL_NIGHTLY_KCIDB])
		json_array_append_new(owed, json_string(il_nightly_dest_name(IL_NIGHTLY_KCIDB)));
	if (res->verdict == IL_NIGHTLY_REGRESSION) {
		json_object_set_new(rec, "repeat", json_boolean(res->repeat));
		json_object_set(rec, "reported", res->reported);
		if (!res->repeat) {
			for (int d = 0; d < IL_NIGHTLY_NDESTS; d++)
				if (n->o->dest[d] && d != IL_NIGHTLY_KCIDB)
					json_array_append_new(owed, json_string(il_nightly_dest_name((enum il_nightly_dest)d)));
			json_object_set(rec, "alert", res->alert);
		}
	}
	if (json_array_size(owed))
		json_object_set(rec, "owed", owed);
	json_decref(owed);
	json_array_append(n->past, rec);
	return journal_append(n, rec, err);
}

int il_nightly_run(const struct il_nightly_opts *o, struct il_nightly_result *res, struct il_err *err)
{
	struct nt n = { .o = o, .res = res, .lock_fd = -1 };
	struct il_buf jp = IL_BUF_INIT;
	git_oid tip;
	const json_t *done;
	int r;

	memset(res, 0, sizeof(*res));
	res->lock_fd = -1;
	res->compared = json_array();
	n.past = json_array();
	if ((r = load_plan(&n, err)))
		goto out;
	if (mkdir(o->dir, 0755) && errno != EEXIST) {
		r = il_err_set(err, IL_EIO, "cannot create %s: %s", o->dir, strerror(errno));
		goto out;
	}
	il_buf_printf(&jp, "%s/nightly.jsonl", o->dir);
	n.journal = il_buf_detach(&jp);
	if ((r = lock_journal(&n, err)))
		goto out;
	if ((r = il_journal_each(n.journal, past_rec, &n, NULL, err)))
		goto out;
	if ((r = il_repo_open(&n.repo, n.t.repo, err)) ||
	    (r = il_repo_branch_tip(n.repo, n.t.remote, n.t.branch, &tip, err)))
		goto out;
	git_oid_tostr(res->tip, sizeof(res->tip), &tip);
	res->subject = il_repo_subject(n.repo, &tip);
	if (!o->force && !o->rebaseline && (done = measured(&n, res->tip))) {
		res->verdict = IL_NIGHTLY_UNCHANGED;
		res->run = str(done, "run") ? strdup(str(done, "run")) : NULL;
		goto owed;
	}
	r = measure(&n, err);
	if (r && r != IL_EINTR && res->run) {
		/* the run could not go on (the host, its probe, the plan on that host): a failed night, journaled */
		res->verdict = IL_NIGHTLY_FAILED;
		res->reason = strdup(err->msg);
		r = record_verdict(&n, err);
		goto owed;
	}
	if (!r)
		r = judge(&n, err);
	if (!r)
		r = record_verdict(&n, err);
owed:
	if (!r && !(res->owed = il_nightlyq_owed(n.past)))
		r = il_err_oom(err);
out:
	res->lock_fd = n.lock_fd;
	free(n.journal);
	json_decref(n.plan);
	json_decref(n.past);
	track_release(&n.t);
	git_repository_free(n.repo);
	return r;
}

void il_nightly_result_release(struct il_nightly_result *r)
{
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	IL_FREE_ALL(r->plan, r->host, r->branch, r->subject, r->run, r->reason, r->base_run, r->drift_note);
	json_decref(r->compared), json_decref(r->alert), json_decref(r->reported), json_decref(r->reported_before);
	json_decref(r->owed);
	memset(r, 0, sizeof(*r));
	r->lock_fd = -1;
}
