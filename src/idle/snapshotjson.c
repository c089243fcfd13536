// SPDX-License-Identifier: GPL-2.0-or-later
/* Snapshot JSON encoding and decoding (with JSON paths in every error). */
#include "idle/snapshotjson.h"

#include "util/json.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "idle/cpuset.h"
#include "util/strlist.h"
#include "util/utf8.h"

json_t *il_snapshot_json_val(struct il_val v)
{
	if (!v.ok)
		return json_null();
	if (v.v > (uint64_t)INT64_MAX)
		return json_real((double)v.v);
	return json_integer((json_int_t)v.v);
}

json_t *il_snapshot_json_ival(struct il_ival v)
{
	return v.ok ? json_integer((json_int_t)v.v) : json_null();
}

/* A member of a struct that the writer and the reader both take from a table: its JSON key and offset. */
struct jmember {
	const char *key;
	size_t off;
};

/* A CPU's topology numbers (struct il_ival members). */
static const struct jmember cpu_ids[] = {
	{ "cluster", offsetof(struct il_cpu, cluster_id) },
	{ "core", offsetof(struct il_cpu, core_id) },
	{ "package", offsetof(struct il_cpu, package_id) },
};
#define NCPU_IDS (sizeof(cpu_ids) / sizeof(*cpu_ids))
#define CPU_ID(cpu, k) ((struct il_ival *)((char *)(cpu) + cpu_ids[k].off))

/* The snapshot's leading strings (char * members). */
static const struct jmember top_strs[] = {
	{ "host", offsetof(struct il_snapshot, host) },
	{ "driver", offsetof(struct il_snapshot, driver) },
	{ "governor", offsetof(struct il_snapshot, governor) },
	{ "governor_ro", offsetof(struct il_snapshot, governor_ro) },
};
#define NTOP_STRS (sizeof(top_strs) / sizeof(*top_strs))

static json_t *state_json(const struct il_state *st)
{
	json_t *o = json_object();
	int bad = 0;

	if (!o)
		return NULL;
	bad |= json_object_set_new(o, "index", json_integer(st->index));
	bad |= json_object_set_new(o, "name", il_json_str(st->name));
	bad |= json_object_set_new(o, "desc", il_json_str(st->desc));
	for (int i = 0; i < IL_NINFOS; i++)
		bad |= json_object_set_new(o, il_snapshot_info_key(i), il_snapshot_json_val(st->info[i]));
	bad |= json_object_set_new(o, "default_status", il_json_str(st->default_status));
	for (int i = 0; i < IL_NCOUNTERS; i++)
		bad |= json_object_set_new(o, il_snapshot_counter_key(i), il_snapshot_json_val(st->cnt[i]));
	return il_json_whole(o, bad);
}

static json_t *cpu_json(const struct il_cpu *c)
{
	json_t *o = json_object(), *sts = json_array();
	int bad = 0;

	if (!il_json_all((json_t *[]){ o, sts }, 2))
		return NULL;
	bad |= json_object_set_new(o, "cpu", json_integer(c->cpu));
	bad |= json_object_set_new(o, "driver", il_json_str(c->driver));
	for (size_t k = 0; k < NCPU_IDS; k++)
		bad |= json_object_set_new(o, cpu_ids[k].key,
					   il_snapshot_json_ival(*(const struct il_ival *)((const char *)c + cpu_ids[k].off)));
	bad |= json_object_set_new(o, "capacity", il_snapshot_json_val(c->capacity));
	for (size_t k = 0; k < c->nstates; k++)
		bad |= json_array_append_new(sts, state_json(&c->states[k]));
	bad |= json_object_set_new(o, "states", sts);
	return il_json_whole(o, bad);
}

static json_t *zone_json(const struct il_energy_zone *z)
{
	json_t *o = json_object();
	int bad = 0;

	if (!o)
		return NULL;
	bad |= json_object_set_new(o, "zone", il_json_str(z->zone));
	bad |= json_object_set_new(o, "name", il_json_str(z->name));
	bad |= json_object_set_new(o, "energy_uj", il_snapshot_json_val(z->energy_uj));
	bad |= json_object_set_new(o, "max_energy_range_uj", il_snapshot_json_val(z->max_range_uj));
	return il_json_whole(o, bad);
}

