// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lab's build: its kernel (the kernel stage on the lab's tree, Debian's
 * linux-source-6.12 unless told, with the lab's kernel.config), the static workloads, the Debian packages of
 * its architecture, keys, the initramfs and the firmware's idle states (a
 * device tree or an SSDT), all keyed by their inputs and cached.
 */
#include "lab/lab.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/runners.h"
#include "kernel/build.h"
#include "kernel/kplan.h"
#include "lab/labtool.h"
#include "lab/labtree.h"
#include "lab/ssdt.h"
#include "util/buf.h"
#include "util/jfields.h"
#include "util/proc.h"
#include "util/sha256.h"
#include "util/str.h"
#include "util/strlist.h"
#include "workload/own.h"
#include "util/jsonfile.h"

#define now_s il_clock_mono_s

/* The lab kernel's compile progress goes to the caller's progress function. */
static void kernel_progress(const struct il_kvar *v, enum il_kbuild_step s, const struct il_progress *p, void *ctx)
{
	const struct il_lab_opts *o = ctx;
	struct il_progress q;

	char what[64];

	(void)v;
	q = *p;
	snprintf(what, sizeof(what), "lab: kernel: %s", il_kernel_build_step_name(s));
	q.what = what;
	o->progress(&q, o->progress_ctx);
}

json_t *il_lab_build_json(enum il_lab_arch a, const char *src_dir)
{
	const struct il_lab_arch_info *A = &il_lab_archs[a];
	char *frag = il_str_dup_printf("%s/%s/kernel.config", src_dir && *src_dir ? src_dir : ".", A->hosts_dir);
	json_t *b = frag ? json_pack("{s:s,s:s,s:[s],s:[s]}", "arch", A->kernel_arch, "config", "allnoconfig",
				     "config_fragments", frag, "targets", A->target) : NULL;

	if (b && A->cross_compile && json_object_set_new(b, "cross_compile", json_string(A->cross_compile)))
		json_decref(b), b = NULL;
	free(frag);
	return b;
}

int il_lab_build_json_of(const char *cache_dir, const char *instance, json_t **out, struct il_err *err)
{
	struct il_lab_opts o = { .cache_dir = cache_dir, .name = instance };
	char *rd = il_lab_run_dir(&o), *sp = rd ? il_str_dup_printf("%s/state.json", rd) : NULL, *src = NULL;
	json_error_t je;
	json_t *st = sp ? json_load_file(sp, 0, &je) : NULL;
	int r = 0;

	*out = NULL;
	if (!rd)
		r = il_err_set(err, IL_EINVAL, "'%s' is not a lab instance name", instance);
	else if (json_is_string(json_object_get(st, "source")))
		src = strdup(json_string_value(json_object_get(st, "source")));
	else
		src = realpath(".", NULL);
	if (!r && !(*out = il_lab_build_json(il_lab_arch_of_instance(instance), src)))
		r = il_err_oom(err);
	/* a plan that names a fragment that is not there fails at its build, an hour later: said now */
	if (!r) {
		const char *frag = json_string_value(json_array_get(json_object_get(*out, "config_fragments"), 0));

		if (frag && !il_lab_exists(frag)) {
			r = il_err_set(err, IL_ENOTFOUND, "the lab's kernel configuration %s is not there: lab '%s' was not "
				       "brought up from an idlelab source tree (idlelab lab up --source DIR) and %s is none; "
				       "give --build FILE or run from the source tree", frag, instance, src ? src : ".");
			json_decref(*out);
			*out = NULL;
		}
	}
	json_decref(st);
	free(rd), free(sp), free(src);
	return r;
}

/*
 * The lab kernel: the kernel stage on the lab's tree (lab/labtree.h) with the
 * lab's kernel.config (HOSTS_DIR/kernel.config). *tree_out (caller owns) is
 * what the instance keeps of it: {"spec", "origin", "name", "release",
 * "repo", "commit", "config_skipped"}.
 */
