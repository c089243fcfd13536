// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * idlelab's private working directory on a host (runners/own.sh and
 * workdir.sh through the local transport): made with mode 0700 in the
 * login's own HOME, elsewhere /var/tmp/idlelab-UID, and refused when another
 * user planted it, made it a symlink or opened its mode.
 */
#include "testutil.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host.h"
#include "host/transport.h"
#include "host/workdir.h"

static struct il_transport *local_transport(struct il_host_cfg *h)
{
	struct il_transport *t = NULL;
	struct il_err err = { 0 };

	assert_int_equal(il_host_load(h, NULL, "local", &err), 0);
	assert_int_equal(il_transport_open(&t, h, &err), 0);
	return t;
}

static int get(struct il_transport *t, char **dir, struct il_err *err)
{
	static const char *const subs[] = { "bin", NULL };

	return il_workdir_get(t, subs, dir, err);
}

/* HOME back as it was, the transport and the test's HOME gone (old and home are freed). */
static void done(char *old, struct il_transport *t, struct il_host_cfg *h, char *home)
{
	if (old)
		setenv("HOME", old, 1);
	free(old);
	il_transport_free(t);
	il_host_release(h);
	tu_rmtree(home);
	free(home);
}

static void test_workdir__home_and_checks(void **state)
{
	char *home = tu_tmpdir(), *dir = NULL, *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL, want[700], p[800];
	struct il_host_cfg h;
	struct il_transport *t = local_transport(&h);
	struct il_err err = { 0 };
	struct stat st;

	(void)state;
	chmod(home, 0755);
	setenv("HOME", home, 1);
	assert_int_equal(get(t, &dir, &err), 0);
	snprintf(want, sizeof(want), "%u:%s/.idlelab", (unsigned)getuid(), home);
	assert_string_equal(dir, want);
	assert_string_equal(il_workdir_path(dir), want + strcspn(want, ":") + 1);
	assert_int_equal(stat(il_workdir_path(dir), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(p, sizeof(p), "%s/bin", il_workdir_path(dir));
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	free(dir);
	/* opened up by someone: refused, with the reason */
	chmod(p, 0777);
	assert_int_equal(get(t, &dir, &err), IL_EPERM);
	assert_non_null(strstr(err.msg, "host 'local': idlelab's working directory:"));
	assert_non_null(strstr(err.msg, "bin has mode drwxrwxrwx, not drwx------"));
	chmod(p, 0700);
	/* a symlink where the directory should be: refused */
	snprintf(p, sizeof(p), "%s/.idlelab", home);
	tu_rmtree(p);
	assert_int_equal(symlink("/etc", p), 0);
	assert_int_equal(get(t, &dir, &err), IL_EPERM);
	assert_non_null(strstr(err.msg, ".idlelab is a symlink"));
	done(old, t, &h, home);
}

/* HOME not the login's own: /var/tmp/idlelab-UID, and one planted there by another user is refused */
static void test_workdir__planted_by_another_user(void **state)
{
	char *home = tu_tmpdir(), *dir = NULL, *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL, fb[64];
	struct passwd *nobody = getpwnam("nobody");
	struct il_host_cfg h;
	struct il_transport *t;
	struct il_err err = { 0 };

	(void)state;
	if (getuid() != 0 || !nobody) {
		tu_rmtree(home);
		free(home);
		free(old);
		skip();
	}
	t = local_transport(&h);
	snprintf(fb, sizeof(fb), "/var/tmp/idlelab-%u", (unsigned)getuid());
	tu_rmtree(fb);
	/* a HOME writable by others is no private place */
	chmod(home, 0777);
	setenv("HOME", home, 1);
	assert_int_equal(mkdir(fb, 0700), 0);
	assert_int_equal(chown(fb, nobody->pw_uid, nobody->pw_gid), 0);
	assert_int_equal(get(t, &dir, &err), IL_EPERM);
	assert_non_null(strstr(err.msg, "is owned by uid"));
	assert_non_null(strstr(err.msg, "not by idlelab's login (uid 0)"));
	tu_rmtree(fb);
	/* not planted: made, with the fallback path */
	assert_int_equal(get(t, &dir, &err), 0);
	assert_string_equal(il_workdir_path(dir), fb);
	free(dir);
	tu_rmtree(fb);
	done(old, t, &h, home);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workdir__home_and_checks),
		cmocka_unit_test(test_workdir__planted_by_another_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
