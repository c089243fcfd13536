/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel stage of a run: samples run in blocks of one kernel (the matrix
 * orders them so), and before a block the host is made to run that kernel —
 * build it (cached, kernel/build.c), give the host its settings back, boot
 * it by the host's boot method (host/boot.c), lease the host again and
 * check it runs the kernel built. After the host's samples it goes back to
 * its own kernel. A kernel that does not build or boot makes its samples
 * final failures, never data; every boot is journaled with its steps.
 */
#ifndef IL_RUN_KSTAGE_H
#define IL_RUN_KSTAGE_H
#include "kernel/kplan.h"
#include "run/context.h"
#include "run/lease.h"

/* What the host runs, as far as the run knows. */
enum il_kstage_state {
	IL_KS_OWN,      /* its own kernel (how every host starts) */
	IL_KS_VARIANT,  /* the plan kernel .kernel, built and booted here */
	IL_KS_UNKNOWN,  /* a boot failed: the next block boots again */
};

struct il_kstage {
	const struct il_run_ctx *c;
	const struct il_kvars *kv;   /* the plan's kernel variants; n == 0: the running kernel only */
	enum il_kstage_state state;
	int kernel;
	char **failed;               /* per plan kernel: why its samples cannot run, or NULL */
	size_t nkernels;
};

int il_kstage_init(struct il_kstage *ks, const struct il_run_ctx *c, const struct il_kvars *kv, size_t nkernels,
		   struct il_err *err);
/*
 * Before a sample of plan kernel `kernel` on the leased host: boot it unless
 * the host runs it already. Returns why the kernel's samples cannot run
 * (owned by ks), or NULL when they can.
 */
const char *il_kstage_enter(struct il_kstage *ks, struct il_lease *h, const char *host, int kernel);
/* After the host's samples: back to its own kernel (a failure is a note). */
void il_kstage_leave(struct il_kstage *ks, struct il_lease *h, const char *host);
void il_kstage_release(struct il_kstage *ks);

/*
 * Build kernel variant kv (cached) for a host idlelab does not boot itself
 * (a LAVA job deploys it): *image and *modules (NULL when the build has
 * none) are paths in the build's artifact, *release the release it boots
 * as; all the caller's to free.
 */
int il_kstage_build(const struct il_run_ctx *c, const struct il_kvar *kv, char **image, char **modules,
		    char **release, struct il_err *err);

/*
 * A plan with built kernels: prepare the variants (kernel/kplan.c) from the
 * plan directory recorded in run directory dir and give the plan their final
 * names (built in cache_dir). *plan_dir (caller frees) is that directory or NULL.
 */
int il_kstage_plan(struct il_plan *plan, const char *dir, const char *cache_dir, struct il_kvars *kv, char **plan_dir,
		   struct il_err *err);

#endif
