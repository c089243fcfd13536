// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the idle trace reduction (`make fuzz`): any frame is
 * reduced against one fixed diff (two CPUs, WFI / C1 / C2, C1 disabled on
 * cpu1, made once from a dump written here) and must give an object, an
 * incomplete trace or IL_EPARSE/IL_ENOMEM; what it gives must hold together:
 * 24 buckets per histogram, each state's duration histogram counts its
 * entries, the offset histograms no more than the misses, and an object
 * always has its check.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "idle/diff.h"
#include "idle/trace.h"
#include "util/buf.h"

static const char *const names[3] = { "WFI", "C1", "C2" };
static const unsigned res[3] = { 1, 100, 5000 };

static void dump(struct il_buf *b, unsigned delta, unsigned long long mono_ns)
{
	il_buf_adds(b, "/sys/devices/system/cpu/cpuidle/current_driver:psci_idle\n"
		       "/sys/devices/system/cpu/online:0-1\n");
	for (int c = 0; c < 2; c++)
		for (int k = 0; k < 3; k++)
			il_buf_printf(b,
				      "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name:%s\n"
				      "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency:%u\n"
				      "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/residency:%u\n"
				      "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable:%d\n"
				      "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/usage:%u\n"
				      "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/above:%u\n"
				      "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/below:%u\n"
				      "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/rejected:0\n"
				      "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/time:%u\n",
				      c, k, names[k], c, k, res[k] / 2, c, k, res[k], c, k, c == 1 && k == 1, c, k,
				      100 + delta, c, k, 10 + delta / 2, c, k, 10 + delta / 3, c, k, c, k, 1000 + 300 * delta);
	il_buf_printf(b, "/proc/timer_list:now at %llu nsecs\n", mono_ns);
}

/* The diff every input is reduced against; aborts if the dump written above does not make one. */
static const struct il_diff *fixed_diff(void)
{
	static struct il_diff d;
	static bool made;
	struct il_snapshot a, b;
	struct il_buf t = IL_BUF_INIT;
	struct il_err err = { 0 };

	if (made)
		return &d;
	dump(&t, 0, 100000000000ull);
	if (il_snapshot_parse(&a, il_buf_str(&t), t.len, "fuzz", &err))
		abort();
	il_buf_reset(&t);
	dump(&t, 6, 104000000000ull);
	if (il_snapshot_parse(&b, il_buf_str(&t), t.len, "fuzz", &err) || il_diff_compute(&d, &a, &b, &err))
		abort();
	il_buf_release(&t);
	il_snapshot_release(&a);
	il_snapshot_release(&b);
	made = true;
	return &d;
}

static json_int_t hist_sum(const json_t *st, const char *key)
{
	const json_t *h = json_object_get(st, key);
	json_int_t sum = 0;

	if (json_array_size(h) != IL_TRACE_NBUCKETS)
		abort();
	for (size_t b = 0; b < IL_TRACE_NBUCKETS; b++)
		sum += json_integer_value(json_array_get(h, b));
	return sum;
}

static void check_states(const json_t *states)
{
	size_t i;
	json_t *st;

	json_array_foreach(states, i, st) {
		if (hist_sum(st, "hist") != json_integer_value(json_object_get(st, "entries")) ||
		    hist_sum(st, "above_short_hist") > json_integer_value(json_object_get(st, "aboves")) ||
		    hist_sum(st, "below_long_hist") > json_integer_value(json_object_get(st, "belows")))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct il_diff *d = fixed_diff();
	struct il_err err = { 0 };
	char *incomplete = NULL;
	json_t *j = NULL, *c;
	size_t i;
	int r = il_trace_reduce((const char *)data, size, d, "fuzz", &j, &incomplete, &err);

	if (r) {
		if ((r != IL_EPARSE && r != IL_ENOMEM) || j || incomplete)
			abort();
		return 0;
	}
	if (!j == !incomplete)
		abort(); /* exactly one of the two */
	free(incomplete);
	if (!j)
		return 0;
	if (!json_is_object(json_object_get(j, "check")) || json_array_size(json_object_get(j, "states")) != d->nstates)
		abort();
	check_states(json_object_get(j, "states"));
	json_array_foreach(json_object_get(j, "cpus"), i, c)
		check_states(json_object_get(c, "states"));
	json_decref(j);
	return 0;
}
