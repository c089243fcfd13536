/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kbuild's make as idlelab runs it, for the stages of a kernel build
 * (kernel/build.c) and the gathering of its artifacts (kernel/kartifacts.c):
 * make -C SRC O=OBJ ARCH=... [CROSS_COMPILE=...] with the plan's make
 * arguments, the command line and its output appended to the build log;
 * the image an arch builds by default; and the file chores around make
 * (directories made, files copied), each failure said with its path.
 */
#ifndef IL_KERNEL_KMAKE_H
#define IL_KERNEL_KMAKE_H
#include "kernel/kplan.h"
#include "util/buf.h"
#include "util/err.h"
#include "util/proc.h"

/*
 * make -C src O=obj ARCH=... CROSS_COMPILE=... [make_args...] [extra...] for v
 * (extra NULL-terminated; w NULL or the watch of its output). "$ COMMAND" and
 * then the output are appended to log; *code is make's exit code, a failed
 * make is no error of this call.
 */
int il_kmake_run(const struct il_kvar *v, const char *src, const char *obj, char *const extra[],
		 const struct il_proc_watch *w, struct il_buf *log, int *code, struct il_err *err);

/* Run argv with its output dropped; *code its exit code. Errors are il_proc_capture's (err may be NULL). */
int il_kmake_quiet(char *const argv[], int *code, struct il_err *err);

/* The image v builds: its first target, else its arch's boot image ("Image", "bzImage", ...). Borrowed. */
const char *il_kmake_image(const struct il_kvar *v);

/*
 * mkdir -p path (0755). A directory that is there already is fine; any other
 * failure names the directory that could not be made (IL_EPERM, IL_EIO).
 */
int il_kmake_mkdirs(const char *path, struct il_err *err);

/* Copy the file from to the file to (written atomically); errors name the path. */
int il_kmake_copy(const char *from, const char *to, struct il_err *err);

#endif
