// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * idlelab's entry point: the subcommand table, global --help/--version,
 * `help COMMAND` (the man page when one is installed and the output is a
 * terminal, as git does), the hidden generators the build uses (`help --man
 * [CMD]`, `help --completion`, `--dump-options`: cli/describe.h), and the
 * shared output helpers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/describe.h"
#include "cli/screen.h"
#include "idle/diffjson.h"
#include "idle/trace.h"
#include "report/idletable.h"
#include "util/buf.h"
#include "util/str.h"
#include "version.h"

const struct il_cmd il_commands[] = {
	{ "snapshot", cmd_snapshot, "read the cpuidle state of a host (table or JSON)" },
	{ "diff", cmd_diff, "idle metrics between two snapshots (idles, aboves, belows, miss ratio)" },
	{ "export", cmd_export, "cpuidle counters, governor and PM QoS for Prometheus (node_exporter textfile)" },
	{ "idle-stat", cmd_idle_stat, "run a command and print the idle counters over its run" },
	{ "governor", cmd_governor, "list, get or set the cpuidle governor; disable/enable idle states" },
	{ "host", cmd_host, "lab host inventory and the host probe (idle environment fingerprint)" },
	{ "workload", cmd_workload, "workload definitions; parse a saved workload output" },
	{ "run", cmd_run, "run a plan (governors x workloads x iterations) on a host, or resume one" },
	{ "bisect", cmd_bisect, "find the commit that made an idle metric worse, noise-aware (git bisect run too)" },
	{ "runs", cmd_runs, "list run directories with their status" },
	{ "show", cmd_show, "summary of a run directory: plan, host, samples by status" },
	{ "compare", cmd_compare, "compare variants (run directories or files of numbers): significance, noise, verdicts" },
	{ "report", cmd_report, "write every report format of a run into its directory (from journal.jsonl alone)" },
	{ "lab", cmd_lab, "the built-in lab hosts: arm64 or x86_64 kernels with real cpuidle states under QEMU (build, up, down, ...)" },
	{ "series", cmd_series, "show a patch series from an mbox or a public-inbox thread (by Message-ID)" },
	{ "kernel", cmd_kernel, "kernel variants of a plan: prepare (commits), build (cached, incremental), list" },
	{ "history", cmd_history, "a plan's metrics across its runs, from an SQLite index of the run journals" },
	{ "audit", cmd_audit, "fleet-wide idle efficiency audit: findings against a policy over SSH, many hosts at once" },
	{ "lava", cmd_lava, "LAVA labs: the job definitions a plan on a LAVA host submits (jobdef), the job template" },
	{ "nightly", cmd_nightly, "one nightly regression check: the tracked branch's new tip against the last good nightly" },
	{ "alert", cmd_alert, "send a regression alert (lkp-style mail over SMTP and/or a webhook) from its JSON" },
	{ "paths", cmd_paths, "where host files and workload definitions are found (search paths), and which file counts" },
	{ "tested-by", cmd_tested_by, "the Tested-by evidence block of a run, for a linux-pm reply" },
	{ "try", cmd_try, "from a posted series (Message-ID, lore URL, mbox) to a linux-pm reply: build, boot, measure, compare" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: idlelab <command> [options]\n"
		   "       idlelab help <command> | --help | --version\n\n"
		   "Test and benchmark Linux cpuidle governors.\n\ncommands:\n");
	for (const struct il_cmd *c = il_commands; c->name; c++)
		fprintf(f, "    %-12s %s\n", c->name, c->summary);
}

