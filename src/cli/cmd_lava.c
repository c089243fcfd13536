// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab lava jobdef PLAN` and `idlelab lava template`: LAVA jobs to read before they run (docs/lava.md). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "run/lavajob.h"
#include "run/lavarun.h"

int il_cmd_lava(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	const char *host = NULL, *out = NULL;
	struct il_cli_dirs dirs = { 0 };
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "host", &host, "NAME", "the plan's jobs for this LAVA host instead of the plan's hosts"),
		IL_OPT_STR('o', "output", &out, "FILE", "write to FILE instead of stdout"),
		IL_CLI_OPT_HOSTS_DIR(&dirs),
		IL_CLI_OPT_WORKLOADS_DIR(&dirs),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab lava jobdef PLAN [--host NAME] [-o FILE]   # the jobs a run submits first, not submitted",
		"idlelab lava template [-o FILE]                    # the built-in job template (deploy and boot)", NULL
	};
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };
	int nargs, r;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (nargs == 1 && !strcmp(argv[1], "template")) {
		r = il_cli_output(out, il_lavajob_default_template(), strlen(il_lavajob_default_template()), &err);
		return r ? il_cli_fail(&err) : IL_EXIT_OK;
	}
	if (nargs != 2 || strcmp(argv[1], "jobdef"))
		return il_opt_error(opts, usage, nargs ? "unknown action or wrong arguments: '%s'" : "say what: jobdef or template",
				    nargs ? argv[1] : "");
	{
		struct il_run_opts ro = { .paths = &paths, .workloads_dir = paths.workloads_dir, .host = host };

		r = il_lavarun_jobdef_plan(argv[2], &ro, &b, &err);
	}
	if (!r)
		r = il_cli_output(out, il_buf_str(&b), b.len, &err);
	il_buf_release(&b);
	return r ? il_cli_fail(&err) : IL_EXIT_OK;
}
