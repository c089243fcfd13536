// SPDX-License-Identifier: GPL-2.0-or-later
/* One-round-trip host probe and its structured fingerprint. */
#include "host/probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/runners.h"
#include "idle/snapshotjson.h"
#include "util/json.h"
#include "util/str.h"

/* A probe fact, NULL when absent or empty. */
static const char *fact(const json_t *facts, const char *key)
{
	const json_t *v = json_object_get(facts, key);

	return json_is_string(v) && *json_string_value(v) ? json_string_value(v) : NULL;
}

/*
 * Boot options that change idle behaviour: a name, or a prefix ending in '.'
 * for every option of that module (intel_idle.max_cstate, .states_off, ...).
 */
static const char *const idle_params[] = { "idle",       "nohz",          "nohz_full",   "isolcpus",
					   "rcu_nocbs",  "cpuidle.off",   "cpuidle.governor",
					   "processor.max_cstate",        "intel_idle.", "cpuidle_haltpoll.",
					   "haltpoll.",  NULL };

static bool idle_param(const char *word, size_t n)
{
	for (size_t k = 0; idle_params[k]; k++) {
		size_t l = strlen(idle_params[k]);

		if (idle_params[k][l - 1] == '.' ? n > l && !strncmp(word, idle_params[k], l) :
						   n == l && !strncmp(word, idle_params[k], l))
			return true;
	}
	return false;
}

json_t *il_probe_cmdline_idle(const char *cmdline)
{
	json_t *o = json_object();
	struct il_strlist words = { 0 };
	int bad = !o || il_strlist_split(&words, cmdline);

	/* what follows "--" goes to init, not to the kernel */
	for (size_t i = 0; i < words.n && strcmp(words.v[i], "--"); i++) {
		char *eq = strchr(words.v[i], '=');
		size_t n = eq ? (size_t)(eq - words.v[i]) : strlen(words.v[i]);

		if (idle_param(words.v[i], n)) {
			char *key = il_str_ndup(words.v[i], n);

			bad |= key ? il_json_set(o, key, il_json_str(eq ? eq + 1 : "")) : -1;
			free(key);
		}
	}
	il_strlist_release(&words);
	return il_json_whole(o, bad);
}

/* A kernel CPU list from sysfs's related_cpus ("0 1 2 3") or a list ("0-3"), canonical; NULL if neither. */
static char *cpu_list(const char *s)
{
	struct il_cpuset set = { 0 };
	struct il_buf b = IL_BUF_INIT;
	char *t = strdup(s ? s : ""), *res = NULL;

	for (char *p = t; p && *p; p++)
		if (*p == ' ')
			*p = ',';
	if (t && *t && !il_cpuset_parse(&set, t, NULL) && !il_cpuset_format(&set, &b))
		res = il_buf_detach(&b);
	il_cpuset_release(&set);
	il_buf_release(&b);
	free(t);
	return res;
}

static int by_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/*
 * cpufreq: cpu0's driver and governor (as before), and every policy grouped
 * by (driver, governor) with the CPUs they cover: [{"driver": "acpi-cpufreq",
 * "governor": "performance", "cpus": "0-7", "policies": 8}]; [] without cpufreq.
 */
