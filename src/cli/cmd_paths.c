// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab paths`: the search paths for host files and workload definitions, and where each definition came from. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "cli/clipaths.h"
#include "util/search.h"
#include "util/dir.h"
#include "util/str.h"
#include "util/strlist.h"
#include "util/trust.h"

static int print_sources(enum il_cli_kind kind, const char *opt, struct il_err *err)
{
	struct il_cli_source *s;
	size_t n;

	if (il_cli_sources(&s, &n, kind, opt))
		return il_err_oom(err);
	printf("%s (first wins):\n", kind == IL_CLI_HOSTS ? "hosts" : "workloads");
	for (size_t i = 0; i < n; i++)
		printf("  %-44s %-18s %s%s%s\n", s[i].dir, s[i].origin, s[i].used ? "" : "(not searched: ",
		       s[i].used ? "" : s[i].why, s[i].used ? "" : ")");
	il_cli_sources_free(s, n);
	return 0;
}

/* each name of KIND with the file that counts (or why it is refused), and the ones it shadows */
static int print_origins(const char *label, const char *search, struct il_err *err)
{
	struct il_strlist names = { 0 }, dirs = { 0 };
	int r = 0;

	if (il_search_split(&dirs, search))
		return il_err_oom(err);
	/* every name in any directory, refused ones too: this is where a user learns why one is not used */
	for (size_t d = 0; !r && d < dirs.n; d++) {
		struct il_err e = { 0 };

		if ((r = il_dir_names(&names, dirs.v[d], ".json", &e)) == IL_ENOTFOUND)
			r = 0;
	}
	il_strlist_sort(&names);
	for (size_t i = 0; !r && i < names.n; i++) {
		bool first = true;

		if (i && !strcmp(names.v[i], names.v[i - 1]))
			continue;
		for (size_t d = 0; d < dirs.n; d++) {
			char *f = il_str_dup_printf("%s/%s.json", dirs.v[d], names.v[i]), why[PATH_MAX + 80];
			FILE *fp = f ? fopen(f, "r") : NULL;

			if (fp && first && il_trust_path(f, why, sizeof(why)) == IL_EPERM)
				printf("%-10s %-18s %s (refused: %s)\n", label, names.v[i], f, why);
			else if (fp)
				printf(first ? "%-10s %-18s %s\n" : "%-10s %-18s   (shadows %s)\n", label, names.v[i], f);
			first &= !fp;
			if (fp)
				fclose(fp);
			free(f);
		}
	}
	il_strlist_release(&names);
	il_strlist_release(&dirs);
	return r ? il_err_oom(err) : 0;
}

int il_cmd_paths(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	struct il_cli_dirs dirs = { .show_refused = true };
	bool verbose = false;
	const struct il_opt opts[] = {
		IL_CLI_OPT_HOSTS_DIR(&dirs),
		IL_CLI_OPT_WORKLOADS_DIR(&dirs),
		IL_CLI_OPT_CACHE(&dirs),
		IL_OPT_BOOL('v', "verbose", &verbose, "also every host file and workload definition, with the ones it shadows"),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab paths [-v] [--hosts-dir DIR] [--workloads-dir DIR] [--cache DIR]", NULL };
	struct il_err err = { 0 };
	char prefix[PATH_MAX];
	int nargs, r;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (nargs)
		return il_opt_error(opts, usage, "paths takes no arguments");
	if (print_sources(IL_CLI_HOSTS, dirs.hosts, &err) || print_sources(IL_CLI_WORKLOADS, dirs.workloads, &err))
		return il_cli_fail(&err);
	printf("installed in:       %s\n", *il_cli_prefix(prefix, sizeof(prefix)) ? prefix : "(not installed: run from a checkout)");
	printf("workload binaries:  %s\n", paths.workload_bin ? paths.workload_bin : "build/workloads (a checkout's, built on demand)");
	printf("cache:              %s%s%s%s\n", paths.cache_dir, paths.cache_refused ? " (refused: " : "",
	       paths.cache_refused ? paths.cache_refused : "", paths.cache_refused ? ")" : "");
	printf("reports:            reports (in the working directory, unless --out or --dir)\n");
	if (verbose && (print_origins("host", paths.hosts_dir, &err) || print_origins("workload", paths.workloads_dir, &err)))
		return il_cli_fail(&err);
	return IL_EXIT_OK;
}
