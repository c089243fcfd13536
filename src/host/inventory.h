/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host inventory: hosts/<name>.json files (or the built-in `local`), parsed
 * and validated with errors that name the file and the JSON path.
 */
#ifndef IL_HOST_INVENTORY_H
#define IL_HOST_INVENTORY_H

#include <stdbool.h>

#include <jansson.h>

#include "host/boot.h"
#include "util/str.h"

enum il_hostkey_policy { IL_HOSTKEY_STRICT, IL_HOSTKEY_ACCEPT_NEW };

struct il_host_cfg {
	char *name;
	bool local;               /* the built-in `local` host: this machine, no SSH */
	char *address;
	int port;                 /* 0: from ~/.ssh/config, else 22 */
	char *user;               /* NULL: from ~/.ssh/config, else root */
	char *identity;           /* key file; NULL: ssh-agent and default keys */
	char *known_hosts;        /* default ~/.ssh/known_hosts */
	enum il_hostkey_policy host_key_policy;
	bool sudo;                /* privileged steps through `sudo -n` when not root */
	char *cpus;               /* CPU list to measure; NULL: all online */
	double quiesce_s;
	int connect_timeout_s;
	int command_timeout_s;
	char *path;               /* the file it came from (NULL for built-in local) */
	struct il_boot_cfg boot;  /* booting built kernels (method none: this host cannot) */
};

/* The inventory directory: dir if given, else $IDLELAB_HOSTS, else "./hosts". Borrowed. */
const char *il_hosts_dir(const char *dir);

/* Load host `name` from dir (see il_hosts_dir). "local" is built in. */
int il_host_load(struct il_host_cfg *out, const char *dir, const char *name, struct il_err *err);

/* Parse one host object (label names the source in errors). */
int il_host_from_json(struct il_host_cfg *out, const json_t *j, const char *name, const char *label,
		      struct il_err *err);

/* Host names in dir (from *.json), sorted, plus "local". */
int il_host_list(struct il_strlist *out, const char *dir, struct il_err *err);

/* The configuration as JSON (never contains secrets: only the identity path). */
json_t *il_host_to_json(const struct il_host_cfg *h);

void il_host_release(struct il_host_cfg *h);

#endif
