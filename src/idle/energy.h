/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which energy counters of a diff are the host's package energy: powercap
 * package zones only (psys, sub-zones and intel-rapl-mmio duplicates listed
 * but not counted, each with why), else hwmon energy channels. Part of the
 * diff (idle/diff.c calls it); split out because the zone rules are their
 * own concept.
 */
#ifndef IL_IDLE_ENERGY_H
#define IL_IDLE_ENERGY_H

#include "idle/diff.h"

/*
 * Fill d->zones, d->energy_source, d->has_energy and d->energy_j from the
 * two snapshots. IL_EMISMATCH when a zone or channel appeared or disappeared,
 * or a counter went backwards without a known wrap range; host names the host.
 */
int il_energy_diff(struct il_diff *d, const struct il_snapshot *before, const struct il_snapshot *after,
		   const char *host, struct il_err *err);

#endif
