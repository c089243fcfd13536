// SPDX-License-Identifier: GPL-2.0-or-later
/* What root may trust: the file and every directory above it (see trust.h). */
#include "util/trust.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/err.h"

int il_trust_path(const char *path, char *why, size_t n)
{
	char *real = realpath(path, NULL), *p;
	uid_t uid = geteuid(), below = (uid_t)-1;
	int r = 0;

	if (!real) {
		int e = errno;

		snprintf(why, n, "%s: %s", path, strerror(e));
		return e == ENOENT || e == ENOTDIR ? IL_ENOTFOUND : IL_EPERM;
	}
	for (p = real; !r;) {
		struct stat st;
		char *slash;

		if (stat(p, &st)) {
			snprintf(why, n, "%s: %s", p, strerror(errno));
			r = IL_EPERM;
		} else if (st.st_uid != 0 && st.st_uid != uid) {
			snprintf(why, n, "%s: owned by uid %u (not root or this user)", p, (unsigned)st.st_uid);
			r = IL_EPERM;
		} else if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
			   !(S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) && st.st_uid == 0 &&
			     (below == 0 || below == uid))) {
			/* a sticky root directory keeps others from renaming what root or the user owns in it */
			snprintf(why, n, "%s: writable by %s (mode %04o)", p,
				 (st.st_mode & S_IWOTH) ? "others" : "its group", (unsigned)(st.st_mode & 07777));
			r = IL_EPERM;
		}
		below = st.st_uid;
		if (!strcmp(p, "/"))
			break;
		slash = strrchr(p, '/');
		if (slash == p)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(real);
	return r;
}

int il_trust_dir(const char *dir, char *why, size_t n)
{
	char buf[PATH_MAX];
	int r;

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf)) {
		snprintf(why, n, "%.64s...: path too long", dir);
		return IL_EPERM;
	}
	while ((r = il_trust_path(buf, why, n)) == IL_ENOTFOUND) {
		char *slash = strrchr(buf, '/');

		if (!slash) /* a relative name whose first part does not exist: the working directory holds it */
			return il_trust_path(".", why, n);
		if (slash == buf)
			return il_trust_path("/", why, n);
		*slash = '\0';
	}
	return r;
}
