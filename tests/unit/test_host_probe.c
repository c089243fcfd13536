// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe's environment facts (runners/probe.sh's "idlelab.KEY:VALUE"
 * lines) parsed into the fingerprint: VM evidence (cpuinfo flag, DMI, device
 * tree), cpufreq policies grouped, the tick from the kernel's config, PM QoS
 * holders, idle boot options; and the real scripts run by sh and busybox's sh.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/probe.h"
#include "host/runners.h"
#include "util/proc.h"
#include "util/jsonfile.h"

/* Parse probe lines (no sysfs dump) into a fingerprint; fails the test on error. */
static json_t *parse(const char *text)
{
	struct il_err err = { 0 };
	json_t *j = NULL;

	if (il_probe_parse(text, strlen(text), "h", &j, NULL, &err))
		fail_msg("%s", err.msg);
	return j;
}

static void assert_json(const json_t *got, const char *want_text)
{
	json_t *want = json_loads(want_text, JSON_DECODE_ANY, NULL);
	char *g = il_json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

	assert_non_null(want);
	if (!json_equal(got, want))
		fail_msg("got %s, wanted %s", g, want_text);
	free(g);
	json_decref(want);
}

/* A KVM guest's facts: every kind of probe line. */
static const char kvm_facts[] = "idlelab.uname_r:6.1.0\n"
			  "idlelab.arch:x86_64\n"
			  "idlelab.cmdline:BOOT_IMAGE=/vmlinuz ro intel_idle.max_cstate=1 cpuidle_haltpoll.force=1 "
			  "haltpoll.guest_halt_poll_ns=0 nohz=off quiet -- idle=poll\n"
			  "idlelab.hypervisor_flag:4\n"
			  "idlelab.hypervisor_type:\n"
			  "idlelab.dmi_vendor:QEMU\n"
			  "idlelab.dmi_product:Standard PC (Q35 + ICH9, 2009)\n"
			  "idlelab.dt_compatible:\n"
			  "idlelab.cpufreq_driver:acpi-cpufreq\n"
			  "idlelab.cpufreq_governor:performance\n"
			  /* policies out of order, one with its CPUs as a list: grouped by driver and governor */
			  "idlelab.cpufreq.2.driver:acpi-cpufreq\nidlelab.cpufreq.2.governor:performance\n"
			  "idlelab.cpufreq.2.cpus:2 3\n"
			  "idlelab.cpufreq.0.driver:acpi-cpufreq\nidlelab.cpufreq.0.governor:performance\n"
			  "idlelab.cpufreq.0.cpus:0 1\n"
			  "idlelab.cpufreq.10.driver:acpi-cpufreq\nidlelab.cpufreq.10.governor:powersave\n"
			  "idlelab.cpufreq.10.cpus:10 11\n"
			  "idlelab.kconfig_source:/boot/config-6.1.0\n"
			  "idlelab.kconfig.CONFIG_NO_HZ_FULL:y\nidlelab.kconfig.CONFIG_NO_HZ:y\nidlelab.kconfig.CONFIG_HZ:1000\n"
			  "idlelab.pm_qos.0:0\nidlelab.pm_qos.1:n/a\n"
			  "idlelab.pm_qos_holder.812:tuned\nidlelab.pm_qos_holder.4242:cyclictest\n"
			  "idlelab.pm_qos_scan:all\n";

