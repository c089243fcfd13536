/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * idlelab's own workloads (workloads/src: periodic, pingpong, sleeper): where
 * a checkout keeps their static binaries (build/workloads/<arch>/) and
 * building them for a host's architecture on demand, through the Makefile's
 * `workloads` rule, the one place that knows how they are compiled.
 */
#ifndef IL_WORKLOAD_OWN_H
#define IL_WORKLOAD_OWN_H
#include "util/err.h"

/* Binaries directory of a checkout, relative to src_dir. */
#define IL_OWN_BIN_DIR "build/workloads"

/*
 * Build the own workloads of the checkout src_dir (NULL: ".") for arch
 * (`uname -m` of the host: x86_64, aarch64, ...): `make -s -C src_dir
 * workloads ARCH=arch`, which cross-compiles with <arch>-linux-gnu-gcc when
 * arch is not this machine's. IL_ENOTFOUND when src_dir is no idlelab
 * checkout; IL_ECHILD with the compiler's words when the build fails.
 */
int il_own_build(const char *src_dir, const char *arch, struct il_err *err);

#endif
