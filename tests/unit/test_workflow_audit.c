// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The audit's findings engine on a real dump (x86-intel-idle before/after,
 * read through il_probe_parse_window as the audit's one exec prints it)
 * with each problem planted in the facts or the sysfs values: each kind is
 * found alone where planted and nothing on the clean host; the unreached
 * kinds from the transport's errors; policy errors by JSON path; the fleet's
 * groups and exit decision; the report formats.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/probe.h"
#include "report/audit.h"
#include "workflow/audit.h"
#include "workflow/auditfleet.h"

/* A bare-metal Intel host with nothing wrong in its facts. */
static const char clean_facts[] = "idlelab.uname_r:6.1.0\n"
				  "idlelab.arch:x86_64\n"
				  "idlelab.cpu_model:Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz\n"
				  "idlelab.cmdline:BOOT_IMAGE=/vmlinuz ro quiet\n"
				  "idlelab.hypervisor_flag:0\n"
				  "idlelab.dmi_vendor:LENOVO\n"
				  "idlelab.dmi_product:20L8S02D00\n"
				  "idlelab.pm_qos.0:0\nidlelab.pm_qos.1:0\nidlelab.pm_qos.2:0\nidlelab.pm_qos.3:0\n"
				  "idlelab.pm_qos_scan:all\n"
				  "idlelab.tuned_profile:balanced\n";

/* s with every `from` replaced by `to` (a new string). */
static char *replace(const char *s, const char *from, const char *to)
{
	struct il_buf b = IL_BUF_INIT;
	size_t n = strlen(from);

	for (const char *p; (p = strstr(s, from)); s = p + n) {
		il_buf_add(&b, s, (size_t)(p - s));
		il_buf_adds(&b, to);
	}
	il_buf_adds(&b, s);
	return il_buf_detach(&b);
}

struct plant {
	const char *facts;      /* replaces clean_facts when set */
	const char *extra;      /* appended to the facts */
	const char *from, *to;  /* a change to both dumps */
	const char *from2, *to2;
	const char *policy;     /* JSON over the default */
};