static const struct il_cmd *find(const char *name)
{
	for (const struct il_cmd *c = il_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int il_cli_fail(const struct il_err *err)
{
	char msg[sizeof(err->msg)];

	/* messages quote files, hosts and mail: their control bytes must not act on the terminal */
	il_str_lcpy(msg, err->msg[0] ? err->msg : il_strerror(err->code), sizeof(msg));
	fprintf(stderr, "idlelab: error: %s\n", il_str_sanitize(msg, true));
	return IL_EXIT_FAIL;
}

void il_cli_note(const char *raw, const char *fmt, ...)
{
	struct il_buf b = IL_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	il_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	/* idlelab's own control sequences (raw: \r, erase-line) kept; the text, from hosts and servers, sanitized */
	fprintf(stderr, "%s%s", raw ? raw : "", il_str_sanitize(b.p ? b.p : (char *)"", true));
	il_buf_release(&b);
}

int il_cli_begin(int argc, char **argv, const struct il_opt *opts, const char *const *usage,
		 const struct il_cli_dirs *dirs, struct il_paths *paths, int *nargs)
{
	struct il_err err = { 0 };
	int r;

	if ((r = il_opt_parse(argc, argv, opts, usage, nargs)))
		return r == IL_OPT_HELP ? IL_EXIT_OK : IL_EXIT_USAGE;
	if (il_cli_paths(paths, dirs->hosts, dirs->workloads, dirs->cache, &err))
		return il_cli_fail(&err);
	if (paths->cache_refused && !dirs->show_refused) {
		il_err_set(&err, IL_EPERM, "cache '%s': %s: refused (idlelab keeps fetched series and kernel trees there; "
					   "give --cache DIR or $IDLELAB_CACHE a directory only root or this user can write)",
			   paths->cache_dir, paths->cache_refused);
		il_paths_release(paths);
		return il_cli_fail(&err);
	}
	if (dirs->workload_bin && *dirs->workload_bin) {
		char *b = strdup(dirs->workload_bin);

		if (!b) {
			il_err_oom(&err);
			return il_cli_fail(&err);
		}
		free(paths->workload_bin);
		paths->workload_bin = b;
	}
	return -1;
}

int il_cli_output(const char *path, const char *text, size_t len, struct il_err *err)
{
	if (path && strcmp(path, "-"))
		return il_write_file_atomic(path, text, len, err);
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout))
		return il_err_set(err, IL_EIO, "cannot write to standard output");
	return 0;
}

int il_cli_output_json(const char *path, json_t *j, struct il_err *err)
{
	char *s;
	int r;

	if (!j)
		return il_err_oom(err);
	s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(j);
	if (!s)
		return il_err_oom(err);
	{
		size_t n = strlen(s);
		char *t = realloc(s, n + 2);

		if (!t) {
			free(s);
			return il_err_oom(err);
		}
		s = t;
		s[n] = '\n';
		s[n + 1] = '\0';
		r = il_cli_output(path, s, n + 1, err);
	}
	free(s);
	return r;
}

int il_cli_output_diff(const char *path, const struct il_diff *d, bool json, enum il_diff_by by, struct il_err *err)
{
	struct il_buf txt = IL_BUF_INIT;
	int r;

	if (json)
		return il_cli_output_json(path, il_diff_to_json(d), err);
	r = il_fmt_diff(&txt, d, by);
	if (r)
		il_err_oom(err);
	else
		r = il_cli_output(path, il_buf_str(&txt), txt.len, err);
	il_buf_release(&txt);
	return r;
}

int il_cli_output_diff_trace(const char *path, const struct il_diff *d, const char *frame, size_t len,
			     const char *host, bool json, enum il_diff_by by, struct il_err *err)
{
	json_t *t = NULL, *o;
	char *incomplete = NULL;
	struct il_buf txt = IL_BUF_INIT;
	int r;

	if (!frame)
		return il_cli_output_diff(path, d, json, by, err);
	if ((r = il_trace_reduce(frame, len, d, host, &t, &incomplete, err)))
		return r;
	if (!t) {
		r = il_err_set(err, IL_EIO, "idle trace: %s", incomplete);
		free(incomplete);
		return r;
	}
	if (json) {
		o = il_diff_to_json(d);
		if (!o || json_object_set_new(o, "trace", t)) {
			json_decref(o);
			return il_err_oom(err);
		}
		return il_cli_output_json(path, o, err);
	}
	r = il_fmt_diff(&txt, d, by) || il_fmt_trace(&txt, t) ? il_err_oom(err)
							    : il_cli_output(path, il_buf_str(&txt), txt.len, err);
	json_decref(t);
	il_buf_release(&txt);
	return r;
}

/* `help --man [CMD]`, `help --completion`: what the build installs, made from the tables */
static int generate(const char *what, const char *name)
{
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };
	int r;

	il_buf_init(&b, (size_t)4 << 20);
	r = !strcmp(what, "--man") ? il_cli_man(&b, name, &err) : il_cli_completion(&b, &err);
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

		if (il_cli_describe_all(&all, &err) || il_cli_output_json(NULL, all, &err))
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
