// SPDX-License-Identifier: GPL-2.0-or-later
/* Snapshot diffs: real capture numbers, validation errors, aggregation, energy. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle/diff.h"
#include "idle/diffjson.h"
#include "idle/snapshotjson.h"

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
	/* both CPUs have cluster_id 0 and no cpu_capacity: one group, so no clusters are listed */
	assert_int_equal(d->nclusters, 0);
	assert_false(d->has_energy);
	/* the capture has /proc/uptime only: the coarse clock, said so */
	assert_int_equal(d->clock, IL_CLOCK_UPTIME);
	assert_false(d->has_suspended);
	assert_null(d->invalid);
	assert_int_equal(d->caveats.n, 1);
	assert_non_null(strstr(d->caveats.v[0], "coarse clock: the interval comes from /proc/uptime (10 ms steps"));
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
	assert_int_equal(json_array_size(json_object_get(j, "clusters")), 0);
	assert_true(json_is_null(json_object_get(j, "energy")));
	/* version 2 (docs/formats.md): the clock, the measured CPUs, the caveats, per-state keys */
	assert_string_equal(json_string_value(json_object_get(j, "clock")), "uptime");
	assert_true(json_is_null(json_object_get(j, "suspended_s")));
	assert_string_equal(json_string_value(json_object_get(j, "cpus_measured")), "0-1");
	assert_int_equal(json_array_size(json_object_get(j, "caveats")), 1);
	assert_string_equal(json_string_value(json_object_get(st, "key")), "ret-shallow");
	assert_false(json_is_true(json_object_get(st, "poll")));
	assert_true(json_is_null(json_object_get(st, "disabled_cpus")));
	/* ret-shallow: 3 above, 73 below of 629 entries */
	assert_true(fabs(json_real_value(json_object_get(st, "too_deep_pct")) - 300.0 / 629.0) < 1e-12);
	assert_true(fabs(json_real_value(json_object_get(st, "too_shallow_pct")) - 7300.0 / 629.0) < 1e-12);
	/* totals: 102 aboves, 85 belows, 187 misses of 842; no poll state (WFI is not one) */
	assert_true(fabs(json_real_value(json_object_get(t, "too_deep_pct")) - 10200.0 / 842.0) < 1e-12);
	assert_true(fabs(json_real_value(json_object_get(t, "too_shallow_pct")) - 8500.0 / 842.0) < 1e-12);
	assert_true(fabs(json_real_value(json_object_get(t, "miss_pct")) - 18700.0 / 842.0) < 1e-12);
	assert_int_equal(json_integer_value(json_object_get(t, "poll_usage")), 0);
	assert_int_equal(json_integer_value(json_object_get(t, "poll_belows")), 0);
	assert_null(json_object_get(t, "poll_timeouts"));
	assert_int_equal(json_integer_value(json_object_get(t, "sleep_time_us")), 1291342);
	json_decref(j);
}


/*
 * big.LITTLE (gen-synthetic.py biglittle): cpu-sleep is 120/250 us on the
 * little CPUs 0-3 (capacity 485) and 260/550 us on the big CPUs 4-5 (capacity
 * 1024). Per CPU and state k the sample adds usage 100 + 10k, above k + 1,
 * below 2, time 2000 (k + 1) us.
 */
static void test_diff__biglittle_clusters(void **state)
{
	struct il_diff *d = *state;
	const struct il_diff_cluster *lit, *big;
	struct il_metrics m;
	double v;

	/* same-named states of different residency stay apart, with distinct keys */
	assert_int_equal(d->nstates, 4);
	assert_string_equal(d->states[0].key, "WFI");
	assert_string_equal(d->states[1].key, "cpu-sleep@250us");
	assert_string_equal(d->states[2].key, "cpu-sleep@550us");
	assert_string_equal(d->states[3].key, "cluster-sleep");
	assert_string_equal(d->states[1].name, "cpu-sleep");
	assert_int_equal(d->states[2].residency_us.v, 550);
	assert_int_equal(d->states[2].latency_us.v, 260);
	/* cpu-sleep: 4 x 110 entries on the little CPUs, 2 x 110 on the big ones */
	assert_int_equal(d->states[1].d.c[IL_C_USAGE].v, 4 * 110);
	assert_int_equal(d->states[2].d.c[IL_C_USAGE].v, 2 * 110);
	assert_int_equal(d->states[3].d.c[IL_C_USAGE].v, 4 * 120);
	/* too deep: 4 x 2 aboves of 440; too shallow: 4 x 2 belows of 440 */
	assert_true(il_metrics_too_deep_pct(&d->states[1], &v) && fabs(v - 800.0 / 440.0) < 1e-12);
	assert_true(il_metrics_too_shallow_pct(&d->states[1], &v) && fabs(v - 800.0 / 440.0) < 1e-12);
	/* clusters by (cluster_id, cpu_capacity), labelled by capacity */
	assert_int_equal(d->nclusters, 2);
	lit = &d->clusters[0];
	big = &d->clusters[1];
	assert_string_equal(lit->label, "little");
	assert_int_equal(lit->capacity.v, 485);
	assert_int_equal(lit->cluster.v, 0);
	assert_int_equal(lit->cpus.n, 4);
	assert_string_equal(big->label, "big");
	assert_int_equal(big->capacity.v, 1024);
	assert_int_equal(big->cpus.n, 2);
	assert_int_equal(big->cpus.cpu[0], 4);
	/* little: 4 CPUs x (100 + 110 + 120) usage; big: 2 x (100 + 110) */
	assert_int_equal(lit->total.c[IL_C_USAGE].v, 4 * 330);
	assert_int_equal(big->total.c[IL_C_USAGE].v, 2 * 210);
	assert_int_equal(d->total.c[IL_C_USAGE].v, 4 * 330 + 2 * 210);
	/* a cluster's states carry the diff-wide keys */
	assert_int_equal(lit->nstates, 3);
	assert_string_equal(lit->states[1].key, "cpu-sleep@250us");
	assert_int_equal(big->nstates, 2);
	assert_string_equal(big->states[1].key, "cpu-sleep@550us");
	/* the big cluster: aboves 2 x (1 + 2) = 6 of 420 entries, belows 2 x 2 x 2 = 8 */
	il_metrics_of(&big->total, d, &m);
	assert_true(m.has_too_deep && fabs(m.too_deep_pct - 600.0 / 420.0) < 1e-12);
	assert_true(m.has_too_shallow && fabs(m.too_shallow_pct - 800.0 / 420.0) < 1e-12);
	assert_true(m.has_miss_pct && fabs(m.miss_pct - 1400.0 / 420.0) < 1e-12);
}

