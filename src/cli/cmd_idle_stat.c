// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab idle-stat -- CMD`: like perf stat, for idle; --trace adds an idle trace of the same window. */
#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "host/localtrace.h"
#include "idle/diff.h"
#include "idle/diffjson.h"
#include "idle/govctl.h"
#include "idle/trace.h"
#include "report/idletable.h"
#include "util/proc.h"

int il_cmd_idle_stat(int argc, char **argv)
{
	const char *root = "/", *by_s = "state", *gov = NULL, *out = NULL;
	bool json = false, trace = false;
	long trace_kb = 8192;
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "sysfs-root", &root, "DIR", "read sysfs and /proc under DIR; default /"),
		IL_OPT_STR('g', "governor", &gov, "NAME", "run under this governor, then restore the previous one"),
		IL_OPT_BOOL(0, "json", &json, "print the diff as JSON"),
		IL_OPT_STR(0, "by", &by_s, "state|cpu|cluster", "breakdown in the table (default state)"),
		IL_OPT_STR('o', "output", &out, "FILE", "write the result to FILE instead of stdout"),
		IL_OPT_BOOL(0, "trace", &trace, "also trace the idle periods, misses and tick (tracefs; docs/formats.md)"),
		IL_OPT_NUM(0, "trace-buffer-kb", &trace_kb, "KB", "the trace's ring buffer per CPU (default 8192)"),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab idle-stat [options] -- CMD [ARGS...]", NULL };
	struct il_sysfs_local fs;
	struct il_snapshot a = { 0 }, b = { 0 };
	struct il_idle_saved saved = { 0 };
	struct il_diff d = { 0 };
	struct il_err err = { 0 }, rerr = { 0 };
	struct il_exit ex = { -1, 0 };
	struct il_localtrace lt = { 0 };
	struct il_buf frame = IL_BUF_INIT;
	bool borrowed = false, traced = false;
	enum il_diff_by by;
	int nargs, r;

	if ((r = il_opt_parse(argc, argv, opts, usage, &nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	if (!nargs)
		return il_opt_error(opts, usage, "no command given");
	if (il_idletable_diff_by_parse(by_s, &by, &err))
		return il_opt_error(opts, usage, "%s", err.msg);
	if (trace_kb < 64 || trace_kb > (4L << 20))
		return il_opt_error(opts, usage, "--trace-buffer-kb %ld: expected 64 to 4194304", trace_kb);
	if (trace && strcmp(root, "/"))
		return il_opt_error(opts, usage, "--trace traces this machine's kernel: not with --sysfs-root");
	argv[nargs + 1] = NULL;
	if ((r = il_sysfs_local_init(&fs, root, &err)))
		goto cleanup;
	if (gov) {
		if ((r = il_govctl_save(&fs.ops, &saved, &err)))
			goto cleanup;
		borrowed = true;
		if ((r = il_govctl_set(&fs.ops, gov, &err)))
			goto cleanup;
	}
	/* markers around each snapshot bound what the counters saw (the trace's cross-check) */
	if (trace && (r = il_localtrace_start(&lt, (int)trace_kb, &err)))
		goto cleanup;
	if ((r = il_sysfs_snapshot(&fs.ops, &a, &err)) || (trace && (r = il_localtrace_mark(&lt, "begin", &err))))
		goto cleanup;
	if ((r = il_proc_run(argv + 1, &ex, &err)))
		goto cleanup;
	if ((trace && (r = il_localtrace_mark(&lt, "end", &err))) || (r = il_sysfs_snapshot(&fs.ops, &b, &err)))
		goto cleanup;
	if (trace) {
		if ((r = il_localtrace_stop(&lt, &frame, &err)))
			goto cleanup;
		traced = true;
	}
	if ((r = il_diff_compute(&d, &a, &b, &err)))
		goto cleanup;
	r = il_cli_output_diff_trace(out, &d, traced ? il_buf_str(&frame) : NULL, frame.len, "local", json, by, &err);
cleanup:
	if (borrowed && il_govctl_restore(&fs.ops, &saved, &rerr)) {
		fprintf(stderr, "idlelab: error: restoring the host's idle settings: %s\n", rerr.msg);
		if (!r)
			r = IL_EIO, err = rerr;
	}
	il_localtrace_release(&lt);
	il_buf_release(&frame);
	il_govctl_saved_release(&saved);
	il_diff_release(&d);
	il_snapshot_release(&a);
	il_snapshot_release(&b);
	if (r)
		return il_cli_fail(&err);
	if (ex.signal || ex.code)
		fprintf(stderr, "idlelab: '%s' %s %d\n", argv[1], ex.signal ? "was killed by signal" : "exited with",
			ex.signal ? ex.signal : ex.code);
	return il_proc_exit_status(&ex);
}
