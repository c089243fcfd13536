// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab lab build|up|down|status|ssh|console`: the built-in lab host. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/clipaths.h"
#include "cli/opt.h"
#include "cli/cliprogress.h"
#include "lab/lab.h"
#include "lab/labtree.h"
#include "kernel/fetch.h"

static void on_step(const char *what, double t, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "lab: %s (%.1f s)\n", what, t);
}

/* ", kernel 6.12.118-il1a2b3c4d (Debian linux-source-6.12 (...))": the lab's own tree */
static void print_tree(const json_t *j)
{
	const json_t *k = json_object_get(j, "kernel");

	if (json_is_string(json_object_get(k, "release")))
		printf(", kernel %s from %s", json_string_value(json_object_get(k, "release")),
		       json_string_value(json_object_get(k, "origin")) ?: "?");
}

int il_cmd_lab(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	struct il_cli_dirs dirs = { 0 };
	const char *name = NULL, *image = NULL, *src = NULL, *arch = NULL, *table = NULL, *tree = NULL;
	long cpus = 0, mem = 0, timeout = 0;
	bool json = false, quiet = false;
	const struct il_opt opts[] = {
		IL_OPT_NUM_FOR("build,up", 0, "cpus", &cpus, "N", "guest CPUs (default 2)"),
		IL_OPT_NUM_FOR("build,up", 0, "mem", &mem, "MIB", "guest memory (default 512)"),
		IL_OPT_STR(0, "arch", &arch, "ARCH", "arm64 (default) or x86_64 (hosts labvm-x86, labvm-x86-NAME)"),
		IL_OPT_STR(0, "name", &name, "NAME", "lab instance (default labvm; host name labvm-NAME)"),
		IL_OPT_STR_FOR("up", 0, "table", &table, "TABLE", "up, x86_64: idle table of hosts/labvm-x86/idle-tables.json (default, pseries)"),
		IL_OPT_STR_FOR("build,up", 0, "tree", &tree, "SPEC", "build, up: the kernel tree: a Debian linux-source version "
			       "(6.1, 6.12), a tarball, or a git repository DIR[@REV] (default " IL_LAB_TREE_DEFAULT ")"),
		IL_OPT_STR_FOR("up", 0, "kernel", &image, "IMAGE", "up: boot this kernel image instead of the lab's own"),
		IL_OPT_NUM_FOR("up", 0, "timeout", &timeout, "S", "up: seconds to wait for SSH (default 180)"),
		IL_CLI_OPT_CACHE(&dirs),
		/* every action: scripts pass one instance option set (--name, --arch, --source) to each */
		IL_OPT_STR(0, "source", &src, "DIR", "idlelab's source tree (hosts/labvm, workloads; default .)"),
		IL_OPT_BOOL_FOR("up,status", 0, "json", &json, "JSON output (up, status)"),
		IL_OPT_BOOL_FOR("build,up", 'q', "quiet", &quiet, "build, up: no progress output"),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab lab build [--arch ARCH] [--cpus N] [--tree SPEC]",
					     "idlelab lab up [--arch ARCH] [--cpus N] [--name NAME] [--tree SPEC] [--table TABLE] [--kernel IMAGE]",
					     "idlelab lab status|down|console [--arch ARCH] [--name NAME]",
					     "idlelab lab ssh [--arch ARCH] [--name NAME] [-- CMD...]", NULL };
	struct il_lab_opts o = { 0 };
	struct il_err err = { 0 };
	json_t *j = NULL;
	char *instance = NULL;
	int nargs, r;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (!nargs)
		return il_opt_error(opts, usage, "missing action (build, up, down, status, ssh, console)");
	if (cpus < 0 || cpus > 64 || mem < 0 || timeout < 0)
		return il_opt_error(opts, usage, "--cpus, --mem and --timeout must be positive");
	o = (struct il_lab_opts){ .cache_dir = paths.cache_dir, .src_dir = src, .arch = arch, .name = name,
				  .table = table, .tree = tree, .cpus = (int)cpus, .mem_mb = (int)mem, .image = image,
				  .timeout_s = (int)timeout, .progress = quiet ? NULL : il_cli_progress };
	if (il_lab_resolve(&o, NULL, &instance, &err))
		return il_cli_fail(&err);
	if (!strcmp(argv[1], "build") && nargs == 1) {
		char *dir = NULL;

		if ((r = il_lab_build(&o, quiet ? NULL : on_step, NULL, &dir, &err)))
			return il_cli_fail(&err);
		printf("%s\n", dir);
		free(dir);
		return IL_EXIT_OK;
	}
	if (!strcmp(argv[1], "up") && nargs == 1) {
		if ((r = il_lab_up(&o, quiet ? NULL : on_step, NULL, &j, &err)))
			return il_cli_fail(&err);
		if (json)
			return il_cli_output_json(NULL, j, &err) ? il_cli_fail(&err) : IL_EXIT_OK;
		{
			char *host = il_lab_host_name(json_string_value(json_object_get(j, "name")));

			printf("lab %s up: ssh on 127.0.0.1:%lld (host '%s'), pid %lld, ready after %.1f s",
			       json_string_value(json_object_get(j, "name")), (long long)json_integer_value(json_object_get(j, "port")),
			       host ? host : "?", (long long)json_integer_value(json_object_get(j, "pid")),
			       json_real_value(json_object_get(j, "ssh_ready_s")));
			if (json_is_string(json_object_get(j, "table")))
				printf(", idle table %s", json_string_value(json_object_get(j, "table")));
			print_tree(j);
			printf("\n");
			free(host);
		}
		json_decref(j);
		free(instance);
		return IL_EXIT_OK;
	}
	if (!strcmp(argv[1], "down") && nargs == 1)
		return il_lab_down(&o, &err) ? il_cli_fail(&err) : IL_EXIT_OK;
	if (!strcmp(argv[1], "status") && nargs == 1) {
		if (il_lab_status(&o, &j, &err))
			return il_cli_fail(&err);
		if (json)
			return il_cli_output_json(NULL, j, &err) ? il_cli_fail(&err) : IL_EXIT_OK;
		printf("lab %s: %s (%s, host %s)", json_string_value(json_object_get(j, "name")),
		       json_string_value(json_object_get(j, "state")), json_string_value(json_object_get(j, "arch")),
		       json_string_value(json_object_get(j, "host")));
		if (json_is_integer(json_object_get(j, "port")))
			printf(", ssh 127.0.0.1:%lld, pid %lld", (long long)json_integer_value(json_object_get(j, "port")),
			       (long long)json_integer_value(json_object_get(j, "pid")));
		if (json_is_string(json_object_get(j, "table")))
			printf(", idle table %s", json_string_value(json_object_get(j, "table")));
		print_tree(j);
		printf("\n");
		if (!strcmp(json_string_value(json_object_get(j, "state")), "crashed"))
			printf("QEMU is gone; the console ended with:\n%s", json_string_value(json_object_get(j, "console_tail")));
		r = strcmp(json_string_value(json_object_get(j, "state")), "crashed") ? IL_EXIT_OK : IL_EXIT_FAIL;
		json_decref(j);
		return r;
	}
	if (!strcmp(argv[1], "console") && nargs == 1) {
		char *rd = il_lab_run_dir(&o), path[4200];
		struct il_buf b = IL_BUF_INIT;

		snprintf(path, sizeof(path), "%s/console.log", rd);
		free(rd);
		if (il_buf_read_file(&b, path, (size_t)64 << 20, &err))
			return il_cli_fail(&err);
		fwrite(il_buf_str(&b), 1, b.len, stdout);
		il_buf_release(&b);
		return IL_EXIT_OK;
	}
	if (!strcmp(argv[1], "ssh")) {
		struct il_host_cfg h;
		char port[16], kh[4200];
		char **av = calloc((size_t)nargs + 16, sizeof(*av));
		int k = 0;

		if (il_lab_host(&h, o.cache_dir, instance, &err))
			return il_cli_fail(&err);
		snprintf(port, sizeof(port), "%d", h.port);
		snprintf(kh, sizeof(kh), "UserKnownHostsFile=%s", h.known_hosts);
		av[k++] = (char *)"ssh";
		av[k++] = (char *)"-p";
		av[k++] = port;
		av[k++] = (char *)"-i";
		av[k++] = h.identity;
		av[k++] = (char *)"-o";
		av[k++] = kh;
		av[k++] = (char *)"-o";
		av[k++] = (char *)"StrictHostKeyChecking=yes";
		av[k++] = (char *)"root@127.0.0.1";
		for (int i = 2; i <= nargs; i++)
			av[k++] = argv[i];
		execvp("ssh", av);
		perror("idlelab: ssh");
		return IL_EXIT_FAIL;
	}
	return il_opt_error(opts, usage, "unknown action or wrong arguments: '%s'", argv[1]);
}
