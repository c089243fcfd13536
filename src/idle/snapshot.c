// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The snapshot model: the counter and info field tables, what a snapshot
 * owns and how it is freed, and lookups in one. Snapshots come from
 * `path:value` dumps (parsed by idle/snapshotparse.c, made from a local root
 * by idle/sysdump.c).
 */
#include "idle/snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "util/str.h"

/* ---- Field tables ---- */

/* The file and key columns of the X-macro rows, in the enums' order (both are built from the same rows). */
#define IL_X_FILE(e, file, key) file,
#define IL_X_KEY(e, file, key) key,
static const char *const counter_file[IL_NCOUNTERS] = { IL_COUNTERS(IL_X_FILE) };
static const char *const counter_key[IL_NCOUNTERS] = { IL_COUNTERS(IL_X_KEY) };
static const char *const info_file[IL_NINFOS] = { IL_INFOS(IL_X_FILE) };
static const char *const info_key[IL_NINFOS] = { IL_INFOS(IL_X_KEY) };
#undef IL_X_KEY
#undef IL_X_FILE

const char *il_snapshot_counter_file(enum il_counter c) { return counter_file[c]; }
const char *il_snapshot_counter_key(enum il_counter c) { return counter_key[c]; }
const char *il_snapshot_info_file(enum il_info i) { return info_file[i]; }
const char *il_snapshot_info_key(enum il_info i) { return info_key[i]; }

/* ---- Lifetime ---- */

void il_snapshot_cpu_release(struct il_cpu *c)
{
	for (size_t k = 0; k < c->nstates; k++)
		IL_FREE_ALL(c->states[k].name, c->states[k].desc, c->states[k].default_status);
	IL_FREE_ALL(c->states, c->driver);
}

void il_snapshot_hwmon_release(struct il_hwmon *h)
{
	for (size_t k = 0; k < h->nchan; k++)
		free(h->chan[k].label);
	IL_FREE_ALL(h->chan, h->dev, h->name);
}

void il_snapshot_release(struct il_snapshot *s)
{
	for (size_t i = 0; i < s->ncpus; i++)
		il_snapshot_cpu_release(&s->cpus[i]);
	free(s->cpus);
	for (size_t i = 0; i < s->nzones; i++)
		IL_FREE_ALL(s->zones[i].zone, s->zones[i].name);
	for (size_t i = 0; i < s->nhwmon; i++)
		il_snapshot_hwmon_release(&s->hwmon[i]);
	free(s->hwmon);
	IL_FREE_ALL(s->zones, s->host, s->driver, s->governor, s->governor_ro, s->boot_id);
	il_strlist_release(&s->available_governors);
	il_cpuset_release(&s->online);
	memset(s, 0, sizeof(*s));
}

const struct il_cpu *il_snapshot_cpu(const struct il_snapshot *s, int cpu)
{
	size_t lo = 0, hi = s->ncpus;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->cpus[mid].cpu == cpu)
			return &s->cpus[mid];
		if (s->cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool il_snapshot_state_is_poll(const struct il_state *st)
{
	if (st->index == 0 && st->name && (!strcmp(st->name, "POLL") || !strcmp(st->name, "snooze")))
		return true;
	return st->desc && strstr(st->desc, "POLL");
}

size_t il_snapshot_nstates(const struct il_snapshot *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->ncpus; i++)
		n += s->cpus[i].nstates;
	return n;
}