static void test_probe__kvm_guest(void **state)
{
	json_t *j = parse(kvm_facts);

	(void)state;
	assert_json(json_object_get(j, "virtualization"),
		    "{\"hypervisor_flag\": true, \"hypervisor_type\": null, \"dmi_vendor\": \"QEMU\","
		    " \"dmi_product\": \"Standard PC (Q35 + ICH9, 2009)\", \"dt_compatible\": null, \"dt_hypervisor\": null,"
		    " \"detect_virt\": null, \"vm\": true,"
		    " \"evidence\": \"cpuinfo hypervisor flag; DMI QEMU Standard PC (Q35 + ICH9, 2009)\"}");
	assert_json(json_object_get(j, "cpufreq"),
		    "{\"driver\": \"acpi-cpufreq\", \"governor\": \"performance\", \"policies\": ["
		    " {\"driver\": \"acpi-cpufreq\", \"governor\": \"performance\", \"cpus\": \"0-3\", \"policies\": 2},"
		    " {\"driver\": \"acpi-cpufreq\", \"governor\": \"powersave\", \"cpus\": \"10-11\", \"policies\": 1}]}");
	assert_json(json_object_get(j, "kernel_config"),
		    "{\"source\": \"/boot/config-6.1.0\", \"hz\": 1000, \"tick\": \"nohz_full\", \"options\":"
		    " {\"CONFIG_NO_HZ_FULL\": \"y\", \"CONFIG_NO_HZ\": \"y\", \"CONFIG_HZ\": \"1000\"}}");
	assert_json(json_object_get(j, "cpu_dma_latency_holders"),
		    "{\"processes\": [{\"pid\": 812, \"comm\": \"tuned\"}, {\"pid\": 4242, \"comm\": \"cyclictest\"}],"
		    " \"scanned\": \"all\"}");
	assert_json(json_object_get(j, "pm_qos_resume_latency_us"), "{\"0\": \"0\", \"1\": \"n/a\"}");
	/* module prefixes take every option of the module; nothing after "--" (init's) */
	assert_json(json_object_get(j, "cmdline_idle"),
		    "{\"intel_idle.max_cstate\": \"1\", \"cpuidle_haltpoll.force\": \"1\","
		    " \"haltpoll.guest_halt_poll_ns\": \"0\", \"nohz\": \"off\"}");
	json_decref(j);
}

static void test_probe__vm_or_not(void **state)
{
	static const struct {
		const char *what, *lines, *vm, *evidence;
	} cases[] = {
		{ "arm64 QEMU virt: the device tree says so", "idlelab.arch:aarch64\nidlelab.hypervisor_flag:0\n"
		  "idlelab.dt_compatible:linux,dummy-virt \n", "true", "\"device tree linux,dummy-virt (QEMU virt)\"" },
		{ "a Xen guest on arm64: a hypervisor node in the device tree",
		  "idlelab.arch:aarch64\nidlelab.dt_compatible:rockchip,rk3399 \n"
		  "idlelab.dt_hypervisor:xen,xen-4.17 xen,xen \nidlelab.dt_hypervisor_node:1\n",
		  "true", "\"device tree hypervisor node xen,xen-4.17 xen,xen \"" },
		{ "bare-metal x86: no flag, a server's DMI", "idlelab.arch:x86_64\nidlelab.hypervisor_flag:0\n"
		  "idlelab.dmi_vendor:Dell Inc.\nidlelab.dmi_product:PowerEdge R740\nidlelab.detect_virt:none\n",
		  "false", "null" },
		{ "an EC2 metal instance is not a VM", "idlelab.arch:x86_64\nidlelab.hypervisor_flag:0\n"
		  "idlelab.dmi_vendor:Amazon EC2\nidlelab.dmi_product:m5.metal\n", "false", "null" },
		{ "its virtual siblings are", "idlelab.arch:x86_64\nidlelab.hypervisor_flag:1\n"
		  "idlelab.dmi_vendor:Amazon EC2\nidlelab.dmi_product:m5.large\n",
		  "true", "\"cpuinfo hypervisor flag; DMI Amazon EC2 m5.large\"" },
		{ "an arm64 board with nothing to tell by: unknown, not no", "idlelab.arch:aarch64\nidlelab.hypervisor_flag:0\n",
		  "null", "null" },
	};
	json_t *j;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct il_buf t = IL_BUF_INIT;

		il_buf_printf(&t, "idlelab.uname_r:6.1.0\n%s", cases[i].lines);
		j = parse(t.p);
		print_message("%s\n", cases[i].what);
		assert_json(json_object_get(json_object_get(j, "virtualization"), "vm"), cases[i].vm);
		assert_json(json_object_get(json_object_get(j, "virtualization"), "evidence"), cases[i].evidence);
		json_decref(j);
		il_buf_release(&t);
	}
	/* no readable kernel config, the probe not root, no cpufreq */
	j = parse("idlelab.uname_r:6.1.0\nidlelab.kconfig_source:\nidlelab.pm_qos_scan:own\n");
	assert_json(json_object_get(j, "kernel_config"), "{\"source\": null, \"hz\": null, \"tick\": null, \"options\": {}}");
	assert_json(json_object_get(j, "cpu_dma_latency_holders"), "{\"processes\": [], \"scanned\": \"own\"}");
	assert_json(json_object_get(json_object_get(j, "cpufreq"), "policies"), "[]");
	json_decref(j);
	/* a periodic tick */
	j = parse("idlelab.uname_r:6.1.0\nidlelab.kconfig_source:/proc/config.gz\nidlelab.kconfig.CONFIG_HZ_PERIODIC:y\n"
		  "idlelab.kconfig.CONFIG_HZ:100\n");
	assert_json(json_object_get(j, "kernel_config"), "{\"source\": \"/proc/config.gz\", \"hz\": 100, \"tick\": "
							 "\"periodic\", \"options\": {\"CONFIG_HZ_PERIODIC\": \"y\", \"CONFIG_HZ\": \"100\"}}");
	json_decref(j);
}

