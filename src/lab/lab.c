// SPDX-License-Identifier: GPL-2.0-or-later
/* The lab host: build (kernel stage + Debian arm64 packages + DT), boot, stop. */
#include "lab/lab.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/runners.h"
#include "host/transport.h"
#include "kernel/build.h"
#include "kernel/kplan.h"
#include "lab/ssdt.h"
#include "util/buf.h"
#include "util/proc.h"
#include "util/sha256.h"
#include "workload/own.h"

#define LAB_TARBALL "/usr/src/linux-source-6.1.tar.xz"

#define now_s il_mono_s

static const char *src_dir(const struct il_lab_opts *o)
{
	return o->src_dir && *o->src_dir ? o->src_dir : ".";
}

int il_lab_resolve(const struct il_lab_opts *o, enum il_lab_arch *arch, char **instance, struct il_err *err)
{
	enum il_lab_arch a;
	int r;

	*instance = NULL;
	if (o->arch && *o->arch)
		r = il_lab_arch_parse(o->arch, &a, err);
	else
		a = il_lab_arch_of_instance(o->name), r = 0;
	if (!r)
		r = il_lab_instance_name(a, o->name, instance, err);
	if (!r && arch)
		*arch = a;
	return r;
}

/* The instance's name and architecture, resolved once per public call. */
struct lab {
	enum il_lab_arch a;
	const struct il_lab_arch_info *A;
	char *name;
};

static int lab_open(struct lab *l, const struct il_lab_opts *o, struct il_err *err)
{
	int r = il_lab_resolve(o, &l->a, &l->name, err);

	l->A = &il_lab_archs[r ? IL_LAB_ARM64 : l->a];
	return r;
}

static const char *lab_name(const struct lab *l)
{
	return l->name;
}

static int lab_cpus(const struct il_lab_opts *o)
{
	return o->cpus > 0 ? o->cpus : 2;
}

static int lab_mem(const struct il_lab_opts *o)
{
	return o->mem_mb > 0 ? o->mem_mb : 512;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	char *s = NULL;
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	if (n >= 0 && (s = malloc((size_t)n + 1))) {
		va_start(ap, f);
		vsnprintf(s, (size_t)n + 1, f, ap);
		va_end(ap);
	}
	return s;
}

static bool exists(const char *p)
{
	struct stat st;

	return !stat(p, &st);
}

/* Run argv; a non-zero exit is an error naming what and showing stderr's end. */
static int run(char *const argv[], int timeout_ms, const char *what, struct il_err *err)
{
	struct il_buf out = IL_BUF_INIT, e = IL_BUF_INIT;
	struct il_exit ex;
	int r;

	il_buf_init(&out, (size_t)1 << 20);
	il_buf_init(&e, (size_t)1 << 20);
	r = il_proc_capture(argv, timeout_ms, NULL, &out, &e, &ex, err);
	if (!r && ex.code) {
		const char *t = il_buf_str(&e);

		r = il_err_set(err, IL_ECHILD, "%s failed (exit %d): %s", what, ex.code,
			       e.len > 600 ? t + e.len - 600 : t);
	}
	il_buf_release(&out);
	il_buf_release(&e);
	return r;
}

/* sh -c SCRIPT sh ARGS...: paths go in as arguments, never into the script text. */
static int sh(const char *script, const char *what, struct il_err *err, ...)
{
	char *argv[16] = { (char *)"sh", (char *)"-c", (char *)script, (char *)"sh" };
	size_t n = 4;
	va_list ap;
	const char *a;

	va_start(ap, err);
	while ((a = va_arg(ap, const char *)) && n < 15)
		argv[n++] = (char *)a;
	va_end(ap);
	argv[n] = NULL;
	return run(argv, 0, what, err);
}

static void step(il_lab_cb cb, void *ctx, const char *what, double t0)
{
	if (cb)
		cb(what, now_s() - t0, ctx);
}

/* The lab kernel's compile progress goes to the caller's progress function. */
static void kernel_progress(const struct il_kvar *v, enum il_kbuild_step s, const struct il_progress *p, void *ctx)
{
	const struct il_lab_opts *o = ctx;
	struct il_progress q;

	char what[64];

	(void)v;
	q = *p;
	snprintf(what, sizeof(what), "lab: kernel: %s", il_kbuild_step_name(s));
	q.what = what;
	o->progress(&q, o->progress_ctx);
}

