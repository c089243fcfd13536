// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The dump of a local (possibly fake) sysfs root: the `path:value` lines
 * `grep -r .` would print for the files idlelab models, so local reads go
 * through the same parser (idle/snapshotparse.c) as remote ones. The caller owns
 * the output buffer.
 */
#include "idle/snapshot.h"
#include "util/parse.h"
#include "util/str.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return (x > y) - (x < y);
}

static void path_cut(struct il_buf *b, size_t n)
{
	b->len = n;
	b->p[n] = '\0';
}

/*
 * Append one file's lines as grep -r would print them (with only, the first
 * line that starts with it, as grep -m 1 '^only' would); absent/unreadable
 * files add nothing.
 */
static int emit_lines(struct il_buf *out, struct il_buf *path, size_t rootlen, struct il_buf *tmp, const char *only)
{
	const char *p, *end, *line;
	size_t n;

	il_buf_reset(tmp);
	if (il_buf_read_file(tmp, path->p, 1 << 16, NULL))
		return 0;
	p = il_buf_str(tmp);
	end = p + tmp->len;
	while (il_str_next_line(&p, end, &line, &n)) {
		if (only && (n < strlen(only) || memcmp(line, only, strlen(only))))
			continue;
		if (n && (il_buf_add(out, path->p + rootlen, path->len - rootlen) || il_buf_add(out, ":", 1) ||
			  il_buf_add(out, line, n) || il_buf_add(out, "\n", 1)))
			return IL_ENOMEM;
		if (only)
			break;
	}
	return 0;
}

static int emit(struct il_buf *out, struct il_buf *path, size_t rootlen, struct il_buf *tmp)
{
	return emit_lines(out, path, rootlen, tmp, NULL);
}

/* Numbers N of entries named prefix<N> in dir, sorted. Caller frees *out. */
static int list_numbered(const char *dir, const char *prefix, unsigned long **out, size_t *n)
{
	size_t plen = strlen(prefix), cap = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	*n = 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *q = de->d_name + plen;
		uint64_t v;

		/* prefix then digits only, below IL_MAX_CPUS (as the parser reads them) */
		if (strncmp(de->d_name, prefix, plen) || !*q || q[strspn(q, "0123456789")] ||
		    il_parse_u64(q, (size_t)-1, &v) || v >= IL_MAX_CPUS)
			continue;
		if (*n == cap) {
			unsigned long *nv = realloc(*out, (cap = cap ? cap * 2 : 16) * sizeof(**out));

			if (!nv) {
				closedir(d);
				return IL_ENOMEM;
			}
			*out = nv;
		}
		(*out)[(*n)++] = (unsigned long)v;
	}
	closedir(d);
	qsort(*out, *n, sizeof(**out), cmp_ul);
	return 0;
}

/* Cut path back to at, add name and emit that file. Nonzero: memory ran out. */
static int emit_at(struct il_buf *out, struct il_buf *path, size_t at, const char *name, size_t rootlen,
		   struct il_buf *tmp)
{
	path_cut(path, at);
	return il_buf_adds(path, name) || emit(out, path, rootlen, tmp);
}

/*
 * Cut path back to at, add dir and list its PREFIX<n> entries into *out
 * (list_numbered; a list already in *out is freed first). Nonzero: memory ran out.
 */
static int list_at(struct il_buf *path, size_t at, const char *dir, const char *prefix, unsigned long **out, size_t *n)
{
	free(*out);
	*out = NULL;
	*n = 0;
	path_cut(path, at);
	return il_buf_adds(path, dir) || list_numbered(path->p, prefix, out, n);
}

/* Cut path back to at and add the directory "PREFIX<n>/"; *base is then its length. Nonzero: memory ran out. */
static int numbered_dir(struct il_buf *path, size_t at, const char *prefix, unsigned long n, size_t *base)
{
	path_cut(path, at);
	if (il_buf_printf(path, "%s%lu/", prefix, n))
		return 1;
	*base = path->len;
	return 0;
}

/*
 * The monotonic clock line. A fake root's proc/timer_list gives its own "now
 * at" line (fixture trees); the real root's is clock_gettime(CLOCK_MONOTONIC),
 * the clock timer_list prints (ktime_get()), without reading that 0400 file.
 */
static int emit_mono(struct il_buf *out, struct il_buf *path, size_t rootlen, struct il_buf *tmp)
{
	if (!rootlen) {
		struct timespec ts;

		if (clock_gettime(CLOCK_MONOTONIC, &ts))
			return 0;
		return il_buf_printf(out, "/proc/timer_list:now at %llu nsecs\n",
				     (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
	}
	path_cut(path, rootlen);
	return il_buf_adds(path, "/proc/timer_list") ? IL_ENOMEM : emit_lines(out, path, rootlen, tmp, "now at ");
}

/* Entries of dir (not starting with '.'), sorted, appended to *names. Nonzero: memory ran out. */
static int list_dir(const char *dir, struct il_strlist *names)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d)
		return 0;
	while (!r && (de = readdir(d)))
		if (de->d_name[0] != '.')
			r = il_strlist_push(names, de->d_name);
	closedir(d);
	il_strlist_sort(names);
	return r;
}

