// SPDX-License-Identifier: GPL-2.0-or-later
/* The environment lines of a host fingerprint: VM, idle boot options, cpufreq, tick, PM QoS (see environ.h). */
#include "report/environ.h"

#include <stdio.h>
#include <string.h>

#include "host/probe.h"
#include "report/reportkit.h"
#include "idle/cpuset.h"

static const char *sget(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && *s ? s : NULL;
}

/* "CPU" before one CPU ("4"), "CPUs" before a list ("0-3", "1,3") */
static const char *cpus_word(const char *list)
{
	return list && !strpbrk(list, ",-") ? "CPU" : "CPUs";
}

static void line(struct il_buf *out, struct il_buf *text)
{
	il_report_wrap(out, il_buf_str(text), 100, 2);
	il_buf_adds(out, "\n");
	il_buf_carry(out, text);
	il_buf_reset(text);
}

static void vm(const json_t *fp, struct il_buf *t)
{
	const json_t *v = json_object_get(fp, "virtualization"), *is = json_object_get(v, "vm");

	if (!v)
		il_buf_adds(t, "VM: not recorded");
	else if (json_is_true(is))
		il_buf_printf(t, "VM: yes (%s)", sget(v, "evidence") ? sget(v, "evidence") : "evidence not recorded");
	else if (json_is_false(is))
		il_buf_adds(t, "VM: no (no cpuinfo hypervisor flag, DMI or device tree sign of a hypervisor)");
	else if (json_is_null(is))
		il_buf_adds(t, "VM: unknown (no cpuinfo flag, DMI or device tree to tell by)");
	/* a fingerprint from before the DMI and device tree were probed */
	else if (json_is_true(json_object_get(v, "hypervisor_flag")) || sget(v, "hypervisor_type"))
		il_buf_printf(t, "VM: yes (%s%s; DMI and device tree not recorded)",
			      json_is_true(json_object_get(v, "hypervisor_flag")) ? "cpuinfo hypervisor flag" :
										   "/sys/hypervisor/type ",
			      json_is_true(json_object_get(v, "hypervisor_flag")) ? "" : sget(v, "hypervisor_type"));
	else
		il_buf_adds(t, "VM: not recorded (no cpuinfo hypervisor flag; DMI and device tree were not probed)");
}

static void boot_options(const json_t *fp, bool full, struct il_buf *out, struct il_buf *t)
{
	const char *cmdline = sget(fp, "cmdline"), *key;
	json_t *idle, *v;

	if (!json_is_string(json_object_get(fp, "cmdline"))) {
		il_buf_adds(t, "Idle boot options: not recorded");
		line(out, t);
		return;
	}
	/* today's list of idle options, also over an older journal's command line */
	idle = il_probe_cmdline_idle(cmdline ? cmdline : "");
	if (!idle)
		t->nomem = true; /* not "none": memory ran out, the lines fail */
	il_buf_adds(t, "Idle boot options:");
	json_object_foreach(idle, key, v)
		il_buf_printf(t, " %s%s%s", key, *json_string_value(v) ? "=" : "", json_string_value(v));
	if (!json_object_size(idle))
		il_buf_adds(t, " none");
	json_decref(idle);
	line(out, t);
	if (full) {
		il_buf_printf(t, "Kernel command line: %s", cmdline ? cmdline : "(empty)");
		line(out, t);
	}
}

static void cpufreq(const json_t *fp, struct il_buf *t)
{
	const json_t *cf = json_object_get(fp, "cpufreq"), *pols = json_object_get(cf, "policies"), *g;
	size_t i;

	if (!cf) {
		il_buf_adds(t, "cpufreq: not recorded");
	} else if (!json_is_array(pols)) {
		/* before every policy was probed: cpu0's only */
		if (sget(cf, "driver") || sget(cf, "governor"))
			il_buf_printf(t, "cpufreq: cpu0 %s/%s (other CPUs not recorded)",
				      sget(cf, "driver") ? sget(cf, "driver") : "?", sget(cf, "governor") ? sget(cf, "governor") : "?");
		else
			il_buf_adds(t, "cpufreq: none on cpu0 (other CPUs not recorded)");
	} else if (!json_array_size(pols)) {
		il_buf_adds(t, "cpufreq: none (no cpufreq policy: the frequency is the platform's or the hypervisor's)");
	} else {
		il_buf_adds(t, "cpufreq:");
		json_array_foreach(pols, i, g) {
			json_int_t n = json_integer_value(json_object_get(g, "policies"));

			il_buf_printf(t, "%s %s %s on %s %s (%lld polic%s)", i ? ";" : "",
				      sget(g, "driver") ? sget(g, "driver") : "?", sget(g, "governor") ? sget(g, "governor") : "?",
				      cpus_word(sget(g, "cpus")), sget(g, "cpus") ? sget(g, "cpus") : "?", (long long)n,
				      n == 1 ? "y" : "ies");
		}
	}
}

