// SPDX-License-Identifier: GPL-2.0-or-later
/* The local sysfs backend: files under a root directory. */
#include "idle/sysfs.h"
#include "util/str.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int local_path(struct il_sysfs_local *l, const char *path, char *out, size_t n, struct il_err *err)
{
	if (path[0] != '/' || strstr(path, "/../") || (size_t)snprintf(out, n, "%s%s", l->root, path) >= n)
		return il_err_set(err, IL_EINVAL, "host '%s': invalid sysfs path '%s'", l->ops.label, path);
	return 0;
}

static int local_read(struct il_sysfs *fs, const char *path, struct il_buf *out, struct il_err *err)
{
	struct il_sysfs_local *l = (struct il_sysfs_local *)fs;
	char p[4352];
	int r;

	if ((r = local_path(l, path, p, sizeof(p), err)))
		return r;
	return il_buf_read_file(out, p, 1 << 20, err);
}

static int local_write(struct il_sysfs *fs, const char *path, const char *value, struct il_err *err)
{
	struct il_sysfs_local *l = (struct il_sysfs_local *)fs;
	size_t len = strlen(value);
	char p[4352];
	ssize_t n;
	int fd, r;

	if ((r = local_path(l, path, p, sizeof(p), err)))
		return r;
	/* O_TRUNC keeps fixture trees (plain files) behaving like sysfs attributes */
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return il_err_set(err, errno == EACCES || errno == EPERM || errno == EROFS ? IL_EPERM :
				       errno == ENOENT ? IL_ENOTFOUND : IL_EIO,
				  "host '%s': cannot open '%s' for writing: %s", fs->label, p, strerror(errno));
	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != len) {
		int e = n < 0 ? errno : EIO;

		close(fd);
		return il_err_set(err, e == EINVAL ? IL_EINVAL : e == EACCES || e == EPERM ? IL_EPERM : IL_EIO,
				  "host '%s': writing '%s' to '%s' failed: %s", fs->label, value, p, strerror(e));
	}
	if (close(fd))
		return il_err_set(err, IL_EIO, "host '%s': writing '%s' to '%s' failed: %s", fs->label, value, p,
				  strerror(errno));
	return 0;
}

static int local_dump(struct il_sysfs *fs, struct il_buf *out, struct il_err *err)
{
	struct il_sysfs_local *l = (struct il_sysfs_local *)fs;

	return il_sysdump_local(out, l->root[0] ? l->root : "/", err);
}

static int local_pmqos(struct il_sysfs *fs, struct il_buf *out, struct il_err *err)
{
	struct il_sysfs_local *l = (struct il_sysfs_local *)fs;

	return il_pmqos_dump_local(out, l->root[0] ? l->root : "/", err);
}

int il_sysfs_local_init(struct il_sysfs_local *fs, const char *root, struct il_err *err)
{
	size_t n;

	memset(fs, 0, sizeof(*fs));
	fs->ops.label = "local";
	fs->ops.read = local_read;
	fs->ops.write = local_write;
	fs->ops.dump = local_dump;
	fs->ops.pmqos = local_pmqos;
	if (!root || !strcmp(root, "/"))
		return 0;
	if (!il_str_lcpy(fs->root, root, sizeof(fs->root)))
		return il_err_set(err, IL_EINVAL, "sysfs root '%s' is too long", root);
	n = strlen(fs->root);
	while (n > 1 && fs->root[n - 1] == '/')
		fs->root[--n] = '\0';
	return 0;
}

int il_sysfs_snapshot(struct il_sysfs *fs, struct il_snapshot *out, struct il_err *err)
{
	struct il_buf dump = IL_BUF_INIT;
	int r;

	memset(out, 0, sizeof(*out));
	r = fs->dump(fs, &dump, err);
	if (!r)
		r = il_snapshot_parse(out, il_buf_str(&dump), dump.len, fs->label, err);
	il_buf_release(&dump);
	return r;
}

int il_sysfs_pmqos(struct il_sysfs *fs, struct il_pmqos *out, struct il_err *err)
{
	struct il_buf dump = IL_BUF_INIT;
	char label[300];
	int r;

	memset(out, 0, sizeof(*out));
	snprintf(label, sizeof(label), "host '%s' PM QoS", fs->label);
	r = fs->pmqos(fs, &dump, err);
	if (!r)
		r = il_pmqos_parse(out, il_buf_str(&dump), dump.len, label, err);
	il_buf_release(&dump);
	return r;
}
