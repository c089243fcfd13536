// SPDX-License-Identifier: GPL-2.0-or-later
/* Paths from options, the environment, the installation and defaults, resolved once (see paths.h). */
#include "cli/clipaths.h"

#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/search.h"
#include "util/str.h"
#include "util/trust.h"

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* $var as it is (set but empty counts), or NULL */
static int raw(char **out, const char *var)
{
	const char *v = getenv(var);

	return v && !(*out = strdup(v)) ? IL_ENOMEM : 0;
}

/*
 * A directory variable ($HOME, $XDG_CONFIG_HOME, $XDG_CACHE_HOME), or NULL
 * when unset, empty or relative: a relative one would be taken against
 * whatever the working directory is (the XDG Base Directory specification:
 * "If an implementation encounters a relative path in any of these
 * variables it should consider the path invalid and ignore it"), said once.
 */
static const char *dir_env(const char *name)
{
	const char *v = env(name);

	if (v && v[0] != '/') {
		static char warned[3][24];

		for (size_t i = 0; i < 3; i++) {
			if (!strcmp(warned[i], name))
				break;
			if (!warned[i][0]) {
				snprintf(warned[i], sizeof(warned[i]), "%s", name);
				fprintf(stderr, "idlelab: warning: $%s is not an absolute path: ignored\n", name);
				break;
			}
		}
		return NULL;
	}
	return v;
}

/* $HOME, or when unset or relative (cron, systemd units) the user's home from the password database, never a shared /tmp */
static const char *home_dir(void)
{
	const char *home = dir_env("HOME");
	struct passwd *pw;

	if (home)
		return home;
	pw = getpwuid(getuid());
	return pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : ".";
}

/* $HOME for "~/" in host files: as set (an empty one too), a relative one replaced by the user's home */
static int home_var(char **out)
{
	const char *v = getenv("HOME");

	if (v && *v && v[0] != '/')
		v = home_dir();
	return v && !(*out = strdup(v)) ? IL_ENOMEM : 0;
}

char *il_cli_cache_dir(const char *dir)
{
	struct il_buf b = IL_BUF_INIT;

	if (dir && *dir)
		return strdup(dir);
	if (env("IDLELAB_CACHE"))
		return strdup(env("IDLELAB_CACHE"));
	if (dir_env("XDG_CACHE_HOME"))
		return il_buf_printf(&b, "%s/idlelab", dir_env("XDG_CACHE_HOME")) ? NULL : il_buf_detach(&b);
	return il_buf_printf(&b, "%s/.cache/idlelab", home_dir()) ? NULL : il_buf_detach(&b);
}

/* ---- The installation ---- */

const char *il_cli_prefix(char *out, size_t n)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	out[0] = '\0';
	if (len <= 0)
		return out;
	exe[len] = '\0';
	/* PREFIX/bin/idlelab: the binary's directory is named bin */
	if (!(slash = strrchr(exe, '/')) || slash == exe)
		return out;
	*slash = '\0';
	if (!(slash = strrchr(exe, '/')) || strcmp(slash + 1, "bin"))
		return out;
	*slash = '\0';
	if (strlen(exe) + 1 <= n)
		memcpy(out, exe[0] ? exe : "/", strlen(exe[0] ? exe : "/") + 1);
	return out;
}

/* the system's configuration: /etc/idlelab for the distribution's and the local admin's prefixes */
static char *sysconf_dir(const char *prefix)
{
	if (!*prefix || !strcmp(prefix, "/usr") || !strcmp(prefix, "/usr/local") || !strcmp(prefix, "/"))
		return strdup("/etc/idlelab");
	return il_str_dup_printf("%s/etc/idlelab", prefix);
}

/* ---- Search paths ---- */

/*
 * Why dir may not be searched ("" when it may): a directory that it and every
 * directory above it are root's or this user's and writable by no one else
 * (util/trust.h). A directory another user controls could plant a host file
 * or a workload whose argv root runs, or swap the directory after the check.
 */
static void judge(struct il_cli_source *s)
{
	struct stat st;

	s->why[0] = '\0';
	if (strchr(s->dir, IL_SEARCH_SEP))
		snprintf(s->why, sizeof(s->why), "its name has a '%c'", IL_SEARCH_SEP);
	else if (stat(s->dir, &st) || !S_ISDIR(st.st_mode))
		snprintf(s->why, sizeof(s->why), "missing");
	else
		il_trust_path(s->dir, s->why, sizeof(s->why));
	s->used = !s->why[0];
}

static int add(struct il_cli_source **v, size_t *n, char *dir, const char *origin, bool check)
{
	struct il_cli_source *t;

	if (!dir || !(t = realloc(*v, (*n + 1) * sizeof(**v)))) {
		free(dir);
		return IL_ENOMEM;
	}
	*v = t;
	t[*n] = (struct il_cli_source){ .dir = dir, .origin = origin, .used = true };
	if (check)
		judge(&t[*n]);
	(*n)++;
	return 0;
}