static json_t *cpufreq_json(const json_t *facts, const json_t *pols)
{
	json_t *groups = json_array(), *p;
	const char *k;
	int *ids = calloc(json_object_size(pols) + 1, sizeof(int));
	size_t n = 0;
	int bad = !groups || !ids;

	json_object_foreach((json_t *)pols, k, p)
		if (ids)
			ids[n++] = atoi(k);
	qsort(ids, n, sizeof(int), by_int);
	for (size_t i = 0; ids && i < n; i++) {
		char key[16];
		const char *drv, *gov, *cpus;
		json_t *g = NULL, *e;
		size_t j;

		snprintf(key, sizeof(key), "%d", ids[i]);
		p = json_object_get(pols, key);
		drv = json_string_value(json_object_get(p, "driver"));
		gov = json_string_value(json_object_get(p, "governor"));
		cpus = json_string_value(json_object_get(p, "cpus"));
		json_array_foreach(groups, j, e)
			if (json_equal(json_object_get(e, "driver"), json_object_get(p, "driver")) &&
			    json_equal(json_object_get(e, "governor"), json_object_get(p, "governor")))
				g = e;
		if (!g) {
			g = json_pack("{s:o,s:o,s:s,s:i}", "driver", il_json_str(drv && *drv ? drv : NULL), "governor",
				      il_json_str(gov && *gov ? gov : NULL), "cpus", "", "policies", 0);
			if (json_array_append_new(groups, g)) {
				bad = 1;
				continue;
			}
		}
		{
			/* the union of the group's CPUs, kept as a list: "0-3" + "4 5" -> "0-5" */
			struct il_buf u = IL_BUF_INIT;
			char *list;

			bad |= il_buf_printf(&u, "%s%s%s", json_string_value(json_object_get(g, "cpus")),
					     *json_string_value(json_object_get(g, "cpus")) ? "," : "", cpus ? cpus : "");
			list = cpu_list(il_buf_str(&u));
			bad |= json_object_set_new(g, "cpus", json_string(list ? list : ""));
			bad |= json_object_set_new(g, "policies",
						   json_integer(json_integer_value(json_object_get(g, "policies")) + 1));
			free(list);
			il_buf_release(&u);
		}
	}
	free(ids);
	return json_pack("{s:o,s:o,s:o}", "driver", il_json_str(fact(facts, "cpufreq_driver")), "governor",
			 il_json_str(fact(facts, "cpufreq_governor")), "policies", il_json_whole(groups, bad));
}

/*
 * The tick, from the running kernel's config when the probe could read it
 * (/proc/config.gz or /boot/config-RELEASE): {"source", "hz", "tick":
 * "nohz_full" | "nohz_idle" | "periodic" | null, "options": {CONFIG_...}}.
 */
static json_t *kconfig_json(const char *source, json_t *opts)
{
	const char *hz = json_string_value(json_object_get(opts, "CONFIG_HZ"));
	const char *tick = NULL;

	if (json_object_size(opts)) {
		/* exactly one of the three is y in a kernel's config (kernel/time/Kconfig's choice) */
		if (fact(opts, "CONFIG_NO_HZ_FULL") && !strcmp(fact(opts, "CONFIG_NO_HZ_FULL"), "y"))
			tick = "nohz_full";
		else if (fact(opts, "CONFIG_NO_HZ_IDLE") && !strcmp(fact(opts, "CONFIG_NO_HZ_IDLE"), "y"))
			tick = "nohz_idle";
		else if (fact(opts, "CONFIG_HZ_PERIODIC") && !strcmp(fact(opts, "CONFIG_HZ_PERIODIC"), "y"))
			tick = "periodic";
	}
	return json_pack("{s:o,s:o,s:o,s:O}", "source", il_json_str(source), "hz",
			 hz && atoi(hz) > 0 ? json_integer(atoi(hz)) : json_null(), "tick", il_json_str(tick), "options",
			 opts);
}

/* DMI strings of hypervisors (sys_vendor or product_name, a substring). */
static const char *const vm_dmi[] = { "QEMU", "KVM", "Bochs", "VMware", "VirtualBox", "innotek", "Xen",
				      "Virtual Machine", "Parallels", "BHYVE", "Amazon EC2", "Google Compute Engine",
				      "OpenStack", "Cloud Hypervisor", "Firecracker", NULL };

/*
 * Whether the host is a VM, with the evidence: {"hypervisor_flag",
 * "hypervisor_type", "dmi_vendor", "dmi_product", "dt_compatible",
 * "dt_hypervisor", "detect_virt", "vm": true | false | null (nothing to tell
 * by), "evidence": "cpuinfo hypervisor flag; DMI QEMU ..." | null}.
 */
