// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab governor`: list/get/set the governor, disable/enable idle states. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "cli/target.h"
#include "idle/govctl.h"

static int act(struct il_sysfs *fs, int nargs, char **argv, const char *cpus_s, struct il_err *err)
{
	const char *verb = nargs ? argv[1] : "get";
	int r;

	if (!strcmp(verb, "list") || !strcmp(verb, "get")) {
		struct il_strlist govs = { 0 };
		char *cur = NULL;

		if ((r = il_govctl_get(fs, &cur, err)))
			return r;
		if (!strcmp(verb, "get")) {
			printf("%s\n", cur);
		} else if (!(r = il_govctl_list(fs, &govs, err))) {
			for (size_t i = 0; i < govs.n; i++)
				printf("%s%s\n", govs.v[i], strcmp(govs.v[i], cur) ? "" : " *");
		}
		il_strlist_release(&govs);
		free(cur);
		return r;
	}
	if (!strcmp(verb, "set")) {
		if ((r = il_govctl_set(fs, argv[2], err)))
			return r;
		printf("%s\n", argv[2]);
		return 0;
	}
	{
		struct il_cpuset set = { 0 };
		struct il_snapshot snap;
		size_t n = 0;

		if (cpus_s && (r = il_cpuset_parse(&set, cpus_s, err)))
			return r;
		if (!(r = il_sysfs_snapshot(fs, &snap, err))) {
			r = il_govctl_state_set_disable(fs, &snap, cpus_s ? &set : NULL, argv[2], verb[0] == 'd', &n, err);
			il_snapshot_release(&snap);
		}
		il_cpuset_release(&set);
		if (!r)
			printf("state '%s' %sd on %zu CPU%s\n", argv[2], verb, n, n == 1 ? "" : "s");
		return r;
	}
}

int il_cmd_governor(int argc, char **argv)
{
	const char *root = "/", *cpus_s = NULL, *host = NULL, *hosts_dir = NULL;
	const struct il_opt opts[] = {
		IL_OPT_STR(0, "sysfs-root", &root, "DIR", "act on sysfs under DIR; default /"),
		IL_OPT_STR('H', "host", &host, "NAME", "act on an inventory host (SSH or its transport)"),
		IL_OPT_STR(0, "hosts-dir", &hosts_dir, "DIR", "inventory directory (default $IDLELAB_HOSTS or the search path: idlelab paths)"),
		IL_OPT_STR(0, "cpus", &cpus_s, "LIST", "with disable/enable: only these CPUs (e.g. 0-3,8)"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab governor [list | get | set NAME] [--host NAME | --sysfs-root DIR]",
		"idlelab governor disable|enable STATE [--cpus LIST] [--host NAME | --sysfs-root DIR]",
		"(STATE: an index such as 2 or a name such as C6)", NULL
	};
	struct il_target tg;
	struct il_err err = { 0 };
	struct il_cpuset probe;
	const char *verb;
	int nargs, r;

	if ((r = il_opt_parse(argc, argv, opts, usage, &nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	verb = nargs ? argv[1] : "get";
	if (!strcmp(verb, "list") || !strcmp(verb, "get")) {
		if (nargs > 1)
			return il_opt_error(opts, usage, "'%s' takes no argument", verb);
	} else if (!strcmp(verb, "set")) {
		if (nargs != 2)
			return il_opt_error(opts, usage, "'set' takes one governor name");
	} else if (!strcmp(verb, "disable") || !strcmp(verb, "enable")) {
		if (nargs != 2)
			return il_opt_error(opts, usage, "'%s' takes one state (index or name)", verb);
		if (cpus_s) {
			if (il_cpuset_parse(&probe, cpus_s, &err))
				return il_opt_error(opts, usage, "--cpus: %s", err.msg);
			il_cpuset_release(&probe);
		}
	} else {
		return il_opt_error(opts, usage, "unknown governor action '%s'", verb);
	}
	if (il_target_open(&tg, host, root, hosts_dir, &err))
		return il_cli_fail(&err);
	r = act(tg.fs, nargs, argv, cpus_s, &err);
	il_target_close(&tg);
	return r ? il_cli_fail(&err) : IL_EXIT_OK;
}
