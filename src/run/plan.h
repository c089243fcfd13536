/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Run plans (plan.json, docs/plan.md): what to measure where, how often and
 * in which order, validated with errors that name the JSON path
 * ("workloads[2].params.runtime: expected integer"). Also the sample matrix
 * a plan expands to, in run order.
 */
#ifndef IL_RUN_PLAN_H
#define IL_RUN_PLAN_H
#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include "idle/diff.h"
#include "idle/cpuset.h"
#include "util/strlist.h"
#include "workload/workload.h"

/*
 * The order of a round's variants (docs/plan.md "order"): interleave (the
 * same order every round), blocked (each variant's rounds together),
 * random (a fresh permutation every round), balanced (a Williams square:
 * over n rounds, 2n for an odd n, every variant runs in every position and
 * right after every other variant equally often).
 */
enum il_order { IL_ORDER_INTERLEAVE, IL_ORDER_BLOCKED, IL_ORDER_RANDOM, IL_ORDER_BALANCED, IL_NORDERS };
/* "interleave", "blocked", "random", "balanced" */
const char *il_plan_order_name(enum il_order o);

/* One governor setting compared in the run ("teo", or teo with C3 disabled). */
struct il_govcfg {
	char *label;              /* unique in the plan */
	char *governor;           /* NULL: leave the host's governor as it is */
	struct il_strlist disable;/* state names or indices disabled for this variant */
};

struct il_plan_wl {
	char *label;              /* unique in the plan; defaults to the workload name (LABEL-VALUE from a matrix) */
	char *name;
	json_t *params;           /* resolved: every parameter, defaults filled in */
	struct il_workload def;   /* its pattern metrics bound to params (il_workload_bind_metrics) */
	json_t *matrix;           /* from a matrix entry: {"base": LABEL, "params": {name: value}} (run/pmatrix.h) */
	bool trace;               /* "trace": "idle": each sample records an idle trace (idle/trace.h) */
};

struct il_plan {
	char *name;
	struct il_strlist hosts;
	struct il_strlist kernels;     /* names; built ones replaced by il_plan_set_kernels after preparing */
	bool built_kernels;            /* some kernel must be built and booted */
	size_t ngov;
	struct il_govcfg *gov;
	size_t nwl;
	struct il_plan_wl *wl;
	int iterations, warmup;        /* adaptive: iterations is the maximum */
	int iter_min;                  /* adaptive iterations {"min", "max"}: judged after each round from min; 0: fixed */
	int iter_step;                 /* adaptive: the "step" given (0: the default, il_plan_step) */
	enum il_order order;
	uint64_t seed;
	double quiesce_s;              /* < 0: the host's quiesce_s */
	char *cpus;                    /* CPU list the workload is pinned to; NULL: none */
	char *reference;               /* a govcfg label */
	int retries;                   /* extra attempts after an infra failure or invalid sample */
	char *cpufreq_governor;        /* NULL: cpufreq left alone */
	int timeout_s;                 /* per sample, workload included */
	double min_sample_s;           /* < 0: by clock (0.1 s monotonic, 1 s uptime); shorter samples are invalid */
	long long min_idles;           /* idle entries over the measured CPUs below this: invalid; 0: off */
	char *idle_cpus;               /* CPU list the idle metrics cover (canonical); NULL: every CPU */
	char *trace;                   /* "idle" or "none": the workloads' default (an entry may say otherwise) */
	int trace_buffer_kb;           /* the trace's ring buffer per CPU (tracefs buffer_size_kb) */
	bool keep_trace;               /* each traced sample's raw frame and snapshot pair kept in samples/ */
	struct il_cpuset idle_cpuset;  /* the same, parsed */
	json_t *json;                  /* the plan as given */
};

/* Parse and validate; workloads are loaded from wl_dir (il_workload_dir). label names the source. */
int il_plan_from_json(struct il_plan *out, const json_t *j, const char *wl_dir, const char *label,
		      struct il_err *err);
int il_plan_load(struct il_plan *out, const char *path, const char *wl_dir, struct il_err *err);
void il_plan_release(struct il_plan *p);

/*
 * The files a plan names relative to its own directory made absolute against
 * dir (an absolute path), so a copy of the plan (a bisection's, a nightly's)
 * works from anywhere: build.config when it is a file, build.config_fragments,
 * every kernel's repo and track.repo. IL_ENOMEM: one could not be (left
 * as it was).
 */
IL_MUST_CHECK int il_plan_absolutize(json_t *plan, const char *dir);

/* The plan's limits for a sample's idle diff; o borrows from p. */
void il_plan_diff_opts(const struct il_plan *p, struct il_diff_opts *o);

/* Replace the kernel names (the kernel stage's expansion of the plan's entries). */
int il_plan_set_kernels(struct il_plan *p, const struct il_strlist *names, struct il_err *err);

/*
 * Adaptive runs (iterations {"min", "max"[, "step"]}) look at their data in
 * stages: after min counted rounds, then every step rounds, and at max. With
 * one kernel a stage is a round (step 1); with several, each stage runs its
 * rounds on every kernel in turn (a boot each), so the default step is min:
 * a look needs every kernel's rounds. The run's alpha is spent over the
 * planned looks (stats/decide.h).
 */
/* The rounds between looks (0: not adaptive). */
int il_plan_step(const struct il_plan *p);
/* Whether a look is taken once `rounds` counted rounds of every variant are complete. */
bool il_plan_adaptive_look_at(int min, int max, int step, int rounds);
/* The planned looks of an adaptive run: 1 + ceil((max - min) / step). */
size_t il_plan_adaptive_looks(int min, int max, int step);

/* One sample in the matrix. */
struct il_spec {
	size_t seq;        /* position in run order, 0-based; the identity used by resume */
	int host, kernel, gov, wl;
	int iteration;     /* 0-based among counted iterations; warmups count from 0 too */
	bool warmup;
};

/* The variant label of a spec ("teo", or "teo@kernel" with several kernels); caller frees. */
char *il_plan_variant(const struct il_plan *p, const struct il_spec *s);

/* Expand the plan in run order; *out (caller frees) has *n entries. */
int il_plan_matrix(const struct il_plan *p, struct il_spec **out, size_t *n, struct il_err *err);

#endif
