// SPDX-License-Identifier: GPL-2.0-or-later
/* Snapshot diffs: real capture numbers, validation errors, aggregation, energy. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle/diff.h"
#include "idle/snapjson.h"

static void diff_fixtures(struct il_diff *d, const char *a, const char *b)
{
	struct il_snapshot sa, sb;
	struct il_err err = { 0 };

	tu_parse_fixture(&sa, a);
	tu_parse_fixture(&sb, b);
	if (il_diff_compute(d, &sa, &sb, &err))
		fail_msg("%s", err.msg);
	il_snapshot_release(&sa);
	il_snapshot_release(&sb);
}

/* A test of the diff of two fixtures: *state is first their names, then the struct il_diff. */
static int diff_setup(void **state)
{
	const char *const *names = *state;
	struct il_diff *d = malloc(sizeof(*d));

	assert_non_null(d);
	diff_fixtures(d, names[0], names[1]);
	*state = d;
	return 0;
}

static int diff_teardown(void **state)
{
	il_diff_release(*state);
	free(*state);
	return 0;
}

#define DIFF_TEST(fn, a, b) \
	cmocka_unit_test_prestate_setup_teardown(fn, diff_setup, diff_teardown, (void *)((const char *[]){ (a), (b) }))

/* Expected numbers computed independently from the capture files (python, see commit). */
static void test_diff__labvm_capture_metrics(void **state)
{
	struct il_diff *d = *state;
	struct il_metrics m;

	il_metrics_of(&d->total, d, &m);
	assert_int_equal(m.idles.v, 842);
	assert_int_equal(m.aboves.v, 102);
	assert_int_equal(m.belows.v, 85);
	assert_int_equal(m.idle_miss.v, 187);
	assert_true(m.has_miss_ratio);
	assert_true(fabs(m.miss_ratio - 187.0 / 842.0) < 1e-12);
	assert_int_equal(m.time_us.v, 1291342);
	assert_int_equal(m.rejected.v, 0);
	assert_true(d->has_interval);
	assert_true(fabs(d->interval_s - (6.00 - 4.79)) < 1e-9);
	assert_true(fabs(m.idles_per_s - 842 / 1.21) < 1e-6);
	assert_true(d->boot_id_verified);
	assert_int_equal(d->nstates, 3);
	assert_string_equal(d->states[2].name, "ret-deep");
	assert_int_equal(d->states[0].d.c[IL_C_USAGE].v, 37);
	assert_int_equal(d->states[1].d.c[IL_C_BELOW].v, 73);
	assert_int_equal(d->states[2].d.c[IL_C_ABOVE].v, 99);
	assert_int_equal(d->states[2].d.c[IL_C_TIME].v, 516289);
	assert_int_equal(d->ncpus, 2);
	/* the capture's CPUs sit in clusters 0 and 1 (topology/cluster_id absent -> one group) */
	assert_true(d->nclusters >= 1);
	assert_false(d->has_energy);
}

static void test_diff__json_shape(void **state)
{
	struct il_diff *d = *state;
	json_t *j, *t, *st;

	j = il_diff_to_json(d);
	t = json_object_get(j, "total");
	assert_int_equal(json_integer_value(json_object_get(t, "idles")), 842);
	assert_int_equal(json_integer_value(json_object_get(t, "idle_miss")), 187);
	assert_true(json_is_real(json_object_get(j, "interval_s")));
	st = json_array_get(json_object_get(j, "states"), 1);
	assert_string_equal(json_string_value(json_object_get(st, "name")), "ret-shallow");
	assert_true(fabs(json_real_value(json_object_get(st, "usage_share")) - 629.0 / 842.0) < 1e-12);
	assert_true(fabs(json_real_value(json_object_get(st, "time_share")) - 768169.0 / 1291342.0) < 1e-12);
	assert_int_equal(json_array_size(json_object_get(j, "cpus")), 2);
	assert_true(json_is_array(json_object_get(j, "clusters")));
	assert_true(json_is_null(json_object_get(j, "energy")));
	json_decref(j);
}

