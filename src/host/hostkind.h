/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What differs per kind of host (enum il_host_kind, host/host.h), in one
 * table indexed by the kind: its name, how its transport is opened, whether a
 * run drives it by commands (one runner exec per sample, under a host lease)
 * or by jobs (LAVA: run/lavarun.c), whether it is another machine, where it
 * is and its own fields in `host show --json`. A new kind is a row here.
 */
#ifndef IL_HOST_HOSTKIND_H
#define IL_HOST_HOSTKIND_H
#include <stdbool.h>
#include <jansson.h>
#include "host/host.h"
#include "util/buf.h"

struct il_transport;

struct il_host_kind_info {
	const char *name; /* "ssh", "local", "command", "lava": host show, host check, the probe and the journal */
	bool commands;    /* reached by commands (exec, push, pull); false: only through LAVA jobs (run/lavarun.c) */
	bool remote;      /* another machine: `host show` says its sudo and connect/command timeouts */
	bool address;     /* its host file must name an address (a lab host's comes from the running instance) */
	/* its transport (host/transport.h); a kind without commands returns IL_EUNSUPPORTED saying why */
	int (*open)(struct il_transport **out, const struct il_host_cfg *cfg, struct il_err *err);
	void (*where)(const struct il_host_cfg *h, struct il_buf *out);   /* il_host_where */
	int (*to_json)(const struct il_host_cfg *h, json_t *o);          /* its own fields; NULL: none; -1: no memory */
};
extern const struct il_host_kind_info il_host_kinds[IL_HOST_NKINDS];

#endif
