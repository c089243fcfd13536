// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One nightly: the plan and its track section, the journal and its lock, the
 * tip measured (a new run, or the interrupted one resumed), the verdict
 * journalled (see nightly.h; the judgement itself: nightlyjudge.c).
 */
#include "workflow/nightly.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/repo.h"
#include "run/journal.h"
#include "run/plan.h"
#include "run/rundir.h"
#include "workflow/nightlyjudge.h"
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

	(void)line;
	if (!str(rec, "plan") || strcmp(str(rec, "plan"), n->res->plan) || !str(rec, "host") ||
	    strcmp(str(rec, "host"), n->res->host))
		return 0;
	if (json_array_append(n->past, rec))
		return il_err_oom(err);
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
	if (il_plan_absolutize(n->plan, pdir ? pdir : ".")) {
		r = il_err_oom(err);
		goto out;
	}
	track = json_object_get(n->plan, "track");
	if (!json_is_object(track)) {
		r = il_err_set(err, IL_EINVAL, "%s: track: expected an object naming the repository and branch to follow "
				  "(required for a nightly; docs/nightly.md)", o->plan_path);
		goto out;
	}
	n->t.floor_pct = 2.0, n->t.alpha = 0.05, n->t.window = 10;
	if ((r = il_jfields_read(track, track_fields, IL_JF_COUNT(track_fields), &n->t, o->plan_path, "track", err)))
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
	json_t *p = json_deep_copy(n->plan), *k = json_array_get(json_object_get(n->plan, "kernels"), 0);
	char *txt = NULL;

	k = k ? json_deep_copy(k) : json_pack("{s:s}", "name", "tip");
	/* the tip replaces whatever the entry was built from; its name (and object directory) stays, so builds are incremental */
	json_object_del(k, "tarball");
	json_object_del(k, "base");
	if (!p || !k || json_object_set_new(k, "repo", json_string(n->t.repo)) ||
	    json_object_set_new(k, "commit", json_string(n->res->tip)) ||
	    json_object_set_new(p, "kernels", json_pack("[O]", k)))
		goto out;
	txt = il_json_dumps(p, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
out:
	json_decref(p), json_decref(k);
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
			return il_engine_resume(n->res->run, o->run, err);
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
	if ((r = il_buf_write_file_atomic(tmp.p, txt, strlen(txt), err)))
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
	r = il_engine_start(tmp.p, n->res->run, o->run, &made, err);
unlink:
	unlink(tmp.p);
out:
	free(txt);
	free(made);
	il_buf_release(&dir), il_buf_release(&tmp);
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
	int bad = 0;

	il_clock_iso_now(iso, sizeof(iso));
	rec = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s?,s:s?,s:s}", "type", "nightly", "time", iso, "plan", res->plan,
			"host", res->host, "branch", res->branch, "commit", res->tip, "subject", res->subject, "run",
			res->run, "verdict", il_nightly_verdict_name(res->verdict));
	if (!rec || !owed) {
		json_decref(rec), json_decref(owed);
		return il_err_oom(err);
	}
	if (res->base_run)
		bad |= json_object_set_new(rec, "baseline", json_pack("{s:s,s:s}", "run", res->base_run, "commit",
								      res->base_commit));
	if (res->reason)
		bad |= json_object_set_new(rec, "reason", json_string(res->reason));
	if (res->drift_note)
		bad |= json_object_set_new(rec, "drift_note", json_string(res->drift_note));
	if (res->verdict == IL_NIGHTLY_FAILED)
		bad |= json_object_set_new(rec, "build_failed", json_boolean(res->build_failed));
	/* every measured night is owed to KCIDB (its results, a regression or not) */
	if (res->verdict != IL_NIGHTLY_FAILED && n->o->dest[IL_NIGHTLY_KCIDB])
		bad |= json_array_append_new(owed, json_string(il_nightly_dest_name(IL_NIGHTLY_KCIDB)));
	if (res->verdict == IL_NIGHTLY_REGRESSION) {
		bad |= json_object_set_new(rec, "repeat", json_boolean(res->repeat));
		bad |= json_object_set(rec, "reported", res->reported);
		if (!res->repeat) {
			for (int d = 0; d < IL_NIGHTLY_NDESTS; d++)
				if (n->o->dest[d] && d != IL_NIGHTLY_KCIDB)
					bad |= json_array_append_new(owed,
								     json_string(il_nightly_dest_name((enum il_nightly_dest)d)));
			bad |= json_object_set(rec, "alert", res->alert);
		}
	}
	if (json_array_size(owed))
		bad |= json_object_set(rec, "owed", owed);
	json_decref(owed);
	/* a record with a key left out (a promise of an alert, the keys reported) is never journalled */
	if (bad || json_array_append(n->past, rec)) {
		json_decref(rec);
		return il_err_oom(err);
	}
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
	if (!r) {
		struct il_nightly_judge_in in = { .plan_path = o->plan_path, .dir = o->dir, .db = o->db, .plan = n.plan,
						  .metrics = n.t.metrics.n ? &n.t.metrics : NULL, .alpha = n.t.alpha,
						  .floor_pct = n.t.floor_pct, .window = n.t.window, .past = n.past,
						  .epoch = n.epoch, .baseline = o->rebaseline ? NULL : last_good(&n) };

		r = il_nightly_judge(&in, res, err);
	}
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
