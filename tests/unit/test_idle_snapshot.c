// SPDX-License-Identifier: GPL-2.0-or-later
/* Snapshots of real and documented layouts: what they hold, local reading, JSON round trips. */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "idle/snapshotjson.h"
#include "util/json.h"
#include "idle/sysfs.h"
#include "util/jsonfile.h"

static void test_snapshot__labvm_capture(void **state)
{
	struct il_snapshot *s = *state;
	const struct il_cpu *c;

	assert_string_equal(s->driver, "psci_idle");
	assert_string_equal(s->governor, "menu");
	assert_true(s->governor_writable);
	assert_int_equal(s->available_governors.n, 3);
	assert_string_equal(s->available_governors.v[2], "teo");
	assert_int_equal(s->ncpus, 2);
	assert_true(s->has_online);
	assert_int_equal(s->online.n, 2);
	c = il_snapshot_cpu(s, 1);
	assert_non_null(c);
	assert_string_equal(c->driver, "psci_idle");
	assert_int_equal(c->nstates, 3);
	assert_string_equal(c->states[0].name, "WFI");
	assert_string_equal(c->states[2].desc, "retention deep (PSCI 0x2)");
	assert_true(c->states[2].info[IL_I_LATENCY].ok);
	assert_int_equal(c->states[2].info[IL_I_LATENCY].v, 500);
	assert_int_equal(c->states[2].info[IL_I_RESIDENCY].v, 2000);
	assert_int_equal(c->states[2].cnt[IL_C_USAGE].v, 112);
	assert_int_equal(c->states[2].cnt[IL_C_ABOVE].v, 12);
	assert_int_equal(c->states[0].info[IL_I_POWER].v, 4294967295u);
	assert_string_equal(c->states[1].default_status, "enabled");
	assert_string_equal(s->boot_id, "ec81313f-656c-4a8a-8058-6716d6c31bd3");
	assert_true(s->has_uptime);
	assert_true(s->uptime_s > 4.78 && s->uptime_s < 4.80);
	assert_int_equal(il_snapshot_nstates(s), 6);
}

static void test_snapshot__no_idle_states(void **state)
{
	struct il_snapshot *s = *state;

	assert_string_equal(s->driver, "none");
	assert_int_equal(il_snapshot_nstates(s), 0);
	/* topology files still describe the CPUs */
	assert_int_equal(s->ncpus, 2);
	assert_true(s->cpus[1].cluster_id.ok);
	assert_int_equal(s->cpus[1].cluster_id.v, 1);
	assert_true(il_strlist_has(&s->available_governors, "haltpoll"));
}

static void test_snapshot__old_kernel_absent_is_not_zero(void **state)
{
	struct il_snapshot *s = *state;

	assert_false(s->governor_writable);
	assert_string_equal(s->governor, "menu");
	assert_int_equal(s->available_governors.n, 0);
	assert_false(s->cpus[0].states[3].cnt[IL_C_ABOVE].ok);
	assert_false(s->cpus[0].states[3].cnt[IL_C_BELOW].ok);
	assert_false(s->cpus[0].states[3].cnt[IL_C_REJECTED].ok);
	assert_null(s->cpus[0].states[3].default_status);
	assert_true(s->cpus[0].states[3].cnt[IL_C_USAGE].ok);
}

static void test_snapshot__biglittle_tables_differ(void **state)
{
	struct il_snapshot *s = *state;

	assert_int_equal(s->ncpus, 6);
	assert_int_equal(s->cpus[0].nstates, 3);
	assert_int_equal(s->cpus[5].nstates, 2);
	assert_int_equal(s->cpus[0].capacity.v, 485);
	assert_int_equal(s->cpus[4].capacity.v, 1024);
	assert_int_equal(s->cpus[4].cluster_id.v, 1);
}

static void test_snapshot__intel_powercap_zone_names_with_colons(void **state)
{
	struct il_snapshot *s = *state;

	assert_int_equal(s->cpus[0].nstates, 9);
	assert_string_equal(s->cpus[0].states[8].name, "C10");
	assert_int_equal(s->nzones, 4);
	assert_string_equal(s->zones[0].zone, "intel-rapl:0");
	assert_string_equal(s->zones[0].name, "package-0");
	assert_int_equal(s->zones[0].energy_uj.v, 262143000000ull);
	assert_string_equal(s->zones[1].zone, "intel-rapl:0:0");
	assert_string_equal(s->zones[2].zone, "intel-rapl:1");
	assert_string_equal(s->zones[3].zone, "intel-rapl-mmio:0");
}

