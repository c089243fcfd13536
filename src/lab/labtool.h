/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the lab's build (lab/labbuild.c), its instances (lab/lab.c) and its
 * trees (lab/labtree.c) share: an instance resolved once per public call
 * (its name and architecture) and its run directory, the instance's shape
 * (CPUs, memory) and source tree, and running a host tool with an error
 * that names it and shows the end of its stderr. The lowest file of lab/:
 * it uses none of the others, so they never use each other in a circle.
 * Internal to lab/ (il_lab_run_dir is lab/lab.h's).
 */
#ifndef IL_LAB_LABTOOL_H
#define IL_LAB_LABTOOL_H
#include <stdbool.h>
#include "lab/lab.h"

/* The instance's name (owned: il_lab_ref_release) and architecture. */
struct il_lab_ref {
	enum il_lab_arch a;
	const struct il_lab_arch_info *A;
	char *name;
};

/* Resolve o's instance (il_lab_resolve); on failure l->A is arm64's so messages stay printable. */
int il_lab_ref_open(struct il_lab_ref *l, const struct il_lab_opts *o, struct il_err *err);
void il_lab_ref_release(struct il_lab_ref *l);

/* l's run directory, CACHE/lab/run/NAME (console.log, known_hosts, state.json); caller frees; NULL: no memory. */
char *il_lab_ref_dir(const struct il_lab_opts *o, const struct il_lab_ref *l);

/* idlelab's source tree (hosts/, workloads/): o->src_dir, else "." */
const char *il_lab_src(const struct il_lab_opts *o);
int il_lab_cpus(const struct il_lab_opts *o); /* 2 unless given */
int il_lab_mem(const struct il_lab_opts *o);  /* MB; 512 unless given */
bool il_lab_exists(const char *path);

/* Run argv (timeout_ms 0: none); a non-zero exit is an error "WHAT failed (exit N): <stderr's end>". */
int il_lab_tool(char *const argv[], int timeout_ms, const char *what, struct il_err *err);

/* sh -c SCRIPT sh ARG... (NULL-terminated, at most 11): paths go in as arguments, never into the script. */
int il_lab_sh(const char *script, const char *what, struct il_err *err, ...);

/* A step of a long operation reported to the caller's cb (may be NULL), with the time since t0. */
void il_lab_step(il_lab_cb cb, void *ctx, const char *what, double t0);

#endif
