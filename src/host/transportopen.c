// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Opening a host's transport (il_transport_open, host/transport.h): the kind
 * table (host/hostkind.h) says which implementation. Above the kinds and the
 * table, so that neither the kinds (host/ssh.c, host/cmdtransport.c,
 * host/transportlocal.c) nor what they share (host/transport.c) ever calls
 * back up into it.
 */
#include "host/hostkind.h"
#include "host/transport.h"

int il_transport_open(struct il_transport **out, const struct il_host_cfg *cfg, struct il_err *err)
{
	*out = NULL;
	if ((unsigned)cfg->kind >= IL_HOST_NKINDS)
		return il_err_set(err, IL_EINVAL, "host '%s': unknown kind of transport", cfg->name);
	return il_host_kinds[cfg->kind].open(out, cfg, err);
}
