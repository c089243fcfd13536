// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `idlelab export --openmetrics`: a host's cpuidle state for node_exporter's
 * textfile collector; `idlelab export --kcidb DIR...`: runs and nightlies as
 * one KCIDB v5.3 document for KernelCI, written or submitted.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "cli/target.h"
#include "report/kcidb.h"
#include "report/promtext.h"
#include "util/kcidbrest.h"
#include "util/jsonfile.h"

/* The line --summary prints: what was exported and idlelab's own miss ratio of it (docs/export.md). */
static void summary(const char *out, const struct il_promtext_summary *s)
{
	const struct il_metrics *m = &s->total;

	fprintf(stderr, "idlelab: export: %s: %zu CPUs, %zu idle states, %zu clusters, %zu cpu_dma_latency holders; ",
		out ? out : "stdout", s->ncpus, s->nstates, s->nclusters, s->nholders);
	if (m->idles.ok && m->idle_miss.ok)
		fprintf(stderr, "since boot: idles %llu, misses %llu", (unsigned long long)m->idles.v,
			(unsigned long long)m->idle_miss.v);
	else
		fprintf(stderr, "since boot: no above/below counters");
	if (m->has_miss_ratio)
		fprintf(stderr, ", miss ratio %.17g\n", m->miss_ratio);
	else
		fprintf(stderr, ", no miss ratio\n");
}

/*
 * --kcidb: the document of the run and nightly directories in argv[1..nargs],
 * written to out (or stdout) and, with submit, sent to KCIDB_REST.
 */
static int kcidb(char **argv, int nargs, const char *origin, const char *out, bool submit, long deadline, bool quiet)
{
	struct il_err err = { 0 };
	struct il_buf id = IL_BUF_INIT;
	json_t *doc = NULL;
	char *txt = NULL;
	int r;

	if ((r = il_kcidb_document((const char *const *)argv + 1, (size_t)nargs, origin, &doc, &err)))
		return il_cli_fail(&err);
	if (!(txt = il_json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER)))
		r = il_err_oom(&err);
	if (!r && (out || !submit))
		r = out && strcmp(out, "-") ? il_buf_write_file_mode(out, txt, strlen(txt), 0644, &err)
					    : il_cli_output(NULL, txt, strlen(txt), &err);
	if (!r && submit) {
		struct il_kcidb_rest rest = { .url = getenv("KCIDB_REST"), .deadline_s = deadline };

		r = il_kcidbrest_submit(&rest, txt, &id, &err);
		if (!r && !quiet)
			fprintf(stderr, "idlelab: export: KCIDB processed submission %s (%zu checkouts, %zu builds, %zu tests, "
					"%zu issues, %zu incidents)\n", il_buf_str(&id),
				json_array_size(json_object_get(doc, "checkouts")), json_array_size(json_object_get(doc, "builds")),
				json_array_size(json_object_get(doc, "tests")), json_array_size(json_object_get(doc, "issues")),
				json_array_size(json_object_get(doc, "incidents")));
	}
	free(txt);
	json_decref(doc);
	il_buf_release(&id);
	return r ? il_cli_fail(&err) : IL_EXIT_OK;
}

int il_cmd_export(int argc, char **argv)
{
	const char *root = "/", *out = NULL, *host = NULL, *hosts_dir = NULL, *origin = "idlelab";
	bool om = false, sum = false, kc = false, submit = false, quiet = false;
	long deadline = 300;
	const struct il_opt opts[] = {
		IL_OPT_BOOL(0, "openmetrics", &om, "the Prometheus text format of node_exporter's textfile collector"),
		IL_OPT_BOOL(0, "kcidb", &kc, "run and nightly directories as one KCIDB v5.3 document (KernelCI)"),
		IL_OPT_STR(0, "origin", &origin, "NAME", "--kcidb: the submitter's KCIDB origin ([a-z0-9_]+; default idlelab)"),
		IL_OPT_BOOL(0, "submit", &submit, "--kcidb: send it to $KCIDB_REST (https://TOKEN@host), and wait till processed"),
		IL_OPT_NUM(0, "deadline", &deadline, "S", "--submit: the whole submission within S seconds (default 300)"),
		IL_OPT_BOOL('q', "quiet", &quiet, "--submit: say nothing when it went through"),
		IL_OPT_STR('o', "output", &out, "FILE", "write FILE atomically (mode 0644; temp file beside it, fsync, rename)"),
		IL_OPT_STR('H', "host", &host, "NAME", "export an inventory host's state (over its transport)"),
		IL_OPT_STR(0, "hosts-dir", &hosts_dir, "DIR", "inventory directory (default $IDLELAB_HOSTS or the search path: idlelab paths)"),
		IL_OPT_STR(0, "sysfs-root", &root, "DIR", "read sysfs, /proc and /dev under DIR (fixtures); default /"),
		IL_OPT_BOOL(0, "summary", &sum, "say on stderr what was exported and idlelab's lifetime miss ratio"),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab export --openmetrics [-o FILE] [--host NAME | --sysfs-root DIR] [--summary]",
					     "idlelab export --kcidb DIR... [--origin NAME] [-o FILE] [--submit [--deadline S]]",
					     NULL };
	struct il_promtext_summary s;
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };
	struct il_snapshot snap;
	struct il_pmqos q;
	struct il_target tg;
	int nargs, r;

	if ((r = il_opt_parse(argc, argv, opts, usage, &nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	if (om && kc)
		return il_opt_error(opts, usage, "one format at a time: --openmetrics or --kcidb");
	if (kc) {
		if (!nargs)
			return il_opt_error(opts, usage, "--kcidb: name the run or nightly directories");
		if (!il_kcidb_origin_ok(origin))
			return il_opt_error(opts, usage, "--origin '%s': expected lower-case letters, digits and '_'", origin);
		if (deadline < 1 || deadline > 86400)
			return il_opt_error(opts, usage, "--deadline %ld: expected 1 to 86400 seconds", deadline);
		return kcidb(argv, nargs, origin, out, submit, deadline, quiet);
	}
	if (submit)
		return il_opt_error(opts, usage, "--submit goes with --kcidb");
	if (nargs)
		return il_opt_error(opts, usage, "unexpected argument '%s'", argv[1]);
	if (!om)
		return il_opt_error(opts, usage, "say which format: --openmetrics or --kcidb");
	if (il_target_open(&tg, host, root, hosts_dir, &err))
		return il_cli_fail(&err);
	r = il_sysfs_snapshot(tg.fs, &snap, &err);
	if (!r && (r = il_sysfs_pmqos(tg.fs, &q, &err)))
		il_snapshot_release(&snap);
	il_target_close(&tg);
	if (r)
		return il_cli_fail(&err);
	r = il_promtext_render(&b, &snap, &q, &s, &err);
	if (!r)
		r = out && strcmp(out, "-") ? il_buf_write_file_mode(out, b.p, b.len, 0644, &err)
					    : il_cli_output(NULL, il_buf_str(&b), b.len, &err);
	if (!r && sum)
		summary(out, &s);
	il_buf_release(&b);
	il_pmqos_release(&q);
	il_snapshot_release(&snap);
	return r ? il_cli_fail(&err) : IL_EXIT_OK;
}
