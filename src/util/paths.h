/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The directories and files idlelab's library uses, resolved once by the CLI
 * (cli/clipaths.c: options, then the environment, then defaults) and passed
 * down, so that no library code reads the environment. Every library call
 * taking a const struct il_paths * also takes NULL: the defaults without the
 * environment (./hosts, ./workloads, no cache, "~/" left as is, libssh's own
 * ~/.ssh/config, build/workloads). The struct owns its strings:
 * il_paths_release frees them.
 */
#ifndef IL_UTIL_PATHS_H
#define IL_UTIL_PATHS_H

struct il_paths {
	char *hosts_dir;      /* the inventory, a search path (util/search.h): --hosts-dir, $IDLELAB_HOSTS, else
			       * ./hosts, $XDG_CONFIG_HOME/idlelab/hosts, /etc/idlelab/hosts (cli/clipaths.c) */
	char *workloads_dir;  /* workload definitions, a search path: --workloads-dir, $IDLELAB_WORKLOADS, else
			       * ./workloads, the user's, /etc/idlelab/workloads, PREFIX/share/idlelab/workloads */
	char *cache_dir;      /* --cache, $IDLELAB_CACHE, $XDG_CACHE_HOME/idlelab, ~/.cache/idlelab */
	char *cache_refused;  /* why root may not trust cache_dir (util/trust.h), or NULL: commands refuse to run */
	char *home;           /* $HOME, for "~/" in host files; NULL: unset ("~/" stays as written) */
	char *ssh_config;     /* $IDLELAB_SSH_CONFIG; NULL: libssh's default (~/.ssh/config) */
	char *workload_bin;   /* $IDLELAB_WORKLOAD_BIN, else PREFIX/lib/idlelab/workloads when installed and not
			       * in a checkout: idlelab's own workload binaries; NULL: build/workloads */
};

void il_paths_release(struct il_paths *p);

/* p's cache directory; without one (p or it NULL) ".idlelab-cache" in the working directory. Borrowed. */
const char *il_paths_cache_dir(const struct il_paths *p);

#endif
