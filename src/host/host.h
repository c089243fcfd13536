/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host inventory: hosts/<name>.json files (or the built-in `local`), parsed
 * and validated (util/jfields.h) with errors that name the file and the JSON
 * path. A host is reached by one kind of transport (enum il_host_kind, named
 * in one table here, opened by one table in host/transport.c): SSH, this
 * machine, or a "transport" section's argv templates (host/cmdtransport.h);
 * a host file with a "lava" section is a LAVA device type, reached through
 * LAVA jobs and never by commands (host/lava.h). A leaf parser: a host file with "labvm" gets boot.lab set and its
 * address, port and keys left for lab/labhost.h to fill from the running
 * instance (il_lab_host_load is the entry point that does both). struct
 * il_host_cfg owns its strings: il_host_release.
 */
#ifndef IL_HOST_HOST_H
#define IL_HOST_HOST_H

#include <stdbool.h>

#include <jansson.h>

#include "host/bootcfg.h"
#include "host/lava.h"
#include "util/buf.h"
#include "util/paths.h"
#include "util/strlist.h"

enum il_hostkey_policy { IL_HOSTKEY_STRICT, IL_HOSTKEY_ACCEPT_NEW };

/* How idlelab reaches a host. */
enum il_host_kind {
	IL_HOST_SSH,     /* libssh (host/ssh.c); a host file without "transport" */
	IL_HOST_LOCAL,   /* the built-in `local`: this machine, fork/exec */
	IL_HOST_COMMAND, /* "transport": argv templates run here (adb, a container shell, ssh(1)) */
	IL_HOST_LAVA,    /* "lava": a LAVA server's device type; jobs, no commands (host/lava.h) */
	IL_HOST_NKINDS
};

/* The kind's name (il_host_kinds[k].name; "?" out of range). */
const char *il_host_kind_name(enum il_host_kind k);

/*
 * A command transport's argv templates (util/template.h), the host file's
 * "transport" section; empty lists for other kinds. exec has {cmd}, push
 * {src} and {dst}, pull (optional: empty) {src} and {dst}
 * (il_cmdtransport_exec_names, il_cmdtransport_copy_names: host/cmdtransport.h).
 */
struct il_host_cmds {
	struct il_strlist exec;
	struct il_strlist push;
	struct il_strlist pull;
};

struct il_host_cfg {
	char *name;
	enum il_host_kind kind;
	char *address;            /* NULL for a command transport and a LAVA host */
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
	char *ssh_config;         /* struct il_paths.ssh_config; NULL: libssh's default */
	struct il_boot_cfg boot;  /* booting built kernels (method none: this host cannot) */
	struct il_host_cmds cmds; /* kind IL_HOST_COMMAND: the transport's templates */
	struct il_lava_cfg lava;  /* kind IL_HOST_LAVA: the "lava" section */
};

/*
 * Load host `name` from paths->hosts_dir, a search path (util/search.h; "hosts" when paths or it is NULL);
 * "local" is built in. "~/" in paths is paths->home's. A host file with
 * "labvm" comes back with boot.lab set and no address (lab/labhost.h).
 */
int il_host_load(struct il_host_cfg *out, const struct il_paths *paths, const char *name, struct il_err *err);

/* Parse one host object (label names the source in errors; paths as for il_host_load). */
int il_host_from_json(struct il_host_cfg *out, const json_t *j, const char *name, const char *label,
		      const struct il_paths *paths, struct il_err *err);

/* Host names in paths->hosts_dir's directories (from *.json), sorted, each once, plus "local". */
int il_host_list(struct il_strlist *out, const struct il_paths *paths, struct il_err *err);

/*
 * Where the host is, for a person (host list): "root@10.0.0.7:22", "this
 * machine (no SSH)", "command: adb ...", "LAVA https://lava.example device type qemu".
 */
int il_host_where(const struct il_host_cfg *h, struct il_buf *out);

/*
 * A host from "[user@]host[:port]" ("[v6]:port" too), as an audit inventory
 * line or argument names one: its name is spec, the rest a host file's
 * defaults (~/.ssh/known_hosts, strict). label names the source in errors.
 */
int il_host_from_spec(struct il_host_cfg *out, const char *spec, const char *label, const struct il_paths *paths,
		      struct il_err *err);

/*
 * Whether name is a `Host` alias in the ssh config (paths->ssh_config, else
 * paths->home's .ssh/config): a word of a Host line, patterns not counted.
 */
bool il_host_ssh_alias(const struct il_paths *paths, const char *name);

/* The lines of a plain inventory file (one "[user@]host[:port]" each; blanks and '#' comments skipped), appended. */
int il_host_list_file(struct il_strlist *out, const char *path, struct il_err *err);

/* The configuration as JSON (never contains secrets: only the identity path); caller owns; NULL: no memory left. */
json_t *il_host_to_json(const struct il_host_cfg *h);

void il_host_release(struct il_host_cfg *h);

#endif