static int build_kernel(const struct il_lab_opts *o, const struct il_lab_ref *l, const struct il_lab_tree *t,
			il_lab_cb cb, void *ctx, char **image, json_t **tree_out, struct il_err *err)
{
	char *name = il_str_dup_printf("%s-%s", l->A->kernel_prefix, t->tag);
	json_t *plan = name ? json_pack("{s:o,s:[o]}", "build", il_lab_build_json(l->a, il_lab_src(o)), "kernels",
					il_lab_tree_kernel_json(t, name)) : NULL;
	struct il_kvars kv = { 0 };
	struct il_kbuild_res res = { 0 };
	int r;

	if (!plan)
		r = il_err_oom(err);
	else if (!(r = il_lab_tree_check(t, err)) && !(r = il_kplan_prepare(plan, il_lab_src(o), o->cache_dir, &kv, err)) &&
		 !(r = il_kernel_build(&kv.v[0], o->cache_dir, o->progress ? kernel_progress : NULL, (void *)o, &res,
				      err)) && !res.ok)
		r = il_err_set(err, IL_ECHILD, "the lab kernel (%s) did not build:\n%s", t->origin,
			       res.log_tail ? res.log_tail : "");
	if (!r) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &kv.v[0].commit);
		*image = il_str_dup_printf("%s/%s", res.dir, l->A->target);
		*tree_out = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o}", "spec", t->spec, "origin", t->origin, "name", name,
				      "release", res.release ? res.release : "", "repo", kv.v[0].repo_path, "commit", hex,
				      "config_skipped", il_jfields_strlist_json(&res.config_skipped));
		if (!*image || !*tree_out)
			r = il_err_oom(err);
		/* options this tree does not have, skipped: said, not hidden in a log */
		for (size_t i = 0; !r && i < res.config_skipped.n; i++) {
			char *w = il_str_dup_printf("warning: the tree has no %s: skipped", res.config_skipped.v[i]);

			il_lab_step(cb, ctx, w ? w : "warning: a config option skipped", il_clock_mono_s());
			free(w);
		}
	}
	il_kernel_build_res_release(&res);
	il_kplan_vars_release(&kv);
	json_decref(plan);
	free(name);
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
	return il_runners_embedded(il_lab_srcs, "initramfs.sh");
}

/* arm64: QEMU's own virt DT for exactly this shape, plus the PSCI idle states of idle-states.dtsi */
static int firmware_dt(const struct il_lab_opts *o, const struct il_lab_ref *l, const char *dir, const char *idle,
		       struct il_err *err)
{
	char cpus[16], mem[16];

