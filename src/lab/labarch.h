/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lab's architectures, declared once: what QEMU machine, kernel build,
 * Debian packages and firmware description each lab kind is made of, how
 * its instances are named, and what reports must say of numbers measured
 * on it. Indexed by enum il_lab_arch (lab/lab.c builds and boots from it;
 * report/ takes the caveat by the guest's `uname -m`).
 *
 * Instance names carry the architecture, so a host name alone finds its
 * lab: the arm64 lab's instances are "labvm" (host labvm) and NAME (host
 * labvm-NAME); the x86_64 lab's are "x86" (host labvm-x86) and "x86-NAME"
 * (host labvm-x86-NAME).
 */
#ifndef IL_LAB_LABARCH_H
#define IL_LAB_LABARCH_H
#include <stdbool.h>
#include "util/err.h"

enum il_lab_arch { IL_LAB_ARM64, IL_LAB_X86_64, IL_LAB_NARCH };

struct il_lab_arch_info {
	const char *name;          /* --arch, state.json: "arm64", "x86_64" */
	const char *uname;         /* the guest's `uname -m` */
	const char *instance;      /* the default instance; also the prefix of named ones except arm64's */
	const char *hosts_dir;     /* in idlelab's source tree: kernel.config, packages, the idle states */
	const char *idle_file;     /* in hosts_dir: where the idle states are declared */
	const char *qemu;          /* the QEMU binary, and the Debian package that has it */
	const char *qemu_pkg;
	const char *machine;       /* -M */
	const char *cpu;           /* -cpu */
	const char *console;       /* the guest's serial console */
	const char *nic;           /* the virtio-net device for -device */
	const char *kernel_arch;   /* the kernel stage's build.arch, cross_compile and image target */
	const char *cross_compile;
	const char *target;
	const char *kernel_prefix; /* the lab kernel's name in the kernel cache: PREFIX-TAG (lab/labtree.h) */
	const char *deb_arch;      /* dpkg architecture of the initramfs' packages */
	const char *triple;        /* their multiarch library directory */
	const char *interp;        /* the dynamic loader the binaries name */
	const char *wl_arch;       /* `make workloads ARCH=` */
	const char *firmware_tools; /* what builds the firmware description (for errors) */
	const char *underneath;    /* what every idle state really is */
	const char *caveat;        /* said in every report of a run on it */
};

extern const struct il_lab_arch_info il_lab_archs[IL_LAB_NARCH];

/* "arm64"/"aarch64" or "x86_64"/"x86"/"amd64"; IL_EINVAL names the known ones. */
int il_lab_arch_parse(const char *s, enum il_lab_arch *out, struct il_err *err);

/* The architecture an instance name belongs to: "x86" and "x86-*" are x86_64, the rest arm64. */
enum il_lab_arch il_lab_arch_of_instance(const char *instance);

/*
 * The instance name for --arch ARCH --name NAME (NAME NULL: the default);
 * caller frees. IL_EINVAL when NAME belongs to another architecture.
 */
int il_lab_instance_name(enum il_lab_arch arch, const char *name, char **out, struct il_err *err);

/* The host name of an instance: "labvm" or "labvm-INSTANCE"; caller frees. */
char *il_lab_host_name(const char *instance);

/* The inverse: the instance a built-in lab host name means ("labvm", "labvm-NAME": NAME), in host; NULL: none. */
const char *il_lab_instance_of_host(const char *host);

/* The architecture whose guests report `uname -m` machine; NULL when none. */
const struct il_lab_arch_info *il_lab_arch_by_uname(const char *machine);

#endif
