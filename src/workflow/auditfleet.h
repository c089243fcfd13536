/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audit's view of a fleet (workflow/audit.h judges each host): the
 * hosts' findings grouped by (kind, subject) with the hosts that have each,
 * counts by severity, the worst, and fleet-wide sums (counters, residency
 * by state name, miss ratios) over the measured hosts; whether the audit
 * fails at a severity. Values only: it never connects, prints or reads the
 * environment.
 */
#ifndef IL_WORKFLOW_AUDITFLEET_H
#define IL_WORKFLOW_AUDITFLEET_H
#include <stdbool.h>
#include <stddef.h>
#include "workflow/audit.h"
#include "util/err.h"
#include "util/str.h"

/* One line of the fleet report: a (kind, subject) and the hosts that have it. */
struct il_audit_group {
	enum il_audit_kind kind;
	enum il_audit_sev sev;
	const char *subject;     /* borrowed from the first host's finding */
	struct il_strlist hosts;
};

struct il_audit_fleet {
	size_t nhosts;
	struct il_audit_host *hosts;  /* borrowed */
	size_t reached, measured;
	size_t by_sev[IL_NSEV];       /* findings (host, kind, subject) by severity */
	size_t ngroups;
	struct il_audit_group *groups; /* by severity (worst first), kind, subject */
	struct il_counts total;        /* summed over measured hosts */
	struct il_metrics m;
	double interval_s;             /* summed */
	size_t nres;
	struct il_audit_res *res;      /* idle time by state name over measured hosts */
	bool any;                      /* some finding at all */
	enum il_audit_sev worst;       /* when any */
};

/* Group and sum hosts[0..n) (borrowed: they must outlive f). Release with il_audit_fleet_release. */
int il_audit_fleet_make(struct il_audit_fleet *f, struct il_audit_host *hosts, size_t n, struct il_err *err);
void il_audit_fleet_release(struct il_audit_fleet *f);

/* Whether some finding is at or above sev. */
bool il_audit_fleet_fails(const struct il_audit_fleet *f, enum il_audit_sev sev);

#endif
