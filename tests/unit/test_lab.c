// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lab/labarch (the architectures' table, instance and host names) and
 * lab/ssdt (the x86_64 lab's idle tables and their SSDT, compiled by the
 * real iasl when acpica-tools is installed; kept as JSON whole or not at
 * all).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/labarch.h"
#include "lab/ssdt.h"
#include "util/buf.h"
#include "util/proc.h"

static void test_lab__arch_table_is_complete(void **state)
{
	(void)state;
	for (int i = 0; i < IL_LAB_NARCH; i++) {
		const struct il_lab_arch_info *a = &il_lab_archs[i];

		assert_non_null(a->name), assert_non_null(a->uname), assert_non_null(a->instance);
		assert_non_null(a->hosts_dir), assert_non_null(a->idle_file), assert_non_null(a->qemu);
		assert_non_null(a->machine), assert_non_null(a->cpu), assert_non_null(a->console);
		assert_non_null(a->kernel_arch), assert_non_null(a->target), assert_non_null(a->deb_arch);
		assert_non_null(a->triple), assert_non_null(a->interp), assert_non_null(a->wl_arch);
		assert_non_null(a->caveat), assert_non_null(a->underneath);
		assert_ptr_equal(il_lab_arch_by_uname(a->uname), a);
		/* the files the lab is built from are in the tree */
		{
			char rel[256];

			snprintf(rel, sizeof(rel), "%s/%s", a->hosts_dir, a->idle_file);
			assert_int_equal(access(tu_srcpath(rel), R_OK), 0);
			snprintf(rel, sizeof(rel), "%s/kernel.config", a->hosts_dir);
			assert_int_equal(access(tu_srcpath(rel), R_OK), 0);
			snprintf(rel, sizeof(rel), "%s/packages", a->hosts_dir);
			assert_int_equal(access(tu_srcpath(rel), R_OK), 0);
		}
	}
	assert_null(il_lab_arch_by_uname("riscv64"));
}

static void test_lab__arch_and_instance_names(void **state)
{
	struct il_err err = { 0 };
	enum il_lab_arch a;
	char *s;

	(void)state;
	assert_int_equal(il_lab_arch_parse("x86_64", &a, &err), 0), assert_int_equal(a, IL_LAB_X86_64);
	assert_int_equal(il_lab_arch_parse("amd64", &a, &err), 0), assert_int_equal(a, IL_LAB_X86_64);
	assert_int_equal(il_lab_arch_parse("aarch64", &a, &err), 0), assert_int_equal(a, IL_LAB_ARM64);
	assert_int_equal(il_lab_arch_parse("mips", &a, &err), IL_EINVAL);
	assert_string_equal(err.msg, "unknown lab architecture 'mips' (arm64 or x86_64)");

	assert_int_equal(il_lab_arch_of_instance("x86"), IL_LAB_X86_64);
	assert_int_equal(il_lab_arch_of_instance("x86-k"), IL_LAB_X86_64);
	assert_int_equal(il_lab_arch_of_instance("x86k"), IL_LAB_ARM64);
	assert_int_equal(il_lab_arch_of_instance("labvm"), IL_LAB_ARM64);
	assert_int_equal(il_lab_arch_of_instance(NULL), IL_LAB_ARM64);

	assert_int_equal(il_lab_instance_name(IL_LAB_ARM64, NULL, &s, &err), 0), assert_string_equal(s, "labvm"), free(s);
	assert_int_equal(il_lab_instance_name(IL_LAB_ARM64, "k", &s, &err), 0), assert_string_equal(s, "k"), free(s);
	assert_int_equal(il_lab_instance_name(IL_LAB_X86_64, NULL, &s, &err), 0), assert_string_equal(s, "x86"), free(s);
	assert_int_equal(il_lab_instance_name(IL_LAB_X86_64, "k", &s, &err), 0), assert_string_equal(s, "x86-k"), free(s);
	/* a name that already says x86 is not prefixed twice */
	assert_int_equal(il_lab_instance_name(IL_LAB_X86_64, "x86-k", &s, &err), 0), assert_string_equal(s, "x86-k"), free(s);
	assert_int_equal(il_lab_instance_name(IL_LAB_ARM64, "x86-k", &s, &err), IL_EINVAL);
	assert_non_null(strstr(err.msg, "is the x86_64 lab's"));
	/* names become directories */
	assert_int_equal(il_lab_instance_name(IL_LAB_ARM64, "../up", &s, &err), IL_EINVAL);
	assert_int_equal(il_lab_instance_name(IL_LAB_X86_64, "a/b", &s, &err), IL_EINVAL);

	s = il_lab_host_name("labvm"), assert_string_equal(s, "labvm"), free(s);
	s = il_lab_host_name("x86"), assert_string_equal(s, "labvm-x86"), free(s);
	s = il_lab_host_name("x86-k"), assert_string_equal(s, "labvm-x86-k"), free(s);
}

