// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Prometheus text exposition of fixture snapshots: exact lines for one
 * CPU and state, families whole and headed once, clusters of an asymmetric
 * host, poll states, absent counters left out, PM QoS and label escaping.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "report/promtext.h"

static char *render(const struct il_snapshot *s, const struct il_pmqos *q, struct il_promtext_summary *sum)
{
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };

	assert_int_equal(il_promtext_render(&b, s, q, sum, &err), 0);
	return il_buf_detach(&b);
}

static void has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
	fail_msg("no line '%s' in:\n%s", line, text);
}

static size_t count(const char *text, const char *s)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, s)); p++)
		n++;
	return n;
}

/*
 * Every sample's family was announced by the HELP and TYPE right before its
 * first sample, once, and its samples are not interrupted by another family.
 */
static void families_whole(const char *text)
{
	struct il_buf seen = IL_BUF_INIT;
	char fam[128] = "";

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t k = strcspn(p, "{ ");
		char name[140];

		assert_non_null(nl);
		if (!strncmp(p, "# HELP ", 7)) {
			snprintf(fam, sizeof(fam), "%.*s", (int)strcspn(p + 7, " "), p + 7);
			snprintf(name, sizeof(name), " %s ", fam);
			assert_null(strstr(il_buf_str(&seen), name));
			assert_int_equal(il_buf_adds(&seen, name), 0);
			assert_int_equal(strncmp(nl + 1, "# TYPE ", 7), 0);
		} else if (strncmp(p, "# TYPE ", 7)) {
			assert_true(p + k < nl);
			assert_true(strlen(fam) == k && !strncmp(p, fam, k));
		}
		p = nl + 1;
	}
	il_buf_release(&seen);
}

static void test_promtext__labvm(void **state)
{
	struct il_snapshot *s = *state;
	struct il_promtext_summary sum;
	char *t = render(s, NULL, &sum);

	/* cpu1 ret-deep: usage 221, time 3080469 us, above 67, below 0, rejected 0, enabled */
#define L "{cpu=\"1\",state=\"2\",name=\"ret-deep\",driver=\"psci_idle\",governor=\"menu\",latency_us=\"500\"," \
	  "residency_us=\"2000\",poll=\"false\"}"
	has_line(t, "# HELP idlelab_cpuidle_state_usage_total Times the hardware was asked to enter this idle state "
		    "(cpuidle sysfs usage).");
	has_line(t, "# TYPE idlelab_cpuidle_state_usage_total counter");
	has_line(t, "idlelab_cpuidle_state_usage_total" L " 221");
	has_line(t, "idlelab_cpuidle_state_time_seconds_total" L " 3.080469");
	has_line(t, "idlelab_cpuidle_state_above_total" L " 67");
	has_line(t, "idlelab_cpuidle_state_below_total" L " 0");
	has_line(t, "idlelab_cpuidle_state_rejected_total" L " 0");
	has_line(t, "# TYPE idlelab_cpuidle_state_disabled gauge");
	has_line(t, "idlelab_cpuidle_state_disabled{cpu=\"1\",state=\"2\",name=\"ret-deep\",driver=\"psci_idle\","
		    "governor=\"menu\",latency_us=\"500\",residency_us=\"2000\",poll=\"false\",default_status=\"enabled\"} 0");
#undef L
	/* a symmetric host is one cluster: cpu0's 199 + cpu1's 221 */
	has_line(t, "idlelab_cpuidle_cluster_info{cluster=\"all\",cpus=\"0-1\"} 1");
	has_line(t, "idlelab_cpuidle_cluster_state_usage_total{cluster=\"all\",state=\"2\",name=\"ret-deep\","
		    "driver=\"psci_idle\",governor=\"menu\",latency_us=\"500\",residency_us=\"2000\",poll=\"false\"} 420");
	has_line(t, "idlelab_cpuidle_governor_info{governor=\"menu\",driver=\"psci_idle\"} 1");
	assert_int_equal(count(t, "idlelab_cpuidle_state_usage_total{"), 6);
	assert_int_equal(count(t, "idlelab_cpuidle_cluster_state_usage_total{"), 3);
	assert_null(strstr(t, "idlelab_pmqos"));
	families_whole(t);
	/* idlelab's own lifetime numbers: usage 1151; above 130 + below 103, no poll state */
	assert_int_equal(sum.ncpus, 2);
	assert_int_equal(sum.nstates, 6);
	assert_int_equal(sum.nclusters, 1);
	assert_int_equal(sum.total.idles.v, 1151);
	assert_int_equal(sum.total.idle_miss.v, 233);
	assert_true(sum.total.has_miss_ratio);
	assert_float_equal(sum.total.miss_ratio, 233.0 / 1151.0, 1e-15);
	free(t);
}

/* Clusters of an asymmetric host: little and big, cpu-sleep twice (250 and 550 us) apart. */
static void test_promtext__biglittle(void **state)
{
	struct il_snapshot *s = *state;
	struct il_promtext_summary sum;
	char *t = render(s, NULL, &sum);

	assert_int_equal(sum.nclusters, 2);
	has_line(t, "idlelab_cpuidle_cluster_info{cluster=\"little\",cpus=\"0-3\",capacity=\"485\"} 1");
	has_line(t, "idlelab_cpuidle_cluster_info{cluster=\"big\",cpus=\"4-5\",capacity=\"1024\"} 1");
	assert_non_null(strstr(t, "idlelab_cpuidle_cluster_state_usage_total{cluster=\"little\",state=\"1\","
				  "name=\"cpu-sleep\",driver=\"psci_idle\",governor=\"teo\",latency_us=\"120\",residency_us=\"250\""));
	assert_non_null(strstr(t, "idlelab_cpuidle_cluster_state_usage_total{cluster=\"big\",state=\"1\","
				  "name=\"cpu-sleep\",driver=\"psci_idle\",governor=\"teo\",latency_us=\"260\",residency_us=\"550\""));
	families_whole(t);
	free(t);
}

