// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `idlelab try MSGID|URL|MBOX`: from a posted series to a linux-pm reply.
 * Parses the options and calls the library: the series, base and plan from
 * workflow/try.c, the run from run/engine.c, the comparison from
 * stats/compare.c, the reply from report/reply.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "cli/clipaths.h"
#include "cli/cliprogress.h"
#include "host/host.h"
#include "lab/lab.h"
#include "lab/labtree.h"
#include "report/reply.h"
#include "run/engine.h"
#include "run/plan.h"
#include "stats/compare.h"
#include "stats/dataset.h"
#include "util/jsonfile.h"
#include "workflow/try.h"
#include "util/str.h"

struct try_args {
	const char *host, *repo, *base, *server, *govs, *wls, *iters, *as, *reply, *out, *build, *patches;
	bool whole, dry, quiet, force;
};

static void print_dry(const struct il_try_src *src, const struct il_series *s, const struct il_try_base *b,
		      const struct il_try_answer *a, const json_t *plan, bool whole, const char *patches)
{
	struct il_cpuset sel = { 0 };
	struct il_err e = { 0 };
	const json_t *g;
	size_t i;
	char all[32];

	if (src->mbox)
		printf("series: %s (read)\n", src->mbox);
	else
		printf("series: <%s> fetched from %s/all/%s/t.mbox.gz (cached; the plan needs its patches)\n", src->message_id,
		       src->server, src->message_id);
	printf("  v%d, %zu patch%s%s%s\n", s->version, s->n, s->n > 1 ? "es" : "", s->cover_subject ? ", cover: " : "",
	       s->cover_subject ? s->cover_subject : "");
	printf("base: %s (%s%s%s)\n", b->sha, il_try_base_from_name(b->from), b->from == IL_TRY_BASE_HEAD ? "" : ": ",
	       b->from == IL_TRY_BASE_HEAD ? "" : b->rev);
	printf("would build: base (%.12s)", b->sha);
	snprintf(all, sizeof(all), "1-%zu", s->n);
	if (il_series_select(patches ? patches : all, s->n, &sel, &e))
		sel.n = 0; /* il_try_check refused it already */
	if (whole)
		printf(", series (base + patches %s)", patches ? patches : all);
	else
		for (i = 0; i < sel.n; i++)
			printf(", patch-%d (+ '%s')", sel.cpu[i], s->p[sel.cpu[i] - 1].subject);
	il_cpuset_release(&sel);
	printf("; base-aa (the base again, from the cache: the A/A pair)\n");
	printf("governors:");
	json_array_foreach(json_object_get(plan, "governors"), i, g)
		printf("%s %s", i ? "," : "", json_string_value(g));
	printf("\nwould answer: <%s> '%s'\nplan:\n", a->message_id ? a->message_id : "?", a->subject ? a->subject : "");
}

static int split(struct il_strlist *l, const char *s, const char *what, struct il_err *err)
{
	if (!s)
		return 0;
	if (il_strlist_split_on(l, s, ','))
		return il_err_oom(err);
	for (size_t i = 0; i < l->n; i++)
		if (!il_str_name_ok(l->v[i], "-_.+", 64))
			return il_err_set(err, IL_EINVAL, "--%s: '%s' is not a name", what, l->v[i]);
	return 0;
}

static int judge(void *ctx, const char *run_dir, struct il_buf *why, struct il_err *err)
{
	(void)ctx;
	return il_try_run_decided(run_dir, why, err);
}

/* The run's comparisons (each governor against itself on the base) and the reply, written to path. */
static int reply(const char *run_dir, const struct il_series *s, const char *from, bool force, const char *path,
		 struct il_err *err)
{
	struct il_try_compare tc;
	struct il_try_answer a;
	struct il_buf quote = IL_BUF_INIT, mail = IL_BUF_INIT;
	struct il_reply_part *parts = NULL;
	int r;

