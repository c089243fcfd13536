// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot parsing from `path:value` dumps (declared in idle/snapshot.h; the
 * dump of a local root is made by idle/sysdump.c). One parser serves every
 * host: local reads go through the same text as remote ones.
 */
#include "idle/snapshot.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle/cpuset.h"
#include "util/parse.h"
#include "util/str.h"
#include "util/strlist.h"

#define IL_MAX_STATES 64

struct parse_ctx {
	struct il_snapshot *s;
	const char *label;
	size_t lineno;
	struct il_err *err;
	struct il_cpu **bycpu; /* indexed by cpu number while parsing */
	size_t nbycpu;
};

static int perr(struct parse_ctx *c, const char *path, size_t plen, const char *fmt, const char *detail)
{
	char what[160];

	snprintf(what, sizeof(what), fmt, detail);
	return il_err_set(c->err, IL_EPARSE, "%s line %zu: '%.*s': %s", c->label, c->lineno,
			  (int)(plen > 200 ? 200 : plen), path, what);
}

/* Does [*p, end) start with lit? Advance past it if so. */
static bool eat(const char **p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *p) < n || memcmp(*p, lit, n))
		return false;
	*p += n;
	return true;
}

static bool eat_num(const char **p, const char *end, unsigned long *out)
{
	const char *q = *p;
	unsigned long v = 0;

	if (q == end || *q < '0' || *q > '9')
		return false;
	while (q < end && *q >= '0' && *q <= '9') {
		v = v * 10 + (unsigned long)(*q - '0');
		if (v >= IL_MAX_CPUS)
			return false;
		q++;
	}
	*p = q;
	*out = v;
	return true;
}

/*
 * Whether [p, end) is lit. The first byte is compared before lit's length:
 * most names differ there, and the strlen of a table name (the tables live in
 * snapshot.c, so the compiler cannot fold it) was 9% of parsing a 512-CPU
 * dump (bench_idle: 20.4 ms with it, 18.3 ms without; 19.6 ms before the split).
 */
static bool is(const char *p, const char *end, const char *lit)
{
	size_t n = (size_t)(end - p);

	return n && *p == *lit && strlen(lit) == n && !memcmp(p, lit, n);
}

struct field {
	const char *path;
	size_t plen;
	const char *val;
	size_t vlen;
};

static int set_str(struct parse_ctx *c, const struct field *f, char **dst)
{
	if (*dst)
		return perr(c, f->path, f->plen, "%s", "appears twice (multi-line value or concatenated dumps)");
	*dst = il_str_ndup(f->val, f->vlen);
	return *dst ? 0 : il_err_oom(c->err);
}

/* A counter (dst64) or a signed info value (dsti), once. */
static int set_num(struct parse_ctx *c, const struct field *f, struct il_val *dst64, struct il_ival *dsti)
{
	bool *ok = dst64 ? &dst64->ok : &dsti->ok;
	char shown[64];

	if (*ok)
		return perr(c, f->path, f->plen, "%s", "appears twice (multi-line value or concatenated dumps)");
	if (dst64 ? il_parse_u64(f->val, f->vlen, &dst64->v) : il_parse_i64(f->val, f->vlen, &dsti->v)) {
		snprintf(shown, sizeof(shown), "%.*s", (int)(f->vlen > 40 ? 40 : f->vlen), f->val);
		return perr(c, f->path, f->plen, dst64 ? "expected an unsigned integer, got '%s'" :
							 "expected an integer, got '%s'", shown);
	}
	*ok = true;
	return 0;
}

static struct il_cpu *get_cpu(struct parse_ctx *c, unsigned long n)
{
	if (n >= c->nbycpu) {
		size_t nn = c->nbycpu ? c->nbycpu : 64;
		struct il_cpu **v;

		while (nn <= n)
			nn *= 2;
		v = realloc(c->bycpu, nn * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + c->nbycpu, 0, (nn - c->nbycpu) * sizeof(*v));
		c->bycpu = v;
		c->nbycpu = nn;
	}
	if (!c->bycpu[n]) {
		c->bycpu[n] = calloc(1, sizeof(struct il_cpu));
		if (c->bycpu[n])
			c->bycpu[n]->cpu = (int)n;
	}
	return c->bycpu[n];
}

