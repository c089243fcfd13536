// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PM QoS limits on idle states: the local dump (a /proc scan for holders of
 * /dev/cpu_dma_latency, the device's effective value, each CPU's resume
 * latency) and the parser that reads it and runners/pmqos.sh's output alike.
 */
#include "idle/pmqos.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "idle/cpuset.h"
#include "util/parse.h"
#include "util/str.h"

#define DEVICE "/dev/cpu_dma_latency"
#define RESUME_FILE "/power/pm_qos_resume_latency_us"
#define UNREADABLE_KEY "idlelab.unreadable_processes"
/* PID_MAX_LIMIT (include/linux/threads.h, 64-bit) */
#define PID_LIMIT 4194304ul
#define CPU_LIMIT 65536ul

void il_pmqos_release(struct il_pmqos *q)
{
	for (size_t i = 0; i < q->nholders; i++)
		free(q->holders[i].comm);
	free(q->holders);
	free(q->cpus);
	memset(q, 0, sizeof(*q));
}

/* ---- The local dump ---- */

static bool all_digits(const char *s)
{
	return *s && !s[strspn(s, "0123456789")];
}

/*
 * Every line of the file at path (the last one's newline optional) as
 * "shown:LINE", empty lines too unless skip_empty (what awk's getline and
 * grep -H . print in runners/pmqos.sh); absent or unreadable: nothing.
 */
static int emit_file_lines(struct il_buf *out, const char *path, const char *shown, bool skip_empty,
			   struct il_buf *tmp)
{
	const char *p, *end, *line;
	size_t n;

	il_buf_reset(tmp);
	if (il_buf_read_file(tmp, path, 1 << 12, NULL) || memchr(il_buf_str(tmp), '\0', tmp->len))
		return 0; /* absent, unreadable, or not text: left out */
	p = il_buf_str(tmp);
	end = p + tmp->len;
	while (il_str_next_line(&p, end, &line, &n))
		if ((n || !skip_empty) && il_buf_printf(out, "%s:%.*s\n", shown, (int)n, line))
			return IL_ENOMEM;
	return 0;
}

/*
 * Scan root/proc/<pid>/fd for links to the device: one line per open file,
 * then each holder's comm. *unreadable counts the processes whose fd
 * directory, or a link in it, was refused to us.
 */
static int scan_proc(struct il_buf *out, const char *root, uint64_t *unreadable, struct il_buf *tmp)
{
	char path[4352], link[64];
	struct dirent *de, *fe;
	DIR *proc, *fds;
	int r = 0;

	snprintf(path, sizeof(path), "%s/proc", root);
	proc = opendir(path);
	if (!proc)
		return 0;
	while (!r && (de = readdir(proc))) {
		bool holds = false, refused = false;

		if (!all_digits(de->d_name) || strlen(de->d_name) > 10)
			continue;
		snprintf(path, sizeof(path), "%s/proc/%s/fd", root, de->d_name);
		fds = opendir(path);
		if (!fds) {
			*unreadable += errno == EACCES || errno == EPERM;
			continue;
		}
		while (!r && (fe = readdir(fds))) {
			ssize_t n;

			if (!all_digits(fe->d_name))
				continue;
			n = readlinkat(dirfd(fds), fe->d_name, link, sizeof(link) - 1);
			if (n < 0 && (errno == EACCES || errno == EPERM))
				refused = true;
			/*
			 * DEVICE, or a longer path ending in it: a holder in another mount
			 * namespace or chroot than the reader's shows the device by its path
			 * from that tree's root (/var/tmp/x/root/dev/cpu_dma_latency)
			 */
			if (n < (ssize_t)strlen(DEVICE) || memcmp(link + n - strlen(DEVICE), DEVICE, strlen(DEVICE)))
				continue;
			holds = true;
			r = il_buf_printf(out, "/proc/%s/fd/%s:" DEVICE "\n", de->d_name, fe->d_name);
		}
		closedir(fds);
		*unreadable += refused;
		if (!r && holds) {
			char shown[64];

			snprintf(path, sizeof(path), "%s/proc/%s/comm", root, de->d_name);
			snprintf(shown, sizeof(shown), "/proc/%s/comm", de->d_name);
			r = emit_file_lines(out, path, shown, false, tmp);
		}
	}
	closedir(proc);
	return r;
}

