// SPDX-License-Identifier: GPL-2.0-or-later
/* The audit's findings engine: a host's probe and window against a policy (the policy itself: auditpolicy.c; the fleet: auditfleet.c). */
#include "workflow/audit.h"
#include "util/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char *const sev_names[IL_NSEV] = {
	[IL_SEV_INFO] = "info",
	[IL_SEV_WARNING] = "warning",
	[IL_SEV_CRITICAL] = "critical",
};

const char *il_audit_sev_name(enum il_audit_sev s)
{
	return s < IL_NSEV ? sev_names[s] : "?";
}

int il_audit_sev_parse(const char *s, enum il_audit_sev *out, struct il_err *err)
{
	for (int i = 0; i < IL_NSEV; i++)
		if (s && !strcmp(s, sev_names[i])) {
			*out = (enum il_audit_sev)i;
			return 0;
		}
	return il_err_set(err, IL_EINVAL, "unknown severity '%s' (info, warning or critical)", s ? s : "");
}

/* The finding kinds: docs/audit.md has a section per row, with the kernel documentation behind it. */
static const struct il_audit_kind_info kinds[IL_NAK] = {
	[IL_AK_UNREACHABLE] = { "unreachable", IL_SEV_CRITICAL, "the host could not be connected to",
				"check the address, the port and that sshd runs" },
	[IL_AK_AUTH_REFUSED] = { "auth_refused", IL_SEV_CRITICAL, "the host refused our key or its host key did not verify",
				 "install the audit key in authorized_keys, or check the known_hosts entry" },
	[IL_AK_TIMED_OUT] = { "timed_out", IL_SEV_CRITICAL, "connecting or the probe took longer than the host's time-out",
			      "check the network path, or raise connect_timeout_s / command_timeout_s" },
	[IL_AK_PROBE_FAILED] = { "probe_failed", IL_SEV_WARNING, "the host was reached but the probe's output was unusable",
				 "run `idlelab host check` on it; the shell must be POSIX sh with grep and sysfs mounted" },
	[IL_AK_GOVERNOR] = { "governor", IL_SEV_WARNING, "the cpuidle governor is one the policy expects",
			     "echo menu (or teo) > /sys/devices/system/cpu/cpuidle/current_governor, "
			     "or boot with cpuidle.governor=" },
	[IL_AK_STATES_DISABLED] = { "states_disabled", IL_SEV_WARNING,
				    "idle states enabled by default but disabled through their `disable` file",
				    "echo 0 > .../cpuidle/stateN/disable, and find what wrote 1 (tuned, a boot script)" },
	[IL_AK_STATES_OFF_BY_DRIVER] = { "states_off_by_driver", IL_SEV_INFO,
					 "idle states the driver disables by default (default_status disabled)",
					 "intel_idle.states_off= or the driver's own choice; enable with "
					 "echo 0 > .../stateN/disable when latency allows" },
	[IL_AK_DMA_LATENCY] = { "cpu_dma_latency_held", IL_SEV_CRITICAL,
				"a process holds /dev/cpu_dma_latency open (a CPU latency QoS request)",
				"stop the process or make it request a larger latency (tuned force_latency, "
				"cyclictest --laptop)" },
	[IL_AK_RESUME_LATENCY] = { "resume_latency_limit", IL_SEV_WARNING,
				   "a CPU's power/pm_qos_resume_latency_us limits its idle states",
				   "echo 0 > /sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us (0: no limit)" },
	[IL_AK_CMDLINE] = { "cmdline_option", IL_SEV_WARNING,
			    "a boot option limits idle: idle=poll|halt, cpuidle.off, intel_idle.max_cstate, "
			    "processor.max_cstate, nohz=off, nohz_full",
			    "remove the option from the kernel command line (GRUB_CMDLINE_LINUX) unless the host "
			    "is meant to trade power for latency" },
	[IL_AK_HALTPOLL_BARE_METAL] = { "haltpoll_bare_metal", IL_SEV_WARNING,
					"the cpuidle-haltpoll driver runs on a host with no sign of a hypervisor",
					"drop cpuidle_haltpoll.force=1; bare metal wants intel_idle or acpi_idle" },
	[IL_AK_DRIVER_MISMATCH] = { "driver_mismatch", IL_SEV_WARNING,
				    "acpi_idle drives an Intel CPU on bare metal (intel_idle not in use)",
				    "drop intel_idle.max_cstate=0, or use a kernel that knows the CPU model" },
	[IL_AK_TUNED_LATENCY] = { "tuned_latency_profile", IL_SEV_WARNING,
				  "the active tuned profile forces a low CPU latency",
				  "tuned-adm profile balanced (or a profile without force_latency)" },
	[IL_AK_TABLES_DIFFER] = { "state_tables_differ", IL_SEV_WARNING,
				  "a CPU's idle state table differs from its siblings' (same package, cluster and capacity)",
				  "check the firmware's _CST/PSCI tables and per-CPU driver registration" },
	[IL_AK_TOO_DEEP] = { "too_deep", IL_SEV_WARNING,
			     "idle entries that slept shorter than the state's target residency, above the limit",
			     "the governor picks states too deep for the wake-ups: try teo, or find the timer source" },
	[IL_AK_TOO_SHALLOW] = { "too_shallow", IL_SEV_WARNING,
				"idle entries where a deeper state would have fit, above the limit",
				"the governor picks states too shallow: check latency limits, or try teo" },
	[IL_AK_SHALLOW_RESIDENCY] = { "shallow_residency", IL_SEV_INFO,
				      "the share of idle time in shallow states (target residency below the policy's), "
				      "above the limit",
				      "look for what keeps deep states out: latency requests, disabled states, frequent "
				      "wake-ups" },
};

