/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The built-in lab hosts: a kernel built by the kernel stage from a tree
 * (lab/labtree.h: Debian's linux-source-6.12 unless told), an initramfs from Debian packages of the guest's
 * architecture, and firmware that declares real cpuidle states, booted under
 * QEMU (TCG) with SSH on a free loopback port. arm64: QEMU's virt device tree
 * with PSCI idle states (psci_idle). x86_64: q35 with an SSDT giving the
 * processors a _CST (acpi_idle: POLL + halt states, lab/ssdt.h), one per
 * idle table. What differs per architecture is declared in lab/labarch.h.
 * Builds are cached; several labs (instances) may run at once; only the QEMU
 * process a lab started is ever stopped (by its PID, checked against its
 * command line).
 */
#ifndef IL_LAB_LAB_H
#define IL_LAB_LAB_H
#include <jansson.h>
#include "host/host.h"
#include "lab/labarch.h"
#include "util/err.h"
#include "util/progress.h"

struct il_lab_opts {
	const char *cache_dir;    /* struct il_paths.cache_dir */
	const char *src_dir;      /* idlelab's source tree (hosts/labvm, workloads); NULL: "." */
	const char *tree;         /* the kernel tree to build (lab/labtree.h); NULL: IL_LAB_TREE_DEFAULT */
	const char *arch;         /* "arm64", "x86_64"; NULL: the instance name's (labarch.h) */
	const char *name;         /* instance name; NULL: the architecture's default ("labvm", "x86") */
	const char *table;        /* up, x86_64: the idle table of idle-tables.json; NULL: "default" */
	int cpus;                 /* 0: 2 */
	int mem_mb;               /* 0: 512 */
	const char *image;        /* lab up: boot this kernel image instead of the lab's own */
	int timeout_s;            /* lab up: SSH must answer within; 0: 180 */
	il_progress_fn progress;  /* the lab kernel's compile progress; NULL: none */
	void *progress_ctx;
};

typedef void (*il_lab_cb)(const char *step, double elapsed_s, void *ctx);

/*
 * The architecture and instance name opts mean (--arch x86_64 --name k is
 * instance "x86-k", host labvm-x86-k); *instance: caller frees. IL_EINVAL for
 * an unknown architecture or a name of another architecture's.
 */
int il_lab_resolve(const struct il_lab_opts *o, enum il_lab_arch *arch, char **instance, struct il_err *err);

/* Build (or find cached) everything the lab boots; *dir (caller frees) holds the image, initramfs, firmware, keys. */
int il_lab_build(const struct il_lab_opts *o, il_lab_cb cb, void *ctx, char **dir, struct il_err *err);

/*
 * The plan's "build" object that makes the lab kernel of architecture a
 * (allnoconfig + SRC_DIR/hosts/<dir>/kernel.config, its target, its cross
 * compiler): a kernel variant built with it boots on that lab. Caller owns;
 * NULL: no memory left. il_lab_build_json_of: the same for a lab instance,
 * from the source tree it was brought up from (its state.json), else the
 * working directory's.
 */
json_t *il_lab_build_json(enum il_lab_arch a, const char *src_dir);
int il_lab_build_json_of(const char *cache_dir, const char *instance, json_t **out, struct il_err *err);

/* Boot the lab (building it first if needed); *state (caller owns) describes the running instance. */
int il_lab_up(const struct il_lab_opts *o, il_lab_cb cb, void *ctx, json_t **state, struct il_err *err);

/* Stop the instance: poweroff over SSH, then its QEMU PID. Not running is not an error. */
int il_lab_down(const struct il_lab_opts *o, struct il_err *err);

/*
 * {"name", "host", "arch", "state": "running"|"stopped"|"crashed", "pid",
 * "port", "run_dir", "console_tail", "image", "table", "kernel" (its tree:
 * lab/labtree.h)}
 */
int il_lab_status(const struct il_lab_opts *o, json_t **out, struct il_err *err);

/* The instance's directory (console.log, known_hosts, state.json); caller frees; NULL for a bad name. */
char *il_lab_run_dir(const struct il_lab_opts *o);

/*
 * Host configuration of a running instance (the built-in host "labvm"); out
 * is released with il_host_release. Loading hosts: lab/labhost.h.
 */
int il_lab_host(struct il_host_cfg *out, const char *cache_dir, const char *name, struct il_err *err);

#endif
