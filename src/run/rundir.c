// SPDX-License-Identifier: GPL-2.0-or-later
/* Run directory names, atomic creation and the one-writer lock. */
#include "run/rundir.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/dir.h"
#include "util/strlist.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const names[IL_RUNDIR_NFILES] = {
	[IL_RUNDIR_PLAN] = "plan.json",
	[IL_RUNDIR_PLAN_DIR] = "plan_dir",
	[IL_RUNDIR_JOURNAL] = "journal.jsonl",
	[IL_RUNDIR_LOCK] = "lock",
	[IL_RUNDIR_SAMPLES] = "samples",
};

static const char *const host_prefix[] = {
	[IL_RUNDIR_FINGERPRINT] = "host-",
	[IL_RUNDIR_SAVED] = "saved-",
};

const char *il_rundir_name(enum il_rundir_file f)
{
	return names[f];
}

char *il_rundir_join(const char *dir, const char *name)
{
	struct il_buf b = IL_BUF_INIT;

	if (il_buf_printf(&b, "%s/%s", dir, name))
		return NULL;
	return il_buf_detach(&b);
}

char *il_rundir_path(const char *dir, enum il_rundir_file f)
{
	return il_rundir_join(dir, names[f]);
}

char *il_rundir_host_name(enum il_rundir_hostfile f, const char *host)
{
	struct il_buf b = IL_BUF_INIT;

	if (il_buf_printf(&b, "%s%s.json", host_prefix[f], host))
		return NULL;
	return il_buf_detach(&b);
}

char *il_rundir_host_path(const char *dir, enum il_rundir_hostfile f, const char *host)
{
	char *name = il_rundir_host_name(f, host), *p = name ? il_rundir_join(dir, name) : NULL;

	free(name);
	return p;
}

const char *il_rundir_sample_name(char *buf, size_t size, size_t seq, int attempt, enum il_rundir_sample_file f)
{
	static const char *const suffix[IL_RUNDIR_SAMPLE_NFILES] = {
		[IL_RUNDIR_SAMPLE_OUT] = "out",
		[IL_RUNDIR_SAMPLE_ERR] = "err",
		[IL_RUNDIR_SAMPLE_TRACE] = "trace",
		[IL_RUNDIR_SAMPLE_BEFORE] = "before.json",
		[IL_RUNDIR_SAMPLE_AFTER] = "after.json",
	};

	snprintf(buf, size, "%s/%zu-%d.%s", names[IL_RUNDIR_SAMPLES], seq, attempt, suffix[f]);
	return buf;
}

char *il_rundir_plan_dir(const char *dir)
{
	char *p = il_rundir_path(dir, IL_RUNDIR_PLAN_DIR), *d = NULL;
	struct il_buf b = IL_BUF_INIT;

	if (p && !il_buf_read_file(&b, p, 4096, NULL))
		d = il_buf_detach(&b);
	il_buf_release(&b);
	free(p);
	return d;
}

/* NAME.tmp.XXXXXX: what il_rundir_prepare makes before the rename */
static bool uncommitted(const char *name)
{
	size_t n = strlen(name);

	return n > 11 && !memcmp(name + n - 11, ".tmp.", 5);
}

int il_rundir_list(struct il_strlist *out, const char *dir, struct il_err *err)
{
	struct il_strlist all = { 0 };
	struct il_err e = { 0 };
	int r = 0;

	/* every entry (no suffix to match), sorted */
	if (il_dir_names(&all, dir, "", &e))
		return e.code == IL_ENOTFOUND ? il_err_set(err, IL_ENOTFOUND, "no runs directory '%s'", dir) :
						il_err_set(err, e.code, "%s", e.msg);
	for (size_t i = 0; !r && i < all.n; i++) {
		char *sub, *j;
		struct stat st;

		if (all.v[i][0] == '.' || uncommitted(all.v[i]))
			continue;
		sub = il_rundir_join(dir, all.v[i]);
		j = sub ? il_rundir_path(sub, IL_RUNDIR_JOURNAL) : NULL;
		if (!j || (!stat(j, &st) && il_strlist_push(out, all.v[i])))
			r = il_err_oom(err);
		free(sub), free(j);
	}
	il_strlist_release(&all);
	return r;
}