static struct il_state *get_state(struct il_cpu *cpu, unsigned long k)
{
	if (k >= cpu->nstates) {
		struct il_state *v = realloc(cpu->states, (k + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + cpu->nstates, 0, (k + 1 - cpu->nstates) * sizeof(*v));
		for (size_t i = cpu->nstates; i <= k; i++)
			v[i].index = (int)i;
		cpu->states = v;
		cpu->nstates = k + 1;
	}
	return &cpu->states[k];
}

static int parse_state_file(struct parse_ctx *c, const struct field *f, struct il_state *st, const char *leaf,
			    const char *end)
{
	for (int i = 0; i < IL_NCOUNTERS; i++)
		if (is(leaf, end, il_snapshot_counter_file(i)))
			return set_num(c, f, &st->cnt[i], NULL);
	for (int i = 0; i < IL_NINFOS; i++)
		if (is(leaf, end, il_snapshot_info_file(i)))
			return set_num(c, f, &st->info[i], NULL);
	if (is(leaf, end, "name"))
		return set_str(c, f, &st->name);
	if (is(leaf, end, "desc"))
		return set_str(c, f, &st->desc);
	if (is(leaf, end, "default_status"))
		return set_str(c, f, &st->default_status);
	return 0; /* s2idle/, unknown files: not modelled */
}

static int parse_cpu_path(struct parse_ctx *c, const struct field *f, const char *p, const char *end)
{
	unsigned long n, k;
	struct il_cpu *cpu;

	if (!eat_num(&p, end, &n) || !eat(&p, end, "/"))
		return 0;
	if (is(p, end, "cpuidle/driver/name")) {
		if (!(cpu = get_cpu(c, n)))
			return il_err_oom(c->err);
		return set_str(c, f, &cpu->driver);
	}
	if (eat(&p, end, "cpuidle/state")) {
		struct il_state *st;

		if (!eat_num(&p, end, &k) || !eat(&p, end, "/") || memchr(p, '/', (size_t)(end - p)))
			return 0;
		if (k >= IL_MAX_STATES)
			return perr(c, f->path, f->plen, "%s", "state index out of range");
		if (!(cpu = get_cpu(c, n)) || !(st = get_state(cpu, k)))
			return il_err_oom(c->err);
		return parse_state_file(c, f, st, p, end);
	}
	if (eat(&p, end, "topology/")) {
		struct il_ival *dst;

		if (!is(p, end, "cluster_id") && !is(p, end, "core_id") && !is(p, end, "physical_package_id"))
			return 0;
		if (!(cpu = get_cpu(c, n)))
			return il_err_oom(c->err);
		dst = is(p, end, "cluster_id") ? &cpu->cluster_id :
		      is(p, end, "core_id")    ? &cpu->core_id :
						 &cpu->package_id;
		return set_num(c, f, NULL, dst);
	}
	if (is(p, end, "cpu_capacity")) {
		if (!(cpu = get_cpu(c, n)))
			return il_err_oom(c->err);
		return set_num(c, f, &cpu->capacity, NULL);
	}
	return 0;
}

/*
 * Find-or-append in an array of *n elements of size sz (*arr, grown here)
 * whose name is the char * at offset off: the element named name[0..len),
 * or a new zeroed one with that name. NULL: no memory left.
 */
static void *find_or_add(void **arr, size_t *n, size_t sz, size_t off, const char *name, size_t len)
{
	char *v, *base = *arr;
	char *nm;

	for (size_t i = 0; i < *n; i++) {
		memcpy(&nm, base + i * sz + off, sizeof(nm));
		if (strlen(nm) == len && !memcmp(nm, name, len))
			return base + i * sz;
	}
	if (!(v = realloc(*arr, (*n + 1) * sz)))
		return NULL;
	*arr = v;
	v += *n * sz;
	memset(v, 0, sz);
	if (!(nm = il_str_ndup(name, len)))
		return NULL;
	memcpy(v + off, &nm, sizeof(nm));
	(*n)++;
	return v;
}

static struct il_energy_zone *get_zone(struct parse_ctx *c, const char *name, size_t n)
{
	void *a = c->s->zones;
	struct il_energy_zone *z = find_or_add(&a, &c->s->nzones, sizeof(*z), offsetof(struct il_energy_zone, zone), name, n);

	c->s->zones = a;
	return z;
}

static struct il_hwmon *get_hwmon(struct parse_ctx *c, const char *dev, size_t n)
{
	void *a = c->s->hwmon;
	struct il_hwmon *h = find_or_add(&a, &c->s->nhwmon, sizeof(*h), offsetof(struct il_hwmon, dev), dev, n);

