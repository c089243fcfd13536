// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: a host file (hosts/NAME.json), its boot and power_cycle sections included. */
#include "fuzz.h"
#include "host/host.h"

static int from_json(struct il_host_cfg *h, const json_t *j, struct il_err *err)
{
	return il_host_from_json(h, j, "fuzz", "hosts/fuzz.json", NULL, err);
}

FUZZ_JSON_ROUNDTRIP(struct il_host_cfg, from_json, il_host_to_json, il_host_release)