/* The lab kernel: the kernel stage on Debian's tarball with the lab's kernel.config (HOSTS_DIR/kernel.config). */
static int build_kernel(const struct il_lab_opts *o, const struct lab *l, char **image, char **release,
			struct il_err *err)
{
	char *frag = fmt("%s/%s/kernel.config", src_dir(o), l->A->hosts_dir);
	json_t *plan = json_pack("{s:{s:s,s:s,s:[s],s:[s]},s:[{s:s,s:s}]}", "build", "arch", l->A->kernel_arch, "config",
				 "allnoconfig", "config_fragments", frag, "targets", l->A->target, "kernels", "name",
				 l->A->kernel_name, "tarball", LAB_TARBALL);
	struct il_kvars kv = { 0 };
	struct il_kbuild_res res = { 0 };
	int r;

	if (l->A->cross_compile)
		json_object_set_new(json_object_get(plan, "build"), "cross_compile", json_string(l->A->cross_compile));
	if (!exists(LAB_TARBALL))
		r = il_err_set(err, IL_ENOTFOUND, "%s is missing: apt-get install linux-source-6.1 (make deps)", LAB_TARBALL);
	else if (!(r = il_kernels_prepare(plan, src_dir(o), o->cache_dir, &kv, err)) &&
		 !(r = il_kernel_build(&kv.v[0], o->cache_dir, o->progress ? kernel_progress : NULL, (void *)o, &res,
				      err)) && !res.ok)
		r = il_err_set(err, IL_ECHILD, "the lab kernel did not build:\n%s", res.log_tail ? res.log_tail : "");
	if (!r) {
		*image = fmt("%s/%s", res.dir, l->A->target);
		*release = strdup(res.release ? res.release : "");
	}
	il_kbuild_res_release(&res);
	il_kvars_release(&kv);
	json_decref(plan);
	free(frag);
	return r;
}

static int hash_file(struct il_sha256 *h, const char *path, struct il_err *err)
{
	char hex[65];
	int r = il_sha256_file(path, hex, err);

	if (!r)
		il_sha256_update(h, hex, 64);
	return r;
}

/* The initramfs assembly (hosts/labvm/initramfs.sh, embedded): its text is part of the build key, so a change rebuilds. */
extern const struct il_runner_src il_lab_srcs[];

static const char *initramfs_sh(void)
{
	return il_embedded_script(il_lab_srcs, "initramfs.sh");
}

/* arm64: QEMU's own virt DT for exactly this shape, plus the PSCI idle states of idle-states.dtsi */
static int firmware_dt(const struct il_lab_opts *o, const struct lab *l, const char *dir, const char *idle,
		       struct il_err *err)
{
	char cpus[16], mem[16];

	snprintf(cpus, sizeof(cpus), "%d", lab_cpus(o));
	snprintf(mem, sizeof(mem), "%d", lab_mem(o));
	return sh("set -e; d=$1\n"
		  "qemu-system-aarch64 -M virt,dumpdtb=\"$d/virt.dtb\" -cpu $2 -smp $3 -m $4 -nic none -display none "
		  ">\"$d/qemu-dumpdtb.log\" 2>&1 || { cat \"$d/qemu-dumpdtb.log\" >&2; exit 1; }\n"
		  "dtc -q -I dtb -O dts -o \"$d/virt.dts\" \"$d/virt.dtb\"\n"
		  "{ cat \"$d/virt.dts\"; cat \"$5\"; i=0; while [ $i -lt $3 ]; do "
		  "echo \"&{/cpus/cpu@$i} { cpu-idle-states = <&CPU_RET_SHALLOW &CPU_RET_DEEP>; };\"; i=$((i+1)); done; } "
		  "> \"$d/labvm.dts\"\n"
		  "dtc -q -I dts -O dtb -o \"$d/labvm.dtb\" \"$d/labvm.dts\"",
		  "building the device tree (qemu-system-arm, device-tree-compiler)", err, dir, l->A->cpu, cpus, mem, idle,
		  NULL);
}

/* x86_64: one SSDT with the processors' _CST per idle table (lab/ssdt.h), and the tables as the lab keeps them */
static int firmware_ssdt(const struct il_lab_opts *o, const struct lab *l, const char *dir, const char *idle,
			 struct il_err *err)
{
	struct il_ssdt_tables t = { 0 };
	struct il_buf asl = IL_BUF_INIT;
	char *kept = fmt("%s/idle-tables.json", dir), *txt = NULL;
	json_t *j = NULL;
	int r;