static json_t *chan_json(const struct il_hwmon_chan *ch)
{
	json_t *o = json_object();
	int bad = 0;

	if (!o)
		return NULL;
	bad |= json_object_set_new(o, "channel", json_integer(ch->channel));
	bad |= json_object_set_new(o, "label", il_json_str(ch->label));
	bad |= json_object_set_new(o, "energy_uj", il_snapshot_json_val(ch->energy_uj));
	return il_json_whole(o, bad);
}

static json_t *hwmon_json(const struct il_snapshot *s)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; !bad && i < s->nhwmon; i++) {
		const struct il_hwmon *h = &s->hwmon[i];
		json_t *ho = json_object(), *chs = json_array();
		int b = 0;

		if (!il_json_all((json_t *[]){ ho, chs }, 2)) {
			bad = 1;
			break;
		}
		b |= json_object_set_new(ho, "dev", il_json_str(h->dev));
		b |= json_object_set_new(ho, "name", il_json_str(h->name));
		for (size_t k = 0; k < h->nchan; k++)
			b |= json_array_append_new(chs, chan_json(&h->chan[k]));
		b |= json_object_set_new(ho, "energy", chs);
		bad |= json_array_append_new(a, il_json_whole(ho, b));
	}
	return il_json_whole(a, bad);
}

/* cpu/online in list syntax, null when the snapshot has none; NULL on OOM. */
static json_t *online_json(const struct il_snapshot *s)
{
	struct il_buf b = IL_BUF_INIT;
	json_t *j;

	if (!s->has_online)
		return json_null();
	j = il_cpuset_format(&s->online, &b) ? NULL : json_string(il_buf_str(&b));
	il_buf_release(&b);
	return j;
}

json_t *il_snapshot_to_json(const struct il_snapshot *s)
{
	json_t *o = json_object(), *govs = json_array(), *cpus = json_array(), *zones = json_array();
	int bad = 0;

	if (!il_json_all((json_t *[]){ o, govs, cpus, zones }, 4))
		return NULL;
	for (size_t i = 0; i < NTOP_STRS; i++)
		bad |= json_object_set_new(o, top_strs[i].key,
					   il_json_str(*(char *const *)((const char *)s + top_strs[i].off)));
	bad |= json_object_set_new(o, "governor_writable", json_boolean(s->governor_writable));
	for (size_t i = 0; i < s->available_governors.n; i++)
		bad |= json_array_append_new(govs, il_json_str(s->available_governors.v[i]));
	bad |= json_object_set_new(o, "available_governors", govs);
	bad |= json_object_set_new(o, "online", online_json(s));
	bad |= json_object_set_new(o, "boot_id", il_json_str(s->boot_id));
	bad |= json_object_set_new(o, "uptime_s", s->has_uptime ? json_real(s->uptime_s) : json_null());
	bad |= json_object_set_new(o, "mono_ns", il_snapshot_json_val((struct il_val){ s->mono_ns, s->has_mono }));
	bad |= json_object_set_new(o, "suspend_success", il_snapshot_json_val(s->suspend_success));
	bad |= json_object_set_new(o, "suspend_fail", il_snapshot_json_val(s->suspend_fail));
	for (size_t i = 0; i < s->ncpus; i++)
		bad |= json_array_append_new(cpus, cpu_json(&s->cpus[i]));
	bad |= json_object_set_new(o, "cpus", cpus);
	for (size_t i = 0; i < s->nzones; i++)
		bad |= json_array_append_new(zones, zone_json(&s->zones[i]));
	bad |= json_object_set_new(o, "energy", zones);
	bad |= json_object_set_new(o, "hwmon", hwmon_json(s));
	return il_json_whole(o, bad);
}

/* ---- Decoding ---- */

struct jctx {
	const char *label;
	struct il_err *err;
};

static int jerr(struct jctx *c, const char *path, const char *expected)
{
	return il_err_set(c->err, IL_EPARSE, "%s: %s: expected %s", c->label, path, expected);
}