/* The lifetime form of a snapshot with a disabled state: no "before" snapshot to read the CPU from. */
static void test_diff__lifetime_disabled_state(void **state)
{
	char *text = tu_read(tu_fixture("arm64-biglittle-after.txt"), NULL), *at;
	struct il_snapshot s;
	struct il_diff l;
	struct il_err err = { 0 };
	bool found = false;

	(void)state;
	assert_non_null(text);
	at = strstr(text, "/disable:0");
	assert_non_null(at);
	at[strlen("/disable:")] = '1';
	assert_int_equal(il_snapshot_parse(&s, text, strlen(text), "fixture", &err), 0);
	assert_int_equal(il_diff_lifetime(&l, &s, &err), 0);
	for (size_t i = 0; i < l.ncpus; i++)
		for (size_t k = 0; k < l.cpus[i].nstates; k++)
			found |= il_cpuset_has(&l.cpus[i].states[k].disabled, l.cpus[i].cpu);
	assert_true(found);
	il_diff_release(&l);
	il_snapshot_release(&s);
	free(text);
}

/*
 * The lifetime form (what export sums): every counter as it stands, grouped
 * as a diff's; lifetime(after) - lifetime(before) is the diff, scope by scope.
 */
static void test_diff__lifetime(void **state)
{
	struct il_snapshot a, b;
	struct il_diff la, lb, d;
	struct il_err err = { 0 };

	(void)state;
	tu_parse_fixture(&a, "arm64-biglittle-before.txt");
	tu_parse_fixture(&b, "arm64-biglittle-after.txt");
	assert_int_equal(il_diff_lifetime(&la, &a, &err), 0);
	assert_int_equal(il_diff_lifetime(&lb, &b, &err), 0);
	assert_int_equal(il_diff_compute(&d, &a, &b, &err), 0);
	assert_false(lb.has_interval);
	assert_null(lb.invalid);
	assert_string_equal(lb.governor_after, "teo");
	assert_int_equal(lb.ncpus, 6);
	assert_int_equal(lb.nstates, d.nstates);
	assert_int_equal(lb.nclusters, 2);
	assert_string_equal(lb.clusters[0].label, d.clusters[0].label);
	assert_string_equal(lb.clusters[1].label, "big");
	for (int c = 0; c < IL_NCOUNTERS; c++) {
		assert_int_equal(lb.total.c[c].v - la.total.c[c].v, d.total.c[c].v);
		for (size_t i = 0; i < d.nstates; i++) {
			assert_string_equal(lb.states[i].key, d.states[i].key);
			assert_int_equal(lb.states[i].d.c[c].v - la.states[i].d.c[c].v, d.states[i].d.c[c].v);
		}
		for (size_t i = 0; i < d.nclusters; i++)
			assert_int_equal(lb.clusters[i].total.c[c].v - la.clusters[i].total.c[c].v, d.clusters[i].total.c[c].v);
	}
	/* the lifetime counts themselves: cpu0's WFI usage as the file says */
	assert_int_equal(lb.cpus[0].states[0].d.c[IL_C_USAGE].v, b.cpus[0].states[0].cnt[IL_C_USAGE].v);
	il_diff_release(&la);
	il_diff_release(&lb);
	il_diff_release(&d);
	il_snapshot_release(&a);
	il_snapshot_release(&b);
}

static void test_diff__biglittle_json(void **state)
{
	struct il_diff *d = *state;
	json_t *j = il_diff_summary_json(d), *cl, *st;

	cl = json_array_get(json_object_get(j, "clusters"), 1);
	assert_string_equal(json_string_value(json_object_get(cl, "label")), "big");
	assert_int_equal(json_integer_value(json_object_get(cl, "capacity")), 1024);
	assert_int_equal(json_integer_value(json_object_get(cl, "cluster")), 1);
	assert_string_equal(json_string_value(json_object_get(cl, "cpus")), "4-5");
	st = json_array_get(json_object_get(cl, "states"), 1);
	assert_string_equal(json_string_value(json_object_get(st, "key")), "cpu-sleep@550us");
	/* its share of the big cluster's time: 2 x 4000 of 2 x (2000 + 4000) */
	assert_true(fabs(json_real_value(json_object_get(st, "time_share")) - 8000.0 / 12000.0) < 1e-12);
	assert_null(json_object_get(j, "cpus"));
	json_decref(j);
}

/*
 * x86-intel-idle (gen-synthetic.py intel): Skylake POLL + C1..C10 on 4 CPUs.
 * POLL adds usage 300 + cpu, time 1000 + 13 cpu, below 1 per CPU and never
 * above; state k adds below (k + 1) % 4 and above k % 3 + cpu per CPU.
 */
