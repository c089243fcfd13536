/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What root may trust (OpenSSH's StrictModes and safe_path are the model).
 * idlelab runs as root on shared lab machines, so a file it takes a host, a
 * workload definition (whose argv it runs), a configuration or a cache entry
 * (a series it builds and boots) from must be one that only root or the
 * invoking user could have written: the file and every directory above it
 * owned by root or the effective uid and writable by neither group nor
 * others. A root-owned sticky directory such as /tmp is passed over for an
 * entry below it that root or the user owns (nobody else can rename it).
 * Symbolic links are followed (realpath): the target is what is judged.
 */
#ifndef IL_UTIL_TRUST_H
#define IL_UTIL_TRUST_H
#include <stddef.h>

/*
 * 0 when path may be trusted. Otherwise IL_EPERM, or IL_ENOTFOUND when path
 * does not exist, with why (n bytes) naming the file or directory at fault
 * and how: "/srv/w/x.json: owned by uid 1234 (not root or this user)",
 * "/srv/w: writable by group or others (mode 0777)".
 */
int il_trust_path(const char *path, char *why, size_t n);

/*
 * The same for a directory that may not exist yet (a cache made on first
 * use): its nearest existing ancestor is judged, as what will hold it.
 */
int il_trust_dir(const char *dir, char *why, size_t n);

#endif