/* The error for o's member key: at path.key, or key at the top level (path ""). */
static int key_err(struct jctx *c, const char *path, const char *key, const char *expected)
{
	char p[256];

	snprintf(p, sizeof(p), "%s%s%s", path, *path ? "." : "", key);
	return jerr(c, p, expected);
}

static bool absent(const json_t *v)
{
	return !v || json_is_null(v);
}

static int get_str(struct jctx *c, const json_t *o, const char *key, const char *path, char **out)
{
	const json_t *v = json_object_get(o, key);

	*out = NULL;
	if (absent(v))
		return 0;
	if (!json_is_string(v))
		return key_err(c, path, key, "a string or null");
	*out = strdup(json_string_value(v));
	return *out ? 0 : il_err_oom(c->err);
}

/*
 * o[key] as an array (*arr) and *mem a zeroed buffer for its elements of
 * size bytes (one spare, so never 0 bytes; the caller owns it at once). A
 * missing or null value is an error unless optional (then both are NULL).
 */
static int get_array(struct jctx *c, const json_t *o, const char *key, const char *path, bool optional, size_t size,
		     const json_t **arr, void **mem)
{
	const json_t *v = json_object_get(o, key);

	*arr = NULL;
	*mem = NULL;
	if (optional && absent(v))
		return 0;
	if (!json_is_array(v))
		return key_err(c, path, key, "an array");
	*arr = v;
	*mem = calloc(json_array_size(v) + 1, size);
	return *mem ? 0 : il_err_oom(c->err);
}

