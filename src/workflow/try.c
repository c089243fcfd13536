// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `idlelab try`'s library half: where a series comes from (mbox, Message-ID,
 * lore URL), the governors its paths call for (paths[]), the base (trailer,
 * --base, HEAD), the default workloads (il_try_workloads[]), the plan, the
 * message a reply answers and the sender's identity.
 */
#include "workflow/try.h"

#include <ctype.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kernel/fetch.h"
#include "kernel/repo.h"
#include "run/plan.h"
#include "util/mailbox.h"
#include "util/str.h"

void il_try_src_release(struct il_try_src *s)
{
	free(s->mbox), free(s->message_id), free(s->server);
	memset(s, 0, sizeof(*s));
}

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

int il_try_source(const char *arg, const char *server, struct il_try_src *out, struct il_err *err)
{
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (!arg || !*arg)
		return il_err_set(err, IL_EINVAL, "expected a Message-ID, a lore URL or an mbox file");
	if (!stat(arg, &st)) {
		if (!S_ISREG(st.st_mode))
			return il_err_set(err, IL_EINVAL, "%s: not a regular file (an mbox is expected)", arg);
		/* absolute: the plan names it, and a resumed run finds it from anywhere */
		return (out->mbox = realpath(arg, NULL)) ? 0 : il_err_oom(err);
	}
	if (!strncmp(arg, "https://", 8) || !strncmp(arg, "http://", 7)) {
		/* https://lore.kernel.org/linux-pm/ID/ or .../ID/T/#u: the segment with an '@' is the id */
		const char *host = strstr(arg, "://") + 3, *path = strchr(host, '/'), *seg;
		struct il_buf id = IL_BUF_INIT;

		for (seg = path; seg && *seg; seg = strchr(seg, '/')) {
			size_t n;

			seg++;
			n = strcspn(seg, "/#?");
			if (memchr(seg, '@', n) || (n > 3 && memmem(seg, n, "%40", 3))) {
				for (size_t i = 0; i < n; i++) {
					char c = seg[i];

					if (c == '%' && i + 2 < n + 1 && hexval((unsigned char)seg[i + 1]) >= 0 &&
					    hexval((unsigned char)seg[i + 2]) >= 0) {
						c = (char)(hexval((unsigned char)seg[i + 1]) * 16 + hexval((unsigned char)seg[i + 2]));
						i += 2;
					}
					il_buf_add(&id, &c, 1);
				}
				break;
			}
		}
		if (!id.len) {
			il_buf_release(&id);
			return il_err_set(err, IL_EINVAL, "%s: no Message-ID in the URL (expected https://HOST/LIST/ID/)", arg);
		}
		out->message_id = il_buf_detach(&id);
		if (server)
			out->server = strdup(server);
		else
			out->server = il_str_ndup(arg, path ? (size_t)(path - arg) : strlen(arg));
		return out->message_id && out->server ? 0 : il_err_oom(err);
	}
	if (!strchr(arg, '@'))
		return il_err_set(err, IL_ENOTFOUND, "%s: no such file, and not a Message-ID (no '@')", arg);
	if (strpbrk(arg, " \t\r\n"))
		return il_err_set(err, IL_EINVAL, "'%s': a Message-ID has no blanks", arg);
	out->message_id = il_str_ndup(arg + (arg[0] == '<'), strlen(arg) - (arg[0] == '<') -
					     (arg[strlen(arg) - 1] == '>'));
	out->server = strdup(server ? server : IL_TRY_DEFAULT_SERVER);
	return out->message_id && out->server ? 0 : il_err_oom(err);
}

int il_try_load(const struct il_try_src *src, const char *cache_dir, il_progress_fn progress, void *progress_ctx,
		struct il_series *out, struct il_err *err)
{
	struct il_buf mbox = IL_BUF_INIT, label = IL_BUF_INIT;
	int r;

	memset(out, 0, sizeof(*out));
	if (src->mbox) {
		il_buf_adds(&label, src->mbox);
		r = il_buf_read_file(&mbox, src->mbox, (size_t)256 << 20, err);
	} else {
		il_buf_printf(&label, "thread <%s> from %s", src->message_id, src->server);
		if ((r = il_fetch_thread(src->server, src->message_id, cache_dir, progress, progress_ctx, &mbox, err)))
			il_err_prefix(err, "cannot fetch <%s> from %s: ", src->message_id, src->server);
	}
	if (!r && il_buf_error(&label))
		r = il_err_oom(err);
	if (!r)
		r = il_series_parse(il_buf_str(&mbox), mbox.len, 0, il_buf_str(&label), out, err);
	il_buf_release(&mbox);
	il_buf_release(&label);
	return r;
}

