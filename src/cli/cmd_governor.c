// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab governor`: list/get/set the governor, disable/enable idle states. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "idle/govctl.h"

int cmd_governor(int argc, char **argv)
{
	const char *root = "/", *cpus_s = NULL;
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "sysfs-root", &root, "DIR", "act on sysfs under DIR; default /"),
		IL_OPT_STR(0, "cpus", &cpus_s, "LIST", "with disable/enable: only these CPUs (e.g. 0-3,8)"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab governor [list | get | set NAME] [--sysfs-root DIR]",
		"idlelab governor disable|enable STATE [--cpus LIST] [--sysfs-root DIR]",
		"(STATE: an index such as 2 or a name such as C6)", NULL
	};
	struct il_sysfs_local fs;
	struct il_err err = { 0 };
	const char *verb;
	int nargs, r;

	if ((r = il_opt_parse(argc, argv, opts, usage, &nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	verb = nargs ? argv[1] : "get";
	if (il_sysfs_local_init(&fs, root, &err))
		return il_cli_fail(&err);
	if (!strcmp(verb, "list") || !strcmp(verb, "get")) {
		struct il_strlist govs = { 0 };
		char *cur = NULL;

		if (nargs > 1)
			return il_opt_error(opts, usage, "'%s' takes no argument", verb);
		if (il_gov_get(&fs.ops, &cur, &err))
			return il_cli_fail(&err);
		if (!strcmp(verb, "get")) {
			printf("%s\n", cur);
		} else {
			if (il_gov_list(&fs.ops, &govs, &err)) {
				free(cur);
				return il_cli_fail(&err);
			}
			for (size_t i = 0; i < govs.n; i++)
				printf("%s%s\n", govs.v[i], strcmp(govs.v[i], cur) ? "" : " *");
			il_strlist_release(&govs);
		}
		free(cur);
		return IL_EXIT_OK;
	}
	if (!strcmp(verb, "set")) {
		if (nargs != 2)
			return il_opt_error(opts, usage, "'set' takes one governor name");
		if (il_gov_set(&fs.ops, argv[2], &err))
			return il_cli_fail(&err);
		printf("%s\n", argv[2]);
		return IL_EXIT_OK;
	}
	if (!strcmp(verb, "disable") || !strcmp(verb, "enable")) {
		struct il_cpuset set = { 0 };
		struct il_snapshot snap;
		size_t n = 0;

		if (nargs != 2)
			return il_opt_error(opts, usage, "'%s' takes one state (index or name)", verb);
		if (cpus_s && il_cpuset_parse(&set, cpus_s, &err))
			return il_opt_error(opts, usage, "--cpus: %s", err.msg);
		if (il_sysfs_snapshot(&fs.ops, &snap, &err)) {
			il_cpuset_release(&set);
			return il_cli_fail(&err);
		}
		r = il_state_set_disable(&fs.ops, &snap, cpus_s ? &set : NULL, argv[2], verb[0] == 'd', &n, &err);
		il_snapshot_release(&snap);
		il_cpuset_release(&set);
		if (r)
			return il_cli_fail(&err);
		printf("state '%s' %sd on %zu CPU%s\n", argv[2], verb, n, n == 1 ? "" : "s");
		return IL_EXIT_OK;
	}
	return il_opt_error(opts, usage, "unknown governor action '%s'", verb);
}