	c->s->hwmon = a;
	return h;
}

static struct il_hwmon_chan *get_chan(struct il_hwmon *h, unsigned long k)
{
	struct il_hwmon_chan *v;

	for (size_t i = 0; i < h->nchan; i++)
		if (h->chan[i].channel == k)
			return &h->chan[i];
	v = realloc(h->chan, (h->nchan + 1) * sizeof(*v));
	if (!v)
		return NULL;
	h->chan = v;
	v = &h->chan[h->nchan++];
	memset(v, 0, sizeof(*v));
	v->channel = (unsigned)k;
	return v;
}

/* /sys/class/hwmon/<dev>/{name,energyK_input,energyK_label}; p is past the class directory. */
static int parse_hwmon(struct parse_ctx *c, const struct field *f, const char *p, const char *end)
{
	const char *slash = memchr(p, '/', (size_t)(end - p)), *leaf;
	struct il_hwmon *h;
	struct il_hwmon_chan *ch;
	unsigned long k;
	bool input;

	if (!slash || slash == p || memchr(slash + 1, '/', (size_t)(end - slash - 1)))
		return 0;
	leaf = slash + 1;
	if (is(leaf, end, "name")) {
		if (!(h = get_hwmon(c, p, (size_t)(slash - p))))
			return il_err_oom(c->err);
		return set_str(c, f, &h->name);
	}
	if (!eat(&leaf, end, "energy") || !eat_num(&leaf, end, &k))
		return 0;
	input = is(leaf, end, "_input");
	if (!input && !is(leaf, end, "_label"))
		return 0;
	if (!(h = get_hwmon(c, p, (size_t)(slash - p))) || !(ch = get_chan(h, k)))
		return il_err_oom(c->err);
	return input ? set_num(c, f, &ch->energy_uj, NULL) : set_str(c, f, &ch->label);
}

/* "now at N nsecs" (kernel/time/timer_list.c, ktime_get(): CLOCK_MONOTONIC); other lines are not modelled. */
static int parse_timer_list(struct parse_ctx *c, const struct field *f)
{
	const char *p = f->val, *end = f->val + f->vlen, *num;

	if (!eat(&p, end, "now at "))
		return 0;
	if (c->s->has_mono)
		return perr(c, f->path, f->plen, "%s", "'now at' appears twice");
	num = p;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p == num || !is(p, end, " nsecs") || il_parse_u64(num, (size_t)(p - num), &c->s->mono_ns))
		return perr(c, f->path, f->plen, "%s", "expected 'now at N nsecs'");
	c->s->has_mono = true;
	return 0;
}