/*
 * Which governors a changed file calls for. The first row whose pattern
 * matches decides (a prefix ending in '/' matches a directory, else the
 * path is compared whole); mask bits are governors in govs[] order.
 */
enum { G_MENU = 1, G_TEO = 2, G_LADDER = 4, G_HALTPOLL = 8 };
static const char *const govs[] = { "menu", "teo", "ladder", "haltpoll" };
static const struct {
	const char *path;
	unsigned mask;
} paths[] = {
	{ "drivers/cpuidle/governors/teo.c", G_TEO },
	{ "drivers/cpuidle/governors/menu.c", G_MENU },
	{ "drivers/cpuidle/governors/ladder.c", G_LADDER },
	{ "drivers/cpuidle/governors/haltpoll.c", G_HALTPOLL },
	{ "drivers/cpuidle/cpuidle-haltpoll.c", G_HALTPOLL },
	{ "drivers/cpuidle/governors/gov.h", G_MENU | G_TEO },
	{ "drivers/cpuidle/governors/", G_MENU | G_TEO },
	{ "drivers/cpuidle/", G_MENU | G_TEO }, /* the core: cpuidle.c, driver.c, governor.c, sysfs.c, poll_state.c ... */
	{ "kernel/sched/idle.c", G_MENU | G_TEO },
	{ "include/linux/cpuidle.h", G_MENU | G_TEO },
	{ "include/linux/cpuidle_haltpoll.h", G_HALTPOLL },
	{ "kernel/time/tick-sched.c", G_MENU | G_TEO },
	{ "include/linux/tick.h", G_MENU | G_TEO },
};

static unsigned mask_of(const char *f)
{
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		size_t n = strlen(paths[i].path);

		if (paths[i].path[n - 1] == '/' ? !strncmp(f, paths[i].path, n) : !strcmp(f, paths[i].path))
			return paths[i].mask;
	}
	return 0;
}

int il_try_governors(const struct il_series *s, struct il_strlist *out)
{
	unsigned m = 0;

	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < s->p[i].files.n; k++)
			m |= mask_of(s->p[i].files.v[k]);
	if (!m)
		m = G_MENU | G_TEO;
	for (size_t g = 0; g < sizeof(govs) / sizeof(govs[0]); g++)
		if ((m & (1u << g)) && !il_strlist_has(out, govs[g]) && il_strlist_push(out, govs[g]))
			return IL_ENOMEM;
	return 0;
}

const char *il_try_base_from_name(enum il_try_base_from f)
{
	return f == IL_TRY_BASE_TRAILER ? "the series' base-commit: trailer" : f == IL_TRY_BASE_OPTION ? "--base" :
											     "the repository's HEAD";
}

int il_try_base(const char *repo_path, const struct il_series *s, const char *base_opt, struct il_try_base *out,
		struct il_err *err)
{
	git_repository *repo = NULL;
	git_oid oid;
	int r;

	memset(out, 0, sizeof(*out));
	out->from = s && s->base_commit ? IL_TRY_BASE_TRAILER : base_opt ? IL_TRY_BASE_OPTION : IL_TRY_BASE_HEAD;
	out->rev = strdup(out->from == IL_TRY_BASE_TRAILER ? s->base_commit : out->from == IL_TRY_BASE_OPTION ? base_opt :
													      "HEAD");
	if (!out->rev)
		return il_err_oom(err);
	il_repo_git_init();
	if (!(r = il_repo_open(&repo, repo_path, err))) {
		if ((r = il_repo_resolve(repo, out->rev, &oid, err)))
			il_err_set(err, r, "the base %s (from %s) is not a commit of %s%s", out->rev,
				   il_try_base_from_name(out->from), repo_path,
				   out->from == IL_TRY_BASE_TRAILER ? ": fetch it into the repository first" : "");
		else
			git_oid_tostr(out->sha, sizeof(out->sha), &oid);
	}
	git_repository_free(repo);
	il_repo_git_shutdown();
	if (r) {
		free(out->rev);
		out->rev = NULL;
	}
	return r;
}

