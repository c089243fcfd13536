/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Booting a built kernel on a host and proving that it runs (the `boot` and
 * `power_cycle` sections: host/bootcfg.h): deploy (image, modules.tar, initrd
 * over SFTP), trigger (restart the lab guest, kexec, a one-shot GRUB entry,
 * or the user's own command), wait for a new boot (boot_id changes, SSH
 * answers, the probe passes), verify `uname -r` and `/proc/version`, and the
 * power-cycle hook (a command here, or an HTTP request: util/http.h)
 * when the host does not come back. Every step is returned with timestamps.
 */
#ifndef IL_HOST_BOOT_H
#define IL_HOST_BOOT_H
#include <signal.h>
#include <stdbool.h>
#include <jansson.h>
#include "util/err.h"

#include "host/bootcfg.h"

struct il_host_cfg;
struct il_transport;

/*
 * A lab host's instance control, given by lab/ (lab/labhost.h: il_lab_boot),
 * since host/ knows no lab. cache_dir is il_boot_opts.cache_dir.
 */
struct il_boot_lab {
	/* the running instance's connection settings (out: caller releases with il_host_release) */
	int (*host)(struct il_host_cfg *out, const char *cache_dir, const char *name, struct il_err *err);
	/* stop the instance and start it again with image (NULL: its own kernel); SSH within timeout_s */
	int (*restart)(const char *cache_dir, const char *name, const char *image, int timeout_s, struct il_err *err);
};

/* What to boot. image == NULL: the host's own kernel (release, proc_version: what it ran before). */
struct il_boot_target {
	const char *name;         /* the plan's kernel name, for messages */
	const char *image;        /* files here (artifact directory) */
	const char *modules;      /* modules.tar or NULL */
	const char *release;      /* expected `uname -r` */
	const char *proc_version; /* expected first line of /proc/version, or NULL: the release only */
};

struct il_boot_opts {
	const char *cache_dir;                /* for lab instances (struct il_paths.cache_dir) */
	const volatile sig_atomic_t *cancel;  /* stop waiting: IL_EINTR */
	void (*cb)(const char *step, const char *detail, double elapsed_s, void *ctx); /* progress */
	void *ctx;
	const struct il_boot_lab *lab;        /* lab hosts: &il_lab_boot; NULL: a lab host cannot be booted */
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