/* The s32 the device reads back: the effective CPU latency limit (kernel/power/qos.c, cpu_latency_qos_read). */
static int emit_device(struct il_buf *out, const char *root)
{
	char path[4352];
	struct stat st;
	int32_t v;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s" DEVICE, root);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	/* a FIFO or a directory planted in a fixture tree is not the device */
	if (fstat(fd, &st) || !(S_ISCHR(st.st_mode) || S_ISREG(st.st_mode))) {
		close(fd);
		return 0;
	}
	do
		n = read(fd, &v, sizeof(v));
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n != (ssize_t)sizeof(v))
		return 0;
	return il_buf_printf(out, DEVICE ":%d\n", (int)v) ? IL_ENOMEM : 0;
}

static int emit_resume(struct il_buf *out, const char *root, struct il_buf *tmp)
{
	char path[4352], shown[96];
	struct dirent *de;
	DIR *d;
	int r = 0;

	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu", root);
	d = opendir(path);
	if (!d)
		return 0;
	while (!r && (de = readdir(d))) {
		if (strncmp(de->d_name, "cpu", 3) || !all_digits(de->d_name + 3) || strlen(de->d_name) > 12)
			continue;
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/%s" RESUME_FILE, root, de->d_name);
		snprintf(shown, sizeof(shown), "/sys/devices/system/cpu/%s" RESUME_FILE, de->d_name);
		r = emit_file_lines(out, path, shown, true, tmp);
	}
	closedir(d);
	return r;
}

int il_pmqos_dump_local(struct il_buf *out, const char *root, struct il_err *err)
{
	struct il_buf tmp = IL_BUF_INIT;
	char base[4096];
	uint64_t unreadable = 0;
	size_t n;
	int r;

	if (!root || !strcmp(root, "/"))
		root = "";
	n = strlen(root);
	while (n && root[n - 1] == '/')
		n--;
	if (n >= sizeof(base))
		return il_err_set(err, IL_EINVAL, "root '%s' is too long", root);
	memcpy(base, root, n);
	base[n] = '\0';
	/* /proc first: the device is opened after the scan, so idlelab never sees itself holding it */
	r = scan_proc(out, base, &unreadable, &tmp);
	if (!r)
		r = il_buf_printf(out, UNREADABLE_KEY ":%llu\n", (unsigned long long)unreadable) ? IL_ENOMEM : 0;
	if (!r)
		r = emit_device(out, base);
	if (!r)
		r = emit_resume(out, base, &tmp);
	il_buf_release(&tmp);
	if (!r)
		r = il_buf_error(out);
	return r ? il_err_oom(err) : 0;
}

/* ---- Parsing ---- */

struct pctx {
	struct il_pmqos *q;
	const char *label;
	size_t lineno;
	struct il_err *err;
	bool seen_unreadable;
	size_t capfds, capholders, capcpus;
	struct { int pid, fd; } *fds; /* every (pid, fd) seen, for duplicates */
	size_t nfds;
};

static int bad(struct pctx *c, const char *what, const char *line, size_t len)
{
	return il_err_set(c->err, IL_EPARSE, "%s line %zu: %s: '%.*s'", c->label, c->lineno, what,
			  (int)(len > 120 ? 120 : len), line);
}

static bool eat(const char **p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *p) < n || memcmp(*p, lit, n))
		return false;
	*p += n;
	return true;
}

/* Decimal digits (at least one, no sign, below limit) at *p. */
static bool digits(const char **p, const char *end, unsigned long limit, unsigned long *out)
{
	const char *q = *p;
	unsigned long v = 0;

	if (q == end || *q < '0' || *q > '9')
		return false;
	for (; q < end && *q >= '0' && *q <= '9'; q++)
		if ((v = v * 10 + (unsigned long)(*q - '0')) >= limit)
			return false;
	*p = q;
	*out = v;
	return true;
}

static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
	void *nv;

	if (n < *cap)
		return v;
	nv = realloc(v, (*cap ? *cap * 2 : 8) * size);
	if (nv)
		*cap = *cap ? *cap * 2 : 8;
	return nv;
}

static struct il_pmqos_holder *holder(struct il_pmqos *q, int pid)
{
	for (size_t i = 0; i < q->nholders; i++)
		if (q->holders[i].pid == pid)
			return &q->holders[i];
	return NULL;
}