const struct il_audit_kind_info *il_audit_kind_info(enum il_audit_kind k)
{
	return &kinds[k < IL_NAK ? k : 0];
}

/* ---- one host ---- */

static int add(struct il_audit_host *h, const struct il_audit_policy *p, enum il_audit_kind k, const char *subject,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Append a finding of kind k (nothing when the policy turns k off). Returns 0 or IL_ENOMEM. */
static int add(struct il_audit_host *h, const struct il_audit_policy *p, enum il_audit_kind k, const char *subject,
	       const char *fmt, ...)
{
	struct il_audit_finding *f;
	struct il_buf ev = IL_BUF_INIT;
	va_list ap;
	char *subj;

	if (p->off[k])
		return 0;
	va_start(ap, fmt);
	{
		char tmp[2048];

		vsnprintf(tmp, sizeof(tmp), fmt, ap);
		il_buf_adds(&ev, tmp);
	}
	va_end(ap);
	f = realloc(h->find, (h->nfind + 1) * sizeof(*f));
	subj = strdup(subject);
	if (!f || !subj || il_buf_error(&ev)) {
		if (f)
			h->find = f;
		free(subj);
		il_buf_release(&ev);
		return IL_ENOMEM;
	}
	h->find = f;
	f[h->nfind].kind = k;
	f[h->nfind].sev = p->sev[k];
	f[h->nfind].subject = subj;
	f[h->nfind].evidence = il_buf_detach(&ev);
	h->nfind++;
	return 0;
}

static const char *jstr(const json_t *o, const char *path)
{
	/* "a.b": one level of nesting is all the fingerprint needs here */
	const char *dot = strchr(path, '.');

	if (dot) {
		char k[64];

		snprintf(k, sizeof(k), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, k);
		path = dot + 1;
	}
	return json_string_value(json_object_get(o, path));
}

static int check_governor(struct il_audit_host *h, const json_t *fp, const struct il_snapshot *a,
			  const struct il_audit_policy *p)
{
	const char *gov = a->governor;
	struct il_buf want = IL_BUF_INIT;
	char subj[128];
	int r;

	/* without idle states the governor chooses nothing */
	(void)fp;
	if (!p->governors.n || !gov || !il_snapshot_nstates(a) || il_strlist_has(&p->governors, gov))
		return 0;
	il_strlist_join(&p->governors, &want);
	snprintf(subj, sizeof(subj), "governor %s", gov);
	r = add(h, p, IL_AK_GOVERNOR, subj, "current_governor %s (driver %s; the policy expects: %s)", gov,
		a->driver ? a->driver : "none", il_buf_str(&want));
	il_buf_release(&want);
	return r;
}

/* One state's CPUs where cond holds, formatted; false when none. */
static bool cpus_where(const struct il_snapshot *s, size_t k, bool (*cond)(const struct il_state *), struct il_buf *b)
{
	struct il_cpuset set = { 0 };
	bool any;

	set.cpu = calloc(s->ncpus + 1, sizeof(int));
	for (size_t i = 0; set.cpu && i < s->ncpus; i++)
		if (k < s->cpus[i].nstates && cond(&s->cpus[i].states[k]))
			set.cpu[set.n++] = s->cpus[i].cpu;
	any = set.n > 0;
	if (any)
		il_cpuset_format(&set, b);
	il_cpuset_release(&set);
	return any;
}

static bool off_by_driver(const struct il_state *st)
{
	return st->default_status && !strcmp(st->default_status, "disabled") && st->info[IL_I_DISABLE].ok &&
	       st->info[IL_I_DISABLE].v;
}

static bool off_by_user(const struct il_state *st)
{
	return st->info[IL_I_DISABLE].ok && st->info[IL_I_DISABLE].v && !il_snapshot_state_is_poll(st) && !off_by_driver(st);
}

static int check_disabled(struct il_audit_host *h, const struct il_snapshot *a, const struct il_audit_policy *p)
{
	size_t maxk = 0;
	int r = 0;

	for (size_t i = 0; i < a->ncpus; i++)
		if (a->cpus[i].nstates > maxk)
			maxk = a->cpus[i].nstates;
	for (size_t k = 0; k < maxk && !r; k++) {
		struct il_buf u = IL_BUF_INIT, d = IL_BUF_INIT;
		const char *name = NULL;
		char subj[160];

		for (size_t i = 0; i < a->ncpus && !name; i++)
			if (k < a->cpus[i].nstates)
				name = a->cpus[i].states[k].name;
		name = name ? name : "?";
		if (cpus_where(a, k, off_by_user, &u)) {
			snprintf(subj, sizeof(subj), "%s disabled", name);
			r = add(h, p, IL_AK_STATES_DISABLED, subj, "state%zu (%s) disable=1 on CPUs %s%s", k, name,
				il_buf_str(&u), a->cpus[0].nstates > k && a->cpus[0].states[k].default_status ?
				" (default_status enabled)" : "");
		}
		if (!r && cpus_where(a, k, off_by_driver, &d)) {
			snprintf(subj, sizeof(subj), "%s off by default", name);
			r = add(h, p, IL_AK_STATES_OFF_BY_DRIVER, subj,
				"state%zu (%s) default_status=disabled, disable=1 on CPUs %s (driver %s)", k, name,
				il_buf_str(&d), a->driver ? a->driver : "none");
		}
		il_buf_release(&u);
		il_buf_release(&d);
	}
	return r;
}

static int check_qos(struct il_audit_host *h, const json_t *fp, const struct il_audit_policy *p)
{
	const json_t *hold = json_object_get(fp, "cpu_dma_latency_holders");
	const json_t *procs = json_object_get(hold, "processes"), *e, *qos;
	struct il_buf b = IL_BUF_INIT;
	const char *key;
	size_t i;
	int r = 0;

	json_array_foreach(procs, i, e)
		il_buf_printf(&b, "%spid %lld (%s)", i ? ", " : "", (long long)json_integer_value(json_object_get(e, "pid")),
			      json_string_value(json_object_get(e, "comm")));
	if (json_array_size(procs))
		r = add(h, p, IL_AK_DMA_LATENCY, "/dev/cpu_dma_latency held", "%s hold /dev/cpu_dma_latency open%s",
			il_buf_str(&b), jstr(hold, "scanned") && !strcmp(jstr(hold, "scanned"), "own") ?
			" (only the audit user's processes were visible)" : "");
	il_buf_reset(&b);
	/* "0": no limit; "n/a": no latency tolerated (sysfs-devices-power, pm_qos_resume_latency_us) */
	qos = json_object_get(fp, "pm_qos_resume_latency_us");
	{
		size_t n = 0;

		json_object_foreach((json_t *)qos, key, e) {
			const char *v = json_string_value(e);

			if (!v || !strcmp(v, "0"))
				continue;
			il_buf_printf(&b, "%scpu%s: %s%s", n++ ? ", " : "", key, v,
				      !strcmp(v, "n/a") ? " (no idle state allowed)" : " us");
		}
		if (!r && n)
			r = add(h, p, IL_AK_RESUME_LATENCY, "pm_qos_resume_latency_us limit",
				"pm_qos_resume_latency_us %s", il_buf_str(&b));
	}
	il_buf_release(&b);
	return r;
}

static int check_cmdline(struct il_audit_host *h, const json_t *fp, const struct il_audit_policy *p)
{
	static const char *const opts[] = { "idle", "cpuidle.off", "intel_idle.max_cstate", "processor.max_cstate",
					    "nohz", "nohz_full", NULL };
	const json_t *ci = json_object_get(fp, "cmdline_idle");
	int r = 0;

	for (size_t i = 0; opts[i] && !r; i++) {
		const char *v = json_string_value(json_object_get(ci, opts[i]));
		char subj[160];

		/* idle=nomwait and nohz=on change nothing that matters here */
		if (!v || (!strcmp(opts[i], "idle") && strcmp(v, "poll") && strcmp(v, "halt")) ||
		    (!strcmp(opts[i], "nohz") && strcmp(v, "off")))
			continue;
		snprintf(subj, sizeof(subj), "%s%s%s", opts[i], *v ? "=" : "", v);
		r = add(h, p, IL_AK_CMDLINE, subj, "kernel command line has %s", subj);
	}
	return r;
}

static int check_driver(struct il_audit_host *h, const json_t *fp, const struct il_snapshot *a,
			const struct il_audit_policy *p)
{
	const json_t *virt = json_object_get(fp, "virtualization");
	bool bare = json_is_false(json_object_get(virt, "vm"));
	const char *model = jstr(fp, "cpu_model"), *arch = jstr(fp, "kernel.arch");
	int r = 0;

	if (!a->driver || !bare)
		return 0;
	if (!strcmp(a->driver, "haltpoll"))
		r = add(h, p, IL_AK_HALTPOLL_BARE_METAL, "haltpoll on bare metal",
			"cpuidle driver haltpoll; no hypervisor seen (cpuinfo flag, DMI %s %s)",
			jstr(virt, "dmi_vendor") ? jstr(virt, "dmi_vendor") : "-",
			jstr(virt, "dmi_product") ? jstr(virt, "dmi_product") : "-");
	else if (!strcmp(a->driver, "acpi_idle") && model && strstr(model, "Intel") && arch && strstr(arch, "86"))
		r = add(h, p, IL_AK_DRIVER_MISMATCH, "acpi_idle on Intel",
			"cpuidle driver acpi_idle on %s, bare metal (intel_idle would drive it)", model);
	return r;
}

static int check_tuned(struct il_audit_host *h, const json_t *fp, const struct il_audit_policy *p)
{
	const char *t = jstr(fp, "tuned_profile");
	char subj[160];

	if (!t || !il_strlist_has(&p->tuned_latency, t))
		return 0;
	snprintf(subj, sizeof(subj), "tuned %s", t);
	return add(h, p, IL_AK_TUNED_LATENCY, subj, "/etc/tuned/active_profile: %s", t);
}

static bool same_table(const struct il_cpu *x, const struct il_cpu *y)
{
	if (x->nstates != y->nstates)
		return false;
	for (size_t k = 0; k < x->nstates; k++)
		if ((x->states[k].name == NULL) != (y->states[k].name == NULL) ||
		    (x->states[k].name && strcmp(x->states[k].name, y->states[k].name)) ||
		    x->states[k].info[IL_I_LATENCY].v != y->states[k].info[IL_I_LATENCY].v ||
		    x->states[k].info[IL_I_RESIDENCY].v != y->states[k].info[IL_I_RESIDENCY].v)
			return false;
	return true;
}

static bool siblings(const struct il_cpu *x, const struct il_cpu *y)
{
	return x->package_id.ok == y->package_id.ok && x->package_id.v == y->package_id.v &&
	       x->cluster_id.ok == y->cluster_id.ok && x->cluster_id.v == y->cluster_id.v &&
	       x->capacity.ok == y->capacity.ok && x->capacity.v == y->capacity.v;
}

static void table_words(const struct il_cpu *c, struct il_buf *b)
{
	il_buf_printf(b, "%zu states (", c->nstates);
	for (size_t k = 0; k < c->nstates; k++)
		il_buf_printf(b, "%s%s %llu/%llu us", k ? ", " : "", c->states[k].name ? c->states[k].name : "?",
			      (unsigned long long)c->states[k].info[IL_I_LATENCY].v,
			      (unsigned long long)c->states[k].info[IL_I_RESIDENCY].v);
	il_buf_adds(b, ")");
}

/* In each group of siblings, the CPUs whose table is not the one most of the group has. */
static int check_tables(struct il_audit_host *h, const struct il_snapshot *a, const struct il_audit_policy *p)
{
	size_t n = a->ncpus;
	struct il_buf ev = IL_BUF_INIT;
	size_t odd = 0;
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		size_t best = i, bestn = 0, same = 0;

		/* the majority table among i's siblings */
		for (size_t j = 0; j < n; j++) {
			size_t c = 0;

			if (!siblings(&a->cpus[i], &a->cpus[j]))
				continue;
			for (size_t l = 0; l < n; l++)
				if (siblings(&a->cpus[j], &a->cpus[l]) && same_table(&a->cpus[j], &a->cpus[l]))
					c++;
			if (c > bestn)
				bestn = c, best = j;
		}
		same = same_table(&a->cpus[i], &a->cpus[best]);
		if (same)
			continue;
		il_buf_printf(&ev, "%scpu%d: ", odd++ ? "; " : "", a->cpus[i].cpu);
		table_words(&a->cpus[i], &ev);
		il_buf_printf(&ev, " vs cpu%d: ", a->cpus[best].cpu);
		table_words(&a->cpus[best], &ev);
	}
	if (odd)
		r = add(h, p, IL_AK_TABLES_DIFFER, "state table differs from siblings", "%s", il_buf_str(&ev));
	il_buf_release(&ev);
	return r;
}