/* The kinds found on the planted host, as a bit set. */
static unsigned judge(const struct plant *pl, struct il_audit_host *keep)
{
	char *before = tu_read(tu_fixture("x86-intel-idle-before.txt"), NULL);
	char *after = tu_read(tu_fixture("x86-intel-idle-after.txt"), NULL);
	struct il_buf text = IL_BUF_INIT;
	struct il_audit_policy p;
	struct il_audit_host h;
	struct il_snapshot a, b;
	struct il_err err = { 0 };
	json_t *fp;
	unsigned kinds = 0;

	for (int i = 0; i < 2; i++) {
		const char *f = i ? pl->from2 : pl->from, *t = i ? pl->to2 : pl->to;
		char *x, *y;

		if (!f)
			continue;
		x = replace(before, f, t);
		y = replace(after, f, t);
		free(before);
		free(after);
		before = x;
		after = y;
	}
	il_buf_printf(&text, "%s%s%s" IL_PROBE_WINDOW_MARK "\n%s", pl->facts ? pl->facts : clean_facts,
		      pl->extra ? pl->extra : "", before, after);
	if (il_probe_parse_window(il_buf_str(&text), text.len, "h1", &fp, &a, &b, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(il_audit_policy_default(&p, &err), 0);
	if (pl->policy) {
		json_t *j = json_loads(pl->policy, 0, NULL);

		assert_non_null(j);
		if (il_audit_policy_from_json(&p, j, "policy.json", &err))
			fail_msg("%s", err.msg);
		json_decref(j);
	}
	if (il_audit_judge(&h, "h1", fp, &a, &b, &p, &err))
		fail_msg("%s", err.msg);
	assert_true(h.reached);
	assert_true(h.measured);
	for (size_t i = 0; i < h.nfind; i++) {
		kinds |= 1u << h.find[i].kind;
		assert_non_null(h.find[i].evidence);
		assert_int_equal(h.find[i].sev, p.sev[h.find[i].kind]);
	}
	if (keep)
		*keep = h;
	else
		il_audit_host_release(&h);
	il_audit_policy_release(&p);
	json_decref(fp);
	il_snapshot_release(&a);
	il_snapshot_release(&b);
	il_buf_release(&text);
	free(before);
	free(after);
	return kinds;
}

#define K(k) (1u << (k))

static void test_workflow_audit__clean_host_has_no_findings(void **state)
{
	struct plant pl = { 0 };

	(void)state;
	assert_int_equal(judge(&pl, NULL), 0);
}

/* The evidence of the one finding of kind k on the planted host contains want. */
static void one(const struct plant *pl, enum il_audit_kind k, const char *want)
{
	struct il_audit_host h;
	unsigned got = judge(pl, &h);

	if (got != K(k))
		fail_msg("kinds 0x%x, wanted only %s (0x%x)", got, il_audit_kind_info(k)->name, K(k));
	if (!strstr(h.find[0].evidence, want))
		fail_msg("%s: evidence '%s' lacks '%s'", il_audit_kind_info(k)->name, h.find[0].evidence, want);
	il_audit_host_release(&h);
}

static void test_workflow_audit__each_kind_alone(void **state)
{
	(void)state;
	one(&(struct plant){ .from = "current_governor:menu", .to = "current_governor:ladder" }, IL_AK_GOVERNOR,
	    "current_governor ladder");
	one(&(struct plant){ .from = "cpu1/cpuidle/state4/disable:0", .to = "cpu1/cpuidle/state4/disable:1" },
	    IL_AK_STATES_DISABLED, "state4 (C6) disable=1 on CPUs 1");
	one(&(struct plant){ .from = "state6/default_status:enabled", .to = "state6/default_status:disabled",
			     .from2 = "state6/disable:0", .to2 = "state6/disable:1" },
	    IL_AK_STATES_OFF_BY_DRIVER, "CPUs 0-3");
	one(&(struct plant){ .extra = "idlelab.pm_qos_holder.812:tuned\n" }, IL_AK_DMA_LATENCY, "pid 812 (tuned)");
	one(&(struct plant){ .extra = "idlelab.pm_qos.2:n/a\nidlelab.pm_qos.3:20\n" }, IL_AK_RESUME_LATENCY,
	    "cpu2: n/a (no idle state allowed), cpu3: 20 us");
	one(&(struct plant){ .extra = "idlelab.cmdline:ro idle=poll quiet -- idle=halt\n" }, IL_AK_CMDLINE,
	    "idle=poll");
	one(&(struct plant){ .extra = "idlelab.cmdline:ro intel_idle.max_cstate=1\n" }, IL_AK_CMDLINE,
	    "intel_idle.max_cstate=1");
	one(&(struct plant){ .from = "current_driver:intel_idle", .to = "current_driver:haltpoll" },
	    IL_AK_HALTPOLL_BARE_METAL, "no hypervisor");
	one(&(struct plant){ .from = "current_driver:intel_idle", .to = "current_driver:acpi_idle" },
	    IL_AK_DRIVER_MISMATCH, "acpi_idle on Intel");
	one(&(struct plant){ .extra = "idlelab.tuned_profile:latency-performance\n" }, IL_AK_TUNED_LATENCY,
	    "latency-performance");
	one(&(struct plant){ .from = "cpu3/cpuidle/state5/residency:800", .to = "cpu3/cpuidle/state5/residency:900" },
	    IL_AK_TABLES_DIFFER, "C7s 124/900 us");
	one(&(struct plant){ .policy = "{\"limits\": {\"too_deep_pct\": 1}}" }, IL_AK_TOO_DEEP, "1.1 % of 7974");
	/* 52 belows of 7974 entries, POLL's 4 included as the kernel counts them */
	one(&(struct plant){ .policy = "{\"limits\": {\"too_shallow_pct\": 0.5}}" }, IL_AK_TOO_SHALLOW, "0.7 % of 7974");
	one(&(struct plant){ .policy = "{\"limits\": {\"shallow_residency_pct\": 10}}" }, IL_AK_SHALLOW_RESIDENCY,
	    "POLL, C1, C1E");
}

static void test_workflow_audit__not_judged_where_it_means_nothing(void **state)
{
	(void)state;
	/* a VM may run haltpoll; ratios under min_idles are not judged; idle=nomwait and nohz=on are harmless */
	assert_int_equal(judge(&(struct plant){ .from = "current_driver:intel_idle", .to = "current_driver:haltpoll",
						.extra = "idlelab.hypervisor_flag:1\nidlelab.dmi_vendor:QEMU\n" },
			       NULL),
			 0);
	assert_int_equal(judge(&(struct plant){ .policy = "{\"limits\": {\"too_deep_pct\": 1, \"min_idles\": 10000}}" },
			       NULL),
			 0);
	assert_int_equal(judge(&(struct plant){ .extra = "idlelab.cmdline:ro idle=nomwait nohz=on\n" }, NULL), 0);
	/* "off" turns a kind off; an empty governors list accepts any */
	assert_int_equal(judge(&(struct plant){ .from = "current_governor:menu", .to = "current_governor:ladder",
						.policy = "{\"severity\": {\"governor\": \"off\"}}" },
			       NULL),
			 0);
	assert_int_equal(judge(&(struct plant){ .from = "current_governor:menu", .to = "current_governor:ladder",
						.policy = "{\"governors\": []}" },
			       NULL),
			 0);
}

static void test_workflow_audit__unreached_kinds(void **state)
{
	static const struct {
		int code;
		const char *msg;
		enum il_audit_kind k;
	} cases[] = {
		{ IL_ECONNECT, "host 'x': cannot connect: Connection refused", IL_AK_UNREACHABLE },
		{ IL_ECONNECT, "host 'x': cannot connect: Timeout connecting to 10.0.0.1", IL_AK_TIMED_OUT },
		{ IL_ETIMEOUT, "host 'x': 'sh' timed out after 600.0 s", IL_AK_TIMED_OUT },
		{ IL_EAUTH, "host 'x': public key authentication was refused", IL_AK_AUTH_REFUSED },
		{ IL_EHOSTKEY, "host 'x': host key mismatch", IL_AK_AUTH_REFUSED },
		{ IL_EPARSE, "host 'x': the probe printed no kernel release", IL_AK_PROBE_FAILED },
	};
	struct il_audit_policy p;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_audit_policy_default(&p, &err), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct il_audit_host h;

		assert_int_equal(il_audit_unreached(&h, "x", cases[i].code, cases[i].msg, &p, &err), 0);
		assert_false(h.reached);
		assert_int_equal(h.nfind, 1);
		assert_int_equal(h.find[0].kind, cases[i].k);
		assert_string_equal(h.find[0].evidence, cases[i].msg);
		il_audit_host_release(&h);
	}
	il_audit_policy_release(&p);
}

static void policy_error(const char *json, const char *want)
{
	struct il_audit_policy p;
	struct il_err err = { 0 };
	json_t *j = json_loads(json, 0, NULL);

	assert_non_null(j);
	assert_int_equal(il_audit_policy_default(&p, &err), 0);
	assert_int_equal(il_audit_policy_from_json(&p, j, "pol.json", &err), IL_EPARSE);
	/* want may be the message's start */
	if (strncmp(err.msg, want, strlen(want)))
		fail_msg("got '%s', wanted '%s'", err.msg, want);
	json_decref(j);
	il_audit_policy_release(&p);
}

static void test_workflow_audit__policy_errors_by_path(void **state)
{
	(void)state;
	policy_error("{\"limits\": {\"too_deep_pct\": 150}}", "pol.json: limits.too_deep_pct: expected a number from 0 to 100");
	policy_error("{\"limits\": {\"deep\": 1}}",
		     "pol.json: limits.deep: unknown key (known: too_deep_pct, too_shallow_pct, shallow_residency_pct, "
		     "shallow_residency_us, min_idles)");
	policy_error("{\"severity\": {\"governor\": \"loud\"}}",
		     "pol.json: severity.governor: expected \"info\", \"warning\", \"critical\" or \"off\"");
	policy_error("{\"severity\": {\"nope\": \"info\"}}",
		     "pol.json: severity.nope: expected a finding kind (known: unreachable, auth_refused, ");
	policy_error("{\"governors\": \"menu\"}", "pol.json: governors: expected an array of governor names (empty: any)");
}

static void test_workflow_audit__shipped_policy_is_the_default(void **state)
{
	struct il_audit_policy d, f;
	struct il_err err = { 0 };

	(void)state;
	assert_int_equal(il_audit_policy_default(&d, &err), 0);
	assert_int_equal(il_audit_policy_default(&f, &err), 0);
	if (il_audit_policy_load(&f, tu_srcpath("examples/audit/policy.json"), &err))
		fail_msg("%s", err.msg);
	assert_int_equal(d.governors.n, f.governors.n);
	assert_int_equal(d.tuned_latency.n, f.tuned_latency.n);
	assert_true(d.too_deep_pct == f.too_deep_pct && d.too_shallow_pct == f.too_shallow_pct &&
		    d.shallow_residency_pct == f.shallow_residency_pct && d.min_idles == f.min_idles);
	assert_memory_equal(d.sev, f.sev, sizeof(d.sev));
	assert_memory_equal(d.off, f.off, sizeof(d.off));
	il_audit_policy_release(&d);
	il_audit_policy_release(&f);
}

static void test_workflow_audit__fleet_groups_and_reports(void **state)
{
	struct il_audit_host hosts[3];
	struct il_audit_policy p;
	struct il_audit_fleet f;
	struct il_audit_run run = { .window_s = 1, .jobs = 3 };
	struct il_err err = { 0 };
	static const char *const fmts[] = { "text", "json", "csv", "html" };

	(void)state;
	assert_int_equal(il_audit_policy_default(&p, &err), 0);
	judge(&(struct plant){ .from = "current_governor:menu", .to = "current_governor:ladder" }, &hosts[0]);
	judge(&(struct plant){ .from = "current_governor:menu", .to = "current_governor:ladder",
			       .extra = "idlelab.pm_qos_holder.7:cyclictest\n" },
	      &hosts[1]);
	free(hosts[1].host);
	hosts[1].host = strdup("h2");
	assert_int_equal(il_audit_unreached(&hosts[2], "h3", IL_ECONNECT, "refused", &p, &err), 0);
	assert_int_equal(il_audit_fleet_make(&f, hosts, 3, &err), 0);
	assert_int_equal(f.reached, 2);
	assert_int_equal(f.measured, 2);
	assert_int_equal(f.by_sev[IL_SEV_CRITICAL], 2);
	assert_int_equal(f.by_sev[IL_SEV_WARNING], 2);
	/* one line per finding: the worst first, the governor's with both hosts */
	assert_int_equal(f.ngroups, 3);
	assert_int_equal(f.groups[0].sev, IL_SEV_CRITICAL);
	assert_int_equal(f.groups[2].kind, IL_AK_GOVERNOR);
	assert_int_equal(f.groups[2].hosts.n, 2);
	assert_string_equal(f.groups[2].hosts.v[1], "h2");
	assert_true(f.m.has_miss_ratio);
	assert_int_equal(f.m.idles.v, 2 * 7974);
	assert_true(il_audit_fleet_fails(&f, IL_SEV_CRITICAL));
	for (size_t i = 0; i < 4; i++) {
		enum il_audit_fmt fmt;
		struct il_buf out = IL_BUF_INIT;

		assert_int_equal(il_audit_fmt_parse(fmts[i], &fmt, &err), 0);
		assert_int_equal(il_report_audit(&f, &run, fmt, &out, &err), 0);
		assert_non_null(strstr(il_buf_str(&out), "h2"));
		if (i == 0)
			assert_non_null(strstr(il_buf_str(&out), "warning  governor               governor ladder (2): h1 h2"));
		if (i == 1) {
			json_t *j = json_loads(il_buf_str(&out), 0, NULL);

			assert_non_null(j);
			assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "summary"), "unreached")), 1);
			json_decref(j);
		}
		if (i == 3)
			assert_non_null(strstr(il_buf_str(&out), "data-report-ok"));
		il_buf_release(&out);
	}
	il_audit_fleet_release(&f);
	for (size_t i = 0; i < 3; i++)
		il_audit_host_release(&hosts[i]);
	il_audit_policy_release(&p);
}

