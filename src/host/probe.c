// SPDX-License-Identifier: GPL-2.0-or-later
/* One-round-trip host probe and its structured fingerprint. */
#include "host/probe.h"

#include <stdlib.h>
#include <string.h>

#include "host/runners.h"
#include "idle/snapjson.h"

/* Boot options that change idle behaviour. */
static const char *const idle_params[] = { "nohz_full", "isolcpus", "idle", "cpuidle.off", "cpuidle.governor",
					   "intel_idle.max_cstate", "processor.max_cstate", "nohz", "rcu_nocbs",
					   "cpuidle_haltpoll.force", "intel_idle.states_off", NULL };

static json_t *cmdline_facts(const char *cmdline)
{
	json_t *o = json_object();
	struct il_strlist words = { 0 };

	il_strlist_split(&words, cmdline);
	for (size_t i = 0; i < words.n; i++) {
		char *eq = strchr(words.v[i], '=');
		size_t n = eq ? (size_t)(eq - words.v[i]) : strlen(words.v[i]);

		for (size_t k = 0; idle_params[k]; k++)
			if (strlen(idle_params[k]) == n && !strncmp(words.v[i], idle_params[k], n))
				json_object_set_new(o, idle_params[k], json_string(eq ? eq + 1 : ""));
	}
	il_strlist_release(&words);
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
		il_cpuset_format(&set, &b);
		g = json_object();
		tab = json_array();
		json_object_set_new(g, "cpus", json_string(il_buf_str(&b)));
		for (size_t k = 0; k < s->cpus[i].nstates; k++) {
			const struct il_state *st = &s->cpus[i].states[k];
			json_t *o = json_object();

			json_object_set_new(o, "index", json_integer((json_int_t)k));
			json_object_set_new(o, "name", il_json_str(st->name));
			json_object_set_new(o, "desc", il_json_str(st->desc));
			json_object_set_new(o, "latency_us", il_json_val(st->info[IL_I_LATENCY]));
			json_object_set_new(o, "residency_us", il_json_val(st->info[IL_I_RESIDENCY]));
			json_object_set_new(o, "disable", il_json_val(st->info[IL_I_DISABLE]));
			json_array_append_new(tab, o);
		}
		json_object_set_new(g, "states", tab);
		json_array_append_new(a, g);
		il_buf_release(&b);
		il_cpuset_release(&set);
	}
	free(done);
	return a;
}

static const char *fact(const json_t *facts, const char *key)
{
	const json_t *v = json_object_get(facts, key);

	return json_is_string(v) && *json_string_value(v) ? json_string_value(v) : NULL;
}

int il_probe_parse(const char *text, size_t len, const char *host, json_t **out, struct il_snapshot *snap,
		   struct il_err *err)
{
	struct il_buf dump = IL_BUF_INIT, online = IL_BUF_INIT;
	json_t *facts = json_object(), *tools = json_object(), *qos = json_object(), *o, *ci, *govs;
	struct il_snapshot s;
	const char *p = text, *end = text + len;
	int r;

