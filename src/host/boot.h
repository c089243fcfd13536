/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Booting a built kernel on a host and proving that it runs: the `boot` and
 * `power_cycle` sections of a host file; deploy (image, modules.tar, initrd
 * over SFTP), trigger (restart the lab guest, kexec, a one-shot GRUB entry,
 * or the user's own command), wait for a new boot (boot_id changes, SSH
 * answers, the probe passes), verify `uname -r` and `/proc/version`, and the
 * power-cycle hook (a command here, or an HTTP request made with libcurl)
 * when the host does not come back. Every step is returned with timestamps.
 */
#ifndef IL_HOST_BOOT_H
#define IL_HOST_BOOT_H
#include <signal.h>
#include <stdbool.h>
#include <jansson.h>
#include "util/err.h"
#include "util/str.h"

struct il_host_cfg;
struct il_transport;

enum il_boot_method { IL_BOOT_NONE, IL_BOOT_LABVM, IL_BOOT_KEXEC, IL_BOOT_GRUB, IL_BOOT_COMMAND };

struct il_power_cycle {
	struct il_strlist argv;   /* a command run on this machine (templated like boot.argv), or */
	char *url;                /* an HTTP(S) request made with libcurl */
	char *url_shown;          /* url with its password and query hidden: all that is printed or journaled */
	char *method;             /* HTTP method; default POST */
	char *body;               /* request body; NULL: none */
	struct il_strlist headers;
	int timeout_s;            /* for the hook itself; default 30 */
	int wait_s;               /* then wait this long for the host; 0: the boot timeout */
};

struct il_boot_cfg {
	enum il_boot_method method;
	struct il_strlist argv;   /* command: argv template ({image} {modules} {initrd} {release} {host} {address} {port}) */
	struct il_strlist back_argv; /* command: back to the host's own kernel; empty: `reboot` on the host */
	char *cmdline;            /* kexec: kernel command line; NULL: the running one's /proc/cmdline */
	char *initrd;             /* kexec, grub-reboot: a file here, uploaded and used as the initrd */
	char *remote_dir;         /* where uploads go on the host; NULL: <idlelab's working directory>/boot */
	char *lab;                /* the host is lab instance `lab` (address, port, keys from it) */
	int timeout_s;            /* boot_timeout_s: new boot up, SSH and probe within; default 300 */
	bool has_power_cycle;
	struct il_power_cycle power_cycle;
};

/* Parse the `boot` and `power_cycle` values (either may be NULL) of host file label. */
int il_boot_cfg_parse(struct il_boot_cfg *out, const json_t *boot, const json_t *power_cycle, const char *label,
		      struct il_err *err);
void il_boot_cfg_release(struct il_boot_cfg *c);
const char *il_boot_method_name(enum il_boot_method m);
/* The configuration as JSON (for `host show` and the journal). */
json_t *il_boot_cfg_to_json(const struct il_boot_cfg *c);

/* What to boot. image == NULL: the host's own kernel (release, proc_version: what it ran before). */
struct il_boot_target {
	const char *name;         /* the plan's kernel name, for messages */
	const char *image;        /* files here (artifact directory) */
	const char *modules;      /* modules.tar or NULL */
	const char *release;      /* expected `uname -r` */
	const char *proc_version; /* expected first line of /proc/version, or NULL: the release only */
};

struct il_boot_opts {
	const char *cache_dir;                /* for lab instances */
	const volatile sig_atomic_t *cancel;  /* stop waiting: IL_EINTR */
	void (*cb)(const char *step, const char *detail, double elapsed_s, void *ctx); /* progress */
	void *ctx;
};

/*
 * Boot tgt on the host described by cfg (connections are opened and closed
 * here). *steps (caller owns; set also on failure) lists {step, at,
 * elapsed_s, detail}. A host that does not come back gets the power-cycle
 * hook and a second wait; then the call fails: an infrastructure failure,
 * never a result about the kernel.
 */
int il_boot_run(const struct il_host_cfg *cfg, const struct il_boot_target *tgt, const struct il_boot_opts *o,
		json_t **steps, struct il_err *err);

/* Call the power-cycle hook of c (host names the host in messages). */
int il_boot_power_cycle(const struct il_boot_cfg *c, const char *host, const struct il_boot_opts *o, char **detail,
			struct il_err *err);

#endif