	(void)l;
	if ((r = il_ssdt_tables_load(&t, idle, err)))
		goto out;
	for (size_t i = 0; i < t.n && !r; i++) {
		char *src = fmt("%s/cst-%s.dsl", dir, t.v[i].name), *base = fmt("%s/cst-%s", dir, t.v[i].name);

		il_buf_reset(&asl);
		if (!(r = il_ssdt_asl(&t.v[i], lab_cpus(o), &asl)) &&
		    !(r = il_write_file_atomic(src, asl.p, asl.len, err))) {
			char *av[] = { (char *)"iasl", (char *)"-ve", (char *)"-p", base, src, NULL };

			if ((r = run(av, 60000, "iasl (apt-get install acpica-tools)", err)))
				il_err_prefix(err, "idle table '%s' (%s): ", t.v[i].name, src);
		}
		free(src), free(base);
	}
	if (!r && (!(j = il_ssdt_tables_to_json(&t)) || !(txt = json_dumps(j, JSON_INDENT(2)))))
		r = il_err_oom(err);
	if (!r)
		r = il_write_file_atomic(kept, txt, strlen(txt), err);
out:
	il_ssdt_tables_release(&t);
	il_buf_release(&asl);
	json_decref(j);
	free(kept), free(txt);
	return r;
}

typedef int (*firmware_fn)(const struct il_lab_opts *o, const struct lab *l, const char *dir, const char *idle,
			   struct il_err *err);
static const firmware_fn firmware[IL_LAB_NARCH] = {
	[IL_LAB_ARM64] = firmware_dt,
	[IL_LAB_X86_64] = firmware_ssdt,
};

/* Download (once) the lab's Debian packages of its architecture into dir/debs. */
static int packages(const struct lab *l, const char *dir, const char *list, struct il_err *err)
{
	static const char dl[] = "cd \"$1\" || exit 1; a=$2; shift 2; for p in \"$@\"; do ls \"${p}\"_*_$a.deb "
				 ">/dev/null 2>&1 || apt-get download -q \"$p:$a\" >/dev/null || { echo \"cannot "
				 "download $p:$a (a foreign architecture needs dpkg --add-architecture $a && apt-get "
				 "update; make deps does it)\" >&2; exit 1; }; done";
	struct il_buf pkgs = IL_BUF_INIT;
	struct il_strlist names = { 0 };
	char *debs = fmt("%s/debs", dir), **av = NULL;
	int r;

	if ((r = il_buf_read_file(&pkgs, list, 65536, err)))
		goto out;
	for (char *line = pkgs.p, *nl; line && *line; line = nl) {
		if ((nl = strchr(line, '\n')))
			*nl++ = 0;
		if (*line && *line != '#')
			il_strlist_push(&names, line);
	}
	mkdir(debs, 0755);
	if (!(av = calloc(names.n + 7, sizeof(*av)))) {
		r = il_err_oom(err);
		goto out;
	}
	av[0] = (char *)"sh", av[1] = (char *)"-c", av[2] = (char *)dl, av[3] = (char *)"sh", av[4] = debs;
	av[5] = (char *)l->A->deb_arch;
	for (size_t i = 0; i < names.n; i++)
		av[6 + i] = names.v[i];
	r = run(av, 0, "downloading the lab's packages", err);
out:
	free(av), free(debs);
	il_strlist_release(&names);
	il_buf_release(&pkgs);
	return r;
}