static json_t *virt_json(const json_t *facts)
{
	const char *flag = fact(facts, "hypervisor_flag"), *type = fact(facts, "hypervisor_type");
	const char *ven = fact(facts, "dmi_vendor"), *prod = fact(facts, "dmi_product");
	const char *dt = fact(facts, "dt_compatible"), *dth = fact(facts, "dt_hypervisor");
	const char *dv = fact(facts, "detect_virt"), *arch = fact(facts, "arch");
	bool x86 = arch && (strstr(arch, "86") != NULL);
	struct il_buf ev = IL_BUF_INIT;
	json_t *o;
	int vm = -1;

	if (flag && strcmp(flag, "0"))
		il_buf_adds(&ev, "; cpuinfo hypervisor flag"), vm = 1;
	if (type)
		il_buf_printf(&ev, "; /sys/hypervisor/type %s", type), vm = 1;
	/* a cloud's bare-metal instances carry its DMI vendor too ("Amazon EC2", "m5.metal") */
	for (size_t i = 0; vm_dmi[i] && (ven || prod) && !(prod && strstr(prod, "metal")); i++)
		if ((ven && strstr(ven, vm_dmi[i])) || (prod && strstr(prod, vm_dmi[i]))) {
			il_buf_printf(&ev, "; DMI %s%s%s", ven ? ven : "", ven && prod ? " " : "", prod ? prod : "");
			vm = 1;
			break;
		}
	if (dt && strstr(dt, "linux,dummy-virt"))
		il_buf_adds(&ev, "; device tree linux,dummy-virt (QEMU virt)"), vm = 1;
	if (dth || fact(facts, "dt_hypervisor_node"))
		il_buf_printf(&ev, "; device tree hypervisor node%s%s", dth ? " " : "", dth ? dth : ""), vm = 1;
	if (dv && strcmp(dv, "none"))
		il_buf_printf(&ev, "; systemd-detect-virt %s", dv), vm = 1;
	/* no sign, from a source that would have shown one */
	if (vm < 0 && ((x86 && flag) || ven || prod || dt || (dv && !strcmp(dv, "none"))))
		vm = 0;
	o = json_pack("{s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "hypervisor_flag", flag && strcmp(flag, "0"),
		      "hypervisor_type", il_json_str(type), "dmi_vendor", il_json_str(ven), "dmi_product", il_json_str(prod),
		      "dt_compatible", il_json_str(dt), "dt_hypervisor", il_json_str(dth), "detect_virt", il_json_str(dv),
		      "vm", vm < 0 ? json_null() : json_boolean(vm), "evidence",
		      il_buf_error(&ev) ? NULL : ev.len ? il_json_str(il_buf_str(&ev) + 2) : json_null());
	il_buf_release(&ev);
	return o;
}

static bool same_table(const struct il_cpu *a, const struct il_cpu *b)
{
	if (a->nstates != b->nstates)
		return false;
	for (size_t k = 0; k < a->nstates; k++)
		if (strcmp(a->states[k].name, b->states[k].name) ||
		    a->states[k].info[IL_I_LATENCY].v != b->states[k].info[IL_I_LATENCY].v ||
		    a->states[k].info[IL_I_RESIDENCY].v != b->states[k].info[IL_I_RESIDENCY].v)
			return false;
	return true;
}

/* CPUs grouped by identical state tables (big.LITTLE shows two groups). */
static json_t *state_tables(const struct il_snapshot *s)
{
	json_t *a = json_array();
	bool *done = calloc(s->ncpus + 1, sizeof(bool));
	int bad = !done;

	for (size_t i = 0; done && i < s->ncpus; i++) {
		struct il_cpuset set = { 0 };
		struct il_buf b = IL_BUF_INIT;
		json_t *g, *tab;
		size_t n = 0;

		if (done[i] || !s->cpus[i].nstates)
			continue;
		set.cpu = calloc(s->ncpus, sizeof(int));
		for (size_t j = i; set.cpu && j < s->ncpus; j++)
			if (!done[j] && same_table(&s->cpus[i], &s->cpus[j])) {
				done[j] = true;
				set.cpu[n++] = s->cpus[j].cpu;
			}
		set.n = n;
		bad |= !set.cpu || il_cpuset_format(&set, &b);
		g = json_object();
		tab = json_array();
		bad |= json_object_set_new(g, "cpus", json_string(il_buf_str(&b)));
		for (size_t k = 0; k < s->cpus[i].nstates; k++) {
			const struct il_state *st = &s->cpus[i].states[k];

			bad |= json_array_append_new(
				tab, json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "index", (json_int_t)k, "name",
					       il_json_str(st->name), "desc", il_json_str(st->desc), "latency_us",
					       il_snapshot_json_val(st->info[IL_I_LATENCY]), "residency_us",
					       il_snapshot_json_val(st->info[IL_I_RESIDENCY]), "disable",
					       il_snapshot_json_val(st->info[IL_I_DISABLE]), "default_status",
					       il_json_str(st->default_status)));
		}
		bad |= json_object_set_new(g, "states", tab);
		bad |= json_array_append_new(a, g);
		il_buf_release(&b);
		il_cpuset_release(&set);
	}
	free(done);
	return il_json_whole(a, bad);
}

