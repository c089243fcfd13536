// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Package energy of a diff. powercap (Documentation/power/powercap/powercap.rst)
 * names zones <control type>:<id>[:<sub-id>]: intel-rapl:0 is package-0 (on
 * AMD too), intel-rapl:0:0 its core sub-zone (core, uncore, dram), intel-rapl:1
 * may be psys (the whole platform, packages included) and intel-rapl-mmio:0 is
 * package-0 again through MMIO. Only package zones are summed, each package
 * once; where no package zone exists, hwmon energyK_input channels
 * (Documentation/hwmon/sysfs-interface.rst: microjoules) are.
 */
#include "idle/energy.h"
#include "util/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A counter's growth, wrap-around included when the range is known. false: went backwards, range unknown. */
static bool growth(struct il_val before, struct il_val after, struct il_val range, uint64_t *out)
{
	if (after.v >= before.v) {
		*out = after.v - before.v;
		return true;
	}
	if (range.ok && before.v <= range.v) {
		*out = range.v - before.v + after.v;
		return true;
	}
	return false;
}

static struct il_diff_zone *zone_add(struct il_diff *d, const char *zone, const char *name, uint64_t uj)
{
	struct il_diff_zone *v = realloc(d->zones, (d->nzones + 1) * sizeof(*v));

	if (!v)
		return NULL;
	d->zones = v;
	v = &v[d->nzones++];
	memset(v, 0, sizeof(*v));
	v->energy_uj = uj;
	v->zone = strdup(zone);
	v->name = name ? strdup(name) : NULL;
	return v->zone && (!name || v->name) ? v : NULL;
}

/* The control type of a zone directory ("intel-rapl" of "intel-rapl:0"); its length. */
static size_t control_type_len(const char *zone)
{
	const char *c = strchr(zone, ':');

	return c ? (size_t)(c - zone) : strlen(zone);
}

/* Sub-zones have two ids: intel-rapl:0:1. */
static bool is_subzone(const char *zone)
{
	const char *c = strchr(zone, ':');

	return c && strchr(c + 1, ':');
}

static bool is_package(const struct il_diff_zone *z)
{
	return z->name && !strncmp(z->name, "package-", 8) && !is_subzone(z->zone);
}

/* The MSR interface (intel-rapl) is the reference; an MMIO zone of the same package is its duplicate. */
static bool is_msr(const struct il_diff_zone *z)
{
	return control_type_len(z->zone) == 10 && !strncmp(z->zone, "intel-rapl", 10);
}

/* Count a powercap zone or say why not. Nonzero: memory ran out. */
static int classify(struct il_diff *d, size_t i)
{
	struct il_diff_zone *z = &d->zones[i];
	const char *name = z->name ? z->name : "?";

	if (is_subzone(z->zone)) {
		z->why = il_str_dup_printf("sub-zone '%s' of %.*s: only package zones are counted", name,
					   (int)(strrchr(z->zone, ':') - z->zone), z->zone);
	} else if (z->name && !strcmp(z->name, "psys")) {
		z->why = strdup("psys is the whole platform, packages included");
	} else if (!is_package(z)) {
		z->why = il_str_dup_printf("not a package zone (name '%s')", name);
	} else {
		for (size_t k = 0; k < d->nzones && !z->why; k++) {
			const struct il_diff_zone *o = &d->zones[k];

			/* the first zone of a package counts, the MSR one before any other */
			if (k == i || !is_package(o) || strcmp(o->name, z->name))
				continue;
			if ((is_msr(o) && !is_msr(z)) || (is_msr(o) == is_msr(z) && k < i))
				z->why = il_str_dup_printf("duplicate of %s (the same %s through another interface)",
							   o->zone, z->name);
		}
		if (!z->why) {
			z->counted = true;
			return 0;
		}
	}
	return z->why ? 0 : IL_ENOMEM;
}

