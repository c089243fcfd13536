// SPDX-License-Identifier: GPL-2.0-or-later
/* A diff's state groups (idle/diffgroup.c): counter sums, grouping over CPUs, order and keys. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "idle/cpuset.h"
#include "idle/diffgroup.h"
#include "util/str.h"

/* A state with usage counted, other counters 0; lat or res < 0: absent. */
static struct il_diff_state mkstate(int index, const char *name, long lat, long res, uint64_t usage)
{
	struct il_diff_state s = { 0 };

	s.index = index;
	s.name = strdup(name);
	assert_non_null(s.name);
	s.latency_us = (struct il_val){ lat < 0 ? 0 : (uint64_t)lat, lat >= 0 };
	s.residency_us = (struct il_val){ res < 0 ? 0 : (uint64_t)res, res >= 0 };
	il_diff_counts_zero(&s.d);
	s.d.c[IL_C_USAGE].v = usage;
	return s;
}

/* A CPU holding the n states st (taken). */
static void cpu_of(struct il_diff_cpu *c, int cpu, const struct il_diff_state *st, size_t n)
{
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->states = calloc(n + 1, sizeof(*c->states));
	assert_non_null(c->states);
	memcpy(c->states, st, n * sizeof(*st));
	c->nstates = n;
	il_diff_counts_zero(&c->total);
	for (size_t k = 0; k < n; k++)
		il_diff_counts_add(&c->total, &st[k].d);
}

static void test_idle_diffgroup__counts_absent_stays_absent(void **state)
{
	struct il_counts a, b;

	(void)state;
	il_diff_counts_zero(&a);
	il_diff_counts_zero(&b);
	assert_true(a.c[IL_C_ABOVE].ok && a.poll[IL_C_TIME].ok);
	b.c[IL_C_USAGE].v = 5;
	b.poll[IL_C_USAGE].v = 2;
	b.c[IL_C_ABOVE].ok = false;
	il_diff_counts_add(&a, &b);
	il_diff_counts_add(&a, &b);
	assert_int_equal(a.c[IL_C_USAGE].v, 10);
	assert_int_equal(a.poll[IL_C_USAGE].v, 4);
	assert_false(a.c[IL_C_ABOVE].ok);
	assert_true(a.c[IL_C_BELOW].ok);
	assert_true(il_diff_val_eq((struct il_val){ 3, false }, (struct il_val){ 4, false }));
	assert_false(il_diff_val_eq((struct il_val){ 3, true }, (struct il_val){ 3, false }));
	assert_false(il_diff_val_eq((struct il_val){ 3, true }, (struct il_val){ 4, true }));
}

/*
 * Two CPUs of different tables (big.LITTLE): WFI is one group over both,
 * cpu-sleep two (different residency), sorted shallow first; keys name them
 * apart only where the name is shared; CPUs' states get the group keys.
 */
static void test_idle_diffgroup__groups_sorted_and_keyed(void **state)
{
	struct il_diff d = { 0 };
	struct il_diff_cpu cpus[2];
	const struct il_diff_state c0[] = { mkstate(0, "WFI", 1, 1, 10), mkstate(1, "cpu-sleep", 100, 250, 3) };
	const struct il_diff_state c4[] = { mkstate(0, "WFI", 1, 1, 20), mkstate(1, "cpu-sleep", 300, 550, 4),
					    mkstate(2, "cluster-sleep", 900, 2000, 1) };
	struct il_counts lit;
	struct il_diff_state *v = NULL;
	size_t n = 0;
	int only[] = { 4 };
	const struct il_cpuset big = { only, 1 };

	(void)state;
	cpu_of(&cpus[0], 0, c0, 2);
	cpu_of(&cpus[1], 4, c4, 3);
	d.cpus = cpus;
	d.ncpus = 2;
	il_diff_counts_zero(&d.total);
	assert_int_equal(il_diff_group_cpus(&d, NULL, &d.total, &d.states, &d.nstates), 0);
	assert_int_equal(d.nstates, 4);
	assert_int_equal(d.total.c[IL_C_USAGE].v, 38);
	assert_string_equal(d.states[0].name, "WFI");
	assert_int_equal(d.states[0].d.c[IL_C_USAGE].v, 30);
	assert_int_equal(d.states[1].residency_us.v, 250);
	assert_int_equal(d.states[2].residency_us.v, 550);
	assert_string_equal(d.states[3].name, "cluster-sleep");
	assert_int_equal(il_diff_make_keys(d.states, d.nstates), 0);
	assert_string_equal(d.states[0].key, "WFI");
	assert_string_equal(d.states[1].key, "cpu-sleep@250us");
	assert_string_equal(d.states[2].key, "cpu-sleep@550us");
	assert_string_equal(d.states[3].key, "cluster-sleep");
	assert_int_equal(il_diff_key_from(&d, cpus[1].states, cpus[1].nstates), 0);
	assert_string_equal(cpus[1].states[1].key, "cpu-sleep@550us");
	/* one CPU only (a cluster's groups) */
	il_diff_counts_zero(&lit);
	assert_int_equal(il_diff_group_cpus(&d, &big, &lit, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(lit.c[IL_C_USAGE].v, 25);
	assert_int_equal(v[0].d.c[IL_C_USAGE].v, 20);
	assert_true(il_diff_same_state(&v[1], &d.states[2]));
	assert_false(il_diff_same_state(&v[1], &d.states[1]));
	il_diff_states_release(v, n);
	il_diff_states_release(d.states, d.nstates);
	for (size_t i = 0; i < 2; i++)
		il_diff_states_release(cpus[i].states, cpus[i].nstates);
}

/* Keys stay unique when the residency is shared (latency too) or the values are absent. */
static void test_idle_diffgroup__keys_unique(void **state)
{
	struct il_diff_state v[] = { mkstate(1, "C1", 120, 250, 0), mkstate(1, "C1", 130, 250, 0),
				     mkstate(2, "C6", -1, -1, 0), mkstate(3, "C6", -1, -1, 0) };
	const size_t n = sizeof(v) / sizeof(*v);

	(void)state;
	assert_int_equal(il_diff_make_keys(v, n), 0);
	assert_string_equal(v[0].key, "C1@120-250us");
	assert_string_equal(v[1].key, "C1@130-250us");
	assert_string_equal(v[2].key, "C6#2");
	assert_string_equal(v[3].key, "C6#3");
	for (size_t i = 0; i < n; i++)
		IL_FREE_ALL(v[i].name, v[i].key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_diffgroup__counts_absent_stays_absent),
		cmocka_unit_test(test_idle_diffgroup__groups_sorted_and_keyed),
		cmocka_unit_test(test_idle_diffgroup__keys_unique),
	};

	return cmocka_run_group_tests_name("idle_diffgroup", tests, NULL, NULL);
}