static int parse_line(struct parse_ctx *c, const char *line, size_t len)
{
	static const char cpu_dir[] = "/sys/devices/system/cpu/";
	static const char pcap_dir[] = "/sys/class/powercap/";
	const char *end = line + len, *a, *colon, *p;
	const char *sys, *proc;
	struct field f;

	if (!len || line[0] != '/')
		return il_err_set(c->err, IL_EPARSE, "%s line %zu: expected 'path:value', got '%.*s'", c->label,
				  c->lineno, (int)(len > 80 ? 80 : len), line);
	/* The path may carry a root prefix (a fixture directory) before /sys or /proc. */
	sys = memmem(line, len, "/sys/", 5);
	proc = memmem(line, len, "/proc/", 6);
	a = sys && (!proc || sys < proc) ? sys : proc;
	if (!a)
		a = line;
	if (memchr(line, ':', (size_t)(a - line)))
		a = line; /* a ':' before the anchor: the anchor is inside the value */
	p = a;
	if (eat(&p, end, pcap_dir)) {
		/* zone names contain ':' (intel-rapl:0): the path ends after the zone directory */
		const char *slash = memchr(p, '/', (size_t)(end - p));

		colon = slash ? memchr(slash, ':', (size_t)(end - slash)) : NULL;
	} else {
		colon = memchr(a, ':', (size_t)(end - a));
	}
	if (!colon)
		return il_err_set(c->err, IL_EPARSE, "%s line %zu: expected 'path:value', got '%.*s'", c->label,
				  c->lineno, (int)(len > 80 ? 80 : len), line);
	f.path = a;
	f.plen = (size_t)(colon - a);
	f.val = colon + 1;
	f.vlen = (size_t)(end - f.val);
	end = colon;
	p = a;
	if (eat(&p, end, cpu_dir)) {
		if (eat(&p, end, "cpuidle/")) {
			if (is(p, end, "current_driver"))
				return set_str(c, &f, &c->s->driver);
			if (is(p, end, "current_governor"))
				return set_str(c, &f, &c->s->governor);
			if (is(p, end, "current_governor_ro"))
				return set_str(c, &f, &c->s->governor_ro);
			if (is(p, end, "available_governors")) {
				if (c->s->available_governors.n)
					return perr(c, f.path, f.plen, "%s", "appears twice");
				char *tmp = il_str_ndup(f.val, f.vlen);
				int r = tmp ? il_strlist_split(&c->s->available_governors, tmp) : IL_ENOMEM;

				free(tmp);
				return r ? il_err_oom(c->err) : 0;
			}
			return 0;
		}
		if (is(p, end, "online")) {
			char *tmp;
			int r;

			if (c->s->has_online)
				return perr(c, f.path, f.plen, "%s", "appears twice");
			tmp = il_str_ndup(f.val, f.vlen);
			if (!tmp)
				return il_err_oom(c->err);
			r = il_cpuset_parse(&c->s->online, tmp, c->err);
			free(tmp);
			if (r)
				return il_err_prefix(c->err, "%s line %zu: ", c->label, c->lineno);
			c->s->has_online = true;
			return 0;
		}
		if (eat(&p, end, "cpu"))
			return parse_cpu_path(c, &f, p, end);
		return 0;
	}
	if (eat(&p, end, pcap_dir)) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		struct il_energy_zone *z;

		if (!slash || memchr(slash + 1, '/', (size_t)(end - slash - 1)))
			return 0;
		if (!is(slash + 1, end, "energy_uj") && !is(slash + 1, end, "max_energy_range_uj") &&
		    !is(slash + 1, end, "name"))
			return 0;
		z = get_zone(c, p, (size_t)(slash - p));
		if (!z)
			return il_err_oom(c->err);
		if (is(slash + 1, end, "energy_uj"))
			return set_num(c, &f, &z->energy_uj, NULL);
		if (is(slash + 1, end, "max_energy_range_uj"))
			return set_num(c, &f, &z->max_range_uj, NULL);
		return set_str(c, &f, &z->name);
	}
	if (eat(&p, end, "/sys/class/hwmon/"))
		return parse_hwmon(c, &f, p, end);
	if (is(p, end, "/sys/power/suspend_stats/success"))
		return set_num(c, &f, &c->s->suspend_success, NULL);
	if (is(p, end, "/sys/power/suspend_stats/fail"))
		return set_num(c, &f, &c->s->suspend_fail, NULL);
	if (is(p, end, "/proc/timer_list"))
		return parse_timer_list(c, &f);
	if (is(p, end, "/proc/sys/kernel/random/boot_id"))
		return set_str(c, &f, &c->s->boot_id);
	if (is(p, end, "/proc/uptime")) {
		const char *sp = memchr(f.val, ' ', f.vlen);

		if (c->s->has_uptime)
			return perr(c, f.path, f.plen, "%s", "appears twice");
		if (il_parse_double(f.val, sp ? (size_t)(sp - f.val) : f.vlen, &c->s->uptime_s) ||
		    c->s->uptime_s < 0)
			return perr(c, f.path, f.plen, "%s", "expected seconds as a decimal number");
		c->s->has_uptime = true;
		return 0;
	}
	return 0;
}

static int cmp_hwmon(const void *a, const void *b)
{
	return strcmp(((const struct il_hwmon *)a)->dev, ((const struct il_hwmon *)b)->dev);
}

static int cmp_chan(const void *a, const void *b)
{
	unsigned x = ((const struct il_hwmon_chan *)a)->channel, y = ((const struct il_hwmon_chan *)b)->channel;

	return (x > y) - (x < y);
}

/*
 * powercap zones in a stable order (the dump's is the shell's glob or
 * readdir): ids numerically, and ':' before any other character, so that
 * intel-rapl:0, intel-rapl:0:0, intel-rapl:1, intel-rapl:10, intel-rapl-mmio:0.
 */