char *il_rundir_default(const char *plan_name)
{
	struct il_buf b = IL_BUF_INIT;
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	mkdir("reports", 0755);
	if (il_buf_printf(&b, "reports/%s-%s", stamp, plan_name))
		return NULL;
	return il_buf_detach(&b);
}

static int in_tmp(const char *tmp, enum il_rundir_file f, char **path, struct il_err *err)
{
	free(*path);
	*path = il_rundir_path(tmp, f);
	return *path ? 0 : il_err_oom(err);
}

int il_rundir_prepare(const char *dir, const char *plan_text, const char *plan_path, char **tmp, struct il_err *err)
{
	struct il_buf t = IL_BUF_INIT;
	char *p = NULL, real[PATH_MAX];
	struct stat st;
	int rc;

	*tmp = NULL;
	if (!lstat(dir, &st))
		return il_err_set(err, IL_EIO, "cannot create run directory '%s': it exists (use --resume to continue a run)",
				  dir);
	if (il_buf_printf(&t, "%s.tmp.XXXXXX", dir) || !mkdtemp(t.p) || chmod(t.p, 0755)) {
		rc = il_err_set(err, IL_EIO, "cannot create run directory '%s': %s", dir, strerror(errno));
		il_buf_release(&t);
		return rc;
	}
	*tmp = il_buf_detach(&t);
	if ((rc = in_tmp(*tmp, IL_RUNDIR_SAMPLES, &p, err)))
		goto out;
	if (mkdir(p, 0755)) {
		rc = il_err_set(err, IL_EIO, "cannot create '%s': %s", p, strerror(errno));
		goto out;
	}
	if ((rc = in_tmp(*tmp, IL_RUNDIR_PLAN, &p, err)) || (rc = il_buf_write_file_atomic(p, plan_text, strlen(plan_text), err)))
		goto out;
	if ((rc = in_tmp(*tmp, IL_RUNDIR_PLAN_DIR, &p, err)))
		goto out;
	if (realpath(plan_path, real)) {
		const char *d = dirname(real);

		rc = il_buf_write_file_atomic(p, d, strlen(d), err);
	}
out:
	free(p);
	return rc;
}

int il_rundir_commit(const char *tmp, const char *dir, struct il_err *err)
{
	char *parent;
	int dfd;

	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_NOREPLACE))
		return il_err_set(err, IL_EIO, "cannot create run directory '%s': %s%s", dir, strerror(errno),
				  errno == EEXIST ? " (another run made it meanwhile)" : "");
	parent = strdup(dir);
	dfd = parent ? open(dirname(parent), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	free(parent);
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

void il_rundir_discard(const char *tmp)
{
	struct stat st;

	if (tmp && !lstat(tmp, &st))
		nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int il_rundir_lock(struct il_rundir_lock *l, const char *dir, const char *shown, struct il_err *err)
{
	char *p = il_rundir_path(dir, IL_RUNDIR_LOCK), host[256] = "?", when[32];
	int fd = p ? open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644) : -1;

	if (fd < 0) {
		int rc = il_err_set(err, IL_EIO, "cannot open '%s': %s", p ? p : dir, strerror(errno));

		free(p);
		return rc;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		char who[300] = "";
		ssize_t n = pread(fd, who, sizeof(who) - 1, 0);

		who[n > 0 ? n : 0] = 0;
		who[strcspn(who, "\n")] = 0;
		close(fd);
		free(p);
		return il_err_set(err, IL_EPERM, "run directory '%s' is in use by another idlelab (%s)", shown,
				  *who ? who : "no holder written yet");
	}
	gethostname(host, sizeof(host) - 1);
	il_clock_iso_now(when, sizeof(when));
	snprintf(l->holder, sizeof(l->holder), "run %s, pid %ld on %s", shown, (long)getpid(), host);
	/* the description is a courtesy for whoever finds the lock taken; the flock is the lock */
	if (!ftruncate(fd, 0))
		(void)!dprintf(fd, "%s, since %s\n", l->holder, when);
	l->fd = fd;
	free(p);
	return 0;
}

void il_rundir_unlock(struct il_rundir_lock *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}
