// SPDX-License-Identifier: GPL-2.0-or-later
/* struct il_paths: owned strings (resolution is cli/clipaths.c). */
#include "util/paths.h"
#include "util/str.h"

#include <stdlib.h>
#include <string.h>

void il_paths_release(struct il_paths *p)
{
	IL_FREE_ALL(p->hosts_dir, p->workloads_dir, p->cache_dir, p->cache_refused, p->home, p->ssh_config, p->workload_bin);
	memset(p, 0, sizeof(*p));
}

const char *il_paths_cache_dir(const struct il_paths *p)
{
	return p && p->cache_dir ? p->cache_dir : ".idlelab-cache";
}