/*
 * The default workloads for an idle-governor change, the one table
 * (docs/report.md "From a posted series to a reply" lists it): what
 * exercises a governor's prediction and its latency cost, each run for a
 * few seconds so a sample is a measurement (min_sample_s).
 */
const struct il_try_wl il_try_workloads[] = {
	{ "sleeper", "{\"duration\": 5}", "a bimodal mix of 20 us and 5 ms sleeps: intercepts against hits" },
	{ "periodic", "{\"hz\": 250, \"duration\": 5}", "timer wake-ups at 250 Hz: predictable idle, wake-up latency" },
	{ "pingpong", "{\"pairs\": 6, \"duration\": 5}", "6 pairs passing a token: very short idles, throughput" },
};
const size_t il_try_nworkloads = sizeof(il_try_workloads) / sizeof(il_try_workloads[0]);

int il_try_plan(const struct il_try_req *q, const struct il_series *s, const char *base_sha, json_t **out,
		struct il_err *err)
{
	json_t *p = json_object(), *ks = json_array(), *gs = json_array(), *ws = json_array(), *series = json_object();
	struct il_strlist auto_govs = { 0 };
	const struct il_strlist *g = q->governors;
	int r = 0;

	*out = NULL;
	if (!p || !ks || !gs || !ws || !series)
		goto oom;
	if ((q->iterations < 0 && q->iterations != IL_TRY_ITER_AUTO) || q->iterations > 100000) {
		r = il_err_set(err, IL_EINVAL, "iterations: expected 1..100000, got %d", q->iterations);
		goto fail;
	}
	if (!g || !g->n) {
		if (il_try_governors(s, &auto_govs))
			goto oom;
		g = &auto_govs;
	}
	for (size_t i = 0; i < g->n; i++)
		if (json_array_append_new(gs, json_string(g->v[i])))
			goto oom;
	if (q->workloads && q->workloads->n) {
		for (size_t i = 0; i < q->workloads->n; i++)
			if (json_array_append_new(ws, json_string(q->workloads->v[i])))
				goto oom;
	} else {
		for (size_t i = 0; i < il_try_nworkloads; i++) {
			json_t *params = json_loads(il_try_workloads[i].params, 0, NULL);

			if (!params || json_array_append_new(ws, json_pack("{s:s,s:o}", "workload", il_try_workloads[i].workload,
									 "params", params)))
				goto oom;
		}
	}
	if (q->src->mbox)
		r = json_object_set_new(series, "mbox", json_string(q->src->mbox));
	else
		r = json_object_set_new(series, "message_id", json_string(q->src->message_id)) ||
		    json_object_set_new(series, "server", json_string(q->src->server));
	if (r || json_object_set_new(series, "version", json_integer(q->version ? q->version : s->version)))
		goto oom;
	r = 0;
	/* the base, the patches (or the whole series), the base again last: an A/A pair across the run */
	if (json_array_append_new(ks, json_pack("{s:s,s:s,s:s}", "name", "base", "repo", q->repo, "commit", base_sha)) ||
	    json_array_append_new(ks, json_pack("{s:s,s:s,s:O,s:b}", "name", q->whole ? "series" : "patch-%d", "base", "base",
						"series", series, "cumulative", !q->whole)) ||
	    (q->patches && json_object_set_new(json_array_get(ks, 1), "patches", json_string(q->patches))) ||
	    json_array_append_new(ks, json_pack("{s:s,s:s,s:s}", "name", "base-aa", "repo", q->repo, "commit", base_sha)))
		goto oom;
	/* where the tree came from, for the reply (kernel/kplan.h: a variant inherits its base's) */
	if (q->origin && (json_object_set_new(json_array_get(ks, 0), "origin", json_string(q->origin)) ||
			  json_object_set_new(json_array_get(ks, 2), "origin", json_string(q->origin))))
		goto oom;
	/* the lab kernel's object directory: the patches build incrementally on the lab's own build */
	if (q->lineage && (json_object_set_new(json_array_get(ks, 0), "lineage", json_string(q->lineage)) ||
			   json_object_set_new(json_array_get(ks, 2), "lineage", json_string(q->lineage))))
		goto oom;
	if (json_object_set_new(p, "name", json_string(q->name ? q->name : "try")) ||
	    (q->host && json_object_set_new(p, "host", json_string(q->host))) ||
	    (q->build && json_object_set_new(p, "build", json_deep_copy(q->build))) || json_object_set(p, "kernels", ks) ||
	    json_object_set(p, "governors", gs) || json_object_set(p, "workloads", ws) ||
	    json_object_set_new(p, "iterations",
				q->iterations == IL_TRY_ITER_AUTO ?
					json_pack("{s:i,s:i,s:i}", "min", IL_TRY_AUTO_MIN, "max", IL_TRY_AUTO_MAX, "step",
						  IL_TRY_AUTO_MIN) :
					json_integer(q->iterations ? q->iterations : 5)) ||
	    json_object_set_new(p, "order", json_string(il_plan_order_name(IL_ORDER_BALANCED))))
		goto oom;
	*out = p;
	p = NULL;
	goto done;
oom:
	r = il_err_oom(err);
fail:
done:
	json_decref(p), json_decref(ks), json_decref(gs), json_decref(ws), json_decref(series);
	il_strlist_release(&auto_govs);
	return r;
}

