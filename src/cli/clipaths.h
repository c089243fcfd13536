/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where idlelab's files are: the one place that reads the environment for
 * paths (IDLELAB_HOSTS, IDLELAB_WORKLOADS, IDLELAB_CACHE, XDG_CONFIG_HOME,
 * XDG_CACHE_HOME, HOME, IDLELAB_SSH_CONFIG, IDLELAB_WORKLOAD_BIN) and the
 * installation's own directories, once per command, into a struct il_paths
 * (util/paths.h) that library calls take.
 *
 * Host files and workload definitions are found through a search path
 * (util/search.h), earlier directories shadowing later ones:
 *   ./hosts, ./workloads              (a checkout or a lab directory)
 *   $XDG_CONFIG_HOME/idlelab/KIND     (default ~/.config/idlelab/KIND: the user's)
 *   SYSCONF/KIND                      (/etc/idlelab/KIND: the system's)
 *   PREFIX/share/idlelab/workloads    (the installed definitions)
 * where PREFIX is the installation's (the binary in PREFIX/bin) and SYSCONF
 * is /etc/idlelab for PREFIX /usr and /usr/local, else PREFIX/etc/idlelab.
 * A directory not owned by this user or root, or writable by others, is
 * left out (idlelab runs as root on shared machines). --hosts-dir,
 * --workloads-dir and $IDLELAB_HOSTS, $IDLELAB_WORKLOADS replace the search
 * path (each may itself be a search path, DIR:DIR).
 */
#ifndef IL_CLI_CLIPATHS_H
#define IL_CLI_CLIPATHS_H
#include <limits.h>
#include <stdbool.h>

#include "cli/opt.h"
#include "util/err.h"
#include "util/paths.h"

/*
 * Fill out: each option given (not NULL or "") wins, else its environment
 * variable, else the default (see above). out: il_paths_release.
 */
int il_cli_paths(struct il_paths *out, const char *hosts_dir, const char *workloads_dir, const char *cache_dir,
		 struct il_err *err);

/*
 * The cache directory: dir if given, else $IDLELAB_CACHE, else
 * $XDG_CACHE_HOME/idlelab, else ~/.cache/idlelab, with ~ from $HOME or, when
 * unset, the password database (never /tmp). Caller frees; NULL: memory ran out.
 */
char *il_cli_cache_dir(const char *dir);

/* Which search path. */
enum il_cli_kind { IL_CLI_HOSTS, IL_CLI_WORKLOADS };

/* One candidate directory of a search path, for `idlelab paths`. */
struct il_cli_source {
	char *dir;
	const char *origin;   /* "--hosts-dir", "$IDLELAB_HOSTS", "working directory", "user", "system", "installed" */
	bool used;            /* in the search path */
	char why[PATH_MAX + 80]; /* when not: "missing", "DIR: owned by uid 1000 (not root or this user)", ... */
};

/*
 * The candidates of kind's search path in order, opt being its option's
 * value (NULL: none). *out (il_cli_sources_free) holds *n of them. IL_ENOMEM.
 */
int il_cli_sources(struct il_cli_source **out, size_t *n, enum il_cli_kind kind, const char *opt);
void il_cli_sources_free(struct il_cli_source *s, size_t n);

/*
 * The installation's prefix (the binary is PREFIX/bin/idlelab) into out, ""
 * when the binary is not installed (run from a checkout). Returns out.
 */
const char *il_cli_prefix(char *out, size_t n);

/* The directory options a subcommand takes; its il_opt entries point here. */
struct il_cli_dirs {
	const char *hosts, *workloads, *cache;
	const char *workload_bin; /* --workload-bin: il_cli_begin puts it in il_paths.workload_bin */
	bool show_refused;        /* a cache root may not trust is shown (idlelab paths), not an error */
};

/* Those options, for subcommands that describe them alike. */
#define IL_CLI_OPT_HOSTS_DIR(d) \
	IL_OPT_STR(0, "hosts-dir", &(d)->hosts, "DIR", "inventory directory (default $IDLELAB_HOSTS or the search path: idlelab paths)")
#define IL_CLI_OPT_WORKLOADS_DIR(d) \
	IL_OPT_STR(0, "workloads-dir", &(d)->workloads, "DIR", "workload definitions (default $IDLELAB_WORKLOADS or the search path)")
#define IL_CLI_OPT_CACHE(d) IL_OPT_STR(0, "cache", &(d)->cache, "DIR", "cache directory (default ~/.cache/idlelab)")
#define IL_CLI_OPT_WORKLOAD_BIN(d) \
	IL_OPT_STR(0, "workload-bin", &(d)->workload_bin, "DIR", "idlelab's own workload binaries, DIR/<arch>/ (default: idlelab paths)")
/* the three a command that measures takes (run, bisect, nightly, try): three table rows */
#define IL_CLI_OPTS_MEASURE(d) IL_CLI_OPT_HOSTS_DIR(d), IL_CLI_OPT_WORKLOADS_DIR(d), IL_CLI_OPT_WORKLOAD_BIN(d)

/* A struct il_paths released when it goes out of scope (a subcommand's). */
#define IL_CLI_PATHS(name) struct il_paths name __attribute__((cleanup(il_paths_release))) = { 0 }

#endif