int il_lab_build(const struct il_lab_opts *o, il_lab_cb cb, void *ctx, char **dir_out, struct il_err *err)
{
	double t0 = now_s();
	struct lab l = { 0 };
	char *dir = NULL, *image = NULL, *release = NULL, *stamp = NULL, key[65];
	char *init = fmt("%s/hosts/labvm/init", src_dir(o)), *pk = NULL, *idle = NULL;
	struct il_buf have = IL_BUF_INIT;
	struct il_sha256 h;
	int r;

	*dir_out = NULL;
	if ((r = lab_open(&l, o, err)))
		goto out;
	dir = fmt("%s/lab/%s-%dcpu-%dm", o->cache_dir, l.A->name, lab_cpus(o), lab_mem(o));
	pk = fmt("%s/%s/packages", src_dir(o), l.A->hosts_dir);
	idle = fmt("%s/%s/%s", src_dir(o), l.A->hosts_dir, l.A->idle_file);
	{
		char *m[] = { (char *)"mkdir", (char *)"-p", dir, NULL };

		if ((r = run(m, 0, "mkdir", err)))
			goto out;
	}
	step(cb, ctx, "kernel (linux-source-6.1 through the kernel stage; cached after the first build)", t0);
	if ((r = build_kernel(o, &l, &image, &release, err)))
		goto out;
	/* everything else is keyed by its inputs */
	il_sha256_init(&h);
	if ((r = hash_file(&h, image, err)) || (r = hash_file(&h, init, err)) || (r = hash_file(&h, pk, err)) ||
	    (r = hash_file(&h, idle, err)))
		goto out;
	{
		static const char *const wl[] = { "periodic", "pingpong", "sleeper", "wl" };

		for (size_t i = 0; i < sizeof(wl) / sizeof(wl[0]); i++) {
			char *p = fmt("%s/workloads/src/%s.%s", src_dir(o), wl[i], i == 3 ? "h" : "c");

			r = hash_file(&h, p, err);
			free(p);
			if (r)
				goto out;
		}
	}
	il_sha256_update(&h, initramfs_sh(), strlen(initramfs_sh()));
	il_sha256_update(&h, l.A->name, strlen(l.A->name) + 1);
	il_sha256_final(&h, key);
	stamp = fmt("%s/build.stamp", dir);
	if (!il_buf_read_file(&have, stamp, 1024, NULL) && have.len >= 64 && !strncmp(have.p, key, 64)) {
		step(cb, ctx, "lab cached", t0);
		goto done;
	}
	unlink(stamp);
	step(cb, ctx, "workloads (static)", t0);
	if ((r = il_own_build(src_dir(o), l.A->wl_arch, err)))
		goto out;
	step(cb, ctx, "Debian packages", t0);
	if ((r = packages(&l, dir, pk, err)))
		goto out;
	/* keys: the client's (ssh-keygen) and the guest's host key (dropbear format, made here, pinned) */
	step(cb, ctx, "keys", t0);
	{
		char *ck = fmt("%s/lab_key", dir), *hk = fmt("%s/host_key", dir), *hp = fmt("%s/host_key.pub", dir);

		if (!exists(ck)) {
			char *kg[] = { (char *)"ssh-keygen", (char *)"-q", (char *)"-t", (char *)"ed25519", (char *)"-N",
				       (char *)"", (char *)"-C", (char *)"idlelab-lab", (char *)"-f", ck, NULL };

			r = run(kg, 60000, "ssh-keygen", err);
		}
		if (!r && !exists(hk)) {
			char *dk[] = { (char *)"dropbearkey", (char *)"-t", (char *)"ed25519", (char *)"-f", hk, NULL };

			r = run(dk, 60000, "dropbearkey (apt-get install dropbear-bin)", err);
		}
		if (!r)
			r = sh("dropbearkey -y -f \"$1\" | grep '^ssh-' | cut -d' ' -f1-2 > \"$2\"", "dropbearkey -y", err, hk, hp,
			       NULL);
		free(ck), free(hk), free(hp);
		if (r)
			goto out;
	}
	/* the root file system and the initramfs */
	step(cb, ctx, "initramfs", t0);
	if ((r = sh(initramfs_sh(), "assembling the initramfs", err, dir, src_dir(o), l.A->deb_arch, l.A->triple,
		    l.A->interp, l.A->wl_arch, l.A->hosts_dir, NULL)))
		goto out;
	step(cb, ctx, l.a == IL_LAB_X86_64 ? "ACPI tables (SSDT with _CST)" : "device tree", t0);
	if ((r = firmware[l.a](o, &l, dir, idle, err)))
		goto out;
	{
		char *img = fmt("%s/%s", dir, l.A->target), *m[] = { (char *)"cp", image, img, NULL };
		char *rel = fmt("%s/release", dir);

		r = run(m, 0, "copying the kernel image", err);
		if (!r)
			r = il_write_file_atomic(rel, release, strlen(release), err);
		free(img), free(rel);
		if (r)
			goto out;
	}
	if ((r = il_write_file_atomic(stamp, key, 64, err)))
		goto out;
done:
	step(cb, ctx, "done", t0);
	*dir_out = dir;
	dir = NULL;
out:
	free(l.name);
	free(dir), free(image), free(release), free(stamp), free(init), free(pk), free(idle);
	il_buf_release(&have);
	return r;
}

