/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * idlelab's private working directory on a host (runners/own.sh,
 * runners/workdir.sh): $HOME/.idlelab of the login, or /var/tmp/idlelab-UID
 * when HOME is not the login's own, created with mode 0700 and refused
 * unless it is a real directory owned by the login with no group or world
 * bits. Everything idlelab puts on a host (its workloads, a sample's files,
 * boot artifacts, the host lock) lives in it, so no other local user can
 * plant a program, a symlink or a file idlelab would run or write as root.
 */
#ifndef IL_HOST_WORKDIR_H
#define IL_HOST_WORKDIR_H
#include "host/transport.h"
#include "util/err.h"

/*
 * Make and check the working directory, as the login itself, and inside it
 * each subdirectory of subs (NULL-terminated; may be NULL). *dir (caller
 * frees) is "UID:PATH": the login's uid, which runners started through sudo
 * check the directory against, and its path (il_workdir_path). An unsafe
 * directory is IL_EPERM with the reason and the host's name.
 */
int il_workdir_get(struct il_transport *t, const char *const subs[], char **dir, struct il_err *err);

/* The path part of "UID:PATH" (borrowed from it). */
const char *il_workdir_path(const char *dir);

/* The text of own.sh followed by script (caller frees): for runners that check the directory themselves. */
char *il_workdir_script(const char *script);

#endif
