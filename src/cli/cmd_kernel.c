// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab series show`, `idlelab kernel prepare|build|list`. */
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/clipaths.h"
#include "cli/opt.h"
#include "cli/cliprogress.h"
#include "util/jsonfile.h"
#include "kernel/build.h"
#include "kernel/fetch.h"
#include "kernel/kplan.h"
#include "kernel/series.h"

int il_cmd_series(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	const char *msgid = NULL, *server = NULL;
	struct il_cli_dirs dirs = { 0 };
	long version = 0;
	bool json = false;
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "message-id", &msgid, "ID", "fetch the thread of this Message-ID"),
		IL_OPT_STR(0, "server", &server, "URL", "public-inbox server (e.g. https://lore.kernel.org)"),
		IL_OPT_NUM(0, "version", &version, "N", "this version of the series (default: the highest)"),
		IL_CLI_OPT_CACHE(&dirs),
		IL_OPT_BOOL(0, "json", &json, "JSON output"),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab series show MBOX [--version N] [--json]",
					     "idlelab series show --message-id ID --server URL [--json]", NULL };
	struct il_buf mbox = IL_BUF_INIT;
	struct il_series s = { 0 };
	struct il_err err = { 0 };
	int nargs, r;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (!nargs || strcmp(argv[1], "show") || (nargs == 2) == !!msgid || nargs > 2)
		return il_opt_error(opts, usage, "expected 'show' with an mbox file or --message-id");
	if (msgid && !server)
		return il_opt_error(opts, usage, "--message-id needs --server");
	if (version < 0)
		return il_opt_error(opts, usage, "--version: expected a positive number");
	r = msgid ? il_fetch_thread(server, msgid, paths.cache_dir, json ? NULL : il_cli_progress, NULL, &mbox, &err) :
		    il_buf_read_file(&mbox, argv[2], (size_t)256 << 20, &err);
	if (!r)
		r = il_series_parse(il_buf_str(&mbox), mbox.len, (int)version, msgid ? msgid : argv[2], &s, &err);
	il_buf_release(&mbox);
	if (r)
		return il_cli_fail(&err);
	if (json) {
		r = il_cli_output_json(NULL, il_series_to_json(&s), &err);
	} else {
		printf("v%d: %zu patch(es)%s%s; %zu message(s) in the mbox, %zu reply/other\n", s.version, s.n,
		       s.cover_subject ? ", cover: " : "", s.cover_subject ? s.cover_subject : "", s.messages, s.replies);
		for (size_t i = 0; i < s.n; i++) {
			const struct il_patch *p = &s.p[i];

			printf("[%d/%d] %s\n      %s <%s>, %zu file(s):", p->index, p->total, p->subject, p->author_name,
			       p->author_email, p->files.n);
			for (size_t k = 0; k < p->files.n; k++)
				printf(" %s", p->files.v[k]);
			printf("\n");
			for (size_t k = 0; k < p->trailers.n; k++)
				printf("      %s\n", p->trailers.v[k]);
		}
	}
	il_series_release(&s);
	return r ? il_cli_fail(&err) : IL_EXIT_OK;
}

static void on_build(const struct il_kvar *v, enum il_kbuild_step step, const struct il_progress *p, void *ctx)
{
	char what[256];
	struct il_progress q = *p;

	(void)ctx;
	snprintf(what, sizeof(what), "kernel %s: %s", v->name, il_kernel_build_step_name(step));
	q.what = what;
	il_cli_progress(&q, NULL);
}

static int load_plan(const char *path, json_t **plan, char **dir, struct il_err *err)
{
	char *copy;
	int r;

	if ((r = il_json_load(path, plan, err)))
		return r;
	copy = strdup(path);
	*dir = strdup(dirname(copy));
	free(copy);
	return 0;
}