static char *run_dir(const struct il_lab_opts *o, const struct lab *l)
{
	return fmt("%s/lab/run/%s", o->cache_dir, lab_name(l));
}

char *il_lab_run_dir(const struct il_lab_opts *o)
{
	struct lab l = { 0 };
	char *d = lab_open(&l, o, NULL) ? NULL : run_dir(o, &l);

	free(l.name);
	return d;
}

static int free_port(void)
{
	struct sockaddr_in a = { 0 };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) && !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

/* Our QEMU: alive and still the process we started (its command line names our pidfile). */
static bool our_qemu(pid_t pid, const char *pidfile)
{
	char path[64];
	struct il_buf cl = IL_BUF_INIT;
	bool ok = false;

	if (pid <= 0 || kill(pid, 0))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (!il_buf_read_file(&cl, path, 1 << 20, NULL)) {
		for (size_t i = 0; i < cl.len; i++)
			if (!cl.p[i])
				cl.p[i] = ' ';
		ok = strstr(il_buf_str(&cl), "qemu-system-") && strstr(il_buf_str(&cl), pidfile);
	}
	il_buf_release(&cl);
	return ok;
}

static pid_t read_pid(const char *pidfile)
{
	struct il_buf b = IL_BUF_INIT;
	pid_t pid = -1;

	if (!il_buf_read_file(&b, pidfile, 64, NULL))
		pid = (pid_t)atoi(il_buf_str(&b));
	il_buf_release(&b);
	return pid;
}

static char *console_tail(const char *rd, int lines)
{
	char *path = fmt("%s/console.log", rd);
	struct il_buf b = IL_BUF_INIT;
	char *res;
	size_t i;

	il_buf_read_file(&b, path, (size_t)16 << 20, NULL);
	free(path);
	for (i = b.len; i > 0 && lines >= 0; i--)
		if (b.p[i - 1] == '\n' && i < b.len)
			lines--;
	res = strdup(b.len ? b.p + i : "");
	il_buf_release(&b);
	return res;
}

/* "idlelab lab up [--arch x86_64] [--name NAME]" for an instance; caller frees. */
static char *up_command(const char *instance)
{
	enum il_lab_arch a = il_lab_arch_of_instance(instance);
	const char *def = il_lab_archs[a].instance, *rest = instance + strlen(def);

	if (a == IL_LAB_ARM64)
		return fmt("idlelab lab up%s%s", strcmp(instance, def) ? " --name " : "", strcmp(instance, def) ? instance : "");
	return fmt("idlelab lab up --arch %s%s%s", il_lab_archs[a].name, *rest ? " --name " : "", *rest ? rest + 1 : "");
}

int il_lab_host(struct il_host_cfg *out, const char *cache_dir, const char *name, struct il_err *err)
{
	struct il_lab_opts o = { .cache_dir = cache_dir, .name = name };
	char *rd = il_lab_run_dir(&o), *sp = rd ? fmt("%s/state.json", rd) : NULL;
	json_error_t je;
	json_t *st = sp ? json_load_file(sp, 0, &je) : NULL;
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!rd) {
		r = il_err_set(err, IL_EINVAL, "lab host '%s': not a lab instance name", name);
		goto out;
	}
	if (!st) {
		char *up = up_command(name);

		r = il_err_set(err, IL_ENOTFOUND, "lab host '%s' is not running (start it with '%s')", name, up);
		free(up);
		goto out;
	}
	out->name = strdup(name);
	out->address = strdup("127.0.0.1");
	out->port = (int)json_integer_value(json_object_get(st, "port"));
	out->user = strdup("root");
	out->identity = strdup(json_string_value(json_object_get(st, "identity")) ?: "");
	out->known_hosts = strdup(json_string_value(json_object_get(st, "known_hosts")) ?: "");
	out->host_key_policy = IL_HOSTKEY_STRICT;
	out->connect_timeout_s = 10;
	out->command_timeout_s = 600;
	out->quiesce_s = 1;
	out->path = strdup(sp);
	out->boot.method = IL_BOOT_LABVM;
	out->boot.lab = strdup(name);
	out->boot.timeout_s = 180;
	json_decref(st);
