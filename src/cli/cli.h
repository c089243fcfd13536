/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The subcommands (their table's row and entry points: the table is main.c's)
 * and the helpers they share (cli/cli.c): reporting an il_err, a
 * subcommand's start, writing output to stdout or a file.
 */
#ifndef IL_CLI_CLI_H
#define IL_CLI_CLI_H

#include <jansson.h>

#include "cli/clipaths.h"
#include "idle/diff.h"
#include "report/idletable.h"
#include "util/buf.h"
#include "util/err.h"

/* Exit codes. */
enum { IL_EXIT_OK = 0, IL_EXIT_FAIL = 1, IL_EXIT_USAGE = 2 };

struct il_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int il_cmd_snapshot(int argc, char **argv);
int il_cmd_export(int argc, char **argv);
int il_cmd_diff(int argc, char **argv);
int il_cmd_idle_stat(int argc, char **argv);
int il_cmd_governor(int argc, char **argv);
int il_cmd_host(int argc, char **argv);
int il_cmd_workload(int argc, char **argv);
int il_cmd_run(int argc, char **argv);
int il_cmd_bisect(int argc, char **argv);
int il_cmd_runs(int argc, char **argv);
int il_cmd_show(int argc, char **argv);
int il_cmd_compare(int argc, char **argv);
int il_cmd_report(int argc, char **argv);
int il_cmd_tested_by(int argc, char **argv);
int il_cmd_try(int argc, char **argv);
int il_cmd_history(int argc, char **argv);
int il_cmd_alert(int argc, char **argv);
int il_cmd_nightly(int argc, char **argv);
int il_cmd_series(int argc, char **argv);
int il_cmd_kernel(int argc, char **argv);
int il_cmd_lab(int argc, char **argv);
int il_cmd_audit(int argc, char **argv);
int il_cmd_lava(int argc, char **argv);
int il_cmd_paths(int argc, char **argv);

/* Print "idlelab: error: MSG" for err; returns IL_EXIT_FAIL. */
int il_cli_fail(const struct il_err *err);

/* Write text to path (atomically) or stdout when path is NULL or "-". */
/*
 * A line for the operator on stderr: raw (may be NULL: idlelab's own "\r"
 * or erase-line) as it is, then the formatted text through the one
 * sanitizer (newlines kept): messages that quote hosts, servers, build logs.
 */
void il_cli_note(const char *raw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int il_cli_output(const char *path, const char *text, size_t len, struct il_err *err);

/* Serialise j (indented, keys in insertion order) and output it as above. Steals j. */
int il_cli_output_json(const char *path, json_t *j, struct il_err *err);

/*
 * A diff as JSON or as the table broken down by `by`, to path or stdout; with
 * a trace frame (frame non-NULL, len bytes: idle/trace.h), the trace reduced
 * over the diff's window too: "trace" in the JSON, a short table after the
 * diff's. host names the trace's source in errors.
 */
int il_cli_output_diff(const char *path, const struct il_diff *d, bool json, enum il_diff_by by, struct il_err *err);
int il_cli_output_diff_trace(const char *path, const struct il_diff *d, const char *frame, size_t len,
			     const char *host, bool json, enum il_diff_by by, struct il_err *err);

/*
 * A subcommand's start (il_cli_dirs in cli/clipaths.h): il_opt_parse argv with opts and usage, then
 * il_cli_paths into *paths from dirs (which the parse fills). Returns -1 to
 * go on, else the exit code to return now (--help, a usage error, or a path
 * error, already printed).
 */
int il_cli_begin(int argc, char **argv, const struct il_opt *opts, const char *const *usage,
		 const struct il_cli_dirs *dirs, struct il_paths *paths, int *nargs);

#endif
