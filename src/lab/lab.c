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
#include "util/buf.h"
#include "util/proc.h"
#include "util/sha256.h"
#include "workload/own.h"

#define LAB_TARBALL "/usr/src/linux-source-6.1.tar.xz"
#define LAB_CPU "cortex-a57"

#define now_s il_mono_s

static const char *src_dir(const struct il_lab_opts *o)
{
	return o->src_dir && *o->src_dir ? o->src_dir : ".";
}

static const char *lab_name(const struct il_lab_opts *o)
{
	return o->name && *o->name ? o->name : "labvm";
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

/* The lab kernel: the kernel stage on Debian's tarball with hosts/labvm/kernel.config. */
static int build_kernel(const struct il_lab_opts *o, char **image, char **release, struct il_err *err)
{
	char *frag = fmt("%s/hosts/labvm/kernel.config", src_dir(o));
	json_t *plan = json_pack("{s:{s:s,s:s,s:s,s:[s],s:[s]},s:[{s:s,s:s}]}", "build", "arch", "arm64", "cross_compile",
				 "aarch64-linux-gnu-", "config", "allnoconfig", "config_fragments", frag, "targets", "Image",
				 "kernels", "name", "labvm-6.1", "tarball", LAB_TARBALL);
	struct il_kvars kv = { 0 };
	struct il_kbuild_res res = { 0 };
	int r;

	if (!exists(LAB_TARBALL))
		r = il_err_set(err, IL_ENOTFOUND, "%s is missing: apt-get install linux-source-6.1 (make deps)", LAB_TARBALL);
	else if (!(r = il_kernels_prepare(plan, src_dir(o), o->cache_dir, &kv, err)) &&
		 !(r = il_kernel_build(&kv.v[0], o->cache_dir, o->progress ? kernel_progress : NULL, (void *)o, &res,
				      err)) && !res.ok)
		r = il_err_set(err, IL_ECHILD, "the lab kernel did not build:\n%s", res.log_tail ? res.log_tail : "");
	if (!r) {
		*image = fmt("%s/Image", res.dir);
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

int il_lab_build(const struct il_lab_opts *o, il_lab_cb cb, void *ctx, char **dir_out, struct il_err *err)
{
	double t0 = now_s();
	char *dir = fmt("%s/lab/arm64-%dcpu-%dm", o->cache_dir, lab_cpus(o), lab_mem(o));
	char *image = NULL, *release = NULL, *stamp = NULL, key[65];
	char *init = fmt("%s/hosts/labvm/init", src_dir(o)), *pk = fmt("%s/hosts/labvm/packages", src_dir(o));
	char *dtsi = fmt("%s/hosts/labvm/idle-states.dtsi", src_dir(o));
	struct il_buf have = IL_BUF_INIT, pkgs = IL_BUF_INIT;
	struct il_sha256 h;
	int r;

	*dir_out = NULL;
	{
		char *m[] = { (char *)"mkdir", (char *)"-p", dir, NULL };

		if ((r = run(m, 0, "mkdir", err)))
			goto out;
	}
	step(cb, ctx, "kernel (linux-source-6.1 through the kernel stage; cached after the first build)", t0);
	if ((r = build_kernel(o, &image, &release, err)))
		goto out;
	/* everything else is keyed by its inputs */
	il_sha256_init(&h);
	if ((r = hash_file(&h, image, err)) || (r = hash_file(&h, init, err)) || (r = hash_file(&h, pk, err)) ||
	    (r = hash_file(&h, dtsi, err)))
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
	/* the same key as when the script was a C string: its text without the file's last newline, and a NUL */
	il_sha256_update(&h, initramfs_sh(), strlen(initramfs_sh()) - 1);
	il_sha256_update(&h, "", 1);
	il_sha256_final(&h, key);
	stamp = fmt("%s/build.stamp", dir);
	if (!il_buf_read_file(&have, stamp, 1024, NULL) && have.len >= 64 && !strncmp(have.p, key, 64)) {
		step(cb, ctx, "lab cached", t0);
		goto done;
	}
	unlink(stamp);
	/* our workloads, static for arm64 */
	step(cb, ctx, "workloads (aarch64, static)", t0);
	if ((r = il_own_build(src_dir(o), "aarch64", err)))
		goto out;
	/* Debian arm64 packages */
	step(cb, ctx, "Debian arm64 packages", t0);
	if ((r = il_buf_read_file(&pkgs, pk, 65536, err)))
		goto out;
	{
		char *debs = fmt("%s/debs", dir);
		struct il_strlist names = { 0 };
		struct il_buf list = IL_BUF_INIT;

		for (char *line = pkgs.p, *nl; line && *line; line = nl) {
			if ((nl = strchr(line, '\n')))
				*nl++ = 0;
			if (*line && *line != '#')
				il_strlist_push(&names, line);
		}
		il_strlist_join(&names, &list);
		mkdir(debs, 0755);
		/* download only what is not there yet; arm64 must be a dpkg architecture */
		{
			static const char dl[] = "cd \"$1\" || exit 1; shift; for p in \"$@\"; do ls \"${p}\"_*_arm64.deb "
						 ">/dev/null 2>&1 || apt-get download -q \"$p:arm64\" >/dev/null || { echo \"cannot "
						 "download $p:arm64 (dpkg --add-architecture arm64 && apt-get update; make deps "
						 "does it)\" >&2; exit 1; }; done";
			char **av = calloc(names.n + 6, sizeof(*av));

			if (!av) {
				r = il_err_set(err, IL_ENOMEM, "out of memory");
			} else {
				av[0] = (char *)"sh", av[1] = (char *)"-c", av[2] = (char *)dl, av[3] = (char *)"sh", av[4] = debs;
				for (size_t i = 0; i < names.n; i++)
					av[5 + i] = names.v[i];
				r = run(av, 0, "downloading arm64 packages", err);
				free(av);
			}
		}
		il_strlist_release(&names);
		il_buf_release(&list);
		free(debs);
		if (r)
			goto out;
	}
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
	r = sh(initramfs_sh(),
	       "assembling the initramfs", err, dir, src_dir(o), NULL);
	if (r)
		goto out;
	/* QEMU's own virt DT for exactly this shape, plus the idle states */
	step(cb, ctx, "device tree", t0);
	{
		char cpus[16], mem[16];

		snprintf(cpus, sizeof(cpus), "%d", lab_cpus(o));
		snprintf(mem, sizeof(mem), "%d", lab_mem(o));
		r = sh("set -e; d=$1\n"
		       "qemu-system-aarch64 -M virt,dumpdtb=\"$d/virt.dtb\" -cpu $2 -smp $3 -m $4 -nic none -display none "
		       ">\"$d/qemu-dumpdtb.log\" 2>&1 || { cat \"$d/qemu-dumpdtb.log\" >&2; exit 1; }\n"
		       "dtc -q -I dtb -O dts -o \"$d/virt.dts\" \"$d/virt.dtb\"\n"
		       "{ cat \"$d/virt.dts\"; cat \"$5\"; i=0; while [ $i -lt $3 ]; do "
		       "echo \"&{/cpus/cpu@$i} { cpu-idle-states = <&CPU_RET_SHALLOW &CPU_RET_DEEP>; };\"; i=$((i+1)); done; } "
		       "> \"$d/labvm.dts\"\n"
		       "dtc -q -I dts -O dtb -o \"$d/labvm.dtb\" \"$d/labvm.dts\"",
		       "building the device tree (qemu-system-arm, device-tree-compiler)", err, dir, LAB_CPU, cpus, mem, dtsi,
		       NULL);
		if (r)
			goto out;
	}
	{
		char *img = fmt("%s/Image", dir), *m[] = { (char *)"cp", image, img, NULL };
		char *rel = fmt("%s/release", dir);

		r = run(m, 0, "copying the Image", err);
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
	free(dir), free(image), free(release), free(stamp), free(init), free(pk), free(dtsi);
	il_buf_release(&have);
	il_buf_release(&pkgs);
	return r;
}

char *il_lab_run_dir(const struct il_lab_opts *o)
{
	return fmt("%s/lab/run/%s", o->cache_dir, lab_name(o));
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
		ok = strstr(il_buf_str(&cl), "qemu-system-aarch64") && strstr(il_buf_str(&cl), pidfile);
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

int il_lab_host(struct il_host_cfg *out, const char *cache_dir, const char *name, struct il_err *err)
{
	struct il_lab_opts o = { .cache_dir = cache_dir, .name = name };
	char *rd = il_lab_run_dir(&o), *sp = fmt("%s/state.json", rd);
	json_error_t je;
	json_t *st = json_load_file(sp, 0, &je);
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!st) {
		r = il_err_set(err, IL_ENOTFOUND, "lab host '%s' is not running (start it with 'idlelab lab up%s%s')", name,
			       strcmp(name, "labvm") ? " --name " : "", strcmp(name, "labvm") ? name : "");
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
	char *rd = il_lab_run_dir(o), *pidfile = fmt("%s/qemu.pid", rd), *sp = fmt("%s/state.json", rd);
	json_error_t je;
	json_t *st = json_load_file(sp, 0, &je);
	pid_t pid = read_pid(pidfile);
	const char *state = !st ? "stopped" : our_qemu(pid, pidfile) ? "running" : "crashed";
	char *tail = console_tail(rd, 15);

	(void)err;
	*out = json_pack("{s:s,s:s,s:o,s:o,s:s,s:s}", "name", lab_name(o), "state", state, "pid",
			 st ? json_integer(pid) : json_null(), "port",
			 st ? json_incref(json_object_get(st, "port")) : json_null(), "run_dir", rd, "console_tail", tail);
	if (st)
		json_object_set(*out, "image", json_object_get(st, "image"));
	json_decref(st);
	free(rd), free(pidfile), free(sp), free(tail);
	return 0;
}

int il_lab_down(const struct il_lab_opts *o, struct il_err *err)
{
	char *rd = il_lab_run_dir(o), *pidfile = fmt("%s/qemu.pid", rd), *sp = fmt("%s/state.json", rd);
	pid_t pid = read_pid(pidfile);

	(void)err;
	if (our_qemu(pid, pidfile)) {
		struct il_host_cfg cfg;
		struct il_transport *t = NULL;

		/* a clean poweroff first; QEMU exits with the guest (-no-reboot) */
		if (!il_lab_host(&cfg, o->cache_dir, lab_name(o), NULL)) {
			cfg.connect_timeout_s = 3;
			if (!il_transport_open(&t, &cfg, NULL)) {
				char *av[] = { (char *)"poweroff", (char *)"-f", NULL };
				struct il_exec_opts eo = { 3000, 0, false, NULL };
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
	free(rd), free(pidfile), free(sp);
	return 0;
}

int il_lab_up(const struct il_lab_opts *o, il_lab_cb cb, void *ctx, json_t **state, struct il_err *err)
{
	double t0 = now_s();
	char *dir = NULL, *rd = il_lab_run_dir(o), *pidfile = fmt("%s/qemu.pid", rd), *console = fmt("%s/console.log", rd);
	char *kh = fmt("%s/known_hosts", rd), *sp = fmt("%s/state.json", rd), *img = NULL, *hostpub = NULL;
	int port, r, timeout = o->timeout_s > 0 ? o->timeout_s : 180;
	struct il_buf pub = IL_BUF_INIT;

	*state = NULL;
	if (our_qemu(read_pid(pidfile), pidfile)) {
		r = il_err_set(err, IL_EINVAL, "lab '%s' is already running (pid %d): 'idlelab lab down%s%s' first",
			       lab_name(o), (int)read_pid(pidfile), strcmp(lab_name(o), "labvm") ? " --name " : "",
			       strcmp(lab_name(o), "labvm") ? lab_name(o) : "");
		goto out;
	}
	if ((r = il_lab_build(o, cb, ctx, &dir, err)))
		goto out;
	img = o->image ? strdup(o->image) : fmt("%s/Image", dir);
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
	{
		char cpus[16], mem[16], *initrd = fmt("%s/initramfs.cpio.gz", dir), *dtb = fmt("%s/labvm.dtb", dir);
		char *net = fmt("user,id=n0,hostfwd=tcp:127.0.0.1:%d-:22", port), *ser = fmt("file:%s", console);
		char *av[] = { (char *)"qemu-system-aarch64", (char *)"-M", (char *)"virt", (char *)"-cpu", (char *)LAB_CPU,
			       (char *)"-smp", cpus, (char *)"-m", mem, (char *)"-accel", (char *)"tcg,thread=multi",
			       (char *)"-kernel", img, (char *)"-initrd", initrd, (char *)"-dtb", dtb, (char *)"-append",
			       (char *)"console=ttyAMA0 rdinit=/init panic=-1", (char *)"-netdev", net, (char *)"-device",
			       (char *)"virtio-net-device,netdev=n0", (char *)"-display", (char *)"none", (char *)"-monitor",
			       (char *)"none", (char *)"-serial", ser, (char *)"-no-reboot", (char *)"-daemonize",
			       (char *)"-pidfile", pidfile, NULL };

		snprintf(cpus, sizeof(cpus), "%d", lab_cpus(o));
		snprintf(mem, sizeof(mem), "%d", lab_mem(o));
		r = run(av, 60000, "qemu-system-aarch64 (apt-get install qemu-system-arm)", err);
		free(initrd), free(dtb), free(net), free(ser);
		if (r)
			goto out;
	}
	{
		json_t *st = json_pack("{s:s,s:i,s:i,s:s,s:s,s:s,s:s,s:i}", "name", lab_name(o), "port", port, "pid",
				       (int)read_pid(pidfile), "identity", "", "known_hosts", kh, "image", img, "lab_dir",
				       dir, "cpus", lab_cpus(o));
		char *id = fmt("%s/lab_key", dir), *txt;

		json_object_set_new(st, "mem_mb", json_integer(lab_mem(o)));
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
			r = il_err_set(err, IL_ECHILD, "lab '%s': QEMU exited while booting; console:\n%s", lab_name(o), tail);
			free(tail);
			goto fail;
		}
		free(tail);
		if (ready)
			break;
		if (now_s() > end) {
			char *t = console_tail(rd, 20);

			r = il_err_set(err, IL_ETIMEOUT, "lab '%s': no LABVM-READY on the console after %d s (wrong kernel "
				       "image?); console:\n%s", lab_name(o), timeout, t);
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

		if (!il_lab_host(&cfg, o->cache_dir, lab_name(o), &e2)) {
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
			r = il_err_set(err, IL_EHOSTKEY, "lab '%s': %s", lab_name(o), e2.msg);
			goto fail;
		}
		if (now_s() > end || !our_qemu(read_pid(pidfile), pidfile)) {
			r = il_err_set(err, IL_ETIMEOUT, "lab '%s': SSH did not answer within %d s: %s", lab_name(o), timeout,
				       e2.msg);
			goto fail;
		}
		usleep(300000);
	}
	json_object_set_new(*state, "ssh_ready_s", json_real(now_s() - t0));
	step(cb, ctx, "ssh ready", t0);
	goto out;
fail:
	json_decref(*state);
	*state = NULL;
	il_lab_down(o, NULL);
out:
	il_buf_release(&pub);
	free(dir), free(rd), free(pidfile), free(console), free(kh), free(sp), free(img), free(hostpub);
	return r;
}
