// SPDX-License-Identifier: GPL-2.0-or-later
/* Governor and idle-state control, validated against what the host reports. */
#include "idle/govctl.h"
#include "util/parse.h"
#include "util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_trimmed(struct il_sysfs *fs, const char *path, char **out, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	int r = fs->read(fs, path, &b, err);

	*out = NULL;
	if (r) {
		il_buf_release(&b);
		return r;
	}
	while (b.len && (b.p[b.len - 1] == '\n' || b.p[b.len - 1] == ' '))
		b.p[--b.len] = '\0';
	*out = il_buf_detach(&b);
	return *out ? 0 : il_err_oom(err);
}

int il_govctl_list(struct il_sysfs *fs, struct il_strlist *out, struct il_err *err)
{
	char *s;
	int r = read_trimmed(fs, IL_CPUIDLE_DIR "/available_governors", &s, err);

	if (r == IL_ENOTFOUND)
		return il_err_set(err, IL_EUNSUPPORTED, "host '%s': no cpuidle framework (%s missing)", fs->label,
				  IL_CPUIDLE_DIR "/available_governors");
	if (r)
		return r;
	r = il_strlist_split(out, s);
	free(s);
	return r ? il_err_oom(err) : 0;
}

int il_govctl_get(struct il_sysfs *fs, char **out, struct il_err *err)
{
	int r = read_trimmed(fs, IL_CPUIDLE_DIR "/current_governor", out, err);

	if (r == IL_ENOTFOUND)
		r = read_trimmed(fs, IL_CPUIDLE_DIR "/current_governor_ro", out, err);
	if (r == IL_ENOTFOUND)
		return il_err_set(err, IL_EUNSUPPORTED, "host '%s': no cpuidle governor files under %s", fs->label,
				  IL_CPUIDLE_DIR);
	return r;
}

static bool valid_word(const char *s)
{
	return il_str_name_ok(s, "_-", 15); /* CPUIDLE_NAME_LEN is 16 */
}

int il_govctl_set(struct il_sysfs *fs, const char *name, struct il_err *err)
{
	struct il_strlist govs = { 0 };
	struct il_buf list = IL_BUF_INIT;
	char *now = NULL;
	int r;

	if ((r = il_govctl_list(fs, &govs, err)))
		return r;
	if (!valid_word(name) || !il_strlist_has(&govs, name)) {
		il_strlist_join(&govs, &list);
		r = il_err_set(err, IL_EINVAL, "host '%s': governor '%s' not in available_governors (%s)", fs->label,
			       name, il_buf_str(&list));
		goto cleanup;
	}
	r = fs->write(fs, IL_CPUIDLE_DIR "/current_governor", name, err);
	if (r == IL_ENOTFOUND) {
		r = il_err_set(err, IL_EUNSUPPORTED,
			       "host '%s': current_governor is not writable on this kernel (boot with cpuidle_sysfs_switch)",
			       fs->label);
		goto cleanup;
	}
	if (r)
		goto cleanup;
	if ((r = il_govctl_get(fs, &now, err)))
		goto cleanup;
	if (strcmp(now, name))
		r = il_err_set(err, IL_EIO, "host '%s': governor reads back as '%s' after writing '%s'", fs->label, now,
			       name);
cleanup:
	free(now);
	il_buf_release(&list);
	il_strlist_release(&govs);
	return r;
}

/* The state index on cpu for spec (index or name); -1 if the CPU has no such state. */
static int resolve_state(const struct il_cpu *cpu, const char *spec)
{
	uint64_t k;

	if (!il_parse_u64(spec, (size_t)-1, &k))
		return k < cpu->nstates ? (int)k : -1;
	for (size_t i = 0; i < cpu->nstates; i++)
		if (cpu->states[i].name && !strcmp(cpu->states[i].name, spec))
			return (int)i;
	return -1;
}

static int write_disable(struct il_sysfs *fs, int cpu, int state, uint64_t v, struct il_err *err)
{
	char path[128], val[24];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable", cpu, state);
	snprintf(val, sizeof(val), "%llu", (unsigned long long)v);
	return fs->write(fs, path, val, err);
}

