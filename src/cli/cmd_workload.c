// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab workload list|show|parse`: workload definitions and score parsers. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/clipaths.h"
#include "cli/opt.h"
#include "workload/workloadjson.h"
#include "workload/parse.h"

int il_cmd_workload(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	struct il_cli_dirs dirs = { 0 };
	bool json = false, verbose = false;
	const char *parser = NULL;
	const struct il_opt opts[] = {
		IL_CLI_OPT_WORKLOADS_DIR(&dirs),
		IL_OPT_BOOL(0, "json", &json, "JSON output (parse)"),
		IL_OPT_BOOL('v', "verbose", &verbose, "list: also the file each definition comes from"),
		IL_OPT_STR(0, "parser", &parser, "P", "parse with parser P, not the definition's (an output saved with "
			   "other options, e.g. cyclictest without --nsecs: cyclictest)"),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab workload list [-v] [--workloads-dir DIR]",
					     "idlelab workload show NAME",
					     "idlelab workload parse NAME FILE [--json] [--parser P]", NULL };
	struct il_err err = { 0 };
	struct il_workload w;
	int nargs, r;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (!nargs)
		return il_opt_error(opts, usage, "missing action (list, show or parse)");
	if (!strcmp(argv[1], "list") && nargs == 1) {
		struct il_strlist names = { 0 };

		if (il_workload_list(&names, paths.workloads_dir, &err))
			return il_cli_fail(&err);
		for (size_t i = 0; i < names.n; i++) {
			if (il_workload_load(&w, paths.workloads_dir, names.v[i], &err)) {
				printf("%-16s (invalid: %s)\n", names.v[i], err.msg);
				continue;
			}
			if (verbose)
				printf("%-16s %s\n", w.name, w.path);
			else
				printf("%-16s %s%s\n", w.name, w.builtin ? "[own] " : "", w.description);
			il_workload_release(&w);
		}
		il_strlist_release(&names);
		return IL_EXIT_OK;
	}
	if (!strcmp(argv[1], "show") && nargs == 2) {
		if (il_workload_load(&w, paths.workloads_dir, argv[2], &err))
			return il_cli_fail(&err);
		r = il_cli_output_json(NULL, il_workload_to_json(&w), &err);
		il_workload_release(&w);
		return r ? il_cli_fail(&err) : IL_EXIT_OK;
	}
	if (!strcmp(argv[1], "parse") && nargs == 3) {
		struct il_buf b = IL_BUF_INIT;
		json_t *m = NULL;

		if (il_workload_load(&w, paths.workloads_dir, argv[2], &err))
			return il_cli_fail(&err);
		if (parser && !il_parse_exists(parser)) {
			il_workload_release(&w);
			return il_opt_error(opts, usage, "--parser: no parser named '%s'", parser);
		}
		if (parser) {
			free(w.parser);
			w.parser = strdup(parser);
		}
		r = w.parser ? il_buf_read_file(&b, argv[3], (size_t)256 << 20, &err) : il_err_oom(&err);
		if (!r)
			r = il_workload_parse(&w, il_buf_str(&b), b.len, argv[3], &m, &err);
		il_buf_release(&b);
		if (!r && json) {
			r = il_cli_output_json(NULL, m, &err);
			m = NULL;
		} else if (!r) {
			const char *key;
			json_t *v;

			/* every value, with its metric's unit: a pattern metric has one per thread */
			json_object_foreach(m, key, v)
				for (size_t i = 0; i < w.nmetrics; i++)
					if (il_workload_metric_matches(&w.metrics[i], key)) {
						printf("%-24s %14.6g %s (%s is better)\n", key, json_number_value(v),
						       w.metrics[i].unit, w.metrics[i].higher_better ? "higher" : "lower");
						break;
					}
		}
		json_decref(m);
		il_workload_release(&w);
		return r ? il_cli_fail(&err) : IL_EXIT_OK;
	}
	return il_opt_error(opts, usage, "unknown action or wrong arguments: '%s'", argv[1]);
}