	*out = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 8 && !strncmp(p, "idlelab.", 8)) {
			const char *colon = memchr(p, ':', n);
			char *key = colon ? il_strndup(p + 8, (size_t)(colon - p - 8)) : NULL;
			char *val = colon ? il_strndup(colon + 1, n - (size_t)(colon - p) - 1) : NULL;

			if (key && val) {
				if (!strcmp(key, "tool"))
					json_object_set_new(tools, val, json_true());
				else if (!strncmp(key, "pm_qos.", 7))
					json_object_set_new(qos, key + 7, json_string(val));
				else
					json_object_set_new(facts, key, json_string(val));
			}
			free(key);
			free(val);
		} else if (il_buf_add(&dump, p, n) || il_buf_add(&dump, "\n", 1)) {
			r = il_err_set(err, IL_ENOMEM, "out of memory");
			goto fail;
		}
		p += n + 1;
	}
	if (!fact(facts, "uname_r")) {
		r = il_err_set(err, IL_EPARSE, "host '%s': the probe printed no kernel release (not a POSIX shell?)", host);
		goto fail;
	}
	if ((r = il_snapshot_parse(&s, il_buf_str(&dump), dump.len, host, err)))
		goto fail;
	o = json_object();
	json_object_set_new(o, "host", json_string(host));
	json_object_set_new(o, "reachable", json_true());
	json_object_set_new(o, "hostname", il_json_str(fact(facts, "hostname")));
	json_object_set_new(o, "user", il_json_str(fact(facts, "user")));
	json_object_set_new(o, "uid", il_json_str(fact(facts, "uid")));
	json_object_set_new(o, "root", json_boolean(fact(facts, "uid") && !strcmp(fact(facts, "uid"), "0")));
	json_object_set_new(o, "sudo", il_json_str(fact(facts, "sudo")));
	json_object_set_new(o, "kernel", json_pack("{s:o,s:o,s:o}", "release", il_json_str(fact(facts, "uname_r")),
						   "version", il_json_str(fact(facts, "uname_v")), "arch",
						   il_json_str(fact(facts, "arch"))));
	json_object_set_new(o, "boot_id", il_json_str(s.boot_id));
	json_object_set_new(o, "uptime_s", s.has_uptime ? json_real(s.uptime_s) : json_null());
	json_object_set_new(o, "cpu_model", il_json_str(fact(facts, "cpu_model")));
	json_object_set_new(o, "cpu_parts", il_json_str(fact(facts, "cpu_parts")));
	if (s.has_online)
		il_cpuset_format(&s.online, &online);
	json_object_set_new(o, "online_cpus", s.has_online ? json_string(il_buf_str(&online)) : json_null());
	ci = json_object();
	govs = json_array();
	for (size_t i = 0; i < s.available_governors.n; i++)
		json_array_append_new(govs, json_string(s.available_governors.v[i]));
	json_object_set_new(ci, "driver", il_json_str(s.driver));
	json_object_set_new(ci, "governor", il_json_str(s.governor));
	json_object_set_new(ci, "governor_writable", json_boolean(s.governor_writable));
	json_object_set_new(ci, "available_governors", govs);
	json_object_set_new(ci, "nstates_total", json_integer((json_int_t)il_snapshot_nstates(&s)));
	json_object_set_new(ci, "state_tables", state_tables(&s));
	json_object_set_new(o, "cpuidle", ci);
	json_object_set_new(o, "cpufreq", json_pack("{s:o,s:o}", "driver", il_json_str(fact(facts, "cpufreq_driver")),
						    "governor", il_json_str(fact(facts, "cpufreq_governor"))));
	json_object_set_new(o, "cmdline", il_json_str(fact(facts, "cmdline")));
	json_object_set_new(o, "cmdline_idle", cmdline_facts(fact(facts, "cmdline") ? fact(facts, "cmdline") : ""));
	json_object_set_new(o, "pm_qos_resume_latency_us", qos);
	qos = NULL;
	json_object_set_new(o, "virtualization",
			    json_pack("{s:b,s:o}", "hypervisor_flag",
				      fact(facts, "hypervisor_flag") && strcmp(fact(facts, "hypervisor_flag"), "0"),
				      "hypervisor_type", il_json_str(fact(facts, "hypervisor_type"))));
	json_object_set_new(o, "tools", tools);
	tools = NULL;
	json_object_set_new(o, "energy_zones", json_integer((json_int_t)s.nzones));
	*out = o;
	if (snap)
		*snap = s;
	else
		il_snapshot_release(&s);
	r = 0;
fail:
	json_decref(facts);
	json_decref(tools);
	json_decref(qos);
	il_buf_release(&dump);
	il_buf_release(&online);
	return r;
}

int il_probe_run(struct il_transport *t, json_t **out, struct il_snapshot *snap, struct il_err *err)
{
	struct il_buf script = IL_BUF_INIT;
	struct il_exec_result res;
	int r;

	*out = NULL;
	if (il_buf_adds(&script, il_runner_script("probe.sh")) || il_buf_adds(&script, il_runner_script("snapshot.sh")))
		return il_err_set(err, IL_ENOMEM, "out of memory");
	r = il_transport_run_script(t, il_buf_str(&script), NULL, NULL, &res, err);
	il_buf_release(&script);
	if (r)
		return r;
	if (res.exit_code) {
		r = il_err_set(err, IL_EIO, "host '%s': probe failed (exit %d): %s", t->label, res.exit_code,
			       il_buf_str(&res.err));
	} else {
		r = il_probe_parse(il_buf_str(&res.out), res.out.len, t->label, out, snap, err);
		if (!r) {
			json_object_set_new(*out, "transport", json_string(t->cfg->local ? "local" : "ssh"));
			json_object_set_new(*out, "auth", json_string(t->auth));
			json_object_set_new(*out, "probe_s", json_real(res.elapsed_s));
		}
	}
	il_exec_result_release(&res);
	return r;
}