static int cmp_zone(const void *pa, const void *pb)
{
	const char *a = ((const struct il_energy_zone *)pa)->zone, *b = ((const struct il_energy_zone *)pb)->zone;

	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			size_t na = strspn(a, "0123456789"), nb = strspn(b, "0123456789");
			int c;

			while (na > 1 && *a == '0')
				a++, na--;
			while (nb > 1 && *b == '0')
				b++, nb--;
			if (na != nb)
				return na < nb ? -1 : 1;
			if ((c = memcmp(a, b, na)))
				return c;
			a += na;
			b += nb;
			continue;
		}
		if (*a != *b)
			return *a == ':' ? -1 : *b == ':' ? 1 : (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

/*
 * Keep the hwmon devices that have energy channels; hwmon devices and zones
 * in a stable order (the dump's is the shell's).
 */
static void energy_tidy(struct il_snapshot *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nhwmon; i++) {
		if (!s->hwmon[i].nchan) {
			il_snapshot_hwmon_release(&s->hwmon[i]);
			continue;
		}
		qsort(s->hwmon[i].chan, s->hwmon[i].nchan, sizeof(*s->hwmon[i].chan), cmp_chan);
		s->hwmon[n++] = s->hwmon[i];
	}
	s->nhwmon = n;
	if (n)
		qsort(s->hwmon, n, sizeof(*s->hwmon), cmp_hwmon);
	if (s->nzones)
		qsort(s->zones, s->nzones, sizeof(*s->zones), cmp_zone);
}

/* A state must have name, usage and time; a gap in the table is a truncated dump. */
static int validate_cpu(struct parse_ctx *c, const struct il_cpu *cpu)
{
	for (size_t k = 0; k < cpu->nstates; k++) {
		const struct il_state *st = &cpu->states[k];
		const char *missing = !st->name ? "name" : !st->cnt[IL_C_USAGE].ok ? "usage" :
				      !st->cnt[IL_C_TIME].ok ? "time" : NULL;

		if (missing)
			return il_err_set(c->err, IL_EPARSE,
					  "%s: cpu%d state%zu has no '%s' (truncated dump or unreadable sysfs)",
					  c->label, cpu->cpu, k, missing);
	}
	return 0;
}

int il_snapshot_parse(struct il_snapshot *out, const char *text, size_t len, const char *label,
		      struct il_err *err)
{
	struct parse_ctx c = { .s = out, .label = label ? label : "dump", .err = err };
	const char *p = text, *end = text + len;
	size_t n = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->host = strdup(c.label);
	if (!out->host)
		return il_err_oom(err);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		c.lineno++;
		if (!nl) {
			ret = il_err_set(err, IL_EPARSE, "%s line %zu: no final newline: the dump is truncated",
					 c.label, c.lineno);
			goto cleanup;
		}
		if (memchr(p, '\0', (size_t)(nl - p))) {
			ret = il_err_set(err, IL_EPARSE, "%s line %zu: NUL byte in dump", c.label, c.lineno);
			goto cleanup;
		}
		ret = parse_line(&c, p, (size_t)(nl - p));
		if (ret)
			goto cleanup;
		p = nl + 1;
	}
	for (size_t i = 0; i < c.nbycpu; i++)
		if (c.bycpu[i])
			n++;
	out->cpus = calloc(n ? n : 1, sizeof(*out->cpus));
	if (!out->cpus) {
		ret = il_err_oom(err);
		goto cleanup;
	}
	for (size_t i = 0; i < c.nbycpu; i++) {
		if (!c.bycpu[i])
			continue;
		out->cpus[out->ncpus++] = *c.bycpu[i];
		free(c.bycpu[i]);
		c.bycpu[i] = NULL;
	}
	for (size_t i = 0; i < out->ncpus; i++) {
		ret = validate_cpu(&c, &out->cpus[i]);
		if (ret)
			goto cleanup;
	}
	energy_tidy(out);
	out->governor_writable = out->governor != NULL;
	if (!out->governor && out->governor_ro) {
		out->governor = strdup(out->governor_ro);
		if (!out->governor)
			ret = il_err_oom(err);
	}
cleanup:
	for (size_t i = 0; i < c.nbycpu; i++) {
		if (c.bycpu[i]) {
			il_snapshot_cpu_release(c.bycpu[i]);
			free(c.bycpu[i]);
		}
	}
	free(c.bycpu);
	if (ret)
		il_snapshot_release(out);
	return ret;
}