static void test_diff__biglittle_clusters(void **state)
{
	struct il_diff *d = *state;

	assert_int_equal(d->nclusters, 2);
	assert_int_equal(d->clusters[0].cpus.n, 4);
	assert_int_equal(d->clusters[0].nstates, 3);
	assert_int_equal(d->clusters[1].cpus.n, 2);
	assert_int_equal(d->clusters[1].nstates, 2);
	/* little: 4 CPUs x (100 + 110 + 120) usage; big: 2 x (100 + 110) */
	assert_int_equal(d->clusters[0].total.c[IL_C_USAGE].v, 4 * 330);
	assert_int_equal(d->clusters[1].total.c[IL_C_USAGE].v, 2 * 210);
	assert_int_equal(d->total.c[IL_C_USAGE].v, 4 * 330 + 2 * 210);
	/* cluster-sleep exists on the little cluster only */
	assert_int_equal(d->nstates, 3);
	assert_string_equal(d->states[2].name, "cluster-sleep");
	assert_int_equal(d->states[2].d.c[IL_C_USAGE].v, 4 * 120);
}

static void test_diff__energy_wraps(void **state)
{
	struct il_diff *d = *state;

	assert_true(d->has_energy);
	assert_int_equal(d->nzones, 2);
	assert_int_equal(d->zones[0].energy_uj, 262143328850ull - 262143000000ull + 1200000ull);
	assert_true(d->zones[0].top_level);
	assert_false(d->zones[1].top_level);
	assert_int_equal(d->zones[1].energy_uj, 600000);
	/* the core zone is inside the package: not counted twice */
	assert_true(fabs(d->energy_j - 1.52885) < 1e-9);
	assert_true(fabs(d->interval_s - 10.0) < 1e-9);
}

static void test_diff__old_kernel_misses_unknown(void **state)
{
	struct il_diff *d = *state;
	struct il_metrics m;
	json_t *j;

	il_metrics_of(&d->total, d, &m);
	assert_true(m.idles.ok);
	assert_int_equal(m.idles.v, 2 * 5 * 150);
	assert_false(m.aboves.ok);
	assert_false(m.idle_miss.ok);
	assert_false(m.has_miss_ratio);
	j = il_diff_to_json(d);
	assert_true(json_is_null(json_object_get(json_object_get(j, "total"), "aboves")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "total"), "miss_ratio")));
	json_decref(j);
}

static void test_diff__no_idle_states(void **state)
{
	struct il_diff *d = *state;

	assert_int_equal(d->nstates, 0);
	assert_int_equal(d->total.c[IL_C_USAGE].v, 0);
}