static int tables_text(const char *text, struct il_ssdt_tables *t, struct il_err *err)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	int r;

	assert_non_null(j);
	r = il_ssdt_tables_from_json(t, j, "t.json", err);
	json_decref(j);
	return r;
}

static void test_lab__ssdt_tables_of_the_tree(void **state)
{
	struct il_ssdt_tables t;
	struct il_err err = { 0 };
	const struct il_ssdt_table *d, *p;

	(void)state;
	assert_int_equal(il_ssdt_tables_load(&t, tu_srcpath("hosts/labvm-x86/idle-tables.json"), &err), 0);
	assert_non_null(d = il_ssdt_find(&t, "default"));
	assert_non_null(p = il_ssdt_find(&t, "pseries"));
	assert_null(il_ssdt_find(&t, "nosuch"));
	/* the table: POLL + C1 1/2, C2 50/100, C3 150/300 us */
	assert_int_equal(d->n, 3);
	assert_int_equal(d->latency_factor, 2);
	assert_int_equal(d->states[0].latency_us, 1);
	assert_int_equal(d->states[1].latency_us, 50);
	assert_int_equal(d->states[2].latency_us, 150);
	/* pseries-like: one deep state, residency >= 100 us (far above RESIDENCY_THRESHOLD_NS, 15 us) */
	assert_int_equal(p->n, 1);
	assert_true(p->states[0].latency_us * p->latency_factor >= 100);
	il_ssdt_tables_release(&t);
}

static void test_lab__ssdt_tables_refused(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "[]", "t.json: (top level): expected an object of idle tables by name" },
		{ "{\"a\": {}}", "t.json: a.states: expected an array of 1 to 7 states, latencies ascending (required)" },
		{ "{\"a\": {\"states\": []}}", "t.json: a.states: expected an array of 1 to 7 states, latencies ascending" },
		{ "{\"a\": {\"states\": [{\"latency_us\": 50}, {\"latency_us\": 50}]}}",
		  "t.json: a.states[1].latency_us: expected more than the state before (50): states are declared shallowest first" },
		{ "{\"a\": {\"states\": [{\"latency_us\": 0}]}}", "t.json: a.states[0].latency_us: expected" },
		{ "{\"a\": {\"states\": [{\"latency\": 5}]}}", "t.json: a.states[0]" },
		{ "{\"a\": {\"latency_factor\": 0, \"states\": [{\"latency_us\": 5}]}}", "t.json: a.latency_factor: expected" },
		{ "{\"A b\": {\"states\": [{\"latency_us\": 5}]}}", "t.json: A b: expected a table name" },
		{ "{\"a\": {\"states\": [{\"latency_us\": 1}, {\"latency_us\": 2}, {\"latency_us\": 3}, {\"latency_us\": 4},"
		  " {\"latency_us\": 5}, {\"latency_us\": 6}, {\"latency_us\": 7}, {\"latency_us\": 8}]}}",
		  "t.json: a.states: expected an array of 1 to 7 states" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct il_ssdt_tables t;
		struct il_err err = { 0 };

		assert_int_equal(tables_text(bad[i].text, &t, &err), IL_EPARSE);
		if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("%s\n  got: %s\n want: %s", bad[i].text, err.msg, bad[i].msg);
		il_ssdt_tables_release(&t);
	}
}