static int get_val(struct jctx *c, const json_t *o, const char *key, const char *path, struct il_val *out)
{
	const json_t *v = json_object_get(o, key);

	*out = (struct il_val){ 0 };
	if (absent(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return key_err(c, path, key, "a non-negative integer or null");
	*out = (struct il_val){ .v = (uint64_t)json_integer_value(v), .ok = true };
	return 0;
}

static int get_ival(struct jctx *c, const json_t *o, const char *key, const char *path, struct il_ival *out)
{
	const json_t *v = json_object_get(o, key);

	*out = (struct il_ival){ 0 };
	if (absent(v))
		return 0;
	if (!json_is_integer(v))
		return key_err(c, path, key, "an integer or null");
	*out = (struct il_ival){ .v = json_integer_value(v), .ok = true };
	return 0;
}

static int state_from_json(struct jctx *c, const json_t *o, const char *path, size_t k, struct il_state *st)
{
	const json_t *idx = json_object_get(o, "index");
	int r = 0;

	if (!json_is_object(o))
		return jerr(c, path, "an object");
	st->index = (int)k;
	if (!json_is_integer(idx) || json_integer_value(idx) != (json_int_t)k)
		return key_err(c, path, "index", "the state's position in the list");
	if ((r = get_str(c, o, "name", path, &st->name)) || (r = get_str(c, o, "desc", path, &st->desc)) ||
	    (r = get_str(c, o, "default_status", path, &st->default_status)))
		return r;
	for (int i = 0; i < IL_NINFOS && !r; i++)
		r = get_val(c, o, il_snapshot_info_key(i), path, &st->info[i]);
	for (int i = 0; i < IL_NCOUNTERS && !r; i++)
		r = get_val(c, o, il_snapshot_counter_key(i), path, &st->cnt[i]);
	return r;
}

static int cpu_from_json(struct jctx *c, const json_t *o, const char *path, struct il_cpu *cpu)
{
	const json_t *n = json_object_get(o, "cpu"), *sts;
	char p[128];
	void *mem;
	int r;

	if (!json_is_object(o))
		return jerr(c, path, "an object");
	if (!json_is_integer(n) || json_integer_value(n) < 0 || json_integer_value(n) >= 65536)
		return key_err(c, path, "cpu", "a CPU number");
	cpu->cpu = (int)json_integer_value(n);
	if ((r = get_str(c, o, "driver", path, &cpu->driver)))
		return r;
	for (size_t k = 0; k < NCPU_IDS; k++)
		if ((r = get_ival(c, o, cpu_ids[k].key, path, CPU_ID(cpu, k))))
			return r;
	if ((r = get_val(c, o, "capacity", path, &cpu->capacity)))
		return r;
	if ((r = get_array(c, o, "states", path, false, sizeof(*cpu->states), &sts, &mem)))
		return r;
	cpu->states = mem;
	for (size_t k = 0; k < json_array_size(sts); k++) {
		snprintf(p, sizeof(p), "%s.states[%zu]", path, k);
		cpu->nstates = k + 1;
		r = state_from_json(c, json_array_get(sts, k), p, k, &cpu->states[k]);
		if (r)
			return r;
		if (!cpu->states[k].name || !cpu->states[k].cnt[IL_C_USAGE].ok ||
		    !cpu->states[k].cnt[IL_C_TIME].ok)
			return jerr(c, p, "a state with name, usage and time_us");
	}
	return 0;
}

/* "hwmon": [{"dev", "name", "energy": [{"channel", "label", "energy_uj"}]}] (optional: older snapshots have none). */
static int hwmon_from_json(struct jctx *c, const json_t *j, struct il_snapshot *out)
{
	const json_t *hs, *chs;
	char p[96], q[128];
	void *mem;
	int r;

	if ((r = get_array(c, j, "hwmon", "", true, sizeof(*out->hwmon), &hs, &mem)))
		return r;
	out->hwmon = mem;
	for (size_t i = 0; i < json_array_size(hs); i++) {
		const json_t *h = json_array_get(hs, i);
		struct il_hwmon *hw = &out->hwmon[i];

		snprintf(p, sizeof(p), "hwmon[%zu]", i);
		out->nhwmon = i + 1;
		if (!json_is_object(h))
			return jerr(c, p, "an object");
		if ((r = get_str(c, h, "dev", p, &hw->dev)) || (r = get_str(c, h, "name", p, &hw->name)))
			return r;
		if (!hw->dev)
			return jerr(c, p, "a \"dev\" name");
		if ((r = get_array(c, h, "energy", p, false, sizeof(*hw->chan), &chs, &mem)))
			return r;
		hw->chan = mem;
		for (size_t k = 0; k < json_array_size(chs); k++) {
			const json_t *ch = json_array_get(chs, k), *n = json_object_get(ch, "channel");

			snprintf(q, sizeof(q), "%s.energy[%zu]", p, k);
			hw->nchan = k + 1;
			if (!json_is_object(ch))
				return jerr(c, q, "an object");
			if (!json_is_integer(n) || json_integer_value(n) < 0 || json_integer_value(n) >= 65536)
				return key_err(c, q, "channel", "a channel number");
			hw->chan[k].channel = (unsigned)json_integer_value(n);
			if ((r = get_str(c, ch, "label", q, &hw->chan[k].label)) ||
			    (r = get_val(c, ch, "energy_uj", q, &hw->chan[k].energy_uj)))
				return r;
		}
	}
	return 0;
}

int il_snapshot_from_json(struct il_snapshot *out, const json_t *j, const char *label, struct il_err *err)
{
	struct jctx c = { label ? label : "snapshot", err };
	const json_t *govs, *cpus, *zones, *online, *up, *w;
	char p[96];
	void *mem;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(j))
		return jerr(&c, "(top level)", "a snapshot object");
	for (size_t i = 0; i < NTOP_STRS; i++)
		if ((r = get_str(&c, j, top_strs[i].key, "", (char **)((char *)out + top_strs[i].off))))
			goto fail;
	if ((r = get_str(&c, j, "boot_id", "", &out->boot_id)))
		goto fail;
	w = json_object_get(j, "governor_writable");
	out->governor_writable = w ? json_is_true(w) : out->governor != NULL;
	govs = json_object_get(j, "available_governors");
	if (govs && !json_is_null(govs)) {
		if (!json_is_array(govs)) {
			r = jerr(&c, "available_governors", "an array of strings");
			goto fail;
		}
		for (size_t i = 0; i < json_array_size(govs); i++) {
			const json_t *g = json_array_get(govs, i);

			if (!json_is_string(g)) {
				snprintf(p, sizeof(p), "available_governors[%zu]", i);
				r = jerr(&c, p, "a string");
				goto fail;
			}
			if (il_strlist_push(&out->available_governors, json_string_value(g))) {
				r = il_err_oom(err);
				goto fail;
			}
		}
	}
	online = json_object_get(j, "online");
	if (online && !json_is_null(online)) {
		if (!json_is_string(online)) {
			r = jerr(&c, "online", "a CPU list string");
			goto fail;
		}
		if ((r = il_cpuset_parse(&out->online, json_string_value(online), err))) {
			il_err_prefix(err, "%s: online: ", c.label);
			goto fail;
		}
		out->has_online = true;
	}
	up = json_object_get(j, "uptime_s");
	if (up && !json_is_null(up)) {
		if (!json_is_number(up) || json_number_value(up) < 0) {
			r = jerr(&c, "uptime_s", "a non-negative number or null");
			goto fail;
		}
		out->uptime_s = json_number_value(up);
		out->has_uptime = true;
	}
	{
		struct il_val mono;

		if ((r = get_val(&c, j, "mono_ns", "", &mono)) ||
		    (r = get_val(&c, j, "suspend_success", "", &out->suspend_success)) ||
		    (r = get_val(&c, j, "suspend_fail", "", &out->suspend_fail)))
			goto fail;
		out->has_mono = mono.ok;
		out->mono_ns = mono.v;
	}
	if ((r = get_array(&c, j, "cpus", "", false, sizeof(*out->cpus), &cpus, &mem)))
		goto fail;
	out->cpus = mem;
	for (size_t i = 0; i < json_array_size(cpus); i++) {
		snprintf(p, sizeof(p), "cpus[%zu]", i);
		out->ncpus = i + 1;
		if ((r = cpu_from_json(&c, json_array_get(cpus, i), p, &out->cpus[i])))
			goto fail;
		if (i && out->cpus[i].cpu <= out->cpus[i - 1].cpu) {
			r = jerr(&c, p, "CPUs in increasing order without repeats");
			goto fail;
		}
	}
	if ((r = get_array(&c, j, "energy", "", true, sizeof(*out->zones), &zones, &mem)))
		goto fail;
	out->zones = mem;
	for (size_t i = 0; i < json_array_size(zones); i++) {
		const json_t *z = json_array_get(zones, i);
		struct il_energy_zone *ez = &out->zones[i];

		snprintf(p, sizeof(p), "energy[%zu]", i);
		out->nzones = i + 1;
		if (!json_is_object(z)) {
			r = jerr(&c, p, "an object");
			goto fail;
		}
		if ((r = get_str(&c, z, "zone", p, &ez->zone)) || (r = get_str(&c, z, "name", p, &ez->name)) ||
		    (r = get_val(&c, z, "energy_uj", p, &ez->energy_uj)) ||
		    (r = get_val(&c, z, "max_energy_range_uj", p, &ez->max_range_uj)))
			goto fail;
		if (!ez->zone) {
			r = jerr(&c, p, "a \"zone\" name");
			goto fail;
		}
	}
	if ((r = hwmon_from_json(&c, j, out)))
		goto fail;
	return 0;
fail:
	il_snapshot_release(out);
	return r;
}

int il_snapshot_load_file(struct il_snapshot *out, const char *path, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	const char *p;
	int r;

	memset(out, 0, sizeof(*out));
	r = il_buf_read_file(&b, path, 256u << 20, err);
	if (r)
		goto cleanup;
	p = il_buf_str(&b);
	while (*p == ' ' || *p == '\n' || *p == '\t')
		p++;
	if (*p == '{') {
		json_error_t je;
		json_t *j = json_loadb(il_buf_str(&b), b.len, 0, &je);

		if (!j) {
			r = il_err_set(err, IL_EPARSE, "%s:%d:%d: invalid JSON: %s", path, je.line, je.column, je.text);
			goto cleanup;
		}
		r = il_snapshot_from_json(out, j, path, err);
		json_decref(j);
	} else {
		r = il_snapshot_parse(out, il_buf_str(&b), b.len, path, err);
	}
cleanup:
	il_buf_release(&b);
	return r;
}
