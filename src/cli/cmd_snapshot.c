// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab snapshot`: read a host's cpuidle state. */
#include <stdbool.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "idle/snapshotjson.h"
#include "cli/target.h"
#include "report/idletable.h"

int il_cmd_snapshot(int argc, char **argv)
{
	const char *root = "/", *out = NULL, *host = NULL, *hosts_dir = NULL;
	bool json = false, dump = false;
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "sysfs-root", &root, "DIR", "read sysfs and /proc under DIR (fixtures); default /"),
		IL_OPT_STR('H', "host", &host, "NAME", "snapshot an inventory host (one remote exec)"),
		IL_OPT_STR(0, "hosts-dir", &hosts_dir, "DIR", "inventory directory (default $IDLELAB_HOSTS or the search path: idlelab paths)"),
		IL_OPT_BOOL(0, "json", &json, "print the snapshot as JSON (docs/formats.md)"),
		IL_OPT_BOOL(0, "dump", &dump, "print the raw path:value dump the parser reads"),
		IL_OPT_STR('o', "output", &out, "FILE", "write to FILE (atomically) instead of stdout"),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab snapshot [--host NAME | --sysfs-root DIR] [--json | --dump] [-o FILE]", NULL };
	struct il_target tg;
	struct il_snapshot snap;
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };
	int nargs, r;

	if ((r = il_opt_parse(argc, argv, opts, usage, &nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	if (nargs)
		return il_opt_error(opts, usage, "unexpected argument '%s'", argv[1]);
	if (json && dump)
		return il_opt_error(opts, usage, "--json and --dump exclude each other");
	if (il_target_open(&tg, host, root, hosts_dir, &err))
		return il_cli_fail(&err);
	if (dump) {
		r = tg.fs->dump(tg.fs, &b, &err);
		if (!r)
			r = il_cli_output(out, il_buf_str(&b), b.len, &err);
		il_buf_release(&b);
		il_target_close(&tg);
		return r ? il_cli_fail(&err) : IL_EXIT_OK;
	}
	r = il_sysfs_snapshot(tg.fs, &snap, &err);
	il_target_close(&tg);
	if (r)
		return il_cli_fail(&err);
	if (json) {
		r = il_cli_output_json(out, il_snapshot_to_json(&snap), &err);
	} else {
		r = il_idletable_snapshot(&b, &snap);
		if (r)
			il_err_oom(&err);
		else
			r = il_cli_output(out, il_buf_str(&b), b.len, &err);
	}
	il_buf_release(&b);
	il_snapshot_release(&snap);
	return r ? il_cli_fail(&err) : IL_EXIT_OK;
}