/* Apply a sed-like edit to a fixture's text and expect a diff error. */
static void expect_mismatch(const char *base, const char *fixture, const char *from, const char *to, const char *expect)
{
	struct il_snapshot a, b;
	struct il_err err = { 0 };
	struct il_diff d;
	size_t len;
	char *text = tu_read(tu_fixture(fixture), &len);
	char *p = strstr(text, from);
	char *edited;

	assert_non_null(p);
	edited = malloc(len + strlen(to) + 1);
	snprintf(edited, len + strlen(to) + 1, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
	tu_parse_fixture(&a, base);
	if (il_snapshot_parse(&b, edited, strlen(edited), "edited", &err))
		fail_msg("%s", err.msg);
	if (il_diff_compute(&d, &a, &b, &err) != IL_EMISMATCH || !strstr(err.msg, expect))
		fail_msg("'%s' -> '%s': got '%s', wanted '%s'", from, to, err.msg, expect);
	il_snapshot_release(&a);
	il_snapshot_release(&b);
	free(text);
	free(edited);
}

static void test_diff__validation_errors(void **state)
{
	(void)state;
	expect_mismatch("labvm-arm64-after.txt", "labvm-arm64-after.txt", "boot_id:ec81313f", "boot_id:00000000",
			"boot_id changed (ec81313f-656c-4a8a-8058-6716d6c31bd3 -> 00000000");
	/* counters going backwards name host, CPU, state, file and the values */
	expect_mismatch("labvm-arm64-after.txt", "labvm-arm64-after.txt", "cpu1/cpuidle/state2/above:67", "cpu1/cpuidle/state2/above:11",
			"host 'edited': cpu1 state2 'ret-deep': 'above' went backwards (67 -> 11)");
	expect_mismatch("labvm-arm64-after.txt", "labvm-arm64-after.txt", "online:0-1", "online:0", "cpu1 went offline between snapshots");
	expect_mismatch("labvm-arm64-after.txt", "labvm-arm64-after.txt", "state2/name:ret-deep", "state2/name:deeper",
			"cpu0 state2 changed name ('ret-deep' before, 'deeper' after)");
	expect_mismatch("labvm-arm64-after.txt", "labvm-arm64-after.txt", "current_driver:psci_idle", "current_driver:none",
			"cpuidle driver changed");
	expect_mismatch("labvm-arm64-after.txt", "labvm-arm64-after.txt", "/proc/uptime:6.00", "/proc/uptime:1.00", "uptime went backwards");
	expect_mismatch("x86-intel-idle-before.txt", "x86-intel-idle-after.txt", "intel-rapl:0/max_energy_range_uj:262143328850",
			"intel-rapl:0/max_energy_range_uj:100", "'energy_uj' went backwards");
}

static void test_diff__cpu_vanished_and_missing_file(void **state)
{
	struct il_snapshot a, b;
	struct il_err err = { 0 };
	struct il_diff d;
	size_t len;
	char *text = tu_read(tu_fixture("labvm-arm64-before.txt"), &len);
	struct il_buf kept = IL_BUF_INIT, noabove = IL_BUF_INIT;

	(void)state;
	/* drop cpu1 entirely (a CPU that went offline and lost its cpuidle directory) */
	for (char *l = text; *l;) {
		char *nl = strchr(l, '\n');

		if (!strstr(l, "/cpu1/") || strstr(l, "/cpu1/") > nl)
			il_buf_add(&kept, l, (size_t)(nl - l + 1));
		if (!strstr(l, "cpu0/cpuidle/state1/above") || strstr(l, "cpu0/cpuidle/state1/above") > nl)
			il_buf_add(&noabove, l, (size_t)(nl - l + 1));
		l = nl + 1;
	}
	tu_parse_fixture(&a, "labvm-arm64-before.txt");
	assert_int_equal(il_snapshot_parse(&b, kept.p, kept.len, "host1", &err), 0);
	assert_int_equal(il_diff_compute(&d, &a, &b, &err), IL_EMISMATCH);
	assert_non_null(strstr(err.msg, "host 'host1': cpu1 is in the first snapshot but not in the second"));
	il_snapshot_release(&b);
	assert_int_equal(il_snapshot_parse(&b, noabove.p, noabove.len, "host1", &err), 0);
	assert_int_equal(il_diff_compute(&d, &a, &b, &err), IL_EMISMATCH);
	assert_non_null(strstr(err.msg, "cpu0 state1 'ret-shallow': 'above' present in only the first snapshot"));
	il_snapshot_release(&a);
	il_snapshot_release(&b);
	il_buf_release(&kept);
	il_buf_release(&noabove);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		DIFF_TEST(test_diff__labvm_capture_metrics, "labvm-arm64-before.txt", "labvm-arm64-after.txt"),
		DIFF_TEST(test_diff__json_shape, "labvm-arm64-before.txt", "labvm-arm64-after.txt"),
		DIFF_TEST(test_diff__biglittle_clusters, "arm64-biglittle-before.txt", "arm64-biglittle-after.txt"),
		DIFF_TEST(test_diff__energy_wraps, "x86-intel-idle-before.txt", "x86-intel-idle-after.txt"),
		DIFF_TEST(test_diff__old_kernel_misses_unknown, "old-kernel-4.14-before.txt", "old-kernel-4.14-after.txt"),
		DIFF_TEST(test_diff__no_idle_states, "x86-vm-no-idle-states.txt", "x86-vm-no-idle-states.txt"),
		cmocka_unit_test(test_diff__validation_errors),
		cmocka_unit_test(test_diff__cpu_vanished_and_missing_file),
	};

	return cmocka_run_group_tests_name("idle_diff", tests, NULL, NULL);
}