/* The clocks, the suspend counts and hwmon energy channels (gen-synthetic.py haltpoll, hwmon). */
static void test_snapshot__clocks_suspend_hwmon(void **state)
{
	struct il_snapshot s;

	(void)state;
	tu_parse_fixture(&s, "x86-haltpoll-2vcpu-before.txt");
	assert_true(s.has_mono);
	assert_int_equal(s.mono_ns, 109380000000ull);
	assert_true(s.has_uptime);
	assert_true(s.suspend_success.ok && s.suspend_success.v == 0);
	assert_true(s.suspend_fail.ok && s.suspend_fail.v == 0);
	assert_int_equal(s.nhwmon, 0);
	assert_true(il_snapshot_state_is_poll(&s.cpus[1].states[0]));
	assert_false(il_snapshot_state_is_poll(&s.cpus[1].states[1]));
	il_snapshot_release(&s);
	tu_parse_fixture(&s, "arm64-hwmon-after.txt");
	/* hwmon0 (cpu_thermal) has no energy channel: not kept */
	assert_int_equal(s.nhwmon, 1);
	assert_string_equal(s.hwmon[0].dev, "hwmon1");
	assert_string_equal(s.hwmon[0].name, "scmi_sensors");
	assert_int_equal(s.hwmon[0].nchan, 2);
	assert_int_equal(s.hwmon[0].chan[1].channel, 2);
	assert_string_equal(s.hwmon[0].chan[1].label, "a72_energy");
	assert_int_equal(s.hwmon[0].chan[1].energy_uj.v, 2750000);
	assert_false(s.suspend_success.ok);
	assert_false(il_snapshot_state_is_poll(&s.cpus[0].states[0]));
	il_snapshot_release(&s);
	/* pseries' snooze is a poll state by name */
	tu_parse_fixture(&s, "pseries-before.txt");
	assert_true(il_snapshot_state_is_poll(&s.cpus[0].states[0]));
	assert_false(s.has_mono);
	il_snapshot_release(&s);
}

static void test_snapshot__pseries_and_haltpoll(void **state)
{
	struct il_snapshot s;

	(void)state;
	tu_parse_fixture(&s, "pseries-before.txt");
	assert_string_equal(s.driver, "pseries_idle");
	assert_string_equal(s.cpus[2].states[1].name, "CEDE");
	assert_int_equal(s.cpus[2].cluster_id.v, -1);
	il_snapshot_release(&s);
	tu_parse_fixture(&s, "kvm-haltpoll.txt");
	assert_string_equal(s.driver, "haltpoll");
	assert_string_equal(s.cpus[0].states[1].name, "haltpoll idle");
	il_snapshot_release(&s);
}

/* The local reader (through a real directory tree) sees exactly what the dump says. */
static void local_roundtrip(const char *fixture)
{
	char *root = tu_tmpdir();
	struct il_snapshot a, b;
	struct il_sysfs_local fs;
	struct il_err err = { 0 };
	json_t *ja, *jb;

	tu_materialize(tu_fixture(fixture), root);
	tu_parse_fixture(&a, fixture);
	assert_int_equal(il_sysfs_local_init(&fs, root, &err), 0);
	fs.ops.label = fixture;
	if (il_sysfs_snapshot(&fs.ops, &b, &err))
		fail_msg("%s", err.msg);
	ja = il_snapshot_to_json(&a);
	jb = il_snapshot_to_json(&b);
	if (!json_equal(ja, jb)) {
		char *x = il_json_dumps(ja, JSON_COMPACT), *y = il_json_dumps(jb, JSON_COMPACT);

		fail_msg("%s: local read differs:\n%s\n%s", fixture, x, y);
	}
	json_decref(ja);
	json_decref(jb);
	il_snapshot_release(&a);
	il_snapshot_release(&b);
	tu_rmtree(root);
	free(root);
}

static void test_snapshot__local_reader_matches_dump(void **state)
{
	static const char *const fx[] = { "labvm-arm64-before.txt", "x86-vm-no-idle-states.txt", "kvm-haltpoll.txt",
					  "x86-intel-idle-after.txt", "arm64-biglittle-before.txt", "pseries-after.txt",
					  "old-kernel-4.14-before.txt", "x86-haltpoll-2vcpu-after.txt", "arm64-hwmon-before.txt" };

	(void)state;
	for (size_t i = 0; i < sizeof(fx) / sizeof(*fx); i++)
		local_roundtrip(fx[i]);
}

static void test_snapshot__json_roundtrip(void **state)
{
	static const char *const fx[] = { "labvm-arm64-after.txt", "x86-intel-idle-before.txt", "old-kernel-4.14-after.txt",
					  "x86-vm-no-idle-states.txt", "arm64-hwmon-after.txt", "x86-haltpoll-2vcpu-before.txt" };

	(void)state;
	for (size_t i = 0; i < sizeof(fx) / sizeof(*fx); i++) {
		struct il_snapshot a, b;
		struct il_err err = { 0 };
		json_t *j1, *j2;

		tu_parse_fixture(&a, fx[i]);
		j1 = il_snapshot_to_json(&a);
		if (il_snapshot_from_json(&b, j1, fx[i], &err))
			fail_msg("%s", err.msg);
		j2 = il_snapshot_to_json(&b);
		assert_true(json_equal(j1, j2));
		/* absent files are null, not 0 */
		if (strstr(fx[i], "old-kernel")) {
			json_t *st = json_array_get(json_object_get(json_array_get(json_object_get(j1, "cpus"), 0), "states"), 1);

			assert_true(json_is_null(json_object_get(st, "above")));
			assert_true(json_is_integer(json_object_get(st, "usage")));
		}
		json_decref(j1);
		json_decref(j2);
		il_snapshot_release(&a);
		il_snapshot_release(&b);
	}
}

