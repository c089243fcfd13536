// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer target: snapshot JSON (`snapshot --json` files given to diff). */
#include "fuzz.h"
#include "idle/snapshotjson.h"

static int from_json(struct il_snapshot *s, const json_t *j, struct il_err *err)
{
	return il_snapshot_from_json(s, j, "fuzz", err);
}

FUZZ_JSON_ROUNDTRIP(struct il_snapshot, from_json, il_snapshot_to_json, il_snapshot_release)