/*
 * The uid line, when the probe printed one, is `id -u`'s number: "root" in
 * the fingerprint and the sudo decision rest on it, so garbage ("", "abc",
 * "0 extra") from a host that did answer is an error naming it, not a uid.
 */
static int check_uid(const json_t *facts, const char *host, struct il_err *err)
{
	const json_t *v = json_object_get(facts, "uid");
	const char *s = json_string_value(v);
	size_t n = s ? strspn(s, "0123456789") : 0;
	char *shown;
	int r;

	if (!v || (s && n && n <= 10 && !s[n]))
		return 0;
	shown = il_str_sanitize(il_str_ndup(s ? s : "", strnlen(s ? s : "", 64)), false);
	r = il_err_set(err, IL_EPARSE, "host '%s': the probe's uid is '%s': expected the numeric user id `id -u` prints",
		       host, shown ? shown : "");
	free(shown);
	return r;
}

int il_probe_parse(const char *text, size_t len, const char *host, json_t **out, struct il_snapshot *snap,
		   struct il_err *err)
{
	struct il_buf dump = IL_BUF_INIT, online = IL_BUF_INIT;
	json_t *facts = json_object(), *tools = json_object(), *qos = json_object(), *o, *ci, *govs;
	json_t *pols = json_object(), *kconf = json_object(), *holders = json_array();
	struct il_snapshot s;
	const char *p = text, *end = text + len;
	int r, bad = !facts || !tools || !qos || !pols || !kconf || !holders;