/*
 * A host's bytes that are not UTF-8 are kept, as U+FFFD: a fact left out would hide what it
 * shows (here the holder, the boot option and the DMI vendor's VM evidence).
 */
static void test_probe__not_utf8_is_kept(void **state)
{
	json_t *j = parse("idlelab.uname_r:6.1.0\nidlelab.arch:x86_64\nidlelab.hypervisor_flag:0\n"
			  "idlelab.dmi_vendor:QEMU\xff\nidlelab.cmdline:ro idle=po\xffll\n"
			  "idlelab.pm_qos_holder.812:tu\xffned\nidlelab.kconfig.CONFIG_\xfe:y\nidlelab.kconfig.CONFIG_\xfd:n\n");

	(void)state;
	assert_json(json_object_get(j, "cpu_dma_latency_holders"),
		    "{\"processes\": [{\"pid\": 812, \"comm\": \"tu\\ufffdned\"}], \"scanned\": null}");
	assert_json(json_object_get(j, "cmdline_idle"), "{\"idle\": \"po\\ufffdll\"}");
	assert_json(json_object_get(json_object_get(j, "virtualization"), "evidence"), "\"DMI QEMU\\ufffd\"");
	/* two keys that read the same once made UTF-8 are both kept */
	assert_json(json_object_get(json_object_get(j, "kernel_config"), "options"),
		    "{\"CONFIG_\\ufffd\": \"y\", \"CONFIG_\\ufffd #2\": \"n\"}");
	json_decref(j);
}

/* Out of memory at any of its jansson allocations, the fingerprint is an error or whole, never a part. */
static void test_probe__whole_or_an_error(void **state)
{
	char *dump = tu_read(tu_fixture("x86-intel-idle-before.txt"), NULL);
	struct il_buf text = IL_BUF_INIT;
	struct il_err err = { 0 };
	json_t *whole = NULL;
	long n = 0;

	(void)state;
	il_buf_printf(&text, "%s%s", kvm_facts, dump);
	assert_int_equal(il_probe_parse(text.p, text.len, "h", &whole, NULL, &err), 0);
	for (bool hit = true; hit; n += tu_oom_stride()) {
		json_t *j = NULL;
		int r;

		tu_json_oom(n);
		r = il_probe_parse(text.p, text.len, "h", &j, NULL, &err);
		hit = tu_json_oom_end();
		if (r) {
			assert_int_equal(r, IL_ENOMEM);
			assert_true(hit);
			assert_null(j);
		} else if (!json_equal(j, whole))
			fail_msg("allocation %ld failed: a fingerprint with a part missing", n);
		json_decref(j);
	}
	assert_true(n > 100);
	json_decref(whole);
	il_buf_release(&text);
	free(dump);
}

/* The real probe (and snapshot) scripts run by shell argv0, parsed; NULL when the shell is not installed. */
static json_t *run_probe(const char *shell, struct il_snapshot *snap)
{
	struct il_buf out = IL_BUF_INIT, errb = IL_BUF_INIT, script = IL_BUF_INIT;
	struct il_exit ex;
	struct il_err err = { 0 };
	json_t *j = NULL;
	char *argv[] = { (char *)shell, "sh", "-c", NULL, NULL };

	il_buf_adds(&script, il_runners_script("probe.sh"));
	il_buf_adds(&script, il_runners_script("snapshot.sh"));
	argv[3] = script.p;
	/* "sh -c" as itself, busybox as "busybox sh -c" */
	assert_int_equal(il_proc_capture(strcmp(shell, "sh") ? argv : argv + 1, 20000, NULL, &out, &errb, &ex, &err), 0);
	assert_int_equal(ex.code, 0);
	if (il_probe_parse(out.p, out.len, "here", &j, snap, &err))
		fail_msg("%s: %s", shell, err.msg);
	il_buf_release(&out);
	il_buf_release(&errb);
	il_buf_release(&script);
	return j;
}