struct bad_case {
	const char *dump;
	const char *expect; /* substring of the error */
};

static void test_snapshot__json_errors_name_the_path(void **state)
{
	static const struct bad_case cases[] = {
		{ "[]", "(top level): expected a snapshot object" },
		{ "{\"cpus\": 3}", "cpus: expected an array" },
		{ "{\"cpus\": [{\"cpu\": 0, \"states\": [{\"index\": 0, \"name\": \"WFI\", \"usage\": \"7\", \"time_us\": 1}]}]}",
		  "cpus[0].states[0].usage: expected a non-negative integer or null" },
		{ "{\"cpus\": [{\"cpu\": 0, \"states\": [{\"index\": 1, \"name\": \"WFI\"}]}]}", "cpus[0].states[0].index" },
		{ "{\"cpus\": [{\"cpu\": 1, \"states\": []}, {\"cpu\": 0, \"states\": []}]}", "cpus[1]: expected CPUs in increasing order" },
		{ "{\"available_governors\": [\"menu\", 3], \"cpus\": []}", "available_governors[1]: expected a string" },
		{ "{\"online\": \"0-x\", \"cpus\": []}", "online: invalid CPU list" },
		{ "{\"cpus\": [{\"cpu\": 0, \"states\": [{\"index\": 0, \"name\": \"WFI\", \"usage\": 1}]}]}",
		  "expected a state with name, usage and time_us" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct il_err err = { 0 };
		struct il_snapshot s;
		json_t *j = json_loads(cases[i].dump, 0, NULL);

		assert_non_null(j);
		if (il_snapshot_from_json(&s, j, "snap.json", &err) != IL_EPARSE || !strstr(err.msg, cases[i].expect) ||
		    strncmp(err.msg, "snap.json: ", 11))
			fail_msg("case %zu: '%s', wanted '%s'", i, err.msg, cases[i].expect);
		json_decref(j);
	}
}

static void test_snapshot__load_file_json_and_dump(void **state)
{
	char *dir = tu_tmpdir();
	char path[512];
	struct il_snapshot s;
	struct il_err err = { 0 };
	FILE *f;

	(void)state;
	assert_int_equal(il_snapshot_load_file(&s, tu_fixture("pseries-after.txt"), &err), 0);
	il_snapshot_release(&s);
	snprintf(path, sizeof(path), "%s/bad.json", dir);
	f = fopen(path, "w");
	fputs("{\"cpus\": [\n  {\"cpu\": 0,,}\n]}\n", f);
	fclose(f);
	assert_int_equal(il_snapshot_load_file(&s, path, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "bad.json:2:"));
	snprintf(path, sizeof(path), "%s/missing.json", dir);
	assert_int_equal(il_snapshot_load_file(&s, path, &err), IL_ENOTFOUND);
	assert_non_null(strstr(err.msg, "missing.json"));
	tu_rmtree(dir);
	free(dir);
}

/* Text from hosts (remote errors, console lines) may not be UTF-8; a journal record must still be written (U+FFFD). */
static void test_snapjson__str_not_utf8(void **state)
{
	json_t *j = il_json_str("host 'b': \xff\xfe bad \xc3");

	(void)state;
	assert_non_null(j);
	assert_string_equal(json_string_value(j), "host 'b': \xef\xbf\xbd\xef\xbf\xbd bad \xef\xbf\xbd");
	json_decref(j);
	j = il_json_str("caf\xc3\xa9");
	assert_string_equal(json_string_value(j), "caf\xc3\xa9");
	json_decref(j);
	j = il_json_str(NULL);
	assert_true(json_is_null(j));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_SNAPSHOT_TEST(test_snapshot__labvm_capture, "labvm-arm64-before.txt"),
		TU_SNAPSHOT_TEST(test_snapshot__no_idle_states, "x86-vm-no-idle-states.txt"),
		TU_SNAPSHOT_TEST(test_snapshot__old_kernel_absent_is_not_zero, "old-kernel-4.14-before.txt"),
		TU_SNAPSHOT_TEST(test_snapshot__biglittle_tables_differ, "arm64-biglittle-before.txt"),
		TU_SNAPSHOT_TEST(test_snapshot__intel_powercap_zone_names_with_colons, "x86-intel-idle-before.txt"),
		cmocka_unit_test(test_snapjson__str_not_utf8),
		cmocka_unit_test(test_snapshot__pseries_and_haltpoll),
		cmocka_unit_test(test_snapshot__clocks_suspend_hwmon),
		cmocka_unit_test(test_snapshot__local_reader_matches_dump),
		cmocka_unit_test(test_snapshot__json_roundtrip),
		cmocka_unit_test(test_snapshot__json_errors_name_the_path),
		cmocka_unit_test(test_snapshot__load_file_json_and_dump),
	};

	return cmocka_run_group_tests_name("idle_snapshot", tests, NULL, NULL);
}