static int powercap(struct il_diff *d, const struct il_snapshot *a, const struct il_snapshot *b, const char *host,
		    struct il_err *err)
{
	for (size_t j = 0; j < b->nzones; j++) {
		const struct il_energy_zone *zb = &b->zones[j], *za = NULL;
		uint64_t delta;

		for (size_t i = 0; i < a->nzones; i++)
			if (!strcmp(a->zones[i].zone, zb->zone))
				za = &a->zones[i];
		if (!za)
			return il_err_set(err, IL_EMISMATCH, "host '%s': powercap zone '%s' appeared between snapshots",
					  host, zb->zone);
		if (!za->energy_uj.ok || !zb->energy_uj.ok)
			continue; /* energy_uj unreadable (root only since 5.10): no energy figure */
		if (!growth(za->energy_uj, zb->energy_uj, zb->max_range_uj, &delta))
			return il_err_set(err, IL_EMISMATCH,
					  "host '%s': powercap zone '%s': 'energy_uj' went backwards (%llu -> %llu) "
					  "and max_energy_range_uj is unknown",
					  host, zb->zone, (unsigned long long)za->energy_uj.v,
					  (unsigned long long)zb->energy_uj.v);
		if (!zone_add(d, zb->zone, zb->name, delta))
			return il_err_oom(err);
	}
	if (a->nzones != b->nzones)
		return il_err_set(err, IL_EMISMATCH, "host '%s': a powercap zone disappeared between snapshots", host);
	for (size_t i = 0; i < d->nzones; i++)
		if (classify(d, i))
			return il_err_oom(err);
	return 0;
}

static const struct il_hwmon_chan *find_chan(const struct il_snapshot *s, const char *dev, unsigned ch)
{
	for (size_t i = 0; i < s->nhwmon; i++)
		if (!strcmp(s->hwmon[i].dev, dev))
			for (size_t k = 0; k < s->hwmon[i].nchan; k++)
				if (s->hwmon[i].chan[k].channel == ch)
					return &s->hwmon[i].chan[k];
	return NULL;
}

static size_t nchan(const struct il_snapshot *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nhwmon; i++)
		n += s->hwmon[i].nchan;
	return n;
}

/* hwmon energy channels: counted when no powercap zone is (counted says so). */
static int hwmon(struct il_diff *d, const struct il_snapshot *a, const struct il_snapshot *b, bool counted,
		 const char *host, struct il_err *err)
{
	if (nchan(a) != nchan(b))
		return il_err_set(err, IL_EMISMATCH, "host '%s': hwmon energy channels changed between snapshots", host);
	for (size_t i = 0; i < b->nhwmon; i++) {
		const struct il_hwmon *h = &b->hwmon[i];

		for (size_t k = 0; k < h->nchan; k++) {
			const struct il_hwmon_chan *cb = &h->chan[k], *ca = find_chan(a, h->dev, cb->channel);
			struct il_diff_zone *z;
			uint64_t delta;
			char zone[300];

			snprintf(zone, sizeof(zone), "%s/energy%u", h->dev, cb->channel);
			if (!ca)
				return il_err_set(err, IL_EMISMATCH, "host '%s': hwmon channel '%s' appeared between snapshots",
						  host, zone);
			if (!ca->energy_uj.ok || !cb->energy_uj.ok)
				continue;
			if (!growth(ca->energy_uj, cb->energy_uj, (struct il_val){ 0 }, &delta))
				return il_err_set(err, IL_EMISMATCH, "host '%s': hwmon '%s_input' went backwards (%llu -> %llu)",
						  host, zone, (unsigned long long)ca->energy_uj.v,
						  (unsigned long long)cb->energy_uj.v);
			if (!(z = zone_add(d, zone, cb->label ? cb->label : h->name, delta)))
				return il_err_oom(err);
			z->counted = counted;
			if (!counted && !(z->why = strdup("powercap package zones are counted instead")))
				return il_err_oom(err);
		}
	}
	return 0;
}

int il_energy_diff(struct il_diff *d, const struct il_snapshot *a, const struct il_snapshot *b, const char *host,
		   struct il_err *err)
{
	bool pc = false;
	int r;

	if ((r = powercap(d, a, b, host, err)))
		return r;
	for (size_t i = 0; i < d->nzones; i++)
		pc |= d->zones[i].counted;
	if ((r = hwmon(d, a, b, !pc, host, err)))
		return r;
	for (size_t i = 0; i < d->nzones; i++) {
		if (!d->zones[i].counted)
			continue;
		d->energy_j += (double)d->zones[i].energy_uj / 1e6;
		d->has_energy = true;
	}
	d->energy_source = !d->has_energy ? IL_ENERGY_NONE : pc ? IL_ENERGY_POWERCAP : IL_ENERGY_HWMON;
	return 0;
}