/* For each entry E of root+dir: the files E/<leaf> for each leaf that exists. Nonzero: memory ran out. */
static int emit_each(struct il_buf *out, struct il_buf *path, size_t rootlen, const char *dir,
		     const char *const *leaves, size_t nleaves, bool energy_channels, struct il_buf *tmp)
{
	struct il_strlist names = { 0 }, files = { 0 };
	size_t base;
	int r;

	path_cut(path, rootlen);
	if (il_buf_adds(path, dir))
		return IL_ENOMEM;
	base = path->len;
	r = list_dir(path->p, &names);
	for (size_t i = 0; i < names.n && !r; i++) {
		for (size_t j = 0; j < nleaves && !r; j++) {
			path_cut(path, base);
			r = il_buf_printf(path, "%s/%s", names.v[i], leaves[j]) || emit(out, path, rootlen, tmp);
		}
		if (!energy_channels || r)
			continue;
		/* energyK_input and energyK_label, whatever K the device has */
		il_strlist_release(&files);
		path_cut(path, base);
		if ((r = il_buf_adds(path, names.v[i]) || list_dir(path->p, &files)))
			break;
		for (size_t k = 0; k < files.n && !r; k++) {
			const char *f = files.v[k], *u;

			if (strncmp(f, "energy", 6) || !(u = strchr(f, '_')) || (strcmp(u, "_input") && strcmp(u, "_label")))
				continue;
			path_cut(path, base);
			r = il_buf_printf(path, "%s/%s", names.v[i], f) || emit(out, path, rootlen, tmp);
		}
	}
	il_strlist_release(&names);
	il_strlist_release(&files);
	return r ? IL_ENOMEM : 0;
}

static const char *const cpuidle_top[] = { "current_driver", "current_governor", "current_governor_ro",
					   "available_governors" };
static const char *const state_strings[] = { "name", "desc", "default_status" };
static const char *const topo_files[] = { "cluster_id", "core_id", "physical_package_id" };
static const char *const zone_files[] = { "name", "energy_uj", "max_energy_range_uj" };
static const char *const hwmon_files[] = { "name" };

int il_sysdump_local(struct il_buf *out, const char *root, struct il_err *err)
{
	struct il_buf path = IL_BUF_INIT, tmp = IL_BUF_INIT;
	unsigned long *cpus = NULL, *states = NULL;
	size_t ncpus = 0, nstates = 0, rootlen, base, cbase, sbase;
	int ret = IL_ENOMEM;

	if (!root || !strcmp(root, "/"))
		root = "";
	rootlen = strlen(root);
	while (rootlen && root[rootlen - 1] == '/')
		rootlen--;
#define P_SET(n) path_cut(&path, (n))
#define EMIT_AT(at, name) emit_at(out, &path, (at), (name), rootlen, &tmp)
	if (il_buf_add(&path, root, rootlen) || il_buf_adds(&path, "/sys/devices/system/cpu/cpuidle/"))
		goto cleanup;
	base = path.len;
	for (size_t i = 0; i < sizeof(cpuidle_top) / sizeof(*cpuidle_top); i++)
		if (EMIT_AT(base, cpuidle_top[i]))
			goto cleanup;
	if (EMIT_AT(rootlen, "/sys/devices/system/cpu/online"))
		goto cleanup;
	if (list_at(&path, rootlen, "/sys/devices/system/cpu", "cpu", &cpus, &ncpus))
		goto cleanup;
	for (size_t i = 0; i < ncpus; i++) {
		if (numbered_dir(&path, rootlen, "/sys/devices/system/cpu/cpu", cpus[i], &cbase) ||
		    EMIT_AT(cbase, "cpuidle/driver/name"))
			goto cleanup;
		if (list_at(&path, cbase, "cpuidle", "state", &states, &nstates))
			goto cleanup;
		for (size_t k = 0; k < nstates; k++) {
			if (numbered_dir(&path, cbase, "cpuidle/state", states[k], &sbase))
				goto cleanup;
			for (size_t j = 0; j < sizeof(state_strings) / sizeof(*state_strings); j++)
				if (EMIT_AT(sbase, state_strings[j]))
					goto cleanup;
			for (int j = 0; j < IL_NINFOS; j++)
				if (EMIT_AT(sbase, il_snapshot_info_file((enum il_info)j)))
					goto cleanup;
			for (int j = 0; j < IL_NCOUNTERS; j++)
				if (EMIT_AT(sbase, il_snapshot_counter_file((enum il_counter)j)))
					goto cleanup;
		}
		for (size_t j = 0; j < sizeof(topo_files) / sizeof(*topo_files); j++) {
			P_SET(cbase);
			if (il_buf_printf(&path, "topology/%s", topo_files[j]) || emit(out, &path, rootlen, &tmp))
				goto cleanup;
		}
		if (EMIT_AT(cbase, "cpu_capacity"))
			goto cleanup;
	}
	/* the clocks and suspend counts right after the counters (docs/formats.md) */
	if (emit_mono(out, &path, rootlen, &tmp) || EMIT_AT(rootlen, "/proc/uptime") ||
	    EMIT_AT(rootlen, "/sys/power/suspend_stats/success") || EMIT_AT(rootlen, "/sys/power/suspend_stats/fail"))
		goto cleanup;
	if (emit_each(out, &path, rootlen, "/sys/class/powercap/", zone_files, 3, false, &tmp) ||
	    emit_each(out, &path, rootlen, "/sys/class/hwmon/", hwmon_files, 1, true, &tmp))
		goto cleanup;
	if (EMIT_AT(rootlen, "/proc/sys/kernel/random/boot_id"))
		goto cleanup;
#undef EMIT_AT
#undef P_SET
	ret = 0;
cleanup:
	if (ret)
		il_err_oom(err);
	free(cpus);
	free(states);
	il_buf_release(&path);
	il_buf_release(&tmp);
	return ret;
}