static int add_fd(struct pctx *c, int pid, int fd, const char *val, size_t vlen, const char *line, size_t len)
{
	struct il_pmqos_holder *h;
	void *nv;

	if (vlen != strlen(DEVICE) || memcmp(val, DEVICE, vlen))
		return 0; /* another file: not a request */
	for (size_t i = 0; i < c->nfds; i++)
		if (c->fds[i].pid == pid && c->fds[i].fd == fd)
			return bad(c, "appears twice", line, len);
	if (!(nv = grow(c->fds, c->nfds, &c->capfds, sizeof(*c->fds))))
		return il_err_oom(c->err);
	c->fds = nv;
	c->fds[c->nfds].pid = pid;
	c->fds[c->nfds++].fd = fd;
	if (!(h = holder(c->q, pid))) {
		if (!(nv = grow(c->q->holders, c->q->nholders, &c->capholders, sizeof(*c->q->holders))))
			return il_err_oom(c->err);
		c->q->holders = nv;
		h = &c->q->holders[c->q->nholders++];
		memset(h, 0, sizeof(*h));
		h->pid = pid;
	}
	h->nfds++;
	c->q->nrequests++;
	return 0;
}

/* A comm line: the first is the name, later ones continue it after a newline (a name holding one). */
static int add_comm(struct pctx *c, int pid, const char *val, size_t vlen, const char *line, size_t len)
{
	struct il_pmqos_holder *h = holder(c->q, pid);
	char *s;

	if (!h)
		return bad(c, "the name of a process that holds no request (its fd lines come first)", line, len);
	s = h->comm ? il_str_dup_printf("%s\n%.*s", h->comm, (int)vlen, val) : il_str_ndup(val, vlen);
	if (!s)
		return il_err_oom(c->err);
	free(h->comm);
	h->comm = s;
	return 0;
}

static int add_resume(struct pctx *c, int cpu, const char *val, size_t vlen, const char *line, size_t len)
{
	bool na = vlen == 3 && !memcmp(val, "n/a", 3);
	struct il_pmqos_resume *r;
	uint64_t v = 0;
	void *nv;

	if (!na && (il_parse_u64(val, vlen, &v) || v > INT32_MAX))
		return bad(c, "expected a number of microseconds or 'n/a'", line, len);
	if (!(nv = grow(c->q->cpus, c->q->ncpus, &c->capcpus, sizeof(*c->q->cpus))))
		return il_err_oom(c->err);
	c->q->cpus = nv;
	r = &c->q->cpus[c->q->ncpus++];
	r->cpu = cpu;
	/* drivers/base/power/sysfs.c: a request of 0 shows as "n/a", no constraint as "0" */
	r->limited = na || v;
	r->limit_us = v;
	return 0;
}

static int set_device(struct pctx *c, const char *val, size_t vlen, const char *line, size_t len)
{
	int64_t v;

	if (c->q->has_cpu_latency)
		return bad(c, "appears twice", line, len);
	if (il_parse_i64(val, vlen, &v) || v < INT32_MIN || v > INT32_MAX)
		return bad(c, "expected a signed 32-bit number", line, len);
	c->q->has_cpu_latency = true;
	c->q->cpu_latency_us = v;
	return 0;
}

/*
 * The file the path [a, colon) names, if it is one of ours; 1 when it is
 * not (another file, or a root prefix's "/proc/" that is not the anchor),
 * else 0 or an error from storing the value.
 */
static int file_at(struct pctx *c, const char *a, const char *colon, const char *val, size_t vlen, const char *line,
		   size_t len)
{
	const char *p = a;
	unsigned long n1, n2;

	if (eat(&p, colon, "/proc/") && digits(&p, colon, PID_LIMIT, &n1) && n1) {
		const char *q = p;

		if (eat(&q, colon, "/fd/") && digits(&q, colon, (unsigned long)INT32_MAX, &n2) && q == colon)
			return add_fd(c, (int)n1, (int)n2, val, vlen, line, len);
		q = p;
		if (eat(&q, colon, "/comm") && q == colon)
			return add_comm(c, (int)n1, val, vlen, line, len);
		return 1;
	}
	p = a;
	if (eat(&p, colon, DEVICE) && p == colon)
		return set_device(c, val, vlen, line, len);
	p = a;
	if (eat(&p, colon, "/sys/devices/system/cpu/cpu") && digits(&p, colon, CPU_LIMIT, &n1) &&
	    eat(&p, colon, RESUME_FILE) && p == colon)
		return add_resume(c, (int)n1, val, vlen, line, len);
	return 1;
}

