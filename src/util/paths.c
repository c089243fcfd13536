// SPDX-License-Identifier: GPL-2.0-or-later
/* struct il_paths: owned strings (resolution is cli/paths.c). */
#include "util/paths.h"

#include <stdlib.h>
#include <string.h>

void il_paths_release(struct il_paths *p)
{
	free(p->hosts_dir);
	free(p->workloads_dir);
	free(p->cache_dir);
	free(p->home);
	free(p->ssh_config);
	free(p->workload_bin);
	memset(p, 0, sizeof(*p));
}

const char *il_paths_cache_dir(const struct il_paths *p)
{
	return p && p->cache_dir ? p->cache_dir : ".idlelab-cache";
}