	/*
	 * Values are the host's bytes (a process name, the command line): il_json_str and il_json_set
	 * keep them, not UTF-8 or not, and every set is checked — a fact left out would be a finding
	 * a hostile host hides from the audit (a holder whose name is not UTF-8, "idle=poll \xff").
	 */
	*out = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 8 && !strncmp(p, "idlelab.", 8)) {
			const char *colon = memchr(p, ':', n);
			char *key = colon ? il_str_ndup(p + 8, (size_t)(colon - p - 8)) : NULL;
			char *val = colon ? il_str_ndup(colon + 1, n - (size_t)(colon - p) - 1) : NULL;

			if (!colon) {
				/* not a fact: nothing to keep */
			} else if (!key || !val) {
				bad = 1;
			} else if (!strcmp(key, "tool")) {
				bad |= il_json_set(tools, val, json_true());
			} else if (!strncmp(key, "pm_qos.", 7)) {
				bad |= il_json_set(qos, key + 7, il_json_str(val));
			} else if (!strncmp(key, "pm_qos_holder.", 14)) {
				bad |= json_array_append_new(holders, json_pack("{s:I,s:o}", "pid", (json_int_t)atoll(key + 14),
										"comm", il_json_str(val)));
			} else if (!strncmp(key, "kconfig.", 8)) {
				bad |= il_json_set(kconf, key + 8, il_json_str(val));
			} else if (!strncmp(key, "cpufreq.", 8) && strchr(key + 8, '.')) {
				/* cpufreq.N.FIELD: policy N's driver, governor or cpus */
				char *dot = strchr(key + 8, '.');
				json_t *pol;

				*dot = 0;
				if (!(pol = json_object_get(pols, key + 8)) && il_json_set(pols, key + 8, pol = json_object()))
					pol = NULL;
				bad |= il_json_set(pol, dot + 1, il_json_str(val));
			} else {
				bad |= il_json_set(facts, key, il_json_str(val));
			}
			free(key);
			free(val);
		} else if (il_buf_add(&dump, p, n) || il_buf_add(&dump, "\n", 1)) {
			r = il_err_oom(err);
			goto fail;
		}
		p += n + 1;
	}
	if (bad) {
		r = il_err_oom(err);
		goto fail;
	}
	if (!fact(facts, "uname_r")) {
		r = il_err_set(err, IL_EPARSE, "host '%s': the probe printed no kernel release (not a POSIX shell?)", host);
		goto fail;
	}
	if ((r = check_uid(facts, host, err)))
		goto fail;
	if ((r = il_snapshot_parse(&s, il_buf_str(&dump), dump.len, host, err)))
		goto fail;
	o = json_object();
	bad |= json_object_set_new(o, "host", il_json_str(host));
	bad |= json_object_set_new(o, "reachable", json_true());
	bad |= json_object_set_new(o, "hostname", il_json_str(fact(facts, "hostname")));
	bad |= json_object_set_new(o, "user", il_json_str(fact(facts, "user")));
	bad |= json_object_set_new(o, "uid", il_json_str(fact(facts, "uid")));
	bad |= json_object_set_new(o, "root", json_boolean(fact(facts, "uid") && !strcmp(fact(facts, "uid"), "0")));
	bad |= json_object_set_new(o, "sudo", il_json_str(fact(facts, "sudo")));
	bad |= json_object_set_new(o, "kernel", json_pack("{s:o,s:o,s:o}", "release", il_json_str(fact(facts, "uname_r")),
							  "version", il_json_str(fact(facts, "uname_v")), "arch",
							  il_json_str(fact(facts, "arch"))));
	bad |= json_object_set_new(o, "boot_id", il_json_str(s.boot_id));
	bad |= json_object_set_new(o, "uptime_s", s.has_uptime ? json_real(s.uptime_s) : json_null());
	bad |= json_object_set_new(o, "cpu_model", il_json_str(fact(facts, "cpu_model")));
	bad |= json_object_set_new(o, "cpu_parts", il_json_str(fact(facts, "cpu_parts")));
	if (s.has_online)
		bad |= il_cpuset_format(&s.online, &online);
	bad |= json_object_set_new(o, "online_cpus", s.has_online ? json_string(il_buf_str(&online)) : json_null());
	ci = json_object();
	govs = json_array();
	for (size_t i = 0; i < s.available_governors.n; i++)
		bad |= json_array_append_new(govs, il_json_str(s.available_governors.v[i]));
	bad |= json_object_set_new(ci, "driver", il_json_str(s.driver));
	bad |= json_object_set_new(ci, "governor", il_json_str(s.governor));
	bad |= json_object_set_new(ci, "governor_writable", json_boolean(s.governor_writable));
	bad |= json_object_set_new(ci, "available_governors", govs);
	bad |= json_object_set_new(ci, "nstates_total", json_integer((json_int_t)il_snapshot_nstates(&s)));
	bad |= json_object_set_new(ci, "state_tables", state_tables(&s));
	bad |= json_object_set_new(o, "cpuidle", ci);
	bad |= json_object_set_new(o, "cpufreq", cpufreq_json(facts, pols));
	bad |= json_object_set_new(o, "kernel_config", kconfig_json(fact(facts, "kconfig_source"), kconf));
	bad |= json_object_set_new(o, "cmdline", il_json_str(fact(facts, "cmdline")));
	bad |= json_object_set_new(o, "cmdline_idle",
				   il_probe_cmdline_idle(fact(facts, "cmdline") ? fact(facts, "cmdline") : ""));
	bad |= json_object_set_new(o, "pm_qos_resume_latency_us", qos);
	qos = NULL;
	/* "scanned": "all" (root saw every process's descriptors) or "own" (only this user's) */
	bad |= json_object_set_new(o, "cpu_dma_latency_holders",
				   json_pack("{s:O,s:o}", "processes", holders, "scanned",
					     il_json_str(fact(facts, "pm_qos_scan"))));
	bad |= json_object_set_new(o, "virtualization", virt_json(facts));
	bad |= json_object_set_new(o, "tuned_profile", il_json_str(fact(facts, "tuned_profile")));
	bad |= json_object_set_new(o, "tools", tools);
	tools = NULL;
	bad |= json_object_set_new(o, "energy_zones", json_integer((json_int_t)s.nzones));
	if (bad) {
		/* a fingerprint with a part missing would hide what that part shows */
		json_decref(o);
		il_snapshot_release(&s);
		r = il_err_oom(err);
		goto fail;
	}
	*out = o;
	if (snap)
		*snap = s;
	else
		il_snapshot_release(&s);
	r = 0;
fail:
	json_decref(pols);
	json_decref(kconf);
	json_decref(holders);
	json_decref(facts);
	json_decref(tools);
	json_decref(qos);
	il_buf_release(&dump);
	il_buf_release(&online);
	return r;
}