static void test_diff__poll_and_cstates(void **state)
{
	struct il_diff *d = *state;
	struct il_metrics m;
	double v;

	il_metrics_of(&d->total, d, &m);
	assert_true(d->states[0].poll);
	assert_false(d->states[1].poll);
	/* usage: 4 x (9 x 300 - 20 x 36) + 9 x (0 + 1 + 2 + 3) = 7974; POLL's 4 x 300 + 6 = 1206 */
	assert_int_equal(m.idles.v, 7974);
	assert_int_equal(m.poll_usage.v, 1206);
	/* below: 4 x (1+2+3+0+1+2+3+0+1) = 52 as the kernel counts them, POLL's 4 included and shown apart */
	assert_int_equal(m.poll_belows.v, 4);
	assert_int_equal(m.belows.v, 52);
	/* above: 4 x (1+2+0+1+2+0+1+2) + 8 x (0+1+2+3) = 84 */
	assert_int_equal(m.aboves.v, 84);
	assert_int_equal(m.idle_miss.v, 84 + 52);
	/* time: 4 x 45000 + 13 x 9 x 6 = 180702 us; POLL spins 4 x 1000 + 13 x 6 = 4078 */
	assert_int_equal(m.time_us.v, 180702);
	assert_int_equal(m.poll_time_us.v, 4078);
	assert_int_equal(m.sleep_time_us.v, 180702 - 4078);
	assert_true(fabs(m.too_shallow_pct - 5200.0 / 7974.0) < 1e-12);
	/* a poll state's below is too shallow as any state's: 4 of POLL's 1206 entries */
	assert_true(il_metrics_too_shallow_pct(&d->states[0], &v) && fabs(v - 400.0 / 1206.0) < 1e-12);
	assert_true(il_metrics_too_deep_pct(&d->states[0], &v) && v == 0);
	/* interval from the monotonic clock: 990 s -> 1000 s; boottime grew as much */
	assert_int_equal(d->clock, IL_CLOCK_MONOTONIC);
	assert_true(fabs(d->interval_s - 10.0) < 1e-12);
	assert_true(d->has_suspended && d->suspended_s == 0);
	/* 4 CPUs, one cluster_id, no capacity: symmetric */
	assert_int_equal(d->nclusters, 0);
	assert_int_equal(d->caveats.n, 1);
	assert_non_null(strstr(d->caveats.v[0], "POLL is a polling state"));
	assert_null(d->invalid);
}

/* Only package zones count: psys, the core sub-zone and the MMIO duplicate are listed with why. */
static void test_diff__energy_package_zones_only(void **state)
{
	struct il_diff *d = *state;
	json_t *j, *e, *z;

	assert_true(d->has_energy);
	assert_int_equal(d->energy_source, IL_ENERGY_POWERCAP);
	assert_int_equal(d->nzones, 4);
	/* intel-rapl:0 wraps: 262143328850 - 262143000000 + 1200000 */
	assert_string_equal(d->zones[0].zone, "intel-rapl:0");
	assert_int_equal(d->zones[0].energy_uj, 262143328850ull - 262143000000ull + 1200000ull);
	assert_true(d->zones[0].counted);
	assert_null(d->zones[0].why);
	assert_string_equal(d->zones[1].zone, "intel-rapl:0:0");
	assert_int_equal(d->zones[1].energy_uj, 600000);
	assert_false(d->zones[1].counted);
	assert_string_equal(d->zones[1].why, "sub-zone 'core' of intel-rapl:0: only package zones are counted");
	assert_string_equal(d->zones[2].name, "psys");
	assert_int_equal(d->zones[2].energy_uj, 15000000);
	assert_false(d->zones[2].counted);
	assert_string_equal(d->zones[2].why, "psys is the whole platform, packages included");
	assert_string_equal(d->zones[3].zone, "intel-rapl-mmio:0");
	assert_int_equal(d->zones[3].energy_uj, 1528850);
	assert_false(d->zones[3].counted);
	assert_string_equal(d->zones[3].why, "duplicate of intel-rapl:0 (the same package-0 through another interface)");
	/* 1.52885 J, not 1.52885 + 0.6 + 15 + 1.52885 */
	assert_true(fabs(d->energy_j - 1.52885) < 1e-9);
	j = il_diff_summary_json(d);
	e = json_object_get(j, "energy");
	assert_true(fabs(json_real_value(json_object_get(e, "joules")) - 1.52885) < 1e-9);
	assert_true(fabs(json_real_value(json_object_get(e, "watts")) - 0.152885) < 1e-9);
	assert_string_equal(json_string_value(json_object_get(e, "source")), "powercap");
	z = json_array_get(json_object_get(e, "zones"), 2);
	assert_string_equal(json_string_value(json_object_get(z, "zone")), "intel-rapl:1");
	assert_false(json_is_true(json_object_get(z, "counted")));
	assert_non_null(json_string_value(json_object_get(z, "why")));
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(e, "zones"), 0), "why")));
	json_decref(j);
}

/* No powercap: the SCMI hwmon energy channels are summed (0.25 + 0.75 J in 2 s). */
static void test_diff__energy_hwmon_fallback(void **state)
{
	struct il_diff *d = *state;
	json_t *j, *e;

	assert_true(d->has_energy);
	assert_int_equal(d->energy_source, IL_ENERGY_HWMON);
	assert_int_equal(d->nzones, 2);
	assert_string_equal(d->zones[0].zone, "hwmon1/energy1");
	assert_string_equal(d->zones[0].name, "a53_energy");
	assert_int_equal(d->zones[0].energy_uj, 250000);
	assert_int_equal(d->zones[1].energy_uj, 750000);
	assert_true(d->zones[0].counted && d->zones[1].counted);
	assert_true(fabs(d->energy_j - 1.0) < 1e-12);
	j = il_diff_summary_json(d);
	e = json_object_get(j, "energy");
	assert_string_equal(json_string_value(json_object_get(e, "source")), "hwmon");
	assert_true(fabs(json_real_value(json_object_get(e, "watts")) - 0.5) < 1e-12);
	json_decref(j);
}