int il_govctl_state_set_disable(struct il_sysfs *fs, const struct il_snapshot *snap, const struct il_cpuset *cpus,
			 const char *state, bool disable, size_t *nchanged, struct il_err *err)
{
	size_t n = 0;
	int r;

	*nchanged = 0;
	if (cpus) {
		for (size_t i = 0; i < cpus->n; i++) {
			const struct il_cpu *c = il_snapshot_cpu(snap, cpus->cpu[i]);

			if (!c || !c->nstates)
				return il_err_set(err, IL_EINVAL, "host '%s': cpu%d has no idle states", fs->label,
						  cpus->cpu[i]);
			if (resolve_state(c, state) < 0)
				return il_err_set(err, IL_EINVAL, "host '%s': cpu%d has no idle state '%s'", fs->label,
						  c->cpu, state);
		}
	}
	for (size_t i = 0; i < snap->ncpus; i++) {
		const struct il_cpu *c = &snap->cpus[i];
		int k;

		if (cpus ? !il_cpuset_has(cpus, c->cpu) : !c->nstates)
			continue;
		k = resolve_state(c, state);
		if (k < 0)
			continue;
		if ((r = write_disable(fs, c->cpu, k, disable ? 1 : 0, err)))
			return r;
		n++;
	}
	if (!n)
		return il_err_set(err, IL_EINVAL, "host '%s': no CPU has an idle state '%s'", fs->label, state);
	*nchanged = n;
	return 0;
}

int il_govctl_save(struct il_sysfs *fs, struct il_idle_saved *out, struct il_err *err)
{
	struct il_snapshot snap;
	size_t n;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = il_sysfs_snapshot(fs, &snap, err)))
		return r;
	n = il_snapshot_nstates(&snap);
	out->v = calloc(n + 1, sizeof(*out->v));
	if (!out->v || (snap.governor_writable && snap.governor && !(out->governor = strdup(snap.governor)))) {
		r = il_err_oom(err);
		goto cleanup;
	}
	for (size_t i = 0; i < snap.ncpus; i++) {
		for (size_t k = 0; k < snap.cpus[i].nstates; k++) {
			const struct il_val *d = &snap.cpus[i].states[k].info[IL_I_DISABLE];

			if (!d->ok)
				continue;
			out->v[out->n].cpu = snap.cpus[i].cpu;
			out->v[out->n].state = (int)k;
			out->v[out->n].disable = d->v;
			out->n++;
		}
	}
cleanup:
	il_snapshot_release(&snap);
	if (r)
		il_govctl_saved_release(out);
	return r;
}

int il_govctl_restore(struct il_sysfs *fs, const struct il_idle_saved *saved, struct il_err *err)
{
	struct il_snapshot snap;
	int first = 0, r;

	if ((r = il_sysfs_snapshot(fs, &snap, err)))
		return r;
	for (size_t i = 0; i < saved->n; i++) {
		const struct il_idle_setting *s = &saved->v[i];
		const struct il_cpu *c = il_snapshot_cpu(&snap, s->cpu);
		const struct il_val *now = c && (size_t)s->state < c->nstates ? &c->states[s->state].info[IL_I_DISABLE] : NULL;

		if (now && now->ok && now->v == s->disable)
			continue;
		r = write_disable(fs, s->cpu, s->state, s->disable, first ? NULL : err);
		if (r && !first)
			first = r;
	}
	for (size_t i = 0; i < saved->nfreq; i++) {
		char path[128], *now = NULL;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", saved->freq[i].cpu);
		if (!read_trimmed(fs, path, &now, NULL) && !strcmp(now, saved->freq[i].governor)) {
			free(now);
			continue;
		}
		free(now);
		r = fs->write(fs, path, saved->freq[i].governor, first ? NULL : err);
		if (r && !first)
			first = r;
	}
	if (saved->governor && (!snap.governor || strcmp(snap.governor, saved->governor))) {
		r = il_govctl_set(fs, saved->governor, first ? NULL : err);
		if (r && !first)
			first = r;
	}
	il_snapshot_release(&snap);
	return first;
}

void il_govctl_saved_release(struct il_idle_saved *s)
{
	free(s->governor);
	free(s->v);
	for (size_t i = 0; i < s->nfreq; i++)
		free(s->freq[i].governor);
	free(s->freq);
	memset(s, 0, sizeof(*s));
}

int il_govctl_cpufreq_save(struct il_sysfs *fs, const struct il_snapshot *snap, struct il_idle_saved *saved,
		    struct il_err *err)
{
	struct il_freq_setting *v = calloc(snap->ncpus + 1, sizeof(*v));
	int r;

	if (!v)
		return il_err_oom(err);
	for (size_t i = 0; i < saved->nfreq; i++)
		free(saved->freq[i].governor);
	free(saved->freq);
	saved->freq = v;
	saved->nfreq = 0;
	for (size_t i = 0; i < snap->ncpus; i++) {
		char path[128];

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", snap->cpus[i].cpu);
		if ((r = read_trimmed(fs, path, &v[i].governor, err)))
			return r == IL_ENOTFOUND ? il_err_set(err, IL_EUNSUPPORTED, "host '%s': CPU %d has no cpufreq "
							     "(no %s)", fs->label, snap->cpus[i].cpu, path) : r;
		v[i].cpu = snap->cpus[i].cpu;
		saved->nfreq++;
	}
	return 0;
}

