// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab diff`: idle metrics between two saved snapshots. */
#include <stdbool.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "idle/diff.h"
#include "idle/snapjson.h"
#include "report/idletable.h"

int cmd_diff(int argc, char **argv)
{
	const char *by_s = "state", *out = NULL;
	bool json = false;
	const struct il_opt opts[] = {
		IL_OPT_BOOL(0, "json", &json, "print the diff as JSON (docs/formats.md)"),
		IL_OPT_STR(0, "by", &by_s, "state|cpu|cluster", "breakdown in the table (default state)"),
		IL_OPT_STR('o', "output", &out, "FILE", "write to FILE instead of stdout"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab diff BEFORE AFTER [--json] [--by state|cpu|cluster] [-o FILE]",
		"(BEFORE/AFTER: snapshot JSON or path:value dumps)", NULL
	};
	struct il_snapshot a = { 0 }, b = { 0 };
	struct il_diff d = { 0 };
	struct il_err err = { 0 };
	enum il_diff_by by;
	int nargs, r;

	if ((r = il_opt_parse(argc, argv, opts, usage, &nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	if (nargs != 2)
		return il_opt_error(opts, usage, "expected two snapshot files, got %d", nargs);
	if (il_diff_by_parse(by_s, &by, &err))
		return il_opt_error(opts, usage, "%s", err.msg);
	if ((r = il_snapshot_load_file(&a, argv[1], &err)) || (r = il_snapshot_load_file(&b, argv[2], &err)) ||
	    (r = il_diff_compute(&d, &a, &b, &err)))
		goto cleanup;
	r = il_cli_output_diff(out, &d, json, by, &err);
cleanup:
	il_diff_release(&d);
	il_snapshot_release(&a);
	il_snapshot_release(&b);
	return r ? il_cli_fail(&err) : IL_EXIT_OK;
}