/*
 * x86-haltpoll-2vcpu (gen-synthetic.py haltpoll): one second of CLOCK_MONOTONIC.
 * cpu0 adds POLL 100 entries, 1500 us, 40 below; haltpoll idle 300 entries,
 * 400000 us, 30 above. cpu1 adds POLL 50, 700 us, 10 below; haltpoll idle 150,
 * 450000 us, 12 above.
 */
static void test_diff__haltpoll_poll_apart_no_clusters(void **state)
{
	struct il_diff *d = *state;
	struct il_metrics m;
	json_t *j, *t, *st;

	assert_int_equal(d->clock, IL_CLOCK_MONOTONIC);
	assert_true(d->interval_s == 1.0);
	assert_true(d->has_suspended && d->suspended_s < 1e-9);
	il_metrics_of(&d->total, d, &m);
	assert_int_equal(m.idles.v, 100 + 300 + 50 + 150);
	assert_int_equal(m.aboves.v, 30 + 12);
	/* POLL's 40 + 10 belows count as the kernel counts them; haltpoll idle has no deeper state to be below of */
	assert_int_equal(m.belows.v, 50);
	assert_int_equal(m.poll_belows.v, 50);
	assert_int_equal(m.idle_miss.v, 92);
	assert_true(fabs(m.miss_ratio - 92.0 / 600.0) < 1e-12);
	assert_true(fabs(m.too_deep_pct - 7.0) < 1e-12);
	assert_true(m.has_too_shallow && fabs(m.too_shallow_pct - 5000.0 / 600.0) < 1e-12);
	assert_true(fabs(m.miss_pct - 9200.0 / 600.0) < 1e-12);
	assert_int_equal(m.poll_usage.v, 150);
	assert_int_equal(m.poll_time_us.v, 2200);
	assert_int_equal(m.sleep_time_us.v, 850000);
	assert_int_equal(m.time_us.v, 852200);
	assert_true(fabs(m.idles_per_s - 600.0) < 1e-9);
	/* cluster_id 0 and 1 (one L2 each), capacity 1024 both, one table: not clusters */
	assert_int_equal(d->nclusters, 0);
	assert_string_equal(d->states[0].key, "POLL");
	assert_true(d->states[0].poll);
	assert_string_equal(d->states[1].key, "haltpoll idle");
	j = il_diff_to_json(d);
	t = json_object_get(j, "total");
	assert_int_equal(json_integer_value(json_object_get(t, "poll_belows")), 50);
	assert_int_equal(json_integer_value(json_object_get(t, "belows")), 50);
	assert_int_equal(json_integer_value(json_object_get(t, "poll_time_us")), 2200);
	assert_true(fabs(json_real_value(json_object_get(j, "interval_s")) - 1.0) < 1e-12);
	assert_string_equal(json_string_value(json_object_get(j, "clock")), "monotonic");
	assert_true(json_real_value(json_object_get(j, "suspended_s")) < 1e-9);
	assert_int_equal(json_array_size(json_object_get(j, "clusters")), 0);
	st = json_array_get(json_object_get(j, "states"), 0);
	assert_true(json_is_true(json_object_get(st, "poll")));
	assert_int_equal(json_integer_value(json_object_get(st, "below")), 50);
	assert_true(fabs(json_real_value(json_object_get(st, "too_shallow_pct")) - 5000.0 / 150.0) < 1e-12);
	assert_int_equal(json_array_size(json_object_get(j, "cpus")), 2);
	json_decref(j);
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
			"host 'edited': counters of cpu1 reset: the CPU was taken offline and back (haltpoll re-registers "
			"the device): state2 'ret-deep' 'above' went from 67 to 11");
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

/* ---- Edited dumps: validity and options ---- */

#define HP_A "x86-haltpoll-2vcpu-before.txt"
#define HP_B "x86-haltpoll-2vcpu-after.txt"

