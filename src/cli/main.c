// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * idlelab's entry point: the subcommand table, global --help/--version,
 * `help COMMAND` (the man page when one is installed and the output is a
 * terminal, as git does), the hidden generators the build uses (`help --man
 * [CMD]`, `help --completion`, `--dump-options`: cli/describe.h). The
 * table is passed to what lists the commands, so nothing refers back here;
 * the helpers the commands share are cli/cli.c's.
 */
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/describe.h"
#include "cli/screen.h"
#include "util/buf.h"
#include "version.h"

static const struct il_cmd commands[] = {
	{ "snapshot", il_cmd_snapshot, "read the cpuidle state of a host (table or JSON)" },
	{ "diff", il_cmd_diff, "idle metrics between two snapshots (idles, aboves, belows, miss ratio)" },
	{ "export", il_cmd_export, "cpuidle counters, governor and PM QoS for Prometheus (node_exporter textfile)" },
	{ "idle-stat", il_cmd_idle_stat, "run a command and print the idle counters over its run" },
	{ "governor", il_cmd_governor, "list, get or set the cpuidle governor; disable/enable idle states" },
	{ "host", il_cmd_host, "lab host inventory and the host probe (idle environment fingerprint)" },
	{ "workload", il_cmd_workload, "workload definitions; parse a saved workload output" },
	{ "run", il_cmd_run, "run a plan (governors x workloads x iterations) on a host, or resume one" },
	{ "bisect", il_cmd_bisect, "find the commit that made an idle metric worse, noise-aware (git bisect run too)" },
	{ "runs", il_cmd_runs, "list run directories with their status" },
	{ "show", il_cmd_show, "summary of a run directory: plan, host, samples by status" },
	{ "compare", il_cmd_compare, "compare variants (run directories or files of numbers): significance, noise, verdicts" },
	{ "report", il_cmd_report, "write every report format of a run into its directory (from journal.jsonl alone)" },
	{ "lab", il_cmd_lab, "the built-in lab hosts: arm64 or x86_64 kernels with real cpuidle states under QEMU (build, up, down, ...)" },
	{ "series", il_cmd_series, "show a patch series from an mbox or a public-inbox thread (by Message-ID)" },
	{ "kernel", il_cmd_kernel, "kernel variants of a plan: prepare (commits), build (cached, incremental), list" },
	{ "history", il_cmd_history, "a plan's metrics across its runs, from an SQLite index of the run journals" },
	{ "audit", il_cmd_audit, "fleet-wide idle efficiency audit: findings against a policy over SSH, many hosts at once" },
	{ "lava", il_cmd_lava, "LAVA labs: the job definitions a plan on a LAVA host submits (jobdef), the job template" },
	{ "nightly", il_cmd_nightly, "one nightly regression check: the tracked branch's new tip against the last good nightly" },
	{ "alert", il_cmd_alert, "send a regression alert (lkp-style mail over SMTP and/or a webhook) from its JSON" },
	{ "paths", il_cmd_paths, "where host files and workload definitions are found (search paths), and which file counts" },
	{ "tested-by", il_cmd_tested_by, "the Tested-by evidence block of a run, for a linux-pm reply" },
	{ "try", il_cmd_try, "from a posted series (Message-ID, lore URL, mbox) to a linux-pm reply: build, boot, measure, compare" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: idlelab <command> [options]\n"
		   "       idlelab help <command> | --help | --version\n\n"
		   "Test and benchmark Linux cpuidle governors.\n\ncommands:\n");
	for (const struct il_cmd *c = commands; c->name; c++)
		fprintf(f, "    %-12s %s\n", c->name, c->summary);
}

static const struct il_cmd *find(const char *name)
{
	for (const struct il_cmd *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* `help --man [CMD]`, `help --completion`: what the build installs, made from the tables */
static int generate(const char *what, const char *name)
{
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };
	int r;

	il_buf_init(&b, (size_t)4 << 20);
	r = !strcmp(what, "--man") ? il_describe_man(&b, commands, name, &err)
				   : il_complete_script(&b, commands, &err);
	if (!r)
		r = il_cli_output(NULL, il_buf_str(&b), b.len, &err);
	il_buf_release(&b);
	return r ? il_cli_fail(&err) : IL_EXIT_OK;
}

/* `idlelab help CMD` on a terminal: man idlelab-CMD when that page is installed; false when it is not */
static bool open_man(const char *name)
{
	char page[64];
	pid_t pid;
	int st = 1;

	if (!isatty(STDOUT_FILENO) || snprintf(page, sizeof(page), "idlelab-%s", name) >= (int)sizeof(page))
		return false;
	/* man -w: is the page there? (quietly; no man at all is a no) */
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execlp("man", "man", "-w", page, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return false;
	fflush(stdout);
	execlp("man", "man", page, (char *)NULL);
	return false;
}

int main(int argc, char **argv)
{
	const struct il_cmd *c;

	/* everything printed from here on passes the one sanitizer (what hosts, repositories and servers wrote) */
	il_cli_screen_open();
	if (argc < 2) {
		usage(stderr);
		return IL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return IL_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("idlelab %s\n", IL_VERSION);
		return IL_EXIT_OK;
	}
	if (!strcmp(argv[1], "--dump-options")) {
		struct il_err err = { 0 };
		json_t *all;

		if (il_cli_describe_all(&all, commands, &err) || il_cli_output_json(NULL, all, &err))
			return il_cli_fail(&err);
		return IL_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		char *hargv[3];

		if (argc < 3) {
			usage(stdout);
			return IL_EXIT_OK;
		}
		if (!strcmp(argv[2], "--man") || !strcmp(argv[2], "--completion"))
			return generate(argv[2], argc > 3 ? argv[3] : NULL);
		c = find(argv[2]);
		if (!c) {
			fprintf(stderr, "idlelab: '%s' is not a command; see 'idlelab --help'\n", argv[2]);
			return IL_EXIT_USAGE;
		}
		if (open_man(c->name))
			return IL_EXIT_FAIL;
		hargv[0] = argv[2];
		hargv[1] = (char *)"--help";
		hargv[2] = NULL;
		return c->fn(2, hargv);
	}
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "idlelab: '%s' is not a command; see 'idlelab --help'\n", argv[1]);
		return IL_EXIT_USAGE;
	}
	return c->fn(argc - 1, argv + 1);
}
