/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audit's findings engine: what one host's probe (its fingerprint JSON,
 * host/probe.h) and two snapshots a window apart (rates, idle/diff.h) say
 * against a policy (expected governors, limits, severities; docs/audit.md),
 * as findings with a severity, the values read (evidence) and a fix hint
 * (the fleet's view of many hosts: workflow/auditfleet.h). The finding
 * kinds are one table (il_audit_kind_info). Judges values only: it never
 * connects, prints or reads the environment.
 */
#ifndef IL_WORKFLOW_AUDIT_H
#define IL_WORKFLOW_AUDIT_H
#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "idle/diff.h"
#include "idle/snapshot.h"
#include "util/err.h"
#include "util/strlist.h"

enum il_audit_sev { IL_SEV_INFO, IL_SEV_WARNING, IL_SEV_CRITICAL, IL_NSEV };

/* "info", "warning", "critical". */
const char *il_audit_sev_name(enum il_audit_sev s);
/* The severity named s, or IL_EINVAL with the names in err. */
int il_audit_sev_parse(const char *s, enum il_audit_sev *out, struct il_err *err);

enum il_audit_kind {
	IL_AK_UNREACHABLE,        /* connection refused or failed */
	IL_AK_AUTH_REFUSED,       /* authentication or host key refused */
	IL_AK_TIMED_OUT,          /* connect or command time-out */
	IL_AK_PROBE_FAILED,       /* reached, but the probe's output was not usable */
	IL_AK_GOVERNOR,
	IL_AK_STATES_DISABLED,    /* `disable` set by a user on an enabled-by-default state */
	IL_AK_STATES_OFF_BY_DRIVER, /* the driver's default_status "disabled" */
	IL_AK_DMA_LATENCY,
	IL_AK_RESUME_LATENCY,
	IL_AK_CMDLINE,
	IL_AK_HALTPOLL_BARE_METAL,
	IL_AK_DRIVER_MISMATCH,
	IL_AK_TUNED_LATENCY,
	IL_AK_TABLES_DIFFER,
	IL_AK_TOO_DEEP,
	IL_AK_TOO_SHALLOW,
	IL_AK_SHALLOW_RESIDENCY,
	IL_NAK
};

struct il_audit_kind_info {
	const char *name;           /* in the policy, the reports and docs/audit.md */
	enum il_audit_sev sev;      /* default severity */
	const char *checks;         /* what it checks, one sentence */
	const char *hint;           /* how to fix it, one sentence */
};

/* The row of kind k (borrowed, static). */
const struct il_audit_kind_info *il_audit_kind_info(enum il_audit_kind k);

struct il_audit_policy {
	struct il_strlist governors;     /* expected cpuidle governors; empty: any */
	struct il_strlist tuned_latency; /* tuned profiles that force latency */
	double too_deep_pct;             /* limits over the window, in % of idle entries */
	double too_shallow_pct;
	double shallow_residency_pct;    /* % of idle time in shallow states */
	double shallow_residency_us;     /* a state is shallow below this target residency */
	long long min_idles;             /* fewer idle entries in the window: no ratio judged */
	bool off[IL_NAK];                /* kinds not checked */
	enum il_audit_sev sev[IL_NAK];
};

/* The built-in default (what examples/audit/policy.json says). Release with il_audit_policy_release. */
int il_audit_policy_default(struct il_audit_policy *p, struct il_err *err);
/*
 * A policy from JSON over the default (every key optional), checked by
 * jfields: errors "LABEL: PATH: expected WHAT". p starts as the default.
 */
int il_audit_policy_from_json(struct il_audit_policy *p, const json_t *j, const char *label, struct il_err *err);
/* The same from a file. */
int il_audit_policy_load(struct il_audit_policy *p, const char *path, struct il_err *err);
void il_audit_policy_release(struct il_audit_policy *p);

struct il_audit_finding {
	enum il_audit_kind kind;
	enum il_audit_sev sev;
	char *subject;   /* which thing: "governor ladder", "idle=poll", "C6 disabled" */
	char *evidence;  /* the values read */
};

/* One state's (by name) idle time in the window. */
struct il_audit_res {
	char *name;
	uint64_t time_us;
};

struct il_audit_host {
	char *host;
	bool reached;             /* the probe's output came back and parsed */
	char *error;              /* why not (NULL when reached) */
	char *kernel, *driver, *governor;
	bool measured;            /* the window gave rates (a valid diff) */
	char *not_measured;       /* why not, when reached */
	double interval_s;
	struct il_counts total;   /* the window's counter deltas over every CPU */
	struct il_metrics m;
	size_t nres;
	struct il_audit_res *res; /* idle time by state name, in table order */
	size_t nfind;
	struct il_audit_finding *find;
};

/*
 * Judge one reached host: fp its fingerprint (il_probe_parse), a and b its
 * two snapshots. out is the caller's (il_audit_host_release).
 */
int il_audit_judge(struct il_audit_host *out, const char *host, const json_t *fp, const struct il_snapshot *a,
		   const struct il_snapshot *b, const struct il_audit_policy *p, struct il_err *err);

/* A host that could not be audited: code (IL_ECONNECT, IL_EAUTH, IL_ETIMEOUT, ...) and msg make its finding. */
int il_audit_unreached(struct il_audit_host *out, const char *host, int code, const char *msg,
		       const struct il_audit_policy *p, struct il_err *err);

void il_audit_host_release(struct il_audit_host *h);

#endif