/* A fixture's text with from replaced by to (once); the caller frees. Fails the test when from is absent. */
static char *edited(const char *fixture, const char *from, const char *to)
{
	char *text = tu_read(tu_fixture(fixture), NULL), *p = strstr(text, from), *out;
	size_t n;

	if (!p)
		fail_msg("'%s' is not in %s", from, fixture);
	n = strlen(text) + strlen(to) + 1;
	out = malloc(n);
	assert_non_null(out);
	snprintf(out, n, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
	free(text);
	return out;
}

/* The diff of two dump texts (the second is labelled host1); returns il_diff_compute_opts's result. */
static int diff_texts(struct il_diff *d, const char *a, const char *b, const struct il_diff_opts *o,
		      struct il_err *err)
{
	struct il_snapshot sa, sb;
	int r;

	if (il_snapshot_parse(&sa, a, strlen(a), "before", err) || il_snapshot_parse(&sb, b, strlen(b), "host1", err))
		fail_msg("%s", err->msg);
	r = il_diff_compute_opts(d, &sa, &sb, o, err);
	il_snapshot_release(&sa);
	il_snapshot_release(&sb);
	return r;
}

/* The haltpoll pair with the after text edited (from -> to), diffed with o; expect reason (NULL: valid). */
static void expect_validity(const char *from, const char *to, const struct il_diff_opts *o, const char *reason)
{
	char *a = tu_read(tu_fixture(HP_A), NULL), *b = from ? edited(HP_B, from, to) : tu_read(tu_fixture(HP_B), NULL);
	struct il_err err = { 0 };
	struct il_diff d;

	if (diff_texts(&d, a, b, o, &err))
		fail_msg("%s", err.msg);
	if (reason ? !d.invalid || strcmp(d.invalid, reason) : d.invalid != NULL)
		fail_msg("'%s' -> '%s': invalid '%s', wanted '%s'", from ? from : "", to ? to : "",
			 d.invalid ? d.invalid : "(valid)", reason ? reason : "(valid)");
	il_diff_release(&d);
	free(a);
	free(b);
}

static void test_diff__counters_reset_by_offline_online(void **state)
{
	static int c0[] = { 0 };
	const struct il_cpuset cpu0 = { c0, 1 };
	const struct il_diff_opts only0 = { .cpus = &cpu0, .min_sample_s = -1 };
	char *a = tu_read(tu_fixture(HP_A), NULL);
	/* haltpoll re-registered cpu1's device: POLL usage restarts from 0 (2000 before, 7 after) */
	char *b = edited(HP_B, "cpu1/cpuidle/state0/usage:2050", "cpu1/cpuidle/state0/usage:7");
	struct il_err err = { 0 };
	struct il_diff d;

	(void)state;
	assert_int_equal(diff_texts(&d, a, b, NULL, &err), IL_EMISMATCH);
	assert_string_equal(err.msg, "host 'host1': counters of cpu1 reset: the CPU was taken offline and back "
				     "(haltpoll re-registers the device): state0 'POLL' 'usage' went from 2000 to 7");
	/* the reset counts on every CPU, measured or not: hotplug stops every CPU (stop_machine) */
	assert_int_equal(diff_texts(&d, a, b, &only0, &err), IL_EMISMATCH);
	assert_non_null(strstr(err.msg, "counters of cpu1 reset"));
	free(a);
	free(b);
}

static void test_diff__suspend_between_snapshots(void **state)
{
	char *a = tu_read(tu_fixture(HP_A), NULL), *b;
	struct il_err err = { 0 };
	struct il_diff d;
	json_t *j;

	(void)state;
	/* s2idle or deep: suspend_stats counts it */
	expect_validity("/sys/power/suspend_stats/success:0", "/sys/power/suspend_stats/success:1", NULL,
			"the host suspended during the sample (suspend_stats success 0 -> 1, fail 0 -> 0)");
	expect_validity("/sys/power/suspend_stats/fail:0", "/sys/power/suspend_stats/fail:3", NULL,
			"the host suspended during the sample (suspend_stats success 0 -> 0, fail 0 -> 3)");
	/* boottime 109.39 -> 112.89 s (3.5 s) while the monotonic clock moved 1 s: 2.5 s suspended */
	b = edited(HP_B, "/proc/uptime:110.39", "/proc/uptime:112.89");
	assert_int_equal(diff_texts(&d, a, b, NULL, &err), 0);
	assert_true(d.has_suspended && fabs(d.suspended_s - 2.5) < 1e-9);
	assert_string_equal(d.invalid, "the host was suspended for 2.500 s during the sample (boottime grew 2.500 s "
				       "more than the monotonic clock)");
	j = il_diff_summary_json(&d);
	assert_true(fabs(json_real_value(json_object_get(j, "suspended_s")) - 2.5) < 1e-9);
	assert_non_null(strstr(json_string_value(json_array_get(json_object_get(j, "caveats"), 0)),
			       "not a valid measurement: the host was suspended for 2.500 s"));
	json_decref(j);
	il_diff_release(&d);
	free(b);
	/* 20 ms more boottime is /proc/uptime's 10 ms steps, not a suspend (the limit is 30 ms) */
	expect_validity("/proc/uptime:110.39", "/proc/uptime:110.41", NULL, NULL);
	free(a);
}

static void test_diff__cpus_changing(void **state)
{
	char *a = tu_read(tu_fixture(HP_A), NULL), *b = edited(HP_B, "online:0-1", "online:0-2");
	struct il_err err = { 0 };
	struct il_diff d;

	(void)state;
	assert_int_equal(diff_texts(&d, a, b, NULL, &err), IL_EMISMATCH);
	assert_string_equal(err.msg, "host 'host1': cpu2 came online between snapshots");
	free(b);
	b = edited(HP_B, "cpu1/cpuidle/state1/name:haltpoll idle", "cpu1/cpuidle/state1/name:C1");
	assert_int_equal(diff_texts(&d, a, b, NULL, &err), IL_EMISMATCH);
	assert_non_null(strstr(err.msg, "cpu1 state1 changed name ('haltpoll idle' before, 'C1' after)"));
	free(a);
	free(b);
}

static void test_diff__min_sample_and_min_idles(void **state)
{
	const struct il_diff_opts by_clock = { .min_sample_s = -1 };
	const struct il_diff_opts long_ = { .min_sample_s = 1.5 };
	const struct il_diff_opts idles600 = { .min_sample_s = -1, .min_idles = 600 };
	const struct il_diff_opts idles601 = { .min_sample_s = -1, .min_idles = 601 };
	char *a, *b;
	struct il_err err = { 0 };
	struct il_diff d;

	(void)state;
	/* 1 s of monotonic clock: the default minimum is 0.1 s */
	expect_validity(NULL, NULL, &by_clock, NULL);
	expect_validity(NULL, NULL, &long_, "the sample lasted 1.000 s, less than min_sample_s 1.5 s (monotonic clock)");
	/* 100 + 300 + 50 + 150 = 600 idle entries */
	expect_validity(NULL, NULL, &idles600, NULL);
	expect_validity(NULL, NULL, &idles601, "too few idle entries: 600 on cpus 0-1, fewer than min_idles 601");
	/* without timer_list the uptime clock's 10 ms steps ask for 1 s: 1.00 s passes, 0.50 s does not */
	a = edited(HP_A, "/proc/timer_list:now at 109380000000 nsecs\n", "");
	b = edited(HP_B, "/proc/timer_list:now at 110380000000 nsecs\n", "");
	assert_int_equal(diff_texts(&d, a, b, &by_clock, &err), 0);
	assert_int_equal(d.clock, IL_CLOCK_UPTIME);
	assert_false(d.has_suspended);
	assert_null(d.invalid);
	il_diff_release(&d);
	free(b);
	b = edited(HP_B, "/proc/timer_list:now at 110380000000 nsecs\n/proc/uptime:110.39", "/proc/uptime:109.89");
	assert_int_equal(diff_texts(&d, a, b, &by_clock, &err), 0);
	assert_string_equal(d.invalid, "the sample lasted 0.500 s, less than min_sample_s 1 s (uptime clock)");
	il_diff_release(&d);
	free(a);
	free(b);
	/* a host without idle states has no idle metrics to protect */
	{
		struct il_snapshot s;

		tu_parse_fixture(&s, "x86-vm-no-idle-states.txt");
		assert_int_equal(il_diff_compute_opts(&d, &s, &s, &long_, &err), 0);
		assert_null(d.invalid);
		il_diff_release(&d);
		il_snapshot_release(&s);
	}
}

static void test_diff__idle_time_exceeds_interval(void **state)
{
	(void)state;
	/* cpu0: haltpoll idle +1200000 us and POLL +1500 us in 1 s: more than 1 s + 2 ms */
	expect_validity("cpu0/cpuidle/state1/time:97400000", "cpu0/cpuidle/state1/time:98200000", NULL,
			"idle time exceeds the interval: the clock or the counters are wrong (cpu0 idle 1.201500 s in "
			"1.000000 s, 2 ms slack)");
	/* +1000000 + 1500 us is within the 2 ms slack */
	expect_validity("cpu0/cpuidle/state1/time:97400000", "cpu0/cpuidle/state1/time:98000000", NULL, NULL);
}

static void test_diff__idle_cpus_restriction(void **state)
{
	static int c1[] = { 1 }, c5[] = { 5 };
	const struct il_cpuset cpu1 = { c1, 1 }, cpu5 = { c5, 1 };
	const struct il_diff_opts only1 = { .cpus = &cpu1, .min_sample_s = -1 };
	const struct il_diff_opts only1_201 = { .cpus = &cpu1, .min_sample_s = -1, .min_idles = 201 };
	const struct il_diff_opts only5 = { .cpus = &cpu5, .min_sample_s = -1 };
	char *a = tu_read(tu_fixture(HP_A), NULL), *b = tu_read(tu_fixture(HP_B), NULL);
	struct il_err err = { 0 };
	struct il_metrics m;
	struct il_diff d;
	json_t *j;

	(void)state;
	assert_int_equal(diff_texts(&d, a, b, &only1, &err), 0);
	/* cpu1 alone: POLL 50 entries (10 below, 700 us), haltpoll idle 150 (12 above, 450000 us) */
	assert_int_equal(d.ncpus, 1);
	assert_int_equal(d.cpus[0].cpu, 1);
	il_metrics_of(&d.total, &d, &m);
	assert_int_equal(m.idles.v, 200);
	assert_int_equal(m.aboves.v, 12);
	assert_int_equal(m.poll_belows.v, 10);
	assert_int_equal(m.belows.v, 10);
	assert_int_equal(m.time_us.v, 450700);
	assert_int_equal(d.states[1].d.c[IL_C_USAGE].v, 150);
	assert_string_equal(d.caveats.v[d.caveats.n - 1], "idle metrics cover cpus 1 only (idle_cpus)");
	j = il_diff_to_json(&d);
	assert_string_equal(json_string_value(json_object_get(j, "cpus_measured")), "1");
	assert_int_equal(json_array_size(json_object_get(j, "cpus")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "total"), "idles")), 200);
	json_decref(j);
	il_diff_release(&d);
	/* min_idles counts the measured CPUs only */
	assert_int_equal(diff_texts(&d, a, b, &only1_201, &err), 0);
	assert_string_equal(d.invalid, "too few idle entries: 200 on cpus 1, fewer than min_idles 201");
	il_diff_release(&d);
	assert_int_equal(diff_texts(&d, a, b, &only5, &err), IL_EMISMATCH);
	assert_string_equal(err.msg, "host 'host1': idle_cpus: cpu5 is not in the snapshots");
	free(b);
	/* idle time beyond the interval on an unmeasured CPU does not touch the measured ones */
	b = edited(HP_B, "cpu0/cpuidle/state1/time:97400000", "cpu0/cpuidle/state1/time:98200000");
	assert_int_equal(diff_texts(&d, a, b, &only1, &err), 0);
	assert_null(d.invalid);
	il_diff_release(&d);
	free(a);
	free(b);
}

