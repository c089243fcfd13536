// SPDX-License-Identifier: GPL-2.0-or-later
/* Test helpers (see testutil.h). */
#define _XOPEN_SOURCE 700
#include "testutil.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"

const char *tu_fixture(const char *name)
{
	static char path[4096];
	const char *src = getenv("IL_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/fixtures/sysfs/%s", src ? src : ".", name);
	return path;
}

char *tu_read(const char *path, size_t *len)
{
	struct il_buf b = IL_BUF_INIT;
	struct il_err err = { 0 };

	if (il_buf_read_file(&b, path, 0, &err))
		fail_msg("%s", err.msg);
	if (len)
		*len = b.len;
	return il_buf_detach(&b);
}

char *tu_tmpdir(void)
{
	char *t = strdup("/tmp/idlelab-test-XXXXXX");

	assert_non_null(t);
	assert_non_null(mkdtemp(t));
	return t;
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void tu_rmtree(const char *dir)
{
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
}

static void write_file(const char *root, const char *path, size_t plen, const char *val, size_t vlen, const char *mode)
{
	char full[4096];
	FILE *f;

	snprintf(full, sizeof(full), "%s%.*s", root, (int)plen, path);
	mkdirs(full);
	f = fopen(full, mode);
	if (!f)
		fail_msg("open %s: %s", full, strerror(errno));
	fwrite(val, 1, vlen, f);
	fputc('\n', f);
	fclose(f);
}

void tu_write(const char *root, const char *path, const char *text)
{
	write_file(root, path, strlen(path), text, strlen(text), "w");
}

void tu_materialize(const char *dump_path, const char *root)
{
	char *text = tu_read(dump_path, NULL);
	char *line = text;

	while (*line) {
		char *nl = strchr(line, '\n'), *colon;
		char *from = line;

		if (!nl)
			fail_msg("%s: no final newline", dump_path);
		*nl = '\0';
		if (!strncmp(line, "/sys/class/powercap/", 20))
			from = strchr(line + 20, '/'); /* zone names contain ':' */
		colon = from ? strchr(from, ':') : NULL;
		if (!colon)
			fail_msg("%s: bad line '%s'", dump_path, line);
		write_file(root, line, (size_t)(colon - line), colon + 1, strlen(colon + 1), "a");
		line = nl + 1;
	}
	free(text);
}

void tu_parse_fixture(struct il_snapshot *out, const char *name)
{
	struct il_err err = { 0 };
	size_t len;
	char *text = tu_read(tu_fixture(name), &len);
	int r = il_snapshot_parse(out, text, len, name, &err);

	free(text);
	if (r)
		fail_msg("%s: %s", name, err.msg);
}
