// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * workflow/auditfleet on hosts made by hand (no dump): findings grouped by
 * (kind, subject) with their hosts, the worst severity first; counts by
 * severity; counters summed over the measured hosts only (a counter one
 * host lacks is lacking for the fleet), residency by state name; whether
 * the audit fails at a severity; a fleet without findings.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "workflow/auditfleet.h"

static void finding(struct il_audit_host *h, enum il_audit_kind k, enum il_audit_sev sev, const char *subject)
{
	struct il_audit_finding *f = realloc(h->find, (h->nfind + 1) * sizeof(*f));

	assert_non_null(f);
	h->find = f;
	f[h->nfind].kind = k;
	f[h->nfind].sev = sev;
	f[h->nfind].subject = strdup(subject);
	f[h->nfind].evidence = strdup("read");
	h->nfind++;
}

static void residency(struct il_audit_host *h, const char *name, uint64_t us)
{
	struct il_audit_res *r = realloc(h->res, (h->nres + 1) * sizeof(*r));

	assert_non_null(r);
	h->res = r;
	r[h->nres].name = strdup(name);
	r[h->nres].time_us = us;
	h->nres++;
}

static void measured(struct il_audit_host *h, const char *name, uint64_t usage, uint64_t above, bool below_ok)
{
	memset(h, 0, sizeof(*h));
	h->host = strdup(name);
	h->reached = h->measured = true;
	h->interval_s = 10;
	h->total.c[IL_C_USAGE] = (struct il_val){ usage, true };
	h->total.c[IL_C_TIME] = (struct il_val){ 1000, true };
	h->total.c[IL_C_ABOVE] = (struct il_val){ above, true };
	h->total.c[IL_C_BELOW] = (struct il_val){ 5, below_ok };
}

static void test_workflow_auditfleet__groups_counts_and_sums(void **state)
{
	struct il_audit_host hosts[3];
	struct il_audit_fleet f;
	struct il_err err = { 0 };

	(void)state;
	measured(&hosts[0], "h1", 100, 10, true);
	finding(&hosts[0], IL_AK_GOVERNOR, IL_SEV_WARNING, "governor ladder");
	finding(&hosts[0], IL_AK_CMDLINE, IL_SEV_CRITICAL, "idle=poll");
	residency(&hosts[0], "C1", 300);
	residency(&hosts[0], "C6", 700);
	measured(&hosts[1], "h2", 300, 30, false);
	finding(&hosts[1], IL_AK_GOVERNOR, IL_SEV_WARNING, "governor ladder");
	residency(&hosts[1], "C6", 50);
	residency(&hosts[1], "C10", 25);
	/* reached, not measured: its findings count, its numbers do not */
	memset(&hosts[2], 0, sizeof(hosts[2]));
	hosts[2].host = strdup("h3");
	hosts[2].reached = true;
	hosts[2].total.c[IL_C_USAGE] = (struct il_val){ 1000000, true };
	finding(&hosts[2], IL_AK_GOVERNOR, IL_SEV_WARNING, "governor teo");
	residency(&hosts[2], "C6", 999999);

	assert_int_equal(il_audit_fleet_make(&f, hosts, 3, &err), 0);
	assert_int_equal(f.nhosts, 3);
	assert_int_equal(f.reached, 3);
	assert_int_equal(f.measured, 2);
	assert_int_equal(f.by_sev[IL_SEV_CRITICAL], 1);
	assert_int_equal(f.by_sev[IL_SEV_WARNING], 3);
	assert_int_equal(f.by_sev[IL_SEV_INFO], 0);
	assert_true(f.any);
	assert_int_equal(f.worst, IL_SEV_CRITICAL);
	/* the worst first, then by kind, then by subject; a (kind, subject) once with its hosts */
	assert_int_equal(f.ngroups, 3);
	assert_int_equal(f.groups[0].kind, IL_AK_CMDLINE);
	assert_string_equal(f.groups[1].subject, "governor ladder");
	assert_int_equal(f.groups[1].hosts.n, 2);
	assert_string_equal(f.groups[1].hosts.v[0], "h1");
	assert_string_equal(f.groups[1].hosts.v[1], "h2");
	assert_string_equal(f.groups[2].subject, "governor teo");
	assert_int_equal(f.groups[2].hosts.n, 1);
	/* summed over the measured hosts; below is lacking on h2, so for the fleet */
	assert_true(f.total.c[IL_C_USAGE].ok);
	assert_int_equal(f.total.c[IL_C_USAGE].v, 400);
	assert_int_equal(f.total.c[IL_C_ABOVE].v, 40);
	assert_false(f.total.c[IL_C_BELOW].ok);
	assert_true(f.interval_s == 20);
	assert_true(f.m.idles.ok);
	assert_int_equal(f.m.idles.v, 400);
	/* residency by state name, in the order first seen */
	assert_int_equal(f.nres, 3);
	assert_string_equal(f.res[0].name, "C1");
	assert_int_equal(f.res[1].time_us, 750);
	assert_string_equal(f.res[2].name, "C10");
	assert_true(il_audit_fleet_fails(&f, IL_SEV_CRITICAL));
	assert_true(il_audit_fleet_fails(&f, IL_SEV_WARNING));
	il_audit_fleet_release(&f);
	assert_int_equal(f.ngroups, 0);
	for (size_t i = 0; i < 3; i++)
		il_audit_host_release(&hosts[i]);
}

static void test_workflow_auditfleet__clean_fleet_never_fails(void **state)
{
	struct il_audit_host hosts[2];
	struct il_audit_fleet f;
	struct il_err err = { 0 };

	(void)state;
	measured(&hosts[0], "h1", 100, 10, true);
	memset(&hosts[1], 0, sizeof(hosts[1]));
	hosts[1].host = strdup("h2"); /* unreached without a finding (the policy turned it off) */
	assert_int_equal(il_audit_fleet_make(&f, hosts, 2, &err), 0);
	assert_int_equal(f.reached, 1);
	assert_int_equal(f.measured, 1);
	assert_false(f.any);
	assert_int_equal(f.ngroups, 0);
	assert_false(il_audit_fleet_fails(&f, IL_SEV_INFO));
	il_audit_fleet_release(&f);
	/* no host at all */
	assert_int_equal(il_audit_fleet_make(&f, hosts, 0, &err), 0);
	assert_int_equal(f.measured, 0);
	assert_false(f.m.idles.ok);
	assert_false(il_audit_fleet_fails(&f, IL_SEV_INFO));
	il_audit_fleet_release(&f);
	for (size_t i = 0; i < 2; i++)
		il_audit_host_release(&hosts[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workflow_auditfleet__groups_counts_and_sums),
		cmocka_unit_test(test_workflow_auditfleet__clean_fleet_never_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
