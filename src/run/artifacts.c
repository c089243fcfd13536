// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The images a LAVA job deploys, published where the worker can fetch them:
 * a local file copied once, content-addressed by its SHA-256, into the
 * host's artifact_dir (a directory only we can write), named under its
 * artifact_url. Storage, apart from the run loop (run/lavarun.c) that asks
 * for the URLs.
 */
#include "run/artifacts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/sha256.h"
#include "util/str.h"

static bool is_url(const char *s)
{
	return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8) || !strncmp(s, "file://", 7);
}

/*
 * path as the worker sees it: a URL as it is; a local file copied (once,
 * content-addressed) into the host's artifact_dir/<sha256 prefix>/ and
 * named under its artifact_url (dry: only named). *url is the caller's.
 */
static int publish(const struct il_lava_cfg *lc, const char *path, bool dry, char **url, struct il_err *err)
{
	char hex[65], *dir = NULL, *dst = NULL;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct il_buf data = IL_BUF_INIT;
	struct stat st;
	int rc;

	*url = NULL;
	if (is_url(path))
		return (*url = strdup(path)) ? 0 : il_err_oom(err);
	if (!lc->artifact_dir)
		return il_err_set(err, IL_EINVAL, "'%s' is a local file, and the LAVA host has no artifact_dir to publish "
				  "it from (or give the image as a URL the worker can fetch)", path);
	if ((rc = il_sha256_file(path, hex, err)))
		return rc;
	hex[16] = 0;
	if (dry)
		return (*url = il_str_dup_printf("%s/%s/%s", lc->artifact_url, hex, base)) ? 0
											 : il_err_oom(err);
	if (!(dir = il_str_dup_printf("%s/%s", lc->artifact_dir, hex)) ||
	    !(dst = il_str_dup_printf("%s/%s", dir, base))) {
		rc = il_err_oom(err);
		goto out;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		rc = il_err_set(err, IL_EIO, "artifact directory '%s': %s", dir, strerror(errno));
		goto out;
	}
	/* idlelab runs as root on shared machines: what LAVA deploys must not be another user's to swap */
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		rc = il_err_set(err, IL_EPERM, "artifact directory '%s' is not a directory of ours that only we can "
				"write (owner, mode 0755): another user could swap the kernel LAVA deploys", dir);
		goto out;
	}
	/* content-addressed: a copy already there is used when its bytes are still these (an
	 * interrupted or tampered copy is replaced) */
	if (!stat(dst, &st)) {
		char have[65];
		struct il_err e2 = { 0 };

		have[0] = 0;
		if (il_sha256_file(dst, have, &e2) || strncmp(have, hex, 16))
			st.st_size = -1;
	} else {
		st.st_size = -1;
	}
	if (st.st_size < 0 && (rc = il_buf_read_file(&data, path, (size_t)1 << 31, err)) == 0)
		rc = il_buf_write_file_mode(dst, data.p ? data.p : "", data.len, 0644, err);
	if (!rc && !(*url = il_str_dup_printf("%s/%s/%s", lc->artifact_url, hex, base)))
		rc = il_err_oom(err);
out:
	il_buf_release(&data);
	free(dir);
	free(dst);
	return rc;
}

void il_artifacts_urls_release(struct il_artifacts_urls *u)
{
	IL_FREE_ALL(u->kernel, u->ramdisk, u->dtb, u->modules);
}

int il_artifacts_publish_images(const struct il_lava_cfg *lc, const char *image, const char *modules, bool dry,
				struct il_artifacts_urls *u, struct il_err *err)
{
	int rc = 0;

	if (!u->kernel)
		rc = publish(lc, image ? image : lc->images.kernel, dry, &u->kernel, err);
	if (!rc && lc->images.ramdisk)
		rc = publish(lc, lc->images.ramdisk, dry, &u->ramdisk, err);
	if (!rc && lc->images.dtb)
		rc = publish(lc, lc->images.dtb, dry, &u->dtb, err);
	if (!rc && (modules || lc->images.modules))
		rc = publish(lc, modules ? modules : lc->images.modules, dry, &u->modules, err);
	if (rc)
		il_artifacts_urls_release(u);
	return rc;
}