/* A host's bytes that are not UTF-8 hide nothing: the fact is kept (U+FFFD) and judged. */
static void test_workflow_audit__not_utf8_hides_no_finding(void **state)
{
	(void)state;
	one(&(struct plant){ .extra = "idlelab.cmdline:ro idle=poll quiet \xff\n" }, IL_AK_CMDLINE, "idle=poll");
	one(&(struct plant){ .extra = "idlelab.pm_qos_holder.812:tu\xffned\n" }, IL_AK_DMA_LATENCY,
	    "pid 812 (tu\xef\xbf\xbdned)");
}

/*
 * Two hosts, one of them with a governor and state names that are not UTF-8 (two that become
 * the same text): the JSON report lists both hosts, the governor with U+FFFD, every state.
 */
static void json_fleet(struct il_audit_host hosts[2], struct il_audit_fleet *f)
{
	struct il_err err = { 0 };
	bool renamed = false;

	judge(&(struct plant){ .from = "current_governor:menu", .to = "current_governor:ladder" }, &hosts[0]);
	judge(&(struct plant){ .from = "current_governor:menu", .to = "current_governor:m\xffnu", .from2 = "name:C3\n",
			       .to2 = "name:C\xff\n" },
	      &hosts[1]);
	/* the second name change on the already-judged dumps would be a third replacement: rename by hand */
	for (size_t i = 0; i < hosts[1].nres; i++)
		if (!strcmp(hosts[1].res[i].name, "C8")) {
			hosts[1].res[i].name[1] = '\xfe';
			renamed = true;
		}
	assert_true(renamed);
	free(hosts[1].host);
	hosts[1].host = strdup("h2");
	assert_int_equal(il_audit_fleet_make(f, hosts, 2, &err), 0);
}