int il_try_check(const char *repo_path, const char *base_sha, const struct il_series *s, const char *patches,
		 struct il_err *err)
{
	git_repository *repo = NULL;
	struct il_cpuset sel = { 0 };
	git_oid base, *out = NULL;
	int *idx = NULL, r;
	char all[32];

	snprintf(all, sizeof(all), "1-%zu", s->n);
	if (!s->n)
		return il_err_set(err, IL_EINVAL, "the series has no patches");
	if ((r = il_series_select(patches ? patches : all, s->n, &sel, err)))
		return r;
	il_repo_git_init();
	if (!(idx = calloc(sel.n + 1, sizeof(*idx))) || !(out = calloc(sel.n + 1, sizeof(*out)))) {
		r = il_err_oom(err);
		goto out;
	}
	for (size_t k = 0; k < sel.n; k++)
		idx[k] = sel.cpu[k];
	if (git_oid_fromstr(&base, base_sha) < 0)
		r = il_err_set(err, IL_EINVAL, "the base '%s' is no commit id", base_sha);
	else if (!(r = il_repo_open(&repo, repo_path, err)))
		r = il_repo_apply_series(repo, &base, s, idx, sel.n, out, err);
out:
	git_repository_free(repo);
	il_repo_git_shutdown();
	il_cpuset_release(&sel);
	free(idx);
	free(out);
	return r;
}

/* "menu: menu@patch-1, menu@base-aa (A/A) against menu@base": what one governor's part compares. */
static char *part_title(const struct il_dataset_part *g)
{
	struct il_buf b = IL_BUF_INIT;
	bool first = true;

	il_buf_printf(&b, "%s, each kernel against %s on the base:", g->governor, g->governor);
	for (size_t v = 0; v < g->ds.nvar; v++) {
		if (!strcmp(g->ds.var[v], g->ds.reference))
			continue;
		il_buf_printf(&b, "%s %s%s", first ? "" : ",", g->ds.var[v],
			      g->ds.aa && !strcmp(g->ds.var[v], g->ds.aa) ? " (A/A)" : "");
		first = false;
	}
	il_buf_printf(&b, " against %s", g->ds.reference);
	return il_buf_detach(&b);
}

int il_try_compare(const char *run_dir, struct il_try_compare *out, struct il_err *err)
{
	struct il_cmp_opts co = IL_CMP_OPTS_INIT;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = il_datajournal_add_run(&out->ds, run_dir, NULL, err)) ||
	    (r = il_datasplit_by_governor(&out->ds, &out->gov, &out->ngov, err)))
		goto fail;
	out->n = out->ngov ? out->ngov : 1;
	out->cmp = calloc(out->n, sizeof(*out->cmp));
	out->title = calloc(out->n, sizeof(*out->title));
	if (!out->cmp || !out->title) {
		r = il_err_oom(err);
		goto fail;
	}
	for (size_t i = 0; i < out->n; i++) {
		if ((r = il_compare(&out->cmp[i], out->ngov ? &out->gov[i].ds : &out->ds, &co, err))) {
			out->n = i; /* the ones made are released */
			goto fail;
		}
		if (out->ngov && !(out->title[i] = part_title(&out->gov[i]))) {
			out->n = i + 1;
			r = il_err_oom(err);
			goto fail;
		}
	}
	return 0;
