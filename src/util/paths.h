/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The directories and files idlelab's library uses, resolved once by the CLI
 * (cli/paths.c: options, then the environment, then defaults) and passed
 * down, so that no library code reads the environment. Every library call
 * taking a const struct il_paths * also takes NULL: the defaults without the
 * environment (./hosts, ./workloads, no cache, "~/" left as is, libssh's own
 * ~/.ssh/config, build/workloads). The struct owns its strings:
 * il_paths_release frees them.
 */
#ifndef IL_UTIL_PATHS_H
#define IL_UTIL_PATHS_H

struct il_paths {
	char *hosts_dir;      /* the inventory: --hosts-dir, $IDLELAB_HOSTS, "hosts" */
	char *workloads_dir;  /* workload definitions: --workloads-dir, $IDLELAB_WORKLOADS, "workloads" */
	char *cache_dir;      /* --cache, $IDLELAB_CACHE, $XDG_CACHE_HOME/idlelab, ~/.cache/idlelab */
	char *home;           /* $HOME, for "~/" in host files; NULL: unset ("~/" stays as written) */
	char *ssh_config;     /* $IDLELAB_SSH_CONFIG; NULL: libssh's default (~/.ssh/config) */
	char *workload_bin;   /* $IDLELAB_WORKLOAD_BIN: idlelab's own workload binaries; NULL: build/workloads */
};

void il_paths_release(struct il_paths *p);

/* p's cache directory; without one (p or it NULL) ".idlelab-cache" in the working directory. Borrowed. */
const char *il_paths_cache_dir(const struct il_paths *p);

#endif