static void test_diff__disabled_state_caveat(void **state)
{
	char *a = tu_read(tu_fixture(HP_A), NULL), *b = edited(HP_B, "cpu0/cpuidle/state1/disable:0", "cpu0/cpuidle/state1/disable:1");
	struct il_err err = { 0 };
	struct il_diff d;
	json_t *j;

	(void)state;
	assert_int_equal(diff_texts(&d, a, b, NULL, &err), 0);
	assert_int_equal(d.states[1].disabled.n, 1);
	assert_int_equal(d.states[1].disabled.cpu[0], 0);
	assert_int_equal(d.states[0].disabled.n, 0);
	assert_int_equal(d.caveats.n, 2);
	assert_string_equal(d.caveats.v[1], "state haltpoll idle disabled on cpus 0: the kernel counts 'above' only when "
					    "a shallower state is enabled and 'below' only against enabled deeper states "
					    "(cpuidle.c)");
	j = il_diff_summary_json(&d);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "states"), 1),
							      "disabled_cpus")), "0");
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "states"), 0), "disabled_cpus")));
	json_decref(j);
	il_diff_release(&d);
	free(a);
	free(b);
}

/* ---- Clusters on hosts built line by line ---- */

/*
 * A dump of CPUs with WFI and cpu-sleep (latency lat[i], residency res[i]) or
 * WFI only (res[i] 0), cluster_id cl[i] and cpu_capacity cap[i] (0: none);
 * every state has usage u and time 10 u.
 */