static void test_lab__ssdt_asl_compiles(void **state)
{
	struct il_ssdt_tables t;
	struct il_err err = { 0 };
	struct il_buf asl = IL_BUF_INIT, cmd = IL_BUF_INIT;
	char *dir, path[4200], base[4200];

	(void)state;
	assert_int_equal(tables_text("{\"x\": {\"latency_factor\": 3, \"states\": [{\"latency_us\": 2}, "
				     "{\"latency_us\": 80, \"power_mw\": 7}]}}", &t, &err), 0);
	assert_int_equal(il_ssdt_asl(&t.v[0], 3, &asl), 0);
	/* one External and one _CST per processor, the package count, C1-type FFixedHW class 0 */
	assert_non_null(strstr(asl.p, "External (\\_SB.CPUS.C002, ProcessorObj)"));
	assert_null(strstr(asl.p, "C003"));
	assert_non_null(strstr(asl.p, "Scope (\\_SB.CPUS.C001)"));
	assert_non_null(strstr(asl.p, "Package (0x03)\n    {\n        0x02,"));
	assert_non_null(strstr(asl.p, "Register (FFixedHW, 0x01, 0x00, 0x0000000000000000, 0x01, )"));
	assert_non_null(strstr(asl.p, "0x01, 0x0050, 0x00000007"));
	assert_non_null(strstr(asl.p, "C1 2/6 us C2 80/240 us"));
	assert_int_equal(il_ssdt_cmdline(&t.v[0], &cmd), 0);
	assert_string_equal(cmd.p, "processor.latency_factor=3");
	if (system("command -v iasl >/dev/null 2>&1")) {
		il_buf_release(&asl), il_buf_release(&cmd), il_ssdt_tables_release(&t);
		TU_SKIP("iasl missing (make deps installs acpica-tools)");
	}
	dir = tu_tmpdir();
	snprintf(path, sizeof(path), "%s/t.dsl", dir);
	snprintf(base, sizeof(base), "%s/t", dir);
	tu_write(dir, "/t.dsl", asl.p);
	{
		char *av[] = { (char *)"iasl", (char *)"-ve", (char *)"-p", base, path, NULL };
		struct il_buf o = IL_BUF_INIT, e = IL_BUF_INIT;
		struct il_exit ex;
		size_t len;
		char *aml;

		assert_int_equal(il_proc_capture(av, 60000, NULL, &o, &e, &ex, &err), 0);
		if (ex.code)
			fail_msg("iasl: %s%s", il_buf_str(&o), il_buf_str(&e));
		snprintf(path, sizeof(path), "%s/t.aml", dir);
		aml = tu_read(path, &len);
		/* an SSDT whose header length is the file's */
		assert_true(len > 36);
		assert_memory_equal(aml, "SSDT", 4);
		assert_int_equal((size_t)(unsigned char)aml[4] | (size_t)(unsigned char)aml[5] << 8, len);
		free(aml);
		il_buf_release(&o), il_buf_release(&e);
	}
	tu_rmtree(dir);
	free(dir);
	il_buf_release(&asl), il_buf_release(&cmd);
	il_ssdt_tables_release(&t);
}

static void test_lab__ssdt_round_trip(void **state)
{
	struct il_ssdt_tables t, u;
	struct il_err err = { 0 };
	json_t *j;

	(void)state;
	assert_int_equal(il_ssdt_tables_load(&t, tu_srcpath("hosts/labvm-x86/idle-tables.json"), &err), 0);
	assert_non_null(j = il_ssdt_tables_to_json(&t));
	assert_int_equal(il_ssdt_tables_from_json(&u, j, "kept", &err), 0);
	assert_int_equal(u.n, t.n);
	for (size_t i = 0; i < t.n; i++) {
		assert_string_equal(u.v[i].name, t.v[i].name);
		assert_int_equal(u.v[i].n, t.v[i].n);
		assert_int_equal(u.v[i].latency_factor, t.v[i].latency_factor);
		assert_memory_equal(u.v[i].states, t.v[i].states, t.v[i].n * sizeof(t.v[i].states[0]));
	}
	/* what the lab keeps is whole or nothing, whichever allocation fails */
	for (long n = 0, hit = 1; hit; n += tu_oom_stride()) {
		json_t *k;

		tu_json_oom(n);
		k = il_ssdt_tables_to_json(&t);
		hit = tu_json_oom_end();
		if (!k)
			assert_true(hit);
		else if (!json_equal(k, j))
			fail_msg("allocation %ld failed: idle tables with a part missing", n);
		json_decref(k);
	}
	json_decref(j);
	il_ssdt_tables_release(&t);
	il_ssdt_tables_release(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab__arch_table_is_complete),
		cmocka_unit_test(test_lab__arch_and_instance_names),
		cmocka_unit_test(test_lab__ssdt_tables_of_the_tree),
		cmocka_unit_test(test_lab__ssdt_tables_refused),
		cmocka_unit_test(test_lab__ssdt_asl_compiles),
		cmocka_unit_test(test_lab__ssdt_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
