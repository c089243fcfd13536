// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `idlelab diff`: idle metrics between two saved snapshots; with --trace, a
 * saved trace frame reduced over their window (a plan's keep_trace keeps the
 * frame and the pair of each traced sample: the offline reducer).
 */
#include <stdbool.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "idle/diff.h"
#include "idle/snapshotjson.h"
#include "report/idletable.h"
#include "util/buf.h"
#include "idle/cpuset.h"

int il_cmd_diff(int argc, char **argv)
{
	const char *by_s = "state", *out = NULL, *trace = NULL, *cpus = NULL;
	bool json = false;
	const struct il_opt opts[] = {
		IL_OPT_BOOL(0, "json", &json, "print the diff as JSON (docs/formats.md)"),
		IL_OPT_STR(0, "by", &by_s, "state|cpu|cluster", "breakdown in the table (default state)"),
		IL_OPT_STR(0, "trace", &trace, "FRAME", "reduce this saved idle trace frame over the window (a run's "
			   "samples/SEQ-ATTEMPT.trace with its .before.json and .after.json)"),
		IL_OPT_STR(0, "cpus", &cpus, "LIST", "metrics over these CPUs only (a plan's idle_cpus)"),
		IL_OPT_STR('o', "output", &out, "FILE", "write to FILE instead of stdout"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab diff BEFORE AFTER [--json] [--by state|cpu|cluster] [--trace FRAME] [--cpus LIST] [-o FILE]",
		"(BEFORE/AFTER: snapshot JSON or path:value dumps)", NULL
	};
	struct il_snapshot a = { 0 }, b = { 0 };
	struct il_diff d = { 0 };
	struct il_diff_opts dopts = { .min_sample_s = 0 };
	struct il_cpuset set = { 0 };
	struct il_buf frame = IL_BUF_INIT;
	struct il_err err = { 0 };
	enum il_diff_by by;
	int nargs, r;

	if ((r = il_opt_parse(argc, argv, opts, usage, &nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	if (nargs != 2)
		return il_opt_error(opts, usage, "expected two snapshot files, got %d", nargs);
	if (il_idletable_diff_by_parse(by_s, &by, &err))
		return il_opt_error(opts, usage, "%s", err.msg);
	if (cpus) {
		if (il_cpuset_parse(&set, cpus, &err))
			return il_opt_error(opts, usage, "--cpus: %s", err.msg);
		dopts.cpus = &set;
	}
	/* a sample's whole output is at most 64 MiB (run/sample.c), so is a frame saved from it */
	if (trace && (r = il_buf_read_file(&frame, trace, (size_t)64 << 20, &err)))
		goto cleanup;
	if ((r = il_snapshot_load_file(&a, argv[1], &err)) || (r = il_snapshot_load_file(&b, argv[2], &err)) ||
	    (r = il_diff_compute_opts(&d, &a, &b, &dopts, &err)))
		goto cleanup;
	r = il_cli_output_diff_trace(out, &d, trace ? il_buf_str(&frame) : NULL, frame.len, trace, json, by, &err);
cleanup:
	il_buf_release(&frame);
	il_cpuset_release(&set);
	il_diff_release(&d);
	il_snapshot_release(&a);
	il_snapshot_release(&b);
	return r ? il_cli_fail(&err) : IL_EXIT_OK;
}
