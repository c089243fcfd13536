// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Prometheus text exposition of a snapshot and its PM QoS: one family at
 * a time (the format wants a family's samples together, after its HELP and
 * TYPE), label values escaped, absent counters left out (never 0). The
 * counters' meanings are cpuidle_enter_state() in drivers/cpuidle/cpuidle.c
 * and Documentation/admin-guide/pm/cpuidle.rst (docs/export.md).
 */
#include "report/promtext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle/cpuset.h"
#include "util/utf8.h"

/* A counter's family suffix and HELP, per CPU and state; clusters say "summed". */
struct counter_family {
	const char *suffix;
	const char *help;
	bool us_to_s; /* sysfs microseconds, exported as seconds */
};

static const struct counter_family counter_families[IL_NCOUNTERS] = {
	[IL_C_USAGE] = { "usage_total", "Times the hardware was asked to enter this idle state (cpuidle sysfs usage).",
			 false },
	[IL_C_TIME] = { "time_seconds_total",
			"Time spent in this idle state as measured by the kernel (cpuidle sysfs time).", true },
	[IL_C_ABOVE] = { "above_total",
			 "Entries whose observed idle duration was too short for the state's target residency: too deep "
			 "(cpuidle sysfs above; counted only while a shallower state is enabled).",
			 false },
	[IL_C_BELOW] = { "below_total",
			 "Entries after which a deeper enabled state would have matched the observed idle duration: too "
			 "shallow (cpuidle sysfs below, poll states' included, as cpuidle_enter_state counts it).",
			 false },
	[IL_C_REJECTED] = { "rejected_total", "Requests to enter this idle state that were rejected (cpuidle sysfs rejected).",
			    false },
};

#define CPU_PREFIX "idlelab_cpuidle_state_"
#define CLUSTER_PREFIX "idlelab_cpuidle_cluster_state_"

int il_promtext_label_value(struct il_buf *out, const char *v)
{
	struct il_buf t = IL_BUF_INIT;

	/* U+FFFD first (the escapes below are ASCII and never touch a multi-byte sequence) */
	il_utf8_add(&t, v);
	for (const char *p = il_buf_str(&t); *p; p++) {
		size_t n = strcspn(p, "\\\"\n");

		il_buf_add(out, p, n);
		if (!*(p += n))
			break;
		il_buf_adds(out, *p == '\n' ? "\\n" : *p == '"' ? "\\\"" : "\\\\");
	}
	il_buf_carry(out, &t);
	il_buf_release(&t);
	return il_buf_error(out);
}

/* Append `,name="value"` (no comma for the first label); a NULL value leaves the label out. */
static void label(struct il_buf *b, const char *name, const char *value)
{
	if (!value)
		return;
	il_buf_printf(b, "%s%s=\"", b->len ? "," : "", name);
	il_promtext_label_value(b, value);
	il_buf_adds(b, "\"");
}

static void label_u64(struct il_buf *b, const char *name, struct il_val v)
{
	char s[32];

	if (v.ok) {
		snprintf(s, sizeof(s), "%llu", (unsigned long long)v.v);
		label(b, name, s);
	}
}

static void label_int(struct il_buf *b, const char *name, long long v)
{
	char s[32];

	snprintf(s, sizeof(s), "%lld", v);
	label(b, name, s);
}