static char *host_dump(size_t n, const int *cl, const int *cap, const int *lat, const int *res, int u)
{
	struct il_buf b = IL_BUF_INIT;

	il_buf_adds(&b, "/sys/devices/system/cpu/cpuidle/current_driver:psci_idle\n");
	for (size_t i = 0; i < n; i++) {
		const char *p = "/sys/devices/system/cpu/cpu";

		for (int k = 0; k < (res[i] ? 2 : 1); k++)
			il_buf_printf(&b, "%s%zu/cpuidle/state%d/name:%s\n%s%zu/cpuidle/state%d/latency:%d\n"
					  "%s%zu/cpuidle/state%d/residency:%d\n%s%zu/cpuidle/state%d/usage:%d\n"
					  "%s%zu/cpuidle/state%d/time:%d\n",
				      p, i, k, k ? "cpu-sleep" : "WFI", p, i, k, k ? lat[i] : 1, p, i, k, k ? res[i] : 1, p, i,
				      k, u, p, i, k, 10 * u);
		il_buf_printf(&b, "%s%zu/topology/cluster_id:%d\n", p, i, cl[i]);
		if (cap[i])
			il_buf_printf(&b, "%s%zu/cpu_capacity:%d\n", p, i, cap[i]);
	}
	il_buf_adds(&b, "/proc/timer_list:now at 1000000000 nsecs\n");
	assert_int_equal(il_buf_error(&b), 0);
	return il_buf_detach(&b);
}

static void diff_hosts(struct il_diff *d, size_t n, const int *cl, const int *cap, const int *lat, const int *res)
{
	char *a = host_dump(n, cl, cap, lat, res, 0), *b = host_dump(n, cl, cap, lat, res, 10);
	struct il_err err = { 0 };

	if (diff_texts(d, a, b, NULL, &err))
		fail_msg("%s", err.msg);
	free(a);
	free(b);
}

static void test_diff__cluster_labels(void **state)
{
	struct il_diff d;

	(void)state;
	/* Tensor-like: 2 x 160, 2 x 498, 2 x 1024 capacity in clusters 0, 1, 2 */
	diff_hosts(&d, 6, (int[]){ 0, 0, 1, 1, 2, 2 }, (int[]){ 160, 160, 498, 498, 1024, 1024 },
		   (int[]){ 100, 100, 200, 200, 300, 300 }, (int[]){ 200, 200, 400, 400, 600, 600 });
	assert_int_equal(d.nclusters, 3);
	assert_string_equal(d.clusters[0].label, "little");
	assert_string_equal(d.clusters[1].label, "mid");
	assert_string_equal(d.clusters[2].label, "big");
	assert_int_equal(d.clusters[1].capacity.v, 498);
	assert_string_equal(d.states[2].key, "cpu-sleep@400us");
	/* each cluster: 2 CPUs x 2 states x 10 entries */
	assert_int_equal(d.clusters[2].total.c[IL_C_USAGE].v, 40);
	il_diff_release(&d);
	/* DynamIQ: one cluster_id, two capacities: grouped by capacity */
	diff_hosts(&d, 4, (int[]){ 0, 0, 0, 0 }, (int[]){ 1024, 1024, 400, 400 }, (int[]){ 300, 300, 100, 100 },
		   (int[]){ 600, 600, 200, 200 });
	assert_int_equal(d.nclusters, 2);
	assert_string_equal(d.clusters[0].label, "big");
	assert_string_equal(d.clusters[1].label, "little");
	assert_int_equal(d.clusters[1].cpus.cpu[0], 2);
	il_diff_release(&d);
	/* no capacity, different state tables: listed, named by cluster_id */
	diff_hosts(&d, 2, (int[]){ 0, 1 }, (int[]){ 0, 0 }, (int[]){ 100, 0 }, (int[]){ 200, 0 });
	assert_int_equal(d.nclusters, 2);
	assert_string_equal(d.clusters[0].label, "cluster0");
	assert_string_equal(d.clusters[1].label, "cluster1");
	assert_false(d.clusters[0].capacity.ok);
	il_diff_release(&d);
	/* same name and residency, different latency: the key needs both */
	diff_hosts(&d, 2, (int[]){ 0, 1 }, (int[]){ 0, 0 }, (int[]){ 120, 130 }, (int[]){ 250, 250 });
	assert_int_equal(d.nstates, 3);
	assert_string_equal(d.states[1].key, "cpu-sleep@120-250us");
	assert_string_equal(d.states[2].key, "cpu-sleep@130-250us");
	il_diff_release(&d);
	/* one capacity, one table, one cluster_id per CPU (x86's L2 groups): no clusters */
	diff_hosts(&d, 2, (int[]){ 0, 1 }, (int[]){ 1024, 1024 }, (int[]){ 100, 100 }, (int[]){ 200, 200 });
	assert_int_equal(d.nclusters, 0);
	il_diff_release(&d);
}

/* With a powercap package zone, hwmon channels are listed but not counted. */
static void test_diff__energy_hwmon_beside_powercap(void **state)
{
	static const char pc0[] = "/sys/class/powercap/intel-rapl:0/name:package-0\n"
				  "/sys/class/powercap/intel-rapl:0/energy_uj:1000\n";
	static const char pc1[] = "/sys/class/powercap/intel-rapl:0/name:package-0\n"
				  "/sys/class/powercap/intel-rapl:0/energy_uj:3001000\n";
	char *a = tu_read(tu_fixture("arm64-hwmon-before.txt"), NULL), *b = tu_read(tu_fixture("arm64-hwmon-after.txt"), NULL);
	struct il_buf ab = IL_BUF_INIT, bb = IL_BUF_INIT;
	struct il_err err = { 0 };
	struct il_diff d;

	(void)state;
	il_buf_adds(&ab, a);
	il_buf_adds(&ab, pc0);
	il_buf_adds(&bb, b);
	il_buf_adds(&bb, pc1);
	assert_int_equal(diff_texts(&d, il_buf_str(&ab), il_buf_str(&bb), NULL, &err), 0);
	assert_int_equal(d.energy_source, IL_ENERGY_POWERCAP);
	assert_int_equal(d.nzones, 3);
	assert_true(d.zones[0].counted);
	assert_false(d.zones[1].counted);
	assert_string_equal(d.zones[1].why, "powercap package zones are counted instead");
	/* 3 J of package-0 only, in 2 s */
	assert_true(fabs(d.energy_j - 3.0) < 1e-12);
	il_diff_release(&d);
	il_buf_release(&ab);
	il_buf_release(&bb);
	free(a);
	free(b);
}

