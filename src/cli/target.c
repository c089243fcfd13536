// SPDX-License-Identifier: GPL-2.0-or-later
/* Opening the local or remote sysfs for a subcommand. */
#include "cli/target.h"
#include "cli/clipaths.h"
#include "lab/labhost.h"

#include <string.h>

int il_target_open(struct il_target *tg, const char *host, const char *root, const char *hosts_dir,
		   struct il_err *err)
{
	IL_CLI_PATHS(paths);
	int r;

	memset(tg, 0, sizeof(*tg));
	if (!host || (!strcmp(host, "local") && root && strcmp(root, "/"))) {
		if ((r = il_sysfs_local_init(&tg->local, root, err)))
			return r;
		tg->fs = &tg->local.ops;
		return 0;
	}
	if ((r = il_cli_paths(&paths, hosts_dir, NULL, NULL, err)) || (r = il_lab_host_load(&tg->cfg, &paths, host, err)))
		return r;
	if ((r = il_transport_open(&tg->t, &tg->cfg, err))) {
		il_lab_host_explain(&tg->cfg, paths.cache_dir, r, err);
		il_host_release(&tg->cfg);
		return r;
	}
	il_hostfs_init(&tg->remote, tg->t);
	tg->fs = &tg->remote.ops;
	return 0;
}

void il_target_close(struct il_target *tg)
{
	il_transport_free(tg->t);
	il_host_release(&tg->cfg);
	memset(tg, 0, sizeof(*tg));
}
