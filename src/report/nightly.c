// SPDX-License-Identifier: GPL-2.0-or-later
/* A nightly's outcome as text and JSON (see nightly.h). */
#include "report/nightly.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/reportkit.h"

static const char *s(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static double d(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *base(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path;
}

int il_report_nightly(const struct il_nightly_result *r, struct il_buf *out)
{
	const json_t *e;
	size_t i;

	il_buf_printf(out, "nightly %s on %s: %s at %.12s%s%s%s\n", r->plan, r->host, r->branch, r->tip,
		      r->subject ? " (\"" : "", r->subject ? r->subject : "", r->subject ? "\")" : "");
	if (r->verdict == IL_NIGHTLY_UNCHANGED)
		return il_buf_printf(out, "unchanged: this tip was measured by %s; nothing to do\n",
				     r->run ? base(r->run) : "an earlier nightly");
	if (r->run)
		il_buf_printf(out, "run:      %s\n", r->run);
	if (r->base_run)
		il_buf_printf(out, "baseline: %s (%.12s)\n", base(r->base_run), r->base_commit);
	if (r->drift_note)
		il_buf_printf(out, "note:     %s\n", r->drift_note);
	if (json_array_size(r->compared)) {
		il_buf_printf(out, "\n%-16s %-30s %10s %10s %8s %7s  %s\n", "variant", "metric", "baseline", "tip", "change",
			      "p", "verdict");
		json_array_foreach(r->compared, i, e) {
			char b1[32], b2[32], ch[16], p[16];

			snprintf(ch, sizeof(ch), isfinite(d(e, "change_pct")) ? "%+.1f%%" : "-", d(e, "change_pct"));
			snprintf(p, sizeof(p), isfinite(d(e, "p")) ? "%.2g" : "-", d(e, "p"));
			il_buf_printf(out, "%-16.16s %-30.30s %10s %10s %8s %7s  %s\n", s(e, "variant"), s(e, "key"),
				      il_report_fmt_num(b1, sizeof(b1), d(e, "baseline_mean")), il_report_fmt_num(b2, sizeof(b2), d(e, "mean")),
				      ch, p, s(e, "verdict"));
		}
	}
	switch (r->verdict) {
	case IL_NIGHTLY_BASELINE:
		return il_buf_adds(out, "\nbaseline: the first nightly of this plan and host (or --rebaseline); the next ones "
					"compare with it\n");
	case IL_NIGHTLY_GOOD:
		return il_buf_adds(out, "\ngood: no regression beyond noise; this nightly is the new baseline\n");
	case IL_NIGHTLY_FAILED:
		return il_buf_printf(out, "\nfailed (%s): %s\n", r->build_failed ? "the tip did not build" :
						    "infrastructure: host, boot or workload", r->reason ? r->reason : "?");
	default:
		break;
	}
	il_buf_printf(out, "\nregression: %zu metric%s worse beyond noise", json_array_size(json_object_get(r->alert, "regressions")),
		      json_array_size(json_object_get(r->alert, "regressions")) == 1 ? "" : "s");
	json_array_foreach(json_object_get(r->alert, "regressions"), i, e)
		if (s(e, "since"))
			il_buf_printf(out, "%s%s.%s (%s) drifting since %.12s", i ? "; " : ": ", s(e, "workload"),
				      s(e, "metric"), s(e, "variant"), s(e, "since"));
	il_buf_adds(out, "\n");
	if (r->repeat)
		il_buf_adds(out, "reported already against this baseline: not sent again\n");
	return il_buf_error(out);
}

json_t *il_report_nightly_json(const struct il_nightly_result *r)
{
	json_t *j = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s?,s:s?,s:O}", "schema", "idlelab-nightly/1", "verdict",
			      il_nightly_verdict_name(r->verdict), "plan", r->plan, "host", r->host, "branch", r->branch,
			      "commit", r->tip, "subject", r->subject, "run", r->run, "compared", r->compared);
	int bad = !j;

	if (!bad && r->base_run)
		bad |= json_object_set_new(j, "baseline", json_pack("{s:s,s:s}", "run", r->base_run, "commit", r->base_commit));
	if (!bad && r->reason)
		bad |= json_object_set_new(j, "reason", json_string(r->reason));
	if (!bad && r->drift_note)
		bad |= json_object_set_new(j, "drift_note", json_string(r->drift_note));
	if (!bad && r->verdict == IL_NIGHTLY_FAILED)
		bad |= json_object_set_new(j, "build_failed", json_boolean(r->build_failed));
	if (!bad && r->alert) {
		bad |= json_object_set(j, "alert", r->alert);
		bad |= json_object_set_new(j, "repeat", json_boolean(r->repeat));
	}
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}