/* A version 2 sample (poll belows kept apart as poll_timeouts) read as the kernel counts, once. */
static void test_diff__json_v2_upgrade(void **state)
{
	static const char v2[] =
		"{\"total\": {\"idles\": 600, \"aboves\": 42, \"belows\": 3, \"idle_miss\": 45, \"miss_ratio\": 0.075,"
		" \"too_shallow_pct\": 0.5, \"miss_pct\": 7.5, \"poll_timeouts\": 50},"
		" \"states\": [{\"key\": \"POLL\", \"poll\": true, \"usage\": 150, \"below\": 50, \"too_shallow_pct\": null},"
		"  {\"key\": \"C1\", \"poll\": false, \"usage\": 450, \"below\": 3, \"too_shallow_pct\": 0.6666}],"
		" \"clusters\": [{\"cluster\": 1, \"idles\": 0, \"belows\": null, \"idle_miss\": 4, \"poll_timeouts\": 1}]}";
	json_t *j = json_loads(v2, 0, NULL), *t, *c, *v3;

	(void)state;
	assert_non_null(j);
	assert_int_equal(il_diff_json_upgrade(j), 0);
	t = json_object_get(j, "total");
	assert_int_equal(json_integer_value(json_object_get(t, "belows")), 53);
	assert_int_equal(json_integer_value(json_object_get(t, "idle_miss")), 95);
	assert_int_equal(json_integer_value(json_object_get(t, "poll_belows")), 50);
	assert_null(json_object_get(t, "poll_timeouts"));
	assert_true(fabs(json_real_value(json_object_get(t, "miss_ratio")) - 95.0 / 600.0) < 1e-12);
	assert_true(fabs(json_real_value(json_object_get(t, "too_shallow_pct")) - 5300.0 / 600.0) < 1e-12);
	assert_true(fabs(json_real_value(json_object_get(t, "miss_pct")) - 9500.0 / 600.0) < 1e-12);
	/* the poll state's too-shallow share is the kernel's; the other state's is left as it was */
	assert_true(fabs(json_real_value(json_object_get(json_array_get(json_object_get(j, "states"), 0),
							 "too_shallow_pct")) - 5000.0 / 150.0) < 1e-12);
	assert_true(json_real_value(json_object_get(json_array_get(json_object_get(j, "states"), 1),
						    "too_shallow_pct")) == 0.6666);
	/* an unknown below stays unknown, no ratio of 0 entries */
	c = json_array_get(json_object_get(j, "clusters"), 0);
	assert_true(json_is_null(json_object_get(c, "belows")));
	assert_int_equal(json_integer_value(json_object_get(c, "idle_miss")), 5);
	assert_true(json_is_null(json_object_get(c, "miss_ratio")));
	/* twice is once; a version 3 JSON (what il_diff_to_json writes) is left alone */
	v3 = json_deep_copy(j);
	assert_int_equal(il_diff_json_upgrade(j), 0);
	assert_true(json_equal(j, v3));
	json_decref(v3);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		DIFF_TEST(test_diff__labvm_capture_metrics, "labvm-arm64-before.txt", "labvm-arm64-after.txt"),
		DIFF_TEST(test_diff__json_shape, "labvm-arm64-before.txt", "labvm-arm64-after.txt"),
		DIFF_TEST(test_diff__biglittle_clusters, "arm64-biglittle-before.txt", "arm64-biglittle-after.txt"),
		DIFF_TEST(test_diff__biglittle_json, "arm64-biglittle-before.txt", "arm64-biglittle-after.txt"),
		DIFF_TEST(test_diff__poll_and_cstates, "x86-intel-idle-before.txt", "x86-intel-idle-after.txt"),
		DIFF_TEST(test_diff__energy_package_zones_only, "x86-intel-idle-before.txt", "x86-intel-idle-after.txt"),
		DIFF_TEST(test_diff__energy_hwmon_fallback, "arm64-hwmon-before.txt", "arm64-hwmon-after.txt"),
		DIFF_TEST(test_diff__haltpoll_poll_apart_no_clusters, HP_A, HP_B),
		DIFF_TEST(test_diff__old_kernel_misses_unknown, "old-kernel-4.14-before.txt", "old-kernel-4.14-after.txt"),
		DIFF_TEST(test_diff__no_idle_states, "x86-vm-no-idle-states.txt", "x86-vm-no-idle-states.txt"),
		cmocka_unit_test(test_diff__validation_errors),
		cmocka_unit_test(test_diff__cpu_vanished_and_missing_file),
		cmocka_unit_test(test_diff__counters_reset_by_offline_online),
		cmocka_unit_test(test_diff__suspend_between_snapshots),
		cmocka_unit_test(test_diff__cpus_changing),
		cmocka_unit_test(test_diff__min_sample_and_min_idles),
		cmocka_unit_test(test_diff__idle_time_exceeds_interval),
		cmocka_unit_test(test_diff__idle_cpus_restriction),
		cmocka_unit_test(test_diff__disabled_state_caveat),
		cmocka_unit_test(test_diff__cluster_labels),
		cmocka_unit_test(test_diff__lifetime),
		cmocka_unit_test(test_diff__lifetime_disabled_state),
		cmocka_unit_test(test_diff__energy_hwmon_beside_powercap),
		cmocka_unit_test(test_diff__json_v2_upgrade),
	};

	return cmocka_run_group_tests_name("idle_diff", tests, NULL, NULL);
}
