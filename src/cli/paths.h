/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where idlelab's files are: the one place that reads the environment for
 * paths (IDLELAB_HOSTS, IDLELAB_WORKLOADS, IDLELAB_CACHE, XDG_CACHE_HOME,
 * HOME, IDLELAB_SSH_CONFIG, IDLELAB_WORKLOAD_BIN), once per command, into a
 * struct il_paths (util/paths.h) that library calls take.
 */
#ifndef IL_CLI_PATHS_H
#define IL_CLI_PATHS_H
#include "cli/opt.h"
#include "util/err.h"
#include "util/paths.h"

/*
 * Fill out: each option given (not NULL or "") wins, else its environment
 * variable, else the default (see util/paths.h). out: il_paths_release.
 */
int il_cli_paths(struct il_paths *out, const char *hosts_dir, const char *workloads_dir, const char *cache_dir,
		 struct il_err *err);

/*
 * The cache directory: dir if given, else $IDLELAB_CACHE, else
 * $XDG_CACHE_HOME/idlelab, else ~/.cache/idlelab, with ~ from $HOME or, when
 * unset, the password database (never /tmp). Caller frees; NULL: out of memory.
 */
char *il_cli_cache_dir(const char *dir);

/* The directory options a subcommand takes; its il_opt entries point here. */
struct il_cli_dirs {
	const char *hosts, *workloads, *cache;
};

/* Those options, for subcommands that describe them alike. */
#define IL_CLI_OPT_HOSTS_DIR(d) \
	IL_OPT_STR(0, "hosts-dir", &(d)->hosts, "DIR", "inventory directory (default $IDLELAB_HOSTS or ./hosts)")
#define IL_CLI_OPT_WORKLOADS_DIR(d) \
	IL_OPT_STR(0, "workloads-dir", &(d)->workloads, "DIR", "workload definitions (default ./workloads)")
#define IL_CLI_OPT_CACHE(d) IL_OPT_STR(0, "cache", &(d)->cache, "DIR", "cache directory (default ~/.cache/idlelab)")

/* A struct il_paths released when it goes out of scope (a subcommand's). */
#define IL_CLI_PATHS(name) struct il_paths name __attribute__((cleanup(il_paths_release))) = { 0 }

#endif