fail:
	il_try_compare_release(out);
	return r;
}

int il_try_run_decided(const char *run_dir, struct il_buf *why, struct il_err *err)
{
	struct il_try_compare tc;
	struct il_err e = { 0 };
	int r;

	if ((r = il_try_compare(run_dir, &tc, &e))) {
		/* nothing counted yet (every sample of a kernel failed, say): not decided, and why */
		if (r != IL_EINVAL) {
			*err = e;
			return r;
		}
		il_buf_adds(why, e.msg);
		return il_buf_error(why) ? il_err_oom(err) : 0;
	}
	r = il_compare_judge(tc.cmp, tc.n, why);
	il_try_compare_release(&tc);
	return il_buf_error(why) ? il_err_oom(err) : r;
}

void il_try_compare_release(struct il_try_compare *t)
{
	for (size_t i = 0; t->cmp && i < t->n; i++)
		il_compare_release(&t->cmp[i]);
	for (size_t i = 0; t->title && i < t->n; i++)
		free(t->title[i]);
	free(t->cmp);
	free(t->title);
	il_datasplit_parts_release(t->gov, t->ngov);
	il_dataset_release(&t->ds);
	memset(t, 0, sizeof(*t));
}

void il_try_answer_of(const struct il_series *s, struct il_try_answer *out)
{
	const struct il_patch *last = s->n ? &s->p[s->n - 1] : NULL;

	memset(out, 0, sizeof(*out));
	/* a cover letter without a Message-ID cannot be threaded to: its series is answered on its last patch */
	if (s->cover_message_id && *s->cover_message_id) {
		out->message_id = s->cover_message_id;
		out->subject = s->cover_sent_subject;
		out->author_email = s->cover_author_email;
		out->body = s->cover_body;
		out->references = &s->cover_references;
		out->recipients = &s->cover_recipients;
	} else if (last) {
		out->message_id = last->message_id;
		out->subject = last->sent_subject;
		out->author_email = last->author_email;
		/* the commit message without its subject line: "subject\n\nbody" */
		out->body = strstr(last->message, "\n\n") ? strstr(last->message, "\n\n") + 2 : last->message;
		out->references = &last->references;
		out->recipients = &last->recipients;
	}
}

int il_try_first_line(const char *body, struct il_buf *out)
{
	for (const char *s = body ? body : ""; *s;) {
		size_t n = strcspn(s, "\n");
		const char *t = s;

		while (t < s + n && isspace((unsigned char)*t))
			t++;
		if (t < s + n) {
			char *line = il_str_ndup(s, n);
			int r;

			if (!line)
				return IL_ENOMEM;
			if (n && line[n - 1] == '\r')
				line[n - 1] = 0;
			r = il_buf_adds(out, il_str_sanitize(line, false));
			free(line);
			return r ? IL_ENOMEM : 0;
		}
		s += n + (s[n] == '\n');
	}
	return 0;
}

int il_try_identity(const char *repo_path, const char *as, struct il_buf *out, struct il_err *err)
{
	git_repository *repo = NULL;
	git_config *cfg = NULL, *snap = NULL;
	const char *name = NULL, *mail = NULL;
	int r = 0;

	/* the very test the reply's composition makes (util/mailbox.h): what passes here passes there */
	if (as)
		return il_mailbox_check(as, "--as", err) ? IL_EINVAL : il_buf_adds(out, as) ? il_err_oom(err) : 0;
	il_repo_git_init();
	if (git_repository_open(&repo, repo_path) < 0 || git_repository_config(&cfg, repo) < 0 ||
	    git_config_snapshot(&snap, cfg) < 0 || git_config_get_string(&name, snap, "user.name") < 0 ||
	    git_config_get_string(&mail, snap, "user.email") < 0 || !*name || !*mail)
		r = il_err_set(err, IL_ENOTFOUND,
			       "no user.name/user.email in the git config of %s: set them, or give --as \"Name <email>\"",
			       repo_path);
	else {
		char what[600];

		snprintf(what, sizeof(what), "the sender (user.name/user.email of %s)", repo_path);
		r = il_mailbox_make(name, mail, what, out, err);
	}
	git_config_free(snap);
	git_config_free(cfg);
	git_repository_free(repo);
	il_repo_git_shutdown();
	return r;
}