static int check_window(struct il_audit_host *h, const struct il_diff *d, const struct il_audit_policy *p)
{
	uint64_t shallow = 0, all = 0;
	bool deep_exists = false;
	struct il_buf names = IL_BUF_INIT;
	int r = 0;

	if (!h->m.idles.ok || (long long)h->m.idles.v < p->min_idles)
		return 0;
	if (h->m.has_too_deep && h->m.too_deep_pct > p->too_deep_pct)
		r = add(h, p, IL_AK_TOO_DEEP, "too deep", "%.1f %% of %llu idle entries too deep in %.1f s (limit %g %%)",
			h->m.too_deep_pct, (unsigned long long)h->m.idles.v, d->interval_s, p->too_deep_pct);
	if (!r && h->m.has_too_shallow && h->m.too_shallow_pct > p->too_shallow_pct)
		r = add(h, p, IL_AK_TOO_SHALLOW, "too shallow",
			"%.1f %% of %llu idle entries too shallow in %.1f s (limit %g %%)", h->m.too_shallow_pct,
			(unsigned long long)h->m.idles.v, d->interval_s, p->too_shallow_pct);
	for (size_t k = 0; k < d->nstates; k++) {
		const struct il_diff_state *s = &d->states[k];
		bool sh = s->poll || !s->residency_us.ok || (double)s->residency_us.v < p->shallow_residency_us;

		if (!s->d.c[IL_C_TIME].ok)
			continue;
		all += s->d.c[IL_C_TIME].v;
		if (sh) {
			shallow += s->d.c[IL_C_TIME].v;
			il_buf_printf(&names, "%s%s", names.len ? ", " : "", s->key);
		} else
			deep_exists = true;
	}
	/* only where a deeper state exists to be in */
	if (!r && deep_exists && all && 100.0 * (double)shallow / (double)all > p->shallow_residency_pct)
		r = add(h, p, IL_AK_SHALLOW_RESIDENCY, "shallow residency",
			"%.1f %% of idle time in states with target residency below %g us (%s) (limit %g %%)",
			100.0 * (double)shallow / (double)all, p->shallow_residency_us, il_buf_str(&names),
			p->shallow_residency_pct);
	il_buf_release(&names);
	return r;
}

