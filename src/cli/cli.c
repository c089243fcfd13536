// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The helpers every subcommand shares (cli/cli.h): reporting an il_err and
 * notes on stderr through the one sanitizer, a subcommand's start (options,
 * then paths), and writing output (text, JSON, a diff with or without its
 * trace) to stdout or a file. Out of main.c so the commands use this file and
 * main.c uses the commands, never both ways.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "idle/diffjson.h"
#include "idle/trace.h"
#include "report/idletable.h"
#include "util/buf.h"
#include "util/str.h"
#include "util/jsonfile.h"

int il_cli_fail(const struct il_err *err)
{
	char msg[sizeof(err->msg)];

	/* messages quote files, hosts and mail: their control bytes must not act on the terminal */
	il_str_lcpy(msg, err->msg[0] ? err->msg : il_err_strerror(err->code), sizeof(msg));
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
		return il_buf_write_file_atomic(path, text, len, err);
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
	s = il_json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
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
	r = il_idletable_diff(&txt, d, by);
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
	r = il_idletable_diff(&txt, d, by) || il_idletable_trace(&txt, t) ? il_err_oom(err)
							    : il_cli_output(path, il_buf_str(&txt), txt.len, err);
	json_decref(t);
	il_buf_release(&txt);
	return r;
}
