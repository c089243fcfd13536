/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hosts that may be lab instances: the one entry point for loading a host
 * (inventory files through host/host.h, then a file with "labvm" gets
 * its address, port and keys from the running instance; "labvm" and
 * "labvm-NAME" without a file are the running instances themselves), and
 * the lab's part of booting a lab host (il_lab_boot, for il_boot_opts.lab).
 */
#ifndef IL_LAB_LABHOST_H
#define IL_LAB_LABHOST_H
#include "host/boot.h"
#include "host/host.h"
#include "util/paths.h"

/*
 * Load host `name` (paths as for il_host_load; paths->cache_dir holds the lab
 * instances). out is released with il_host_release, also after a failure.
 */
int il_lab_host_load(struct il_host_cfg *out, const struct il_paths *paths, const char *name, struct il_err *err);

/*
 * The kind of a loaded host, as the journal's host record says it: "lab" for
 * the emulated lab VM (the built-in "labvm"/"labvm-NAME", or a host file
 * with "labvm": both come through il_lab_host with boot.lab set), else the
 * host's transport (il_host_kind_name: "local", "ssh", "command", "lava"). Never from
 * the host's name.
 */
const char *il_lab_host_kind(const struct il_host_cfg *h);

/*
 * After a connection to lab host h failed with code (err says how): when the
 * instance's QEMU is no longer running, say so in err with the console's
 * last lines (a guest panic ends QEMU, panic=-1 with -no-reboot, and then a
 * refused port is all the connection knows). Returns code; err unchanged for
 * a host that is no lab instance or whose QEMU still runs.
 */
int il_lab_host_explain(const struct il_host_cfg *h, const char *cache_dir, int code, struct il_err *err);

/* Instance control for il_boot_run (il_boot_opts.lab). */
extern const struct il_boot_lab il_lab_boot;

#endif