out:
	free(rd), free(sp);
	return r;
}

int il_lab_status(const struct il_lab_opts *o, json_t **out, struct il_err *err)
{
	struct lab l = { 0 };
	char *rd, *pidfile, *sp, *tail, *host;
	json_error_t je;
	json_t *st;
	pid_t pid;
	const char *state;

	*out = NULL;
	int lr;

	if ((lr = lab_open(&l, o, err)))
		return free(l.name), lr;
	rd = run_dir(o, &l), pidfile = fmt("%s/qemu.pid", rd), sp = fmt("%s/state.json", rd);
	st = json_load_file(sp, 0, &je);
	pid = read_pid(pidfile);
	state = !st ? "stopped" : our_qemu(pid, pidfile) ? "running" : "crashed";
	tail = console_tail(rd, 15);
	host = il_lab_host_name(lab_name(&l));
	*out = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:s,s:s}", "name", lab_name(&l), "host", host, "arch", l.A->name, "state",
			 state, "pid", st ? json_integer(pid) : json_null(), "port",
			 st ? json_incref(json_object_get(st, "port")) : json_null(), "run_dir", rd, "console_tail", tail);
	if (st) {
		json_object_set(*out, "image", json_object_get(st, "image"));
		if (json_object_get(st, "table"))
			json_object_set(*out, "table", json_object_get(st, "table"));
	}
	json_decref(st);
	free(l.name), free(host), free(rd), free(pidfile), free(sp), free(tail);
	return 0;
}

int il_lab_down(const struct il_lab_opts *o, struct il_err *err)
{
	struct lab l = { 0 };
	char *rd, *pidfile, *sp;
	pid_t pid;

	int lr;

	if ((lr = lab_open(&l, o, err)))
		return free(l.name), lr;
	rd = run_dir(o, &l), pidfile = fmt("%s/qemu.pid", rd), sp = fmt("%s/state.json", rd);
	pid = read_pid(pidfile);
	if (our_qemu(pid, pidfile)) {
		struct il_host_cfg cfg;
		struct il_transport *t = NULL;

		/* a clean poweroff first; QEMU exits with the guest (-no-reboot) */
		if (!il_lab_host(&cfg, o->cache_dir, lab_name(&l), NULL)) {
			cfg.connect_timeout_s = 3;
			if (!il_transport_open(&t, &cfg, NULL)) {
				char *av[] = { (char *)"poweroff", (char *)"-f", NULL };
				struct il_exec_opts eo = { .timeout_ms = 3000 };
				struct il_exec_result res;

				il_transport_exec(t, av, &eo, &res, NULL);
				il_exec_result_release(&res);
				il_transport_free(t);
			}
			il_host_release(&cfg);
		}
		for (int i = 0; i < 30 && our_qemu(pid, pidfile); i++)
			usleep(100000);
		if (our_qemu(pid, pidfile)) {
			kill(pid, SIGTERM);
			for (int i = 0; i < 30 && our_qemu(pid, pidfile); i++)
				usleep(100000);
			if (our_qemu(pid, pidfile))
				kill(pid, SIGKILL);
		}
	}
	unlink(sp);
	unlink(pidfile);
	free(l.name), free(rd), free(pidfile), free(sp);
	return 0;
}