	il_try_answer_of(s, &a);
	if (il_try_first_line(a.body, &quote))
		return il_err_oom(err);
	if (!(r = il_try_compare(run_dir, &tc, err))) {
		struct il_reply_opts o = { .from = from, .to = a.author_email, .cc = a.recipients, .subject = a.subject,
					   .in_reply_to = a.message_id, .references = a.references,
					   .quote = il_buf_str(&quote), .date = (int64_t)time(NULL), .force = force };

		if (!(parts = calloc(tc.n, sizeof(*parts))))
			r = il_err_oom(err);
		for (size_t i = 0; parts && i < tc.n; i++)
			parts[i] = (struct il_reply_part){ tc.title[i], &tc.cmp[i] };
		if (!r && !(r = il_reply_compose(parts, tc.n, &o, &mail, err)))
			r = il_buf_write_file_atomic(path, mail.p, mail.len, err);
		free(parts);
		il_try_compare_release(&tc);
	}
	il_buf_release(&quote);
	il_buf_release(&mail);
	return r;
}

int il_cmd_try(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	struct il_cli_dirs dirs = { 0 };
	struct try_args a = { 0 };
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "host", &a.host, "NAME", "measure on this host (default: the plan's default, labvm)"),
		IL_OPT_STR(0, "repo", &a.repo, "DIR", "the kernel repository the series applies to (default: a lab host's "
			   "own tree, lab up --tree; else .)"),
		IL_OPT_STR(0, "base", &a.base, "REV", "the base when the series has no base-commit: trailer (default HEAD)"),
		IL_OPT_STR(0, "server", &a.server, "URL", "public-inbox server for a Message-ID (default https://lore.kernel.org)"),
		IL_OPT_STR(0, "governor", &a.govs, "G[,G]", "these governors (default: from the files the patches touch)"),
		IL_OPT_STR(0, "workload", &a.wls, "W[,W]", "these workloads (default: sleeper, periodic, pingpong)"),
		IL_OPT_STR(0, "iterations", &a.iters, "N|auto", "samples per variant and workload (default 5; auto: 5, then "
			   "5 more on each kernel until the reply's comparisons are decided, 20 at most)"),
		IL_OPT_BOOL(0, "whole", &a.whole, "the base and the whole series, not one variant per patch"),
		IL_OPT_STR(0, "patches", &a.patches, "SPEC", "only these patches, as b4 takes them (\"1-2\": a prefix)"),
		IL_OPT_STR(0, "build", &a.build, "FILE", "the plan's build section, a JSON object (docs/kernels.md; default on a lab host: the lab's)"),
		IL_OPT_STR(0, "as", &a.as, "\"NAME <EMAIL>\"", "the sender (default: user.name/user.email of --repo)"),
		IL_OPT_BOOL(0, "force", &a.force, "the Tested-by trailer even where the rules say evidence only (said)"),
		IL_OPT_STR('o', "output", &a.reply, "FILE", "the reply (default RUN_DIR/reply.eml)"),
		IL_OPT_STR(0, "out", &a.out, "DIR", "run directory (default reports/<date>-try)"),
		IL_OPT_BOOL(0, "dry-run", &a.dry, "print the plan and what would be fetched and built; build nothing"),
		IL_CLI_OPTS_MEASURE(&dirs),
		IL_CLI_OPT_CACHE(&dirs),
		IL_OPT_BOOL('q', "quiet", &a.quiet, "no progress output"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab try MSGID|URL|MBOX [--host H] [--repo DIR] [--base REV] [--server URL] [--governor G[,G]]",
		"            [--workload W[,W]] [--iterations N|auto] [--patches SPEC] [--whole] [--as \"Name <email>\"] [-o reply.eml]",
		"            [--dry-run]",
		"  build, boot and measure the base, each cumulative patch and an A/A copy of the base; write the reply",
		NULL
	};
	struct il_cli_runprog prog = { isatty(STDERR_FILENO), false, false };
	struct il_strlist govs = { 0 }, wls = { 0 };
	struct il_try_src src = { 0 };
	struct il_series s = { 0 };
	struct il_try_base b = { 0 };
	struct il_try_answer ans;
	struct il_buf who = IL_BUF_INIT, path = IL_BUF_INIT;
	struct il_plan pl = { 0 };
	struct il_err err = { 0 };
	json_t *plan = NULL, *build = NULL;
	char *repo = NULL, *dir = NULL, *txt = NULL, *lab = NULL, tmpl[PATH_MAX];
	const char *origin = NULL, *lineage = NULL;
	json_t *tree = NULL;
	long iters = 0;
	int nargs, r, fd = -1;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (nargs != 1)
		return il_opt_error(opts, usage, "expected one Message-ID, lore URL or mbox file");
	if (a.iters && !strcmp(a.iters, "auto")) {
		iters = IL_TRY_ITER_AUTO;
	} else if (a.iters) {
		char *end;

		errno = 0;
		iters = strtol(a.iters, &end, 10);
		if (errno || *end || end == a.iters || iters < 2 || iters > 100000)
			return il_opt_error(opts, usage, "--iterations: expected 2..100000 or auto, got '%s'", a.iters);
	}
	if (split(&govs, a.govs, "governor", &err) || split(&wls, a.wls, "workload", &err))
		return il_opt_error(opts, usage, "%s", err.msg);
	{
		/* a lab host: its instance, whose build (arch, config, target) and tree are the defaults */
		const char *host = a.host ? a.host : "labvm";
		struct il_host_cfg h;

		if (!il_host_load(&h, &paths, host, NULL)) {
			/* a host file: a lab's when it names one ("labvm": instance) */
			lab = h.boot.lab ? strdup(h.boot.lab) : NULL;
			il_host_release(&h);
		} else if (il_lab_instance_of_host(host)) {
			lab = strdup(il_lab_instance_of_host(host));
		}
	}
	if (a.build && ((r = il_json_load(a.build, &build, &err)) ||
			(!json_is_object(build) && il_err_set(&err, IL_EPARSE, "%s: expected the plan's build object", a.build))))
		goto fail;
	if (!build && lab && il_lab_build_json_of(paths.cache_dir, lab, &build, &err))
		goto fail;
	if (!a.repo && lab) {
		/* the lab's own tree (an imported tarball's repository in the kernel cache), as it was brought up */
		if (il_lab_tree_of(paths.cache_dir, lab, &tree, &err))
			goto fail;
		if (json_is_string(json_object_get(tree, "repo")) && json_is_string(json_object_get(tree, "commit"))) {
			a.repo = json_string_value(json_object_get(tree, "repo"));
			if (!a.base)
				a.base = json_string_value(json_object_get(tree, "commit"));
			origin = json_string_value(json_object_get(tree, "origin"));
			lineage = json_string_value(json_object_get(tree, "name"));
		}
	}
	if (!(repo = realpath(a.repo ? a.repo : ".", NULL))) {
		il_err_set(&err, IL_ENOTFOUND, "--repo %s: %s", a.repo ? a.repo : ".", strerror(errno));
		goto fail;
	}
	if (il_try_source(argv[1], a.server, &src, &err) ||
	    il_try_load(&src, paths.cache_dir, a.quiet || a.dry ? NULL : il_cli_progress, NULL, &s, &err) ||
	    il_try_base(repo, &s, a.base, &b, &err))
		goto fail;
	/* every patch on its base in memory, in seconds: what does not apply is said before anything is built */
	if (il_try_check(repo, b.sha, &s, a.patches, &err))
		goto fail;
	{
		struct il_try_req q = { .name = "try", .repo = repo, .origin = origin, .lineage = lineage, .host = a.host, .src = &src, .version = s.version,
					.governors = &govs, .workloads = &wls, .iterations = (int)iters, .whole = a.whole,
					.build = build, .patches = a.patches };

		if (il_try_plan(&q, &s, b.sha, &plan, &err))
			goto fail;
	}
	/* refused now rather than after the builds: unknown workloads, governors that are no names */
	if (il_plan_from_json(&pl, plan, paths.workloads_dir, "try plan", &err))
		goto fail;
	il_try_answer_of(&s, &ans);
	/* said before hours of measuring: a reply that cannot thread is no reply */
	if (!ans.message_id || !*ans.message_id) {
		il_err_set(&err, IL_EPARSE, "%s: the message to answer ('%s') has no Message-ID header, so no reply can "
			   "thread to it (mail as posted has one: lore's raw message or mbox, b4 am; git format-patch "
			   "--thread)", argv[1], ans.subject ? ans.subject : "?");
		goto fail;
	}
	if (!(txt = il_json_dumps(plan, JSON_INDENT(2) | JSON_PRESERVE_ORDER))) {
		il_err_oom(&err);
		goto fail;
	}
	if (a.dry) {
		print_dry(&src, &s, &b, &ans, plan, a.whole, a.patches);
		printf("%s\n", txt);
		goto done;
	}
	if (!a.quiet)
		fprintf(stderr, "idlelab: base %.12s from %s%s%s\n", b.sha, il_try_base_from_name(b.from),
			b.from == IL_TRY_BASE_HEAD ? "" : ": ", b.from == IL_TRY_BASE_HEAD ? "" : b.rev);
	/* the sender before hours of measuring, not after */
	if (il_try_identity(repo, a.as, &who, &err))
		goto fail;
	{
		const char *tmpdir = getenv("TMPDIR");
		struct il_run_opts ro = { .paths = &paths, .workloads_dir = paths.workloads_dir,
					  .workload_bin = paths.workload_bin, .host = a.host, .stop = &il_cli_stop,
					  .cb = il_cli_run_event, .cb_ctx = &prog,
					  .progress = a.quiet ? NULL : il_cli_progress, .judge = judge };
		size_t len = strlen(txt);

		/* the plan goes into the run directory (plan.json); this copy only until the run has it */
		snprintf(tmpl, sizeof(tmpl), "%s/idlelab-try-plan.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
		if ((fd = mkstemp(tmpl)) < 0 || write(fd, txt, len) != (ssize_t)len || close(fd)) {
			il_err_set(&err, IL_EIO, "%s: %s", tmpl, strerror(errno));
			goto fail;
		}
		prog.quiet = a.quiet;
		il_cli_stop_on_signals();
		r = il_engine_start(tmpl, a.out, &ro, &dir, &err);
		unlink(tmpl);
		if (prog.bar_shown)
			fputc('\n', stderr);
		if (r) {
			if (dir)
				fprintf(stderr, "idlelab: run directory: %s\n", dir);
			if (r == IL_EINTR) {
				il_cli_note(NULL, "idlelab: %s\n", err.msg);
				r = 130;
				goto out;
			}
			goto fail;
		}
	}
	if (a.reply)
		il_buf_adds(&path, a.reply);
	else
		il_buf_printf(&path, "%s/reply.eml", dir);
	if (reply(dir, &s, il_buf_str(&who), a.force, il_buf_str(&path), &err))
		goto fail;
	printf("%s\n%s\n", dir, il_buf_str(&path));
done:
	r = IL_EXIT_OK;
	goto out;
fail:
	r = il_cli_fail(&err);
out:
	il_plan_release(&pl);
	json_decref(plan), json_decref(build);
	free(txt), free(dir), free(repo), free(b.rev), free(lab);
	json_decref(tree);
	il_series_release(&s);
	il_try_src_release(&src);
	il_strlist_release(&govs), il_strlist_release(&wls);
	il_buf_release(&who), il_buf_release(&path);
	return r;
}