/* The family's HELP and TYPE before its first sample (a family without samples is left out). */
static void family(struct il_buf *out, bool *started, const char *name, const char *type, const char *help)
{
	if (*started)
		return;
	*started = true;
	il_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A number of microseconds as seconds, exactly (neg: minus that many). */
static void seconds(struct il_buf *out, bool neg, uint64_t us)
{
	il_buf_printf(out, "%s%llu.%06llu", neg ? "-" : "", (unsigned long long)(us / 1000000),
		      (unsigned long long)(us % 1000000));
}

static void sample(struct il_buf *out, const char *name, const char *labels, struct il_val v, bool us_to_s)
{
	il_buf_printf(out, "%s{%s} ", name, labels);
	if (us_to_s)
		seconds(out, false, v.v);
	else
		il_buf_printf(out, "%llu", (unsigned long long)v.v);
	il_buf_adds(out, "\n");
}

/* The labels every state series shares, after those that say where it is (cpu or cluster). */
static void state_labels(struct il_buf *b, int index, const char *name, const char *driver, const char *governor,
			 struct il_val latency, struct il_val residency, bool poll)
{
	label_int(b, "state", index);
	label(b, "name", name);
	label(b, "driver", driver);
	label(b, "governor", governor);
	label_u64(b, "latency_us", latency);
	label_u64(b, "residency_us", residency);
	label(b, "poll", poll ? "true" : "false");
}

/* One exported group of CPUs: a cluster of the lifetime diff, or every CPU. */
struct group {
	const char *label;
	const struct il_cpuset *cpus;
	struct il_val capacity;
	const struct il_diff_state *states;
	size_t nstates;
};

/* The labels of one CPU's state into lb (emptied first). */
static void cpu_state_labels(struct il_buf *lb, const struct il_snapshot *s, const struct il_cpu *cpu,
			     const struct il_state *st)
{
	il_buf_reset(lb);
	label_int(lb, "cpu", cpu->cpu);
	state_labels(lb, st->index, st->name ? st->name : "", cpu->driver ? cpu->driver : s->driver, s->governor,
		     st->info[IL_I_LATENCY], st->info[IL_I_RESIDENCY], il_snapshot_state_is_poll(st));
}

static void per_cpu(struct il_buf *out, const struct il_snapshot *s, struct il_buf *lb)
{
	bool started[IL_NCOUNTERS] = { false }, dis = false;

	for (int c = 0; c < IL_NCOUNTERS; c++) {
		char name[96];

		snprintf(name, sizeof(name), CPU_PREFIX "%s", counter_families[c].suffix);
		for (size_t i = 0; i < s->ncpus; i++) {
			const struct il_cpu *cpu = &s->cpus[i];

			for (size_t k = 0; k < cpu->nstates; k++) {
				const struct il_state *st = &cpu->states[k];

				if (!st->cnt[c].ok)
					continue;
				family(out, &started[c], name, "counter", counter_families[c].help);
				cpu_state_labels(lb, s, cpu, st);
				il_buf_carry(out, lb);
				sample(out, name, il_buf_str(lb), st->cnt[c], counter_families[c].us_to_s);
			}
		}
	}
	for (size_t i = 0; i < s->ncpus; i++) {
		const struct il_cpu *cpu = &s->cpus[i];

		for (size_t k = 0; k < cpu->nstates; k++) {
			const struct il_state *st = &cpu->states[k];

			if (!st->info[IL_I_DISABLE].ok)
				continue;
			family(out, &dis, CPU_PREFIX "disabled", "gauge",
			       "Whether this idle state is disabled for this CPU (cpuidle sysfs disable; default_status: "
			       "the driver's default).");
			cpu_state_labels(lb, s, cpu, st);
			label(lb, "default_status", st->default_status);
			il_buf_carry(out, lb);
			sample(out, CPU_PREFIX "disabled", il_buf_str(lb),
			       (struct il_val){ st->info[IL_I_DISABLE].v != 0, true }, false);
		}
	}
}

static void per_cluster(struct il_buf *out, const struct il_snapshot *s, const struct group *g, size_t ng,
			struct il_buf *lb)
{
	bool started = false;

	for (size_t i = 0; i < ng; i++) {
		struct il_buf cpus = IL_BUF_INIT;

		family(out, &started, "idlelab_cpuidle_cluster_info", "gauge",
		       "The CPUs of a cluster (CPUs with the same cluster_id and cpu_capacity on asymmetric hosts; "
		       "\"all\" otherwise).");
		il_cpuset_format(g[i].cpus, &cpus);
		il_buf_reset(lb);
		label(lb, "cluster", g[i].label);
		label(lb, "cpus", il_buf_str(&cpus));
		label_u64(lb, "capacity", g[i].capacity);
		il_buf_carry(out, &cpus);
		il_buf_carry(out, lb);
		il_buf_release(&cpus);
		il_buf_printf(out, "idlelab_cpuidle_cluster_info{%s} 1\n", il_buf_str(lb));
	}
	for (int c = 0; c < IL_NCOUNTERS; c++) {
		char name[96], help[96];

		started = false;
		snprintf(name, sizeof(name), CLUSTER_PREFIX "%s", counter_families[c].suffix);
		snprintf(help, sizeof(help), "Sum over the cluster's CPUs of " CPU_PREFIX "%s.", counter_families[c].suffix);
		for (size_t i = 0; i < ng; i++) {
			for (size_t k = 0; k < g[i].nstates; k++) {
				const struct il_diff_state *st = &g[i].states[k];

				if (!st->d.c[c].ok)
					continue;
				family(out, &started, name, "counter", help);
				il_buf_reset(lb);
				label(lb, "cluster", g[i].label);
				state_labels(lb, st->index, st->name, s->driver, s->governor, st->latency_us, st->residency_us,
					     st->poll);
				il_buf_carry(out, lb);
				sample(out, name, il_buf_str(lb), st->d.c[c], counter_families[c].us_to_s);
			}
		}
	}
}

static void governor_info(struct il_buf *out, const struct il_snapshot *s, struct il_buf *lb)
{
	bool started = false;

	if (!s->governor && !s->driver)
		return;
	family(out, &started, "idlelab_cpuidle_governor_info", "gauge",
	       "The cpuidle governor and driver in use (cpuidle/current_governor, current_driver).");
	il_buf_reset(lb);
	label(lb, "governor", s->governor);
	label(lb, "driver", s->driver);
	il_buf_carry(out, lb);
	il_buf_printf(out, "idlelab_cpuidle_governor_info{%s} 1\n", il_buf_str(lb));
}

static void pmqos(struct il_buf *out, const struct il_pmqos *q, struct il_buf *lb)
{
	bool started = false;

	il_buf_printf(out,
		      "# HELP idlelab_pmqos_cpu_dma_latency_requests Open files on /dev/cpu_dma_latency: each is a CPU "
		      "latency request.\n# TYPE idlelab_pmqos_cpu_dma_latency_requests gauge\n"
		      "idlelab_pmqos_cpu_dma_latency_requests %zu\n",
		      q->nrequests);
	for (size_t i = 0; i < q->nholders; i++) {
		family(out, &started, "idlelab_pmqos_cpu_dma_latency_holder_info", "gauge",
		       "A process holding /dev/cpu_dma_latency open (found in /proc/PID/fd).");
		il_buf_reset(lb);
		label_int(lb, "pid", q->holders[i].pid);
		label(lb, "comm", q->holders[i].comm);
		il_buf_carry(out, lb);
		il_buf_printf(out, "idlelab_pmqos_cpu_dma_latency_holder_info{%s} 1\n", il_buf_str(lb));
	}
	il_buf_printf(out,
		      "# HELP idlelab_pmqos_unreadable_processes Processes whose /proc/PID/fd could not be read (holders "
		      "among them are not seen).\n# TYPE idlelab_pmqos_unreadable_processes gauge\n"
		      "idlelab_pmqos_unreadable_processes %llu\n",
		      (unsigned long long)q->unreadable);
	if (q->has_cpu_latency) {
		il_buf_adds(out, "# HELP idlelab_pmqos_cpu_latency_limit_seconds The effective CPU latency limit "
				 "/dev/cpu_dma_latency reads back (2000 when nobody asks for less).\n"
				 "# TYPE idlelab_pmqos_cpu_latency_limit_seconds gauge\n"
				 "idlelab_pmqos_cpu_latency_limit_seconds ");
		seconds(out, q->cpu_latency_us < 0, (uint64_t)(q->cpu_latency_us < 0 ? -q->cpu_latency_us : q->cpu_latency_us));
		il_buf_adds(out, "\n");
	}
	started = false;
	for (size_t i = 0; i < q->ncpus; i++) {
		family(out, &started, "idlelab_pmqos_resume_latency_limit_seconds", "gauge",
		       "This CPU's PM QoS resume latency limit (power/pm_qos_resume_latency_us; +Inf: no constraint, "
		       "0: n/a).");
		il_buf_printf(out, "idlelab_pmqos_resume_latency_limit_seconds{cpu=\"%d\"} ", q->cpus[i].cpu);
		if (q->cpus[i].limited)
			seconds(out, false, q->cpus[i].limit_us);
		else
			il_buf_adds(out, "+Inf");
		il_buf_adds(out, "\n");
	}
}

int il_promtext_render(struct il_buf *out, const struct il_snapshot *s, const struct il_pmqos *q,
		       struct il_promtext_summary *sum, struct il_err *err)
{
	struct il_buf lb = IL_BUF_INIT;
	struct il_diff d;
	struct group *g;
	size_t ng;
	int r;

	if ((r = il_diff_lifetime(&d, s, err)))
		return r;
	/* the diff lists clusters only on asymmetric hosts; otherwise every CPU is one */
	ng = d.nclusters ? d.nclusters : d.nstates ? 1 : 0;
	g = calloc(ng + 1, sizeof(*g));
	if (!g) {
		il_diff_release(&d);
		return il_err_oom(err);
	}
	for (size_t i = 0; i < d.nclusters; i++)
		g[i] = (struct group){ d.clusters[i].label, &d.clusters[i].cpus, d.clusters[i].capacity,
				       d.clusters[i].states, d.clusters[i].nstates };
	if (!d.nclusters && ng)
		g[0] = (struct group){ "all", &d.measured, { 0, false }, d.states, d.nstates };
	per_cpu(out, s, &lb);
	per_cluster(out, s, g, ng, &lb);
	governor_info(out, s, &lb);
	if (q)
		pmqos(out, q, &lb);
	if (sum) {
		memset(sum, 0, sizeof(*sum));
		sum->ncpus = s->ncpus;
		sum->nstates = il_snapshot_nstates(s);
		sum->nclusters = ng;
		sum->nholders = q ? q->nholders : 0;
		il_metrics_of(&d.total, &d, &sum->total);
	}
	il_buf_carry(out, &lb);
	il_buf_release(&lb);
	free(g);
	il_diff_release(&d);
	if ((r = il_buf_error(out)))
		return r == IL_ENOMEM ? il_err_oom(err) : il_err_set(err, r, "the exposition is larger than its buffer");
	return 0;
}
