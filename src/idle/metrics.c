// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The derived idle metrics of a diff (declared in idle/diff.h): idles,
 * aboves, belows, idle_miss, the miss ratio, too-deep and too-shallow
 * shares, sleep and poll time, from the counter deltas, with the meaning
 * cpuidle_enter_state() gives the counters (drivers/cpuidle/cpuidle.c;
 * docs/formats.md cites each).
 */
#include "idle/diff.h"

#include <string.h>

bool il_metrics_counts_share(const struct il_counts *part, const struct il_counts *whole, enum il_counter c,
		     double *out)
{
	if (!part->c[c].ok || !whole->c[c].ok || !whole->c[c].v)
		return false;
	*out = (double)part->c[c].v / (double)whole->c[c].v;
	return true;
}

static struct il_val val_sub(struct il_val a, struct il_val b)
{
	return (struct il_val){ a.ok && b.ok ? a.v - b.v : 0, a.ok && b.ok };
}

/* 100 * part / whole, when both are known and whole is not 0. */
static bool pct(struct il_val part, struct il_val whole, double *out)
{
	if (!part.ok || !whole.ok || !whole.v)
		return false;
	*out = 100.0 * (double)part.v / (double)whole.v;
	return true;
}

void il_metrics_of(const struct il_counts *c, const struct il_diff *d, struct il_metrics *out)
{
	memset(out, 0, sizeof(*out));
	out->idles = c->c[IL_C_USAGE];
	out->aboves = c->c[IL_C_ABOVE];
	/*
	 * every state's below, poll states' included, as cpuidle_enter_state()
	 * counts them and fires cpu_idle_miss (drivers/cpuidle/cpuidle.c); the
	 * poll part is also shown apart
	 */
	out->belows = c->c[IL_C_BELOW];
	out->poll_belows = c->poll[IL_C_BELOW];
	out->poll_usage = c->poll[IL_C_USAGE];
	out->time_us = c->c[IL_C_TIME];
	out->poll_time_us = c->poll[IL_C_TIME];
	out->sleep_time_us = val_sub(c->c[IL_C_TIME], c->poll[IL_C_TIME]);
	out->rejected = c->c[IL_C_REJECTED];
	out->idle_miss.ok = out->aboves.ok && out->belows.ok;
	out->idle_miss.v = out->idle_miss.ok ? out->aboves.v + out->belows.v : 0;
	if (out->idle_miss.ok && out->idles.ok && out->idles.v) {
		out->has_miss_ratio = true;
		out->miss_ratio = (double)out->idle_miss.v / (double)out->idles.v;
	}
	out->has_too_deep = pct(out->aboves, out->idles, &out->too_deep_pct);
	out->has_too_shallow = pct(out->belows, out->idles, &out->too_shallow_pct);
	out->has_miss_pct = pct(out->idle_miss, out->idles, &out->miss_pct);
	if (d && d->has_interval && d->interval_s > 0 && out->idles.ok) {
		out->has_rate = true;
		out->idles_per_s = (double)out->idles.v / d->interval_s;
	}
}

bool il_metrics_too_deep_pct(const struct il_diff_state *s, double *out)
{
	return pct(s->d.c[IL_C_ABOVE], s->d.c[IL_C_USAGE], out);
}

bool il_metrics_too_shallow_pct(const struct il_diff_state *s, double *out)
{
	return pct(s->d.c[IL_C_BELOW], s->d.c[IL_C_USAGE], out);
}