int il_cmd_kernel(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	struct il_cli_dirs dirs = { 0 };
	const char *only = NULL;
	bool json = false, quiet = false;
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "cache", &dirs.cache, "DIR", "cache for imports, threads, builds (default ~/.cache/idlelab)"),
		IL_OPT_STR_FOR("build", 0, "variant", &only, "NAME[,NAME...]", "build only these variants"),
		IL_OPT_BOOL(0, "json", &json, "JSON output"),
		IL_OPT_BOOL_FOR("build", 'q', "quiet", &quiet, "no progress output while building"),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab kernel prepare PLAN [--json]",
					     "idlelab kernel build PLAN [--variant NAME[,NAME...]] [--json] [-q]",
					     "idlelab kernel list [--json]", NULL };
	struct il_kvars kv = { 0 };
	struct il_err err = { 0 };
	json_t *plan = NULL, *results = NULL;
	char *dir = NULL;
	int nargs, r, failed = 0;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (nargs == 1 && !strcmp(argv[1], "list")) {
		json_t *l;
		size_t i;
		json_t *m;

		if (il_kernel_build_list(paths.cache_dir, &l, &err))
			return il_cli_fail(&err);
		if (json)
			return il_cli_output_json(NULL, l, &err) ? il_cli_fail(&err) : IL_EXIT_OK;
		json_array_foreach(l, i, m)
			printf("%-20s %s  %s  %.1f s%s  %s\n", json_string_value(json_object_get(m, "name")),
			       json_string_value(json_object_get(m, "release")), json_string_value(json_object_get(m, "arch")),
			       json_real_value(json_object_get(m, "build_s")),
			       json_is_true(json_object_get(m, "incremental")) ? " (incremental)" : "",
			       json_string_value(json_object_get(m, "dir")));
		json_decref(l);
		return IL_EXIT_OK;
	}
	if (nargs != 2 || (strcmp(argv[1], "prepare") && strcmp(argv[1], "build")))
		return il_opt_error(opts, usage, "expected prepare PLAN, build PLAN or list");
	if ((r = load_plan(argv[2], &plan, &dir, &err)) || (r = il_kplan_prepare(plan, dir, paths.cache_dir, &kv, &err)))
		goto out;
	if (!strcmp(argv[1], "prepare")) {
		json_t *a = il_kplan_vars_to_json(&kv);

		if (json) {
			r = il_cli_output_json(NULL, a, &err);
		} else {
			size_t i;
			json_t *e;

			json_array_foreach(a, i, e) {
				if (json_is_true(json_object_get(e, "running")))
					printf("%-20s (the host's running kernel)\n", json_string_value(json_object_get(e, "name")));
				else
					printf("%-20s commit %.12s tree %.12s%s%s\n", json_string_value(json_object_get(e, "name")),
					       json_string_value(json_object_get(e, "commit")),
					       json_string_value(json_object_get(e, "tree")),
					       json_is_string(json_object_get(e, "subject")) ? "  " : "",
					       json_is_string(json_object_get(e, "subject")) ?
						       json_string_value(json_object_get(e, "subject")) : "");
			}
			json_decref(a);
		}
		goto out;
	}
	results = json_array();
	for (size_t i = 0; i < kv.n && !r; i++) {
		struct il_kbuild_res res;
		struct il_strlist want = { 0 };

		if (kv.v[i].running)
			continue;
		if (only) {
			char *c = strdup(only);
			int bad = !c;

			for (char *t = c, *nx; !bad && t && *t; t = nx) {
				if ((nx = strchr(t, ',')))
					*nx++ = 0;
				bad = il_strlist_push(&want, t);
			}
			free(c);
			if (bad) {
				/* not a variant left out of the build as if --only had not named it */
				il_strlist_release(&want);
				r = il_err_oom(&err);
				break;
			}
			if (!il_strlist_has(&want, kv.v[i].name)) {
				il_strlist_release(&want);
				continue;
			}
			il_strlist_release(&want);
		}
		if ((r = il_kernel_build(&kv.v[i], paths.cache_dir, json || quiet ? NULL : on_build, NULL, &res, &err)))
			break;
		if (!res.ok) {
			failed++;
			il_cli_note(NULL, "kernel %s: BUILD FAILED, the variant is untestable; last lines:\n%s\n", kv.v[i].name,
				res.log_tail ? res.log_tail : "");
		} else if (!json) {
			printf("%-20s %s %s%s\n", kv.v[i].name, res.release ? res.release : "?", res.dir,
			       res.cached ? " (cached)" : "");
		}
		/* the JSON output only: a result left out would read as a variant not built */
		if (json && json_array_append_new(results, json_pack("{s:s,s:b,s:b,s:f,s:o,s:o}", "name", kv.v[i].name, "ok",
								     res.ok, "cached", res.cached, "seconds", res.seconds,
								     "dir", res.dir ? json_string(res.dir) : json_null(),
								     "release", res.release ? json_string(res.release) :
											      json_null())))
			r = il_err_oom(&err);
		il_kernel_build_res_release(&res);
	}
	if (!r && json)
		r = il_cli_output_json(NULL, json_incref(results), &err);
out:
	json_decref(results);
	json_decref(plan);
	free(dir);
	il_kplan_vars_release(&kv);
	if (r)
		return il_cli_fail(&err);
	return failed ? IL_EXIT_FAIL : IL_EXIT_OK;
}
