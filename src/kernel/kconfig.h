/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A build's config fragments against its final .config: every option a
 * fragment sets must come out with the value asked. One lab configuration
 * serves trees from 6.1 to mainline, so an option that a tree does not define
 * at all (no `config NAME` in any of its Kconfig files) is skipped and named,
 * unless the fragment says the build cannot work without it:
 *
 *   # idlelab-required: CONFIG_CPU_IDLE CONFIG_NO_HZ_IDLE ...
 *
 * (a comment to Kconfig, so the fragment stays a valid one). A required option
 * the tree lacks, and an option the tree has but the .config does not set as
 * asked (a dependency missing), are errors naming the option and fragment.
 */
#ifndef IL_KERNEL_KCONFIG_H
#define IL_KERNEL_KCONFIG_H
#include "util/err.h"
#include "util/strlist.h"

/*
 * Check config_path (the final .config) against fragments, the tree's Kconfig
 * files under src_dir telling an option it lacks from one it has. Each
 * skipped option goes to *skipped as "CONFIG_X=y (FRAGMENT)" (caller releases
 * the list). IL_EINVAL for an option not set as asked or a required one the
 * tree lacks; IL_EIO (and the file's name) when a file cannot be read.
 */
int il_kconfig_verify(const char *config_path, const char *src_dir, const struct il_strlist *fragments,
		      struct il_strlist *skipped, struct il_err *err);

/* The options (without "CONFIG_") of names that a `config`/`menuconfig` line under src_dir defines: *found[i]. */
int il_kconfig_defined(const char *src_dir, const struct il_strlist *names, bool *found, struct il_err *err);

#endif