	snprintf(cpus, sizeof(cpus), "%d", il_lab_cpus(o));
	snprintf(mem, sizeof(mem), "%d", il_lab_mem(o));
	return il_lab_sh("set -e; d=$1\n"
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
static int firmware_ssdt(const struct il_lab_opts *o, const struct il_lab_ref *l, const char *dir, const char *idle,
			 struct il_err *err)
{
	struct il_ssdt_tables t = { 0 };
	struct il_buf asl = IL_BUF_INIT;
	char *kept = il_str_dup_printf("%s/idle-tables.json", dir), *txt = NULL;
	json_t *j = NULL;
	int r;

	(void)l;
	if ((r = il_ssdt_tables_load(&t, idle, err)))
		goto out;
	for (size_t i = 0; i < t.n && !r; i++) {
		char *src = il_str_dup_printf("%s/cst-%s.dsl", dir, t.v[i].name), *base = il_str_dup_printf("%s/cst-%s", dir, t.v[i].name);

		il_buf_reset(&asl);
		if (!(r = il_ssdt_asl(&t.v[i], il_lab_cpus(o), &asl)) &&
		    !(r = il_buf_write_file_atomic(src, asl.p, asl.len, err))) {
			char *av[] = { (char *)"iasl", (char *)"-ve", (char *)"-p", base, src, NULL };

			if ((r = il_lab_tool(av, 60000, "iasl (apt-get install acpica-tools)", err)))
				il_err_prefix(err, "idle table '%s' (%s): ", t.v[i].name, src);
		}
		free(src), free(base);
	}
	if (!r && (!(j = il_ssdt_tables_to_json(&t)) || !(txt = il_json_dumps(j, JSON_INDENT(2)))))
		r = il_err_oom(err);
	if (!r)
		r = il_buf_write_file_atomic(kept, txt, strlen(txt), err);
out:
	il_ssdt_tables_release(&t);
	il_buf_release(&asl);
	json_decref(j);
	free(kept), free(txt);
	return r;
}

typedef int (*firmware_fn)(const struct il_lab_opts *o, const struct il_lab_ref *l, const char *dir, const char *idle,
			   struct il_err *err);
static const firmware_fn firmware[IL_LAB_NARCH] = {
	[IL_LAB_ARM64] = firmware_dt,
	[IL_LAB_X86_64] = firmware_ssdt,
};

/* Download (once) the lab's Debian packages of its architecture into dir/debs. */
static int packages(const struct il_lab_ref *l, const char *dir, const char *list, struct il_err *err)
{
	static const char dl[] = "cd \"$1\" || exit 1; a=$2; shift 2; for p in \"$@\"; do ls \"${p}\"_*_$a.deb "
				 ">/dev/null 2>&1 || apt-get download -q \"$p:$a\" >/dev/null || { echo \"cannot "
				 "download $p:$a (a foreign architecture needs dpkg --add-architecture $a && apt-get "
				 "update; make deps does it)\" >&2; exit 1; }; done";
	struct il_buf pkgs = IL_BUF_INIT;
	struct il_strlist names = { 0 };
	char *debs = il_str_dup_printf("%s/debs", dir), **av = NULL;
	int r;

	if ((r = il_buf_read_file(&pkgs, list, 65536, err)))
		goto out;
	for (char *line = pkgs.p, *nl; line && *line; line = nl) {
		if ((nl = strchr(line, '\n')))
			*nl++ = 0;
		if (*line && *line != '#' && il_strlist_push(&names, line)) {
			r = il_err_oom(err);
			goto out;
		}
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
	r = il_lab_tool(av, 0, "downloading the lab's packages", err);
out:
	free(av), free(debs);
	il_strlist_release(&names);
	il_buf_release(&pkgs);
	return r;
}

int il_lab_build(const struct il_lab_opts *o, il_lab_cb cb, void *ctx, char **dir_out, struct il_err *err)
{
	double t0 = now_s();
	struct il_lab_ref l = { 0 };
	char *dir = NULL, *image = NULL, *stamp = NULL, *kj = NULL, *kjtxt = NULL, *step = NULL, key[65];
	struct il_lab_tree t = { 0 };
	json_t *tree = NULL;
	char *init = il_str_dup_printf("%s/hosts/labvm/init", il_lab_src(o)), *pk = NULL, *idle = NULL;
	struct il_buf have = IL_BUF_INIT;
	struct il_sha256 h;
	int r;

	*dir_out = NULL;
	if ((r = il_lab_ref_open(&l, o, err)) || (r = il_lab_tree_parse(&t, o->tree, err)))
		goto out;
	/* one directory per tree: labs of two trees may run at once */
	dir = il_str_dup_printf("%s/lab/%s-%dcpu-%dm%s%s", o->cache_dir, l.A->name, il_lab_cpus(o), il_lab_mem(o),
			        il_lab_tree_is_default(o->tree) ? "" : "-", il_lab_tree_is_default(o->tree) ? "" : t.tag);
	pk = il_str_dup_printf("%s/%s/packages", il_lab_src(o), l.A->hosts_dir);
	idle = il_str_dup_printf("%s/%s/%s", il_lab_src(o), l.A->hosts_dir, l.A->idle_file);
	{
		char *m[] = { (char *)"mkdir", (char *)"-p", dir, NULL };

		if ((r = il_lab_tool(m, 0, "mkdir", err)))
			goto out;
	}
	step = il_str_dup_printf("kernel (%s through the kernel stage; cached after the first build)", t.origin);
	il_lab_step(cb, ctx, step ? step : "kernel", t0);
	if ((r = build_kernel(o, &l, &t, cb, ctx, &image, &tree, err)))
		goto out;
	/* what the instance keeps of its tree (lab.c: state.json "kernel"), for every build, cached or not */
	kj = il_str_dup_printf("%s/kernel.json", dir);
	if (!kj || !(kjtxt = il_json_dumps(tree, JSON_INDENT(2) | JSON_PRESERVE_ORDER))) {
		r = il_err_oom(err);
		goto out;
	}
	if ((r = il_buf_write_file_atomic(kj, kjtxt, strlen(kjtxt), err)))
		goto out;
	/* everything else is keyed by its inputs */
	il_sha256_init(&h);
	if ((r = hash_file(&h, image, err)) || (r = hash_file(&h, init, err)) || (r = hash_file(&h, pk, err)) ||
	    (r = hash_file(&h, idle, err)))
		goto out;
	{
		static const char *const wl[] = { "periodic", "pingpong", "sleeper", "wl" };

		for (size_t i = 0; i < sizeof(wl) / sizeof(wl[0]); i++) {
			char *p = il_str_dup_printf("%s/workloads/src/%s.%s", il_lab_src(o), wl[i], i == 3 ? "h" : "c");

			r = hash_file(&h, p, err);
			free(p);
			if (r)
				goto out;
		}
	}
	il_sha256_update(&h, initramfs_sh(), strlen(initramfs_sh()));
	il_sha256_update(&h, l.A->name, strlen(l.A->name) + 1);
	il_sha256_final(&h, key);
	stamp = il_str_dup_printf("%s/build.stamp", dir);
	if (!il_buf_read_file(&have, stamp, 1024, NULL) && have.len >= 64 && !strncmp(have.p, key, 64)) {
		il_lab_step(cb, ctx, "lab cached", t0);
		goto done;
	}
	unlink(stamp);
	il_lab_step(cb, ctx, "workloads (static)", t0);
	if ((r = il_own_build(il_lab_src(o), l.A->wl_arch, err)))
		goto out;
	il_lab_step(cb, ctx, "Debian packages", t0);
	if ((r = packages(&l, dir, pk, err)))
		goto out;
	/* keys: the client's (ssh-keygen) and the guest's host key (dropbear format, made here, pinned) */
	il_lab_step(cb, ctx, "keys", t0);
	{
		char *ck = il_str_dup_printf("%s/lab_key", dir), *hk = il_str_dup_printf("%s/host_key", dir), *hp = il_str_dup_printf("%s/host_key.pub", dir);

		if (!il_lab_exists(ck)) {
			char *kg[] = { (char *)"ssh-keygen", (char *)"-q", (char *)"-t", (char *)"ed25519", (char *)"-N",
				       (char *)"", (char *)"-C", (char *)"idlelab-lab", (char *)"-f", ck, NULL };

			r = il_lab_tool(kg, 60000, "ssh-keygen", err);
		}
		if (!r && !il_lab_exists(hk)) {
			char *dk[] = { (char *)"dropbearkey", (char *)"-t", (char *)"ed25519", (char *)"-f", hk, NULL };

			r = il_lab_tool(dk, 60000, "dropbearkey (apt-get install dropbear-bin)", err);
		}
		if (!r)
			r = il_lab_sh("dropbearkey -y -f \"$1\" | grep '^ssh-' | cut -d' ' -f1-2 > \"$2\"", "dropbearkey -y", err, hk, hp,
			       NULL);
		free(ck), free(hk), free(hp);
		if (r)
			goto out;
	}
	/* the root file system and the initramfs */
	il_lab_step(cb, ctx, "initramfs", t0);
	if ((r = il_lab_sh(initramfs_sh(), "assembling the initramfs", err, dir, il_lab_src(o), l.A->deb_arch, l.A->triple,
		    l.A->interp, l.A->wl_arch, l.A->hosts_dir, NULL)))
		goto out;
	il_lab_step(cb, ctx, l.a == IL_LAB_X86_64 ? "ACPI tables (SSDT with _CST)" : "device tree", t0);
	if ((r = firmware[l.a](o, &l, dir, idle, err)))
		goto out;
	{
		char *img = il_str_dup_printf("%s/%s", dir, l.A->target), *m[] = { (char *)"cp", image, img, NULL };
		char *rel = il_str_dup_printf("%s/release", dir);
		const char *release = json_string_value(json_object_get(tree, "release"));

		r = il_lab_tool(m, 0, "copying the kernel image", err);
		if (!r)
			r = il_buf_write_file_atomic(rel, release, strlen(release), err);
		free(img), free(rel);
		if (r)
			goto out;
	}
	if ((r = il_buf_write_file_atomic(stamp, key, 64, err)))
		goto out;
done:
	il_lab_step(cb, ctx, "done", t0);
	*dir_out = dir;
	dir = NULL;
out:
	il_lab_ref_release(&l);
	free(dir), free(image), free(stamp), free(init), free(pk), free(idle), free(kj), free(kjtxt), free(step);
	il_lab_tree_release(&t);
	json_decref(tree);
	il_buf_release(&have);
	return r;
}
