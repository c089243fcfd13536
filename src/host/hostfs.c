// SPDX-License-Identifier: GPL-2.0-or-later
/* sysfs access through a transport. */
#include "host/hostfs.h"

#include <string.h>

#include "host/runners.h"

static int check_path(struct il_sysfs *fs, const char *path, struct il_err *err)
{
	if (strncmp(path, "/sys/", 5) && strncmp(path, "/proc/", 6))
		return il_err_set(err, IL_EINVAL, "host '%s': refusing to touch '%s' (not under /sys or /proc)", fs->label, path);
	if (strstr(path, "/../") || strchr(path, '\n'))
		return il_err_set(err, IL_EINVAL, "host '%s': invalid sysfs path '%s'", fs->label, path);
	return 0;
}

static int hostfs_read(struct il_sysfs *fs, const char *path, struct il_buf *out, struct il_err *err)
{
	struct il_hostfs *h = (struct il_hostfs *)fs;
	char *argv[] = { (char *)"cat", (char *)path, NULL };
	struct il_exec_result res;
	int r;

	if ((r = check_path(fs, path, err)))
		return r;
	if ((r = il_transport_exec(h->t, argv, NULL, &res, err)))
		return r;
	if (res.exit_code)
		r = il_err_set(err, strstr(il_buf_str(&res.err), "No such file") ? IL_ENOTFOUND : IL_EIO,
			       "host '%s': cannot read '%s': %s", fs->label, path, il_buf_str(&res.err));
	else if (il_buf_add(out, res.out.p ? res.out.p : "", res.out.len))
		r = il_err_oom(err);
	il_transport_result_release(&res);
	return r;
}

static int hostfs_write(struct il_sysfs *fs, const char *path, const char *value, struct il_err *err)
{
	struct il_hostfs *h = (struct il_hostfs *)fs;
	/* value and path travel as positional parameters, never inside the script */
	char *argv[] = { (char *)"sh", (char *)"-c",
			 (char *)"[ -e \"$2\" ] || { echo \"no such file\" >&2; exit 2; }; printf %s \"$1\" > \"$2\"",
			 (char *)"idlelab", (char *)value, (char *)path, NULL };
	struct il_exec_opts o = { .privileged = true };
	struct il_exec_result res;
	int r;

	if ((r = check_path(fs, path, err)))
		return r;
	if ((r = il_transport_exec(h->t, argv, &o, &res, err)))
		return r;
	if (res.exit_code == 2 && strstr(il_buf_str(&res.err), "no such file"))
		r = il_err_set(err, IL_ENOTFOUND, "host '%s': '%s' does not exist", fs->label, path);
	else if (res.exit_code)
		r = il_err_set(err, strstr(il_buf_str(&res.err), "ermission denied") ? IL_EPERM : IL_EINVAL,
			       "host '%s': writing '%s' to '%s' failed: %s", fs->label, value, path,
			       res.err.len ? il_buf_str(&res.err) : "non-zero exit");
	il_transport_result_release(&res);
	return r;
}

/* One exec of the embedded runner script (what: its name in messages) into out. */
static int run_dump(struct il_sysfs *fs, const char *script, const char *what, struct il_buf *out,
		    struct il_err *err)
{
	struct il_hostfs *h = (struct il_hostfs *)fs;
	struct il_exec_result res;
	int r = il_transport_run_script(h->t, il_runners_script(script), NULL, NULL, &res, err);

	if (r)
		return r;
	if (res.exit_code || res.out.truncated)
		r = il_err_set(err, IL_EIO, "host '%s': %s script %s: %s", fs->label, what,
			       res.out.truncated ? "output too large" : "failed", il_buf_str(&res.err));
	else if (il_buf_add(out, res.out.p ? res.out.p : "", res.out.len))
		r = il_err_oom(err);
	il_transport_result_release(&res);
	return r;
}

static int hostfs_dump(struct il_sysfs *fs, struct il_buf *out, struct il_err *err)
{
	return run_dump(fs, "snapshot.sh", "snapshot", out, err);
}

static int hostfs_pmqos(struct il_sysfs *fs, struct il_buf *out, struct il_err *err)
{
	return run_dump(fs, "pmqos.sh", "PM QoS", out, err);
}

void il_hostfs_init(struct il_hostfs *fs, struct il_transport *t)
{
	memset(fs, 0, sizeof(*fs));
	fs->t = t;
	fs->ops.label = t->label;
	fs->ops.read = hostfs_read;
	fs->ops.write = hostfs_write;
	fs->ops.dump = hostfs_dump;
	fs->ops.pmqos = hostfs_pmqos;
}
