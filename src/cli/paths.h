/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where idlelab's files are: the one place that reads the environment for
 * paths (IDLELAB_HOSTS, IDLELAB_WORKLOADS, IDLELAB_CACHE, XDG_CACHE_HOME,
 * HOME, IDLELAB_SSH_CONFIG, IDLELAB_WORKLOAD_BIN), once per command, into a
 * struct il_paths (util/paths.h) that library calls take.
 */
#ifndef IL_CLI_PATHS_H
#define IL_CLI_PATHS_H
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

/* A struct il_paths released when it goes out of scope (a subcommand's). */
#define IL_CLI_PATHS(name) struct il_paths name __attribute__((cleanup(il_paths_release))) = { 0 }

#endif