void il_cli_sources_free(struct il_cli_source *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		free(s[i].dir);
	free(s);
}

int il_cli_sources(struct il_cli_source **out, size_t *n, enum il_cli_kind kind, const char *opt)
{
	const char *what = kind == IL_CLI_HOSTS ? "hosts" : "workloads";
	const char *var = kind == IL_CLI_HOSTS ? "IDLELAB_HOSTS" : "IDLELAB_WORKLOADS";
	const char *optname = kind == IL_CLI_HOSTS ? "--hosts-dir" : "--workloads-dir";
	char prefix[PATH_MAX];
	int r;

	*out = NULL;
	*n = 0;
	il_cli_prefix(prefix, sizeof(prefix));
	/* told: that, and only that (checked by whoever chose it) */
	if (opt && *opt)
		return add(out, n, strdup(opt), optname, false);
	if (env(var))
		return add(out, n, strdup(env(var)), kind == IL_CLI_HOSTS ? "$IDLELAB_HOSTS" : "$IDLELAB_WORKLOADS", false);
	r = add(out, n, strdup(what), "working directory", true);
	if (!r && dir_env("XDG_CONFIG_HOME"))
		r = add(out, n, il_str_dup_printf("%s/idlelab/%s", dir_env("XDG_CONFIG_HOME"), what), "user", true);
	else if (!r)
		r = add(out, n, il_str_dup_printf("%s/.config/idlelab/%s", home_dir(), what), "user", true);
	if (!r) {
		char *etc = sysconf_dir(prefix);

		r = add(out, n, etc ? il_str_dup_printf("%s/%s", etc, what) : NULL, "system", true);
		free(etc);
	}
	if (!r && *prefix && kind == IL_CLI_WORKLOADS)
		r = add(out, n, il_str_dup_printf("%s/share/idlelab/%s", strcmp(prefix, "/") ? prefix : "", what),
			"installed", true);
	if (r) {
		il_cli_sources_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return r;
}

/* kind's search path: the used candidates joined; none usable: the plain relative name, as before */
static int search_path(char **out, enum il_cli_kind kind, const char *opt)
{
	struct il_cli_source *s;
	struct il_buf b = IL_BUF_INIT;
	size_t n;
	int r;

	*out = NULL;
	if ((r = il_cli_sources(&s, &n, kind, opt)))
		return r;
	for (size_t i = 0; i < n; i++)
		if (s[i].used)
			il_buf_printf(&b, "%s%s", b.len ? ":" : "", s[i].dir);
	if (!b.len)
		il_buf_printf(&b, "%s", kind == IL_CLI_HOSTS ? "hosts" : "workloads");
	il_cli_sources_free(s, n);
	if (il_buf_error(&b)) {
		il_buf_release(&b);
		return IL_ENOMEM;
	}
	*out = il_buf_detach(&b);
	return 0;
}

/* idlelab's own workload binaries: $IDLELAB_WORKLOAD_BIN, a checkout's build/workloads, else the installed ones */
static int workload_bin(char **out)
{
	char prefix[PATH_MAX];
	struct stat st;
	char *dir;

	*out = NULL;
	if (env("IDLELAB_WORKLOAD_BIN"))
		return (*out = strdup(env("IDLELAB_WORKLOAD_BIN"))) ? 0 : IL_ENOMEM;
	if (!stat("build/workloads", &st) || !*il_cli_prefix(prefix, sizeof(prefix)))
		return 0;
	if (!(dir = il_str_dup_printf("%s/lib/idlelab/workloads", strcmp(prefix, "/") ? prefix : "")))
		return IL_ENOMEM;
	if (!stat(dir, &st) && S_ISDIR(st.st_mode))
		*out = dir;
	else
		free(dir);
	return 0;
}

int il_cli_paths(struct il_paths *p, const char *hosts_dir, const char *workloads_dir, const char *cache_dir,
		 struct il_err *err)
{
	memset(p, 0, sizeof(*p));
	if (search_path(&p->hosts_dir, IL_CLI_HOSTS, hosts_dir) ||
	    search_path(&p->workloads_dir, IL_CLI_WORKLOADS, workloads_dir) ||
	    !(p->cache_dir = il_cli_cache_dir(cache_dir)) || home_var(&p->home) ||
	    raw(&p->ssh_config, "IDLELAB_SSH_CONFIG") || workload_bin(&p->workload_bin)) {
		il_paths_release(p);
		return il_err_oom(err);
	}
	{
		/* the cache holds what becomes kernels and replies: one another user could write is refused */
		char why[PATH_MAX + 80];

		if (il_trust_dir(p->cache_dir, why, sizeof(why)) == IL_EPERM && !(p->cache_refused = strdup(why))) {
			il_paths_release(p);
			return il_err_oom(err);
		}
	}
	return 0;
}