/* A poll state is labelled so, and its below is a miss in idlelab's ratio, as the kernel counts it (cpuidle.c). */
static void test_promtext__haltpoll(void **state)
{
	struct il_snapshot *s = *state;
	struct il_promtext_summary sum;
	char *t = render(s, NULL, &sum);
	uint64_t usage = 0, above = 0, below = 0, below_poll = 0;

	has_line(t, "idlelab_cpuidle_state_below_total{cpu=\"0\",state=\"0\",name=\"POLL\",driver=\"haltpoll\","
		    "governor=\"haltpoll\",latency_us=\"0\",residency_us=\"0\",poll=\"true\"} 340");
	for (size_t i = 0; i < s->ncpus; i++)
		for (size_t k = 0; k < s->cpus[i].nstates; k++) {
			const struct il_state *st = &s->cpus[i].states[k];

			usage += st->cnt[IL_C_USAGE].v;
			above += st->cnt[IL_C_ABOVE].v;
			below += st->cnt[IL_C_BELOW].v;
			below_poll += il_snapshot_state_is_poll(st) ? st->cnt[IL_C_BELOW].v : 0;
		}
	assert_int_equal(sum.total.idles.v, usage);
	assert_true(below_poll > 0);
	assert_int_equal(sum.total.idle_miss.v, above + below);
	assert_int_equal(sum.total.poll_belows.v, below_poll);
	free(t);
}

/* A 4.14 kernel has no above/below/rejected: those families are left out, never zeros. */
static void test_promtext__absent_counters(void **state)
{
	struct il_snapshot *s = *state;
	struct il_promtext_summary sum;
	char *t = render(s, NULL, &sum);

	assert_non_null(strstr(t, "idlelab_cpuidle_state_usage_total{"));
	assert_null(strstr(t, "above_total"));
	assert_null(strstr(t, "below_total"));
	assert_null(strstr(t, "rejected_total"));
	assert_false(sum.total.has_miss_ratio);
	families_whole(t);
	free(t);
}

static void test_promtext__pmqos_and_escaping(void **state)
{
	struct il_snapshot *s = *state;
	struct il_pmqos_holder h[] = { { 42, (char *)"a\"b\\c\nd\xff", 2 }, { 43, NULL, 1 } };
	struct il_pmqos_resume r[] = { { 0, false, 0 }, { 1, true, 0 }, { 2, true, 50 } };
	struct il_pmqos q = { .nholders = 2, .holders = h, .nrequests = 3, .unreadable = 4,
			      .has_cpu_latency = true, .cpu_latency_us = 2000000000, .ncpus = 3, .cpus = r };
	struct il_buf b = IL_BUF_INIT;
	char *t = render(s, &q, NULL);

	has_line(t, "idlelab_pmqos_cpu_dma_latency_requests 3");
	/* quote, backslash and newline escaped; a byte that is not UTF-8 becomes U+FFFD */
	has_line(t, "idlelab_pmqos_cpu_dma_latency_holder_info{pid=\"42\",comm=\"a\\\"b\\\\c\\nd\xef\xbf\xbd\"} 1");
	has_line(t, "idlelab_pmqos_cpu_dma_latency_holder_info{pid=\"43\"} 1");
	has_line(t, "idlelab_pmqos_unreadable_processes 4");
	has_line(t, "idlelab_pmqos_cpu_latency_limit_seconds 2000.000000");
	has_line(t, "idlelab_pmqos_resume_latency_limit_seconds{cpu=\"0\"} +Inf");
	has_line(t, "idlelab_pmqos_resume_latency_limit_seconds{cpu=\"1\"} 0.000000");
	has_line(t, "idlelab_pmqos_resume_latency_limit_seconds{cpu=\"2\"} 0.000050");
	families_whole(t);
	free(t);
	/* valid UTF-8 passes as it is; an overlong form and a cut sequence do not */
	assert_int_equal(il_promtext_label_value(&b, "caf\xc3\xa9 \xc0\xaf \xe2\x82"), 0);
	assert_string_equal(il_buf_str(&b), "caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
	il_buf_release(&b);
}

/* The exposition of a host without idle states: the governor and driver, no state families. */
static void test_promtext__no_idle_states(void **state)
{
	struct il_snapshot *s = *state;
	struct il_promtext_summary sum;
	char *t = render(s, NULL, &sum);

	assert_null(strstr(t, "idlelab_cpuidle_state_"));
	assert_null(strstr(t, "idlelab_cpuidle_cluster"));
	has_line(t, "# TYPE idlelab_cpuidle_governor_info gauge");
	assert_non_null(strstr(t, "driver=\"none\"} 1\n"));
	assert_int_equal(sum.nclusters, 0);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_SNAPSHOT_TEST(test_promtext__labvm, "labvm-arm64-after.txt"),
		TU_SNAPSHOT_TEST(test_promtext__biglittle, "arm64-biglittle-after.txt"),
		TU_SNAPSHOT_TEST(test_promtext__haltpoll, "x86-haltpoll-2vcpu-after.txt"),
		TU_SNAPSHOT_TEST(test_promtext__absent_counters, "old-kernel-4.14-after.txt"),
		TU_SNAPSHOT_TEST(test_promtext__pmqos_and_escaping, "labvm-arm64-after.txt"),
		TU_SNAPSHOT_TEST(test_promtext__no_idle_states, "x86-vm-no-idle-states.txt"),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
