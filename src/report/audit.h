/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet audit report (docs/audit.md): a summary (hosts audited and
 * unreached, findings by severity, fleet-wide residency and miss ratios),
 * one line per finding (kind and subject) with its hosts, the fix hints, and
 * each host's detail; as text, JSON, CSV (one row per host finding) or one
 * self-contained HTML page with tables and a residency chart.
 */
#ifndef IL_REPORT_AUDIT_H
#define IL_REPORT_AUDIT_H
#include "workflow/audit.h"
#include "workflow/auditfleet.h"
#include "util/buf.h"

enum il_audit_fmt { IL_AFMT_TEXT, IL_AFMT_JSON, IL_AFMT_CSV, IL_AFMT_HTML, IL_NAFMT };

/* The format named s ("text", "json", "csv", "html"), or IL_EINVAL naming them. */
int il_audit_fmt_parse(const char *s, enum il_audit_fmt *out, struct il_err *err);

/* How the audit ran: shown in the summary and the JSON's "timing" (where the time went). */
struct il_audit_run {
	double window_s;
	size_t jobs;
	double wall_s;      /* the whole collection */
	double connect_s;   /* summed over hosts: connect, host key, authentication */
	double exec_s;      /* summed over hosts: the one exec (window included) and its parse */
	double judge_s;     /* the findings engine over every host */
};

/* Render f in format fmt, appended to out. */
int il_report_audit(const struct il_audit_fleet *f, const struct il_audit_run *run, enum il_audit_fmt fmt,
		    struct il_buf *out, struct il_err *err);

#endif
