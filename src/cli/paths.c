// SPDX-License-Identifier: GPL-2.0-or-later
/* Paths from options, the environment and defaults, resolved once (see paths.h). */
#include "cli/paths.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"

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

/* opt, else $var, else dflt (NULL: none); *out NULL only when all are */
static int pick(char **out, const char *opt, const char *var, const char *dflt)
{
	const char *v = opt && *opt ? opt : var ? env(var) : NULL;

	if (!v)
		v = dflt;
	if (!v)
		return 0;
	return (*out = strdup(v)) ? 0 : IL_ENOMEM;
}

char *il_cli_cache_dir(const char *dir)
{
	const char *home = getenv("HOME");
	struct il_buf b = IL_BUF_INIT;

	if (dir && *dir)
		return strdup(dir);
	if (env("IDLELAB_CACHE"))
		return strdup(env("IDLELAB_CACHE"));
	if (env("XDG_CACHE_HOME"))
		return il_buf_printf(&b, "%s/idlelab", env("XDG_CACHE_HOME")) ? NULL : il_buf_detach(&b);
	/* no HOME (cron, systemd units): the user's home from the password database, never a shared /tmp */
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());

		home = pw && pw->pw_dir && *pw->pw_dir ? pw->pw_dir : ".";
	}
	return il_buf_printf(&b, "%s/.cache/idlelab", home) ? NULL : il_buf_detach(&b);
}

int il_cli_paths(struct il_paths *p, const char *hosts_dir, const char *workloads_dir, const char *cache_dir,
		 struct il_err *err)
{
	memset(p, 0, sizeof(*p));
	if (pick(&p->hosts_dir, hosts_dir, "IDLELAB_HOSTS", "hosts") ||
	    pick(&p->workloads_dir, workloads_dir, "IDLELAB_WORKLOADS", "workloads") ||
	    !(p->cache_dir = il_cli_cache_dir(cache_dir)) || raw(&p->home, "HOME") ||
	    raw(&p->ssh_config, "IDLELAB_SSH_CONFIG") || pick(&p->workload_bin, NULL, "IDLELAB_WORKLOAD_BIN", NULL)) {
		il_paths_release(p);
		return il_err_set(err, IL_ENOMEM, "out of memory");
	}
	return 0;
}