static void test_workflow_audit__json_keeps_a_host_that_is_not_utf8(void **state)
{
	struct il_audit_host hosts[2];
	struct il_audit_fleet f;
	struct il_audit_run run = { .window_s = 1, .jobs = 2 };
	struct il_buf out = IL_BUF_INIT;
	struct il_err err = { 0 };
	json_t *j, *h, *res;

	(void)state;
	json_fleet(hosts, &f);
	assert_int_equal(il_report_audit(&f, &run, IL_AFMT_JSON, &out, &err), 0);
	assert_non_null(j = json_loads(il_buf_str(&out), 0, NULL));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "summary"), "hosts")), 2);
	assert_int_equal(json_array_size(json_object_get(j, "hosts")), 2);
	h = json_array_get(json_object_get(j, "hosts"), 1);
	assert_string_equal(json_string_value(json_object_get(h, "host")), "h2");
	assert_string_equal(json_string_value(json_object_get(h, "governor")), "m\xef\xbf\xbdnu");
	/* its findings, as the fleet's groups */
	assert_int_equal(json_array_size(json_object_get(h, "findings")), hosts[1].nfind);
	assert_true(hosts[1].nfind > 0);
	assert_int_equal(json_array_size(json_object_get(j, "findings")), f.ngroups);
	/* every state, the two names that read the same numbered apart */
	res = json_object_get(h, "residency");
	assert_int_equal(json_object_size(res), hosts[1].nres);
	assert_non_null(json_object_get(res, "C\xef\xbf\xbd"));
	assert_non_null(json_object_get(res, "C\xef\xbf\xbd #2"));
	assert_int_equal(json_object_size(json_object_get(json_object_get(j, "summary"), "residency")), f.nres);
	json_decref(j);
	il_buf_release(&out);
	il_audit_fleet_release(&f);
	for (size_t i = 0; i < 2; i++)
		il_audit_host_release(&hosts[i]);
}

