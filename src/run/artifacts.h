/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Publishing a LAVA job's images (docs/lava.md): what the worker fetches is
 * a URL. One given as a URL passes as it is; a local file is copied once,
 * content-addressed (artifact_dir/<16 hex digits of its SHA-256>/<name>),
 * and named under the host's artifact_url. The run loop (run/lavarun.c) asks
 * for the URLs; where and how the bytes are kept is this file's.
 */
#ifndef IL_RUN_ARTIFACTS_H
#define IL_RUN_ARTIFACTS_H

#include <stdbool.h>

#include "host/lava.h"
#include "util/err.h"

/* The URLs of one job's images; NULL where the job deploys none. */
struct il_artifacts_urls {
	char *kernel, *ramdisk, *dtb, *modules;
};

void il_artifacts_urls_release(struct il_artifacts_urls *u);

/*
 * Fill u with the URLs of one kernel's images: image (else the host's
 * lava.images.kernel) unless u->kernel is already set (a kernel that is not
 * built yet, named by the caller), the host's ramdisk and dtb, modules (else
 * the host's). A local file is copied into lc->artifact_dir when its copy
 * there is missing or its bytes differ (dry: only named, nothing copied).
 * IL_EINVAL for a local file and no artifact_dir, IL_EPERM when artifact_dir
 * is not a directory of ours that only we can write (another user could swap
 * what LAVA deploys), IL_EIO, IL_ENOMEM; on error u is released.
 */
int il_artifacts_publish_images(const struct il_lava_cfg *lc, const char *image, const char *modules, bool dry,
				struct il_artifacts_urls *u, struct il_err *err);

#endif