static int parse_line(struct pctx *c, const char *line, size_t len)
{
	static const char key[] = UNREADABLE_KEY ":";
	const char *colon;

	if (len >= sizeof(key) - 1 && !memcmp(line, key, sizeof(key) - 1)) {
		uint64_t v;

		if (c->seen_unreadable)
			return bad(c, "appears twice", line, len);
		if (il_parse_u64(line + sizeof(key) - 1, len - (sizeof(key) - 1), &v))
			return bad(c, "expected a count", line, len);
		c->seen_unreadable = true;
		c->q->unreadable = v;
		return 0;
	}
	if (!len || line[0] != '/' || !(colon = memchr(line, ':', len)))
		return bad(c, "expected 'path:value'", line, len);
	/* a root prefix (a fixture tree) may come before the path: the first '/' where one of ours starts */
	for (const char *a = line; a < colon; a++) {
		int r;

		if (*a == '/' && (r = file_at(c, a, colon, colon + 1, (size_t)(line + len - colon - 1), line, len)) <= 0)
			return r;
	}
	return 0; /* lines for other files are ignored */
}

static int cmp_holder(const void *a, const void *b)
{
	int x = ((const struct il_pmqos_holder *)a)->pid, y = ((const struct il_pmqos_holder *)b)->pid;

	return (x > y) - (x < y);
}

static int cmp_resume(const void *a, const void *b)
{
	int x = ((const struct il_pmqos_resume *)a)->cpu, y = ((const struct il_pmqos_resume *)b)->cpu;

	return (x > y) - (x < y);
}

int il_pmqos_parse(struct il_pmqos *out, const char *text, size_t len, const char *label, struct il_err *err)
{
	struct pctx c = { .q = out, .label = label ? label : "pmqos dump", .err = err };
	const char *p = text, *end = text + len;
	int r = 0;

	memset(out, 0, sizeof(*out));
	while (!r && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		c.lineno++;
		if (!nl)
			r = il_err_set(err, IL_EPARSE, "%s line %zu: no final newline: the dump is truncated", c.label,
				       c.lineno);
		else if (memchr(p, '\0', (size_t)(nl - p)))
			r = il_err_set(err, IL_EPARSE, "%s line %zu: NUL byte in dump", c.label, c.lineno);
		else
			r = parse_line(&c, p, (size_t)(nl - p));
		p = nl ? nl + 1 : end;
	}
	if (!r && out->nholders)
		qsort(out->holders, out->nholders, sizeof(*out->holders), cmp_holder);
	if (!r && out->ncpus)
		qsort(out->cpus, out->ncpus, sizeof(*out->cpus), cmp_resume);
	for (size_t i = 1; !r && i < out->ncpus; i++)
		if (out->cpus[i].cpu == out->cpus[i - 1].cpu)
			r = il_err_set(err, IL_EPARSE, "%s: cpu%d's pm_qos_resume_latency_us appears twice", c.label,
				       out->cpus[i].cpu);
	free(c.fds);
	if (r)
		il_pmqos_release(out);
	return r;
}

/* ---- The governor bypassed ---- */

int il_pmqos_bypassed(const struct il_pmqos *q, const struct il_cpuset *cpus, bool *out, struct il_buf *why)
{
	bool dev = q->has_cpu_latency && q->cpu_latency_us == 0;
	struct il_cpuset res = { 0 };

	for (size_t i = 0; i < q->ncpus; i++)
		if (q->cpus[i].limited && q->cpus[i].limit_us == 0 && (!cpus || il_cpuset_has(cpus, q->cpus[i].cpu))) {
			int *v = realloc(res.cpu, (res.n + 1) * sizeof(*v));

			if (!v) {
				il_cpuset_release(&res);
				return IL_ENOMEM;
			}
			res.cpu = v;
			res.cpu[res.n++] = q->cpus[i].cpu;
		}
	*out = dev || res.n;
	if (!*out || !why) {
		il_cpuset_release(&res);
		return 0;
	}
	il_buf_adds(why, "governor bypassed:");
	if (dev) {
		il_buf_adds(why, " CPU latency limit 0 us");
		for (size_t i = 0; i < q->nholders; i++)
			il_buf_printf(why, "%s PID %d/%s", i ? "," : " (held by", q->holders[i].pid,
				      q->holders[i].comm ? q->holders[i].comm : "?");
		il_buf_adds(why, q->nholders ? ")" : " (no holder seen: a kernel request, or processes not readable)");
	}
	if (res.n) {
		il_buf_adds(why, dev ? "; resume latency limit 0 us (n/a) on cpus " : " resume latency limit 0 us (n/a) on cpus ");
		il_cpuset_format(&res, why);
	}
	il_buf_adds(why, ": the governors' latency requirement is 0 and menu returns state 0 without a prediction "
		    "(menu.c), so a governor comparison under it compares nothing");
	il_cpuset_release(&res);
	return il_buf_error(why) ? IL_ENOMEM : 0;
}