/* Out of memory at any of its allocations, the JSON report is an error or whole, never shorter. */
static void test_workflow_audit__json_is_whole_or_an_error(void **state)
{
	struct il_audit_host hosts[2];
	struct il_audit_fleet f;
	struct il_audit_run run = { .window_s = 1, .jobs = 2 };
	struct il_buf whole = IL_BUF_INIT;
	struct il_err err = { 0 };
	long n = 0;

	(void)state;
	json_fleet(hosts, &f);
	assert_int_equal(il_report_audit(&f, &run, IL_AFMT_JSON, &whole, &err), 0);
	for (bool hit = true; hit; n += tu_oom_stride()) {
		struct il_buf out = IL_BUF_INIT;
		int r;

		tu_json_oom(n);
		r = il_report_audit(&f, &run, IL_AFMT_JSON, &out, &err);
		hit = tu_json_oom_end();
		if (r) {
			assert_int_equal(r, IL_ENOMEM);
			assert_true(hit);
		} else
			assert_string_equal(il_buf_str(&out), il_buf_str(&whole));
		il_buf_release(&out);
	}
	assert_true(n > 100);
	il_buf_release(&whole);
	il_audit_fleet_release(&f);
	for (size_t i = 0; i < 2; i++)
		il_audit_host_release(&hosts[i]);
}

static void test_workflow_audit__window_output_without_mark_is_refused(void **state)
{
	struct il_snapshot a, b;
	struct il_err err = { 0 };
	json_t *fp;

	(void)state;
	assert_int_equal(il_probe_parse_window(clean_facts, strlen(clean_facts), "h", &fp, &a, &b, &err), IL_EPARSE);
	assert_null(fp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workflow_audit__clean_host_has_no_findings),
		cmocka_unit_test(test_workflow_audit__each_kind_alone),
		cmocka_unit_test(test_workflow_audit__not_judged_where_it_means_nothing),
		cmocka_unit_test(test_workflow_audit__unreached_kinds),
		cmocka_unit_test(test_workflow_audit__policy_errors_by_path),
		cmocka_unit_test(test_workflow_audit__shipped_policy_is_the_default),
		cmocka_unit_test(test_workflow_audit__fleet_groups_and_reports),
		cmocka_unit_test(test_workflow_audit__window_output_without_mark_is_refused),
		cmocka_unit_test(test_workflow_audit__not_utf8_hides_no_finding),
		cmocka_unit_test(test_workflow_audit__json_keeps_a_host_that_is_not_utf8),
		cmocka_unit_test(test_workflow_audit__json_is_whole_or_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