/* The real probe under the system's sh and busybox's (the lab's and many boards' only shell). */
static void test_probe__real_scripts(void **state)
{
	const char *shells[] = { "sh", "/usr/bin/busybox", "/bin/busybox" };
	struct il_snapshot snap;
	struct il_err err = { 0 };
	json_t *j;
	bool busybox = false;

	(void)state;
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++) {
		if (i && (busybox || access(shells[i], X_OK)))
			continue;
		busybox |= i > 0;
		j = run_probe(shells[i], &snap);
		assert_non_null(json_string_value(json_object_get(json_object_get(j, "kernel"), "release")));
		assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "cpuidle"), "nstates_total")),
				 (json_int_t)il_snapshot_nstates(&snap));
		/* whatever this machine is, every environment field is there, with a verdict or null */
		assert_non_null(json_object_get(json_object_get(j, "virtualization"), "vm"));
		assert_true(json_is_array(json_object_get(json_object_get(j, "cpufreq"), "policies")));
		assert_non_null(json_object_get(json_object_get(j, "kernel_config"), "tick"));
		assert_true(json_is_array(json_object_get(json_object_get(j, "cpu_dma_latency_holders"), "processes")));
		assert_non_null(json_string_value(json_object_get(json_object_get(j, "cpu_dma_latency_holders"), "scanned")));
		json_decref(j);
		il_snapshot_release(&snap);
	}
	if (!busybox)
		print_message("busybox not installed: the probe was run by sh only\n");
	/* output that is not from the probe */
	assert_int_equal(il_probe_parse("hello\n", 6, "here", &j, NULL, &err), IL_EPARSE);
	assert_int_equal(il_probe_parse("", 0, "here", &j, NULL, &err), IL_EPARSE);
	assert_non_null(strstr(err.msg, "no kernel release"));
}

/* the uid line is `id -u`'s number: garbage from a host that answered is an error naming it */
static void test_probe__uid_is_a_number(void **state)
{
	static const char *const bad[] = { "abc", "", "0 extra", "-1", "12345678901", "0x0" };
	struct il_err err = { 0 };
	char text[128];
	json_t *j;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "idlelab.uname_r:6.1.0\nidlelab.uid:%s\nidlelab.user:x\n", bad[i]);
		j = NULL;
		assert_int_equal(il_probe_parse(text, strlen(text), "h", &j, NULL, &err), IL_EPARSE);
		assert_null(j);
		snprintf(text, sizeof(text), "host 'h': the probe's uid is '%s': expected the numeric user id `id -u` prints",
			 bad[i]);
		assert_string_equal(err.msg, text);
	}
	j = parse("idlelab.uname_r:6.1.0\nidlelab.uid:0\n");
	assert_true(json_is_true(json_object_get(j, "root")));
	assert_string_equal(json_string_value(json_object_get(j, "uid")), "0");
	json_decref(j);
	j = parse("idlelab.uname_r:6.1.0\nidlelab.uid:1000\n");
	assert_true(json_is_false(json_object_get(j, "root")));
	json_decref(j);
	/* no uid line at all (not from probe.sh): unknown, not an error */
	j = parse("idlelab.uname_r:6.1.0\n");
	assert_true(json_is_null(json_object_get(j, "uid")));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe__kvm_guest),
		cmocka_unit_test(test_probe__vm_or_not),
		cmocka_unit_test(test_probe__real_scripts),
		cmocka_unit_test(test_probe__uid_is_a_number),
		cmocka_unit_test(test_probe__not_utf8_is_kept),
		cmocka_unit_test(test_probe__whole_or_an_error),
	};

	return cmocka_run_group_tests_name("host_probe", tests, NULL, NULL);
}