int il_lab_up(const struct il_lab_opts *o, il_lab_cb cb, void *ctx, json_t **state, struct il_err *err)
{
	double t0 = now_s(), tboot = 0;
	struct lab l = { 0 };
	char *dir = NULL, *rd = NULL, *pidfile = NULL, *console = NULL, *kh = NULL, *sp = NULL, *img = NULL;
	char *hostpub = NULL, *table = NULL;
	int port, r, timeout = o->timeout_s > 0 ? o->timeout_s : 180;
	struct il_buf pub = IL_BUF_INIT, append = IL_BUF_INIT;

	*state = NULL;
	if ((r = lab_open(&l, o, err)))
		goto out;
	rd = run_dir(o, &l), pidfile = fmt("%s/qemu.pid", rd), console = fmt("%s/console.log", rd);
	kh = fmt("%s/known_hosts", rd), sp = fmt("%s/state.json", rd);
	if (our_qemu(read_pid(pidfile), pidfile)) {
		r = il_err_set(err, IL_EINVAL, "lab '%s' is already running (pid %d): 'idlelab lab down --name %s' first",
			       lab_name(&l), (int)read_pid(pidfile), lab_name(&l));
		goto out;
	}
	if (l.a != IL_LAB_X86_64 && o->table && strcmp(o->table, "default")) {
		r = il_err_set(err, IL_EINVAL, "lab '%s': --table is for the x86_64 lab; the %s lab's idle states are %s/%s",
			       lab_name(&l), l.A->name, l.A->hosts_dir, l.A->idle_file);
		goto out;
	}
	if ((r = il_lab_build(o, cb, ctx, &dir, err)))
		goto out;
	img = o->image ? strdup(o->image) : fmt("%s/%s", dir, l.A->target);
	il_buf_printf(&append, "console=%s rdinit=/init panic=-1", l.A->console);
	if (l.a == IL_LAB_X86_64) {
		char *kept = fmt("%s/idle-tables.json", dir);
		struct il_ssdt_tables t = { 0 };
		const struct il_ssdt_table *x;

		table = strdup(o->table && *o->table ? o->table : "default");
		if (!(r = il_ssdt_tables_load(&t, kept, err)) && !(x = il_ssdt_find(&t, table))) {
			struct il_buf names = IL_BUF_INIT;

			for (size_t i = 0; i < t.n; i++)
				il_buf_printf(&names, "%s%s", i ? ", " : "", t.v[i].name);
			r = il_err_set(err, IL_EINVAL, "lab '%s': no idle table '%s' in %s/%s (tables: %s)", lab_name(&l), table,
				       l.A->hosts_dir, l.A->idle_file, il_buf_str(&names));
			il_buf_release(&names);
		} else if (!r) {
			il_buf_adds(&append, " ");
			r = il_ssdt_cmdline(x, &append);
		}
		il_ssdt_tables_release(&t);
		free(kept);
		if (r)
			goto out;
	}
	hostpub = fmt("%s/host_key.pub", dir);
	{
		char *m[] = { (char *)"mkdir", (char *)"-p", rd, NULL };

		if ((r = run(m, 0, "mkdir", err)))
			goto out;
	}
	unlink(sp);
	unlink(console);
	if ((port = free_port()) < 0) {
		r = il_err_set(err, IL_EIO, "no free loopback port");
		goto out;
	}
	/* the pinned host key, for exactly this port */
	if ((r = il_buf_read_file(&pub, hostpub, 4096, err)))
		goto out;
	while (pub.len && pub.p[pub.len - 1] == '\n')
		pub.p[--pub.len] = 0;
	{
		char *line = fmt("[127.0.0.1]:%d %s\n", port, pub.p);

		r = il_write_file_atomic(kh, line, strlen(line), err);
		free(line);
		if (r)
			goto out;
	}
	step(cb, ctx, "booting", t0);
	tboot = now_s();
	{
		char cpus[16], mem[16], *initrd = fmt("%s/initramfs.cpio.gz", dir);
		char *net = fmt("user,id=n0,hostfwd=tcp:127.0.0.1:%d-:22", port), *ser = fmt("file:%s", console);
		char *nic = fmt("%s,netdev=n0", l.A->nic), *what = fmt("%s (apt-get install %s)", l.A->qemu, l.A->qemu_pkg);
		/* the firmware's idle states: arm64 a device tree, x86_64 the table's SSDT */
		char *fw = l.a == IL_LAB_X86_64 ? fmt("file=%s/cst-%s.aml", dir, table) : fmt("%s/labvm.dtb", dir);
		char *av[] = { (char *)l.A->qemu, (char *)"-M", (char *)l.A->machine, (char *)"-cpu", (char *)l.A->cpu,
			       (char *)"-smp", cpus, (char *)"-m", mem, (char *)"-accel", (char *)"tcg,thread=multi",
			       (char *)"-kernel", img, (char *)"-initrd", initrd,
			       (char *)(l.a == IL_LAB_X86_64 ? "-acpitable" : "-dtb"), fw, (char *)"-append",
			       (char *)il_buf_str(&append), (char *)"-netdev", net, (char *)"-device", nic, (char *)"-display",
			       (char *)"none", (char *)"-monitor", (char *)"none", (char *)"-serial", ser, (char *)"-no-reboot",
			       (char *)"-daemonize", (char *)"-pidfile", pidfile, NULL };

		snprintf(cpus, sizeof(cpus), "%d", lab_cpus(o));
		snprintf(mem, sizeof(mem), "%d", lab_mem(o));
		r = run(av, 60000, what, err);
		free(initrd), free(net), free(ser), free(nic), free(what), free(fw);
		if (r)
			goto out;
	}
	{
		json_t *st = json_pack("{s:s,s:s,s:i,s:i,s:s,s:s,s:s,s:s,s:i}", "name", lab_name(&l), "arch", l.A->name, "port",
				       port, "pid", (int)read_pid(pidfile), "identity", "", "known_hosts", kh, "image", img,
				       "lab_dir", dir, "cpus", lab_cpus(o));
		char *id = fmt("%s/lab_key", dir), *txt;

		json_object_set_new(st, "mem_mb", json_integer(lab_mem(o)));
		/* the source tree it was built from: a restart (a kernel variant's boot) may come from any directory */
		{
			char *srcabs = realpath(src_dir(o), NULL);

			json_object_set_new(st, "source", json_string(srcabs ? srcabs : src_dir(o)));
			free(srcabs);
		}
		if (table)
			json_object_set_new(st, "table", json_string(table));
		json_object_set_new(st, "identity", json_string(id));
		txt = json_dumps(st, JSON_INDENT(2));
		r = il_write_file_atomic(sp, txt, strlen(txt), err);
		free(txt), free(id);
		if (r) {
			json_decref(st);
			goto out;
		}
		*state = st;
	}
	/* init's banner first: an SSH probe before the guest network is up can hang in slirp */
	for (double end = now_s() + timeout;;) {
		char *tail = console_tail(rd, 200);
		bool ready = strstr(tail, "LABVM-READY") != NULL;

		if (!ready && !our_qemu(read_pid(pidfile), pidfile)) {
			r = il_err_set(err, IL_ECHILD, "lab '%s': QEMU exited while booting; console:\n%s", lab_name(&l), tail);
			free(tail);
			goto fail;
		}
		free(tail);
		if (ready)
			break;
		if (now_s() > end) {
			char *t = console_tail(rd, 20);

			r = il_err_set(err, IL_ETIMEOUT, "lab '%s': no LABVM-READY on the console after %d s (wrong kernel "
				       "image?); console:\n%s", lab_name(&l), timeout, t);
			free(t);
			goto fail;
		}
		usleep(100000);
	}
	for (double end = now_s() + timeout;;) {
		struct il_host_cfg cfg;
		struct il_transport *t = NULL;
		struct il_err e2 = { 0 };
		int ok = 0;

		if (!il_lab_host(&cfg, o->cache_dir, lab_name(&l), &e2)) {
			cfg.connect_timeout_s = 5;
			if (!il_transport_open(&t, &cfg, &e2)) {
				char *av[] = { (char *)"true", NULL };
				struct il_exec_result res;

				ok = !il_transport_exec(t, av, NULL, &res, &e2) && !res.exit_code;
				il_exec_result_release(&res);
				il_transport_free(t);
			}
			il_host_release(&cfg);
		}
		if (ok)
			break;
		if (e2.code == IL_EHOSTKEY) {
			r = il_err_set(err, IL_EHOSTKEY, "lab '%s': %s", lab_name(&l), e2.msg);
			goto fail;
		}
		if (now_s() > end || !our_qemu(read_pid(pidfile), pidfile)) {
			r = il_err_set(err, IL_ETIMEOUT, "lab '%s': SSH did not answer within %d s: %s", lab_name(&l), timeout,
				       e2.msg);
			goto fail;
		}
		usleep(300000);
	}
	json_object_set_new(*state, "ssh_ready_s", json_real(now_s() - t0));
	/* from QEMU's start: what a boot costs once the build is cached */
	json_object_set_new(*state, "boot_to_ssh_s", json_real(now_s() - tboot));
	step(cb, ctx, "ssh ready", t0);
	goto out;
fail:
	json_decref(*state);
	*state = NULL;
	il_lab_down(o, NULL);
out:
	il_buf_release(&pub);
	il_buf_release(&append);
	free(l.name), free(table);
	free(dir), free(rd), free(pidfile), free(console), free(kh), free(sp), free(img), free(hostpub);
	return r;
}