int il_govctl_cpufreq_set(struct il_sysfs *fs, const struct il_idle_saved *saved, const char *gov, struct il_err *err)
{
	int r;

	if (!valid_word(gov))
		return il_err_set(err, IL_EINVAL, "'%s' is not a cpufreq governor name", gov);
	for (size_t i = 0; i < saved->nfreq; i++) {
		char path[128], *avail = NULL, *now = NULL;
		struct il_strlist list = { 0 };
		bool ok;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_available_governors",
			 saved->freq[i].cpu);
		if ((r = read_trimmed(fs, path, &avail, err)))
			return r;
		if (il_strlist_split(&list, avail)) {
			il_strlist_release(&list);
			free(avail);
			return il_err_oom(err);
		}
		ok = il_strlist_has(&list, gov);
		il_strlist_release(&list);
		if (!ok) {
			r = il_err_set(err, IL_EINVAL, "host '%s': cpufreq governor '%s' is not available on CPU %d (%s)",
				       fs->label, gov, saved->freq[i].cpu, avail);
			free(avail);
			return r;
		}
		free(avail);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", saved->freq[i].cpu);
		if ((r = fs->write(fs, path, gov, err)) || (r = read_trimmed(fs, path, &now, err)))
			return r;
		if (strcmp(now, gov)) {
			r = il_err_set(err, IL_EIO, "host '%s': CPU %d: scaling_governor reads back '%s' after writing '%s'",
				       fs->label, saved->freq[i].cpu, now, gov);
			free(now);
			return r;
		}
		free(now);
	}
	return 0;
}

json_t *il_govctl_saved_to_json(const struct il_idle_saved *s)
{
	json_t *o = json_object(), *d = json_array(), *f = json_array();
	int bad = 0;

	if (!o || !d || !f) {
		json_decref(o), json_decref(d), json_decref(f);
		return NULL;
	}
	/* a failed set or append (memory) would drop an entry the restore needs: the whole record fails */
	bad |= json_object_set_new(o, "governor", s->governor ? json_string(s->governor) : json_null());
	for (size_t i = 0; i < s->n; i++)
		bad |= json_array_append_new(d, json_pack("{s:i,s:i,s:I}", "cpu", s->v[i].cpu, "state", s->v[i].state,
							  "disable", (json_int_t)s->v[i].disable));
	bad |= json_object_set_new(o, "disable", d);
	for (size_t i = 0; i < s->nfreq; i++)
		bad |= json_array_append_new(f, json_pack("{s:i,s:s}", "cpu", s->freq[i].cpu, "governor",
							  s->freq[i].governor));
	bad |= json_object_set_new(o, "cpufreq", f);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int il_govctl_saved_from_json(struct il_idle_saved *out, const json_t *j, const char *label, struct il_err *err)
{
	json_t *g = json_object_get(j, "governor"), *d = json_object_get(j, "disable"), *f = json_object_get(j, "cpufreq");
	int r = IL_EPARSE;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(j) || !(json_is_null(g) || json_is_string(g)) || !json_is_array(d) || !json_is_array(f))
		return il_err_set(err, IL_EPARSE, "%s: expected {\"governor\", \"disable\": [...], \"cpufreq\": [...]}", label);
	out->v = calloc(json_array_size(d) + 1, sizeof(*out->v));
	out->freq = calloc(json_array_size(f) + 1, sizeof(*out->freq));
	if (!out->v || !out->freq || (json_is_string(g) && !(out->governor = strdup(json_string_value(g))))) {
		r = il_err_oom(err);
		goto fail;
	}
	for (size_t i = 0; i < json_array_size(d); i++) {
		json_t *e = json_array_get(d, i);
		json_int_t cpu, st, dis;

		if (json_unpack(e, "{s:I,s:I,s:I}", "cpu", &cpu, "state", &st, "disable", &dis) || cpu < 0 || st < 0 ||
		    dis < 0) {
			il_err_set(err, IL_EPARSE, "%s: disable[%zu]: expected {cpu, state, disable} integers", label, i);
			goto fail;
		}
		out->v[out->n++] = (struct il_idle_setting){ (int)cpu, (int)st, (uint64_t)dis };
	}
	for (size_t i = 0; i < json_array_size(f); i++) {
		json_t *e = json_array_get(f, i);
		json_int_t cpu;
		const char *gv;

		if (json_unpack(e, "{s:I,s:s}", "cpu", &cpu, "governor", &gv) || cpu < 0 || !valid_word(gv)) {
			il_err_set(err, IL_EPARSE, "%s: cpufreq[%zu]: expected {cpu, governor}", label, i);
			goto fail;
		}
		out->freq[out->nfreq].cpu = (int)cpu;
		if (!(out->freq[out->nfreq++].governor = strdup(gv))) {
			r = il_err_oom(err);
			goto fail;
		}
	}
	return 0;
fail:
	il_govctl_saved_release(out);
	return r;
}