/* Idle time by state name over the window (the diff's states are grouped by name, latency, residency). */
static int residency(struct il_audit_host *h, const struct il_diff *d)
{
	for (size_t k = 0; k < d->nstates; k++) {
		const struct il_diff_state *s = &d->states[k];
		size_t j;

		if (!s->d.c[IL_C_TIME].ok)
			continue;
		for (j = 0; j < h->nres && strcmp(h->res[j].name, s->name ? s->name : "?"); j++)
			;
		if (j == h->nres) {
			struct il_audit_res *n = realloc(h->res, (h->nres + 1) * sizeof(*n));

			if (!n)
				return IL_ENOMEM;
			h->res = n;
			if (!(n[j].name = strdup(s->name ? s->name : "?")))
				return IL_ENOMEM;
			n[j].time_us = 0;
			h->nres++;
		}
		h->res[j].time_us += s->d.c[IL_C_TIME].v;
	}
	return 0;
}

static char *dup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

int il_audit_judge(struct il_audit_host *out, const char *host, const json_t *fp, const struct il_snapshot *a,
		   const struct il_snapshot *b, const struct il_audit_policy *p, struct il_err *err)
{
	struct il_diff d = { 0 };
	struct il_err derr = { 0 };
	int r;

	memset(out, 0, sizeof(*out));
	out->host = strdup(host);
	out->reached = true;
	out->kernel = dup0(jstr(fp, "kernel.release"));
	out->driver = dup0(a->driver);
	out->governor = dup0(a->governor);
	if (!out->host)
		return il_err_oom(err);
	if (il_diff_compute(&d, a, b, &derr)) {
		out->not_measured = strdup(derr.msg);
	} else if (d.invalid) {
		out->not_measured = strdup(d.invalid);
	} else {
		out->measured = true;
		out->interval_s = d.interval_s;
		out->total = d.total;
		il_metrics_of(&d.total, &d, &out->m);
	}
	r = check_governor(out, fp, a, p);
	r = r ? r : check_disabled(out, a, p);
	r = r ? r : check_qos(out, fp, p);
	r = r ? r : check_cmdline(out, fp, p);
	r = r ? r : check_driver(out, fp, a, p);
	r = r ? r : check_tuned(out, fp, p);
	r = r ? r : check_tables(out, a, p);
	if (!r && out->measured)
		r = check_window(out, &d, p);
	if (!r && out->measured)
		r = residency(out, &d);
	il_diff_release(&d);
	return r ? il_err_oom(err) : 0;
}