/* How the probe reached the host, in its fingerprint (IL_ENOMEM: not all of it could be said). */
static int stamp(const struct il_transport *t, json_t *out, double elapsed_s, struct il_err *err)
{
	if (json_object_set_new(out, "transport", json_string(il_host_kind_name(t->cfg->kind))) ||
	    json_object_set_new(out, "auth", json_string(t->auth)) ||
	    json_object_set_new(out, "probe_s", json_real(elapsed_s)))
		return il_err_oom(err);
	return 0;
}

/*
 * Run script (released here) on t with args and o; a non-zero exit is an
 * error naming what. *res: the caller releases it, also after an error.
 */
static int run_probe(struct il_transport *t, struct il_buf *script, char *const *args, const struct il_exec_opts *o,
		     const char *what, struct il_exec_result *res, struct il_err *err)
{
	int r;

	memset(res, 0, sizeof(*res));
	if (il_buf_error(script)) {
		il_buf_release(script);
		return il_err_oom(err);
	}
	r = il_transport_run_script(t, il_buf_str(script), args, o, res, err);
	il_buf_release(script);
	if (!r && res->exit_code)
		r = il_err_set(err, IL_EIO, "host '%s': %s failed (exit %d): %s", t->label, what, res->exit_code,
			       il_buf_str(&res->err));
	return r;
}

int il_probe_run(struct il_transport *t, json_t **out, struct il_snapshot *snap, struct il_err *err)
{
	struct il_buf script = IL_BUF_INIT;
	struct il_exec_result res;
	int r;

	*out = NULL;
	il_buf_adds(&script, il_runners_script("probe.sh"));
	il_buf_adds(&script, il_runners_script("snapshot.sh"));
	if (!(r = run_probe(t, &script, NULL, NULL, "probe", &res, err)) &&
	    !(r = il_probe_parse(il_buf_str(&res.out), res.out.len, t->label, out, snap, err)) &&
	    (r = stamp(t, *out, res.elapsed_s, err))) {
		json_decref(*out);
		*out = NULL;
		if (snap)
			il_snapshot_release(snap);
	}
	il_transport_result_release(&res);
	return r;
}

int il_probe_parse_window(const char *text, size_t len, const char *host, json_t **out, struct il_snapshot *before,
			  struct il_snapshot *after, struct il_err *err)
{
	static const char mark[] = "\n" IL_PROBE_WINDOW_MARK "\n";
	const char *m = len >= sizeof(mark) - 1 ? memmem(text, len, mark, sizeof(mark) - 1) : NULL;
	size_t head;
	int r;

	*out = NULL;
	memset(after, 0, sizeof(*after));
	if (!m)
		return il_err_set(err, IL_EPARSE, "host '%s': the audit's output has no second snapshot (cut short?)", host);
	head = (size_t)(m - text) + 1;
	if ((r = il_probe_parse(text, head, host, out, before, err)))
		return r;
	if ((r = il_snapshot_parse(after, m + sizeof(mark) - 1, len - head - (sizeof(mark) - 2), host, err))) {
		json_decref(*out);
		*out = NULL;
		il_snapshot_release(before);
	}
	return r;
}

int il_probe_window(struct il_transport *t, double window_s, json_t **out, struct il_snapshot *before,
		    struct il_snapshot *after, struct il_err *err)
{
	struct il_buf script = IL_BUF_INIT;
	struct il_exec_result res;
	struct il_exec_opts o = { 0 };
	char win[32];
	char *args[] = { win, NULL };
	int r;

	*out = NULL;
	snprintf(win, sizeof(win), "%.3f", window_s > 0 ? window_s : 0);
	o.timeout_ms = (int)((t->cfg->command_timeout_s + (window_s > 0 ? window_s : 0)) * 1000);
	il_buf_adds(&script, il_runners_script("probe.sh"));
	il_buf_adds(&script, il_runners_script("snapshot.sh"));
	il_buf_adds(&script, "echo " IL_PROBE_WINDOW_MARK "\nsleep \"$1\"\n");
	il_buf_adds(&script, il_runners_script("snapshot.sh"));
	if (!(r = run_probe(t, &script, args, &o, "audit probe", &res, err)) &&
	    !(r = il_probe_parse_window(il_buf_str(&res.out), res.out.len, t->label, out, before, after, err)) &&
	    (r = stamp(t, *out, res.elapsed_s, err))) {
		json_decref(*out);
		*out = NULL;
		il_snapshot_release(before);
		il_snapshot_release(after);
	}
	il_transport_result_release(&res);
	return r;
}
