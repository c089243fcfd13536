// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The audit's policy (audit.h, docs/audit.md "Policy"): the built-in
 * default, and a policy file over it, checked by jfields (expected
 * governors, tuned profiles, limits, severities per finding kind).
 */
#include "workflow/audit.h"

#include <stdlib.h>
#include <string.h>

#include "util/jfields.h"
#include "util/jsonfile.h"

int il_audit_policy_default(struct il_audit_policy *p, struct il_err *err)
{
	static const char *const govs[] = { "menu", "teo", "haltpoll", NULL };
	static const char *const tuned[] = { "latency-performance", "network-latency", "realtime",
					     "realtime-virtual-guest", "realtime-virtual-host", "cpu-partitioning",
					     NULL };
	int r = 0;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; govs[i]; i++)
		r |= il_strlist_push(&p->governors, govs[i]);
	for (size_t i = 0; tuned[i]; i++)
		r |= il_strlist_push(&p->tuned_latency, tuned[i]);
	p->too_deep_pct = 25;
	p->too_shallow_pct = 40;
	p->shallow_residency_pct = 60;
	p->shallow_residency_us = 100;
	p->min_idles = 1000;
	for (int k = 0; k < IL_NAK; k++)
		p->sev[k] = il_audit_kind_info((enum il_audit_kind)k)->sev;
	if (r) {
		il_audit_policy_release(p);
		return il_err_oom(err);
	}
	return 0;
}

void il_audit_policy_release(struct il_audit_policy *p)
{
	il_strlist_release(&p->governors);
	il_strlist_release(&p->tuned_latency);
}

static const struct il_jfield policy_fields[] = {
	{ .key = "governors", .type = IL_JF_STRINGS, .what = "an array of governor names (empty: any)" },
	IL_JF("tuned_latency_profiles", IL_JF_STRINGS),
	IL_JF("limits", IL_JF_OBJECT),
	IL_JF("severity", IL_JF_OBJECT),
	IL_JF("comment", IL_JF_STRING),
};

static const struct il_jfield limit_fields[] = {
	IL_JF_RANGE("too_deep_pct", IL_JF_NUMBER, 0, 100, struct il_audit_policy, too_deep_pct),
	IL_JF_RANGE("too_shallow_pct", IL_JF_NUMBER, 0, 100, struct il_audit_policy, too_shallow_pct),
	IL_JF_RANGE("shallow_residency_pct", IL_JF_NUMBER, 0, 100, struct il_audit_policy, shallow_residency_pct),
	IL_JF_RANGE("shallow_residency_us", IL_JF_NUMBER, 0, 1e9, struct il_audit_policy, shallow_residency_us),
	IL_JF_RANGE("min_idles", IL_JF_INT64, 0, 1e15, struct il_audit_policy, min_idles),
};

/* A string list from j[key] replacing *l (the default), when j has it. */
static int replace_list(struct il_strlist *l, const json_t *j, const char *key, struct il_err *err)
{
	const json_t *v = il_jfields_get(j, key);
	struct il_strlist n = { 0 };
	size_t i;
	json_t *e;

	if (!v)
		return 0;
	json_array_foreach(v, i, e)
		if (il_strlist_push(&n, json_string_value(e))) {
			il_strlist_release(&n);
			return il_err_oom(err);
		}
	il_strlist_release(l);
	*l = n;
	return 0;
}

int il_audit_policy_from_json(struct il_audit_policy *p, const json_t *j, const char *label, struct il_err *err)
{
	const json_t *limits, *severity;
	const char *key;
	json_t *v;
	int r;

	/* checked here, stored below: the lists replace the default's, limits and severities amend it */
	if ((r = il_jfields_check(j, policy_fields, IL_JF_COUNT(policy_fields), label, "", err)))
		return r;
	limits = il_jfields_get(j, "limits");
	severity = il_jfields_get(j, "severity");
	if ((r = replace_list(&p->governors, j, "governors", err)) ||
	    (r = replace_list(&p->tuned_latency, j, "tuned_latency_profiles", err)))
		return r;
	if (limits &&
	    (r = il_jfields_read(limits, limit_fields, IL_JF_COUNT(limit_fields), p, label, "limits", err)))
		return r;
	json_object_foreach((json_t *)severity, key, v) {
		int k;
		enum il_audit_sev s;
		struct il_buf names = IL_BUF_INIT;

		for (k = 0; k < IL_NAK && strcmp(il_audit_kind_info((enum il_audit_kind)k)->name, key); k++)
			;
		if (k == IL_NAK) {
			for (int i = 0; i < IL_NAK; i++)
				il_buf_printf(&names, "%s%s", i ? ", " : "", il_audit_kind_info((enum il_audit_kind)i)->name);
			r = il_jfields_bad(err, label, "severity", key, "a finding kind (known: %s)", il_buf_str(&names));
			il_buf_release(&names);
			return r;
		}
		if (json_is_string(v) && !strcmp(json_string_value(v), "off")) {
			p->off[k] = true;
			continue;
		}
		if (!json_is_string(v) || il_audit_sev_parse(json_string_value(v), &s, NULL))
			return il_jfields_bad(err, label, "severity", key, "\"info\", \"warning\", \"critical\" or \"off\"");
		p->off[k] = false;
		p->sev[k] = s;
	}
	return 0;
}

int il_audit_policy_load(struct il_audit_policy *p, const char *path, struct il_err *err)
{
	json_t *j = NULL;
	int r;

	if ((r = il_json_load(path, &j, err)))
		return r;
	r = il_audit_policy_from_json(p, j, path, err);
	json_decref(j);
	return r;
}