static void tick(const json_t *fp, struct il_buf *t)
{
	static const struct {
		const char *tick, *words;
	} ticks[] = {
		{ "nohz_full", "NO_HZ_FULL" },
		{ "nohz_idle", "NO_HZ_IDLE" },
		{ "periodic", "HZ_PERIODIC" },
	};
	const json_t *kc = json_object_get(fp, "kernel_config");
	const char *tk = sget(kc, "tick"), *words = "NO_HZ unknown";

	if (!kc) {
		il_buf_adds(t, "Tick: HZ and NO_HZ not recorded");
		return;
	}
	if (!sget(kc, "source")) {
		il_buf_adds(t, "Tick: HZ unknown, NO_HZ unknown (neither /proc/config.gz nor /boot/config-RELEASE was "
			       "readable)");
		return;
	}
	for (size_t i = 0; tk && i < sizeof(ticks) / sizeof(ticks[0]); i++)
		if (!strcmp(tk, ticks[i].tick))
			words = ticks[i].words;
	if (json_is_integer(json_object_get(kc, "hz")))
		il_buf_printf(t, "Tick: HZ=%lld, %s", (long long)json_integer_value(json_object_get(kc, "hz")), words);
	else
		il_buf_printf(t, "Tick: HZ unknown, %s", words);
	il_buf_printf(t, " (%s %s)", json_object_size(json_object_get(kc, "options")) ? "from" : "could not read",
		      sget(kc, "source"));
}

/*
 * pm_qos_resume_latency_us (drivers/base/power/sysfs.c): "0" means no
 * constraint, "n/a" a limit of 0 us (the CPU may only poll), N a limit of N us.
 */
static void pm_qos(const json_t *fp, struct il_buf *t)
{
	const json_t *h = json_object_get(fp, "cpu_dma_latency_holders"), *res = json_object_get(fp, "pm_qos_resume_latency_us");
	const json_t *p;
	const char *cpu, *val;
	json_t *v, *groups = json_object();
	size_t i;

	il_buf_adds(t, "PM QoS: ");
	if (!groups) {
		t->nomem = true;
		return;
	}
	if (!h) {
		il_buf_adds(t, "/dev/cpu_dma_latency holders not recorded");
	} else if (!json_array_size(json_object_get(h, "processes"))) {
		il_buf_adds(t, "no process holds /dev/cpu_dma_latency");
	} else {
		il_buf_adds(t, "/dev/cpu_dma_latency held by");
		json_array_foreach(json_object_get(h, "processes"), i, p)
			il_buf_printf(t, "%s %s (pid %lld)", i ? "," : "", sget(p, "comm") ? sget(p, "comm") : "?",
				      (long long)json_integer_value(json_object_get(p, "pid")));
	}
	if (h && sget(h, "scanned") && !strcmp(sget(h, "scanned"), "own"))
		il_buf_adds(t, " (the probe was not root: only its own user's processes were seen)");
	if (!json_is_object(res)) {
		il_buf_adds(t, "; resume latency limits not recorded");
		json_decref(groups);
		return;
	}
	/* CPUs grouped by their limit; memory running out there fails t (a CPU left out would read as no limit) */
	json_object_foreach((json_t *)res, cpu, v) {
		const char *s = json_string_value(v);
		int bad;

		if (!s || !strcmp(s, "0"))
			continue;
		if (!json_object_get(groups, s))
			bad = json_object_set_new(groups, s, json_string(cpu));
		else {
			struct il_buf b = IL_BUF_INIT;

			il_buf_printf(&b, "%s,%s", json_string_value(json_object_get(groups, s)), cpu);
			bad = il_buf_carry(t, &b) || json_object_set_new(groups, s, json_string(il_buf_str(&b)));
			il_buf_release(&b);
		}
		if (bad) {
			t->nomem = true;
			json_decref(groups);
			return;
		}
	}
	if (!json_object_size(groups))
		il_buf_adds(t, "; no CPU resume latency limit");
	json_object_foreach(groups, val, v) {
		struct il_cpuset set = { 0 };
		struct il_buf cpus = IL_BUF_INIT;

		if (il_cpuset_parse(&set, json_string_value(v), NULL) || il_cpuset_format(&set, &cpus))
			il_buf_adds(&cpus, json_string_value(v));
		if (!strcmp(val, "n/a"))
			il_buf_printf(t, "; %s %s: resume latency limit 0 us (no idle state but polling)",
				      cpus_word(il_buf_str(&cpus)), il_buf_str(&cpus));
		else
			il_buf_printf(t, "; %s %s: resume latency limit %s us", cpus_word(il_buf_str(&cpus)), il_buf_str(&cpus),
				      val);
		il_cpuset_release(&set);
		il_buf_release(&cpus);
	}
	json_decref(groups);
}

int il_environ_report(const json_t *fp, bool full, struct il_buf *out)
{
	struct il_buf t = IL_BUF_INIT;

	vm(fp, &t);
	line(out, &t);
	boot_options(fp, full, out, &t);
	cpufreq(fp, &t);
	line(out, &t);
	tick(fp, &t);
	line(out, &t);
	pm_qos(fp, &t);
	line(out, &t);
	il_buf_release(&t);
	return il_buf_error(out);
}