int il_audit_unreached(struct il_audit_host *out, const char *host, int code, const char *msg,
		       const struct il_audit_policy *p, struct il_err *err)
{
	enum il_audit_kind k;
	const char *what;

	memset(out, 0, sizeof(*out));
	if (code == IL_ETIMEOUT || (code == IL_ECONNECT && msg && strcasestr(msg, "timeout")))
		k = IL_AK_TIMED_OUT, what = "timed out";
	else if (code == IL_ECONNECT)
		k = IL_AK_UNREACHABLE, what = "unreachable";
	else if (code == IL_EAUTH || code == IL_EHOSTKEY)
		k = IL_AK_AUTH_REFUSED, what = code == IL_EAUTH ? "authentication refused" : "host key refused";
	else
		k = IL_AK_PROBE_FAILED, what = "probe failed";
	if (!(out->host = strdup(host)) || !(out->error = strdup(msg ? msg : il_err_strerror(code))) ||
	    add(out, p, k, what, "%s", msg ? msg : il_err_strerror(code)))
		return il_err_oom(err);
	return 0;
}

void il_audit_host_release(struct il_audit_host *h)
{
	for (size_t i = 0; i < h->nfind; i++)
		IL_FREE_ALL(h->find[i].subject, h->find[i].evidence);
	for (size_t i = 0; i < h->nres; i++)
		free(h->res[i].name);
	IL_FREE_ALL(h->find, h->res, h->host, h->error, h->kernel, h->driver, h->governor, h->not_measured);
	memset(h, 0, sizeof(*h));
}
