// SPDX-License-Identifier: GPL-2.0-or-later
/* Config fragments against the final .config and the tree's Kconfig files (see kconfig.h). */
#include "kernel/kconfig.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "util/str.h"

/* Mark the names that a `config NAME` or `menuconfig NAME` line of text defines. */
static void scan_kconfig(const char *text, const struct il_strlist *names, bool *found)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *p = l + strspn(l, " \t");
		size_t kw = !strncmp(p, "config", 6) ? 6 : !strncmp(p, "menuconfig", 10) ? 10 : 0;
		size_t n;

		if (!kw || (p[kw] != ' ' && p[kw] != '\t'))
			continue;
		p += kw;
		p += strspn(p, " \t");
		n = strcspn(p, " \t\r\n#");
		for (size_t i = 0; i < names->n; i++)
			if (!found[i] && strlen(names->v[i]) == n && !strncmp(p, names->v[i], n))
				found[i] = true;
	}
}

static bool all_found(const bool *found, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!found[i])
			return false;
	return true;
}

/* Every Kconfig* file below dir (no .git, no symbolic links followed), until all names are found. */
static int walk(const char *dir, const struct il_strlist *names, bool *found, int depth, struct il_err *err)
{
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (depth > 32)
		return 0;
	if (!(d = opendir(dir)))
		return depth ? 0 : il_err_set(err, IL_EIO, "%s: %s", dir, strerror(errno));
	while (!r && !all_found(found, names->n) && (e = readdir(d))) {
		char *p;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if (!(p = il_str_dup_printf("%s/%s", dir, e->d_name))) {
			r = il_err_oom(err);
			break;
		}
		if (!lstat(p, &st)) {
			if (S_ISDIR(st.st_mode)) {
				r = walk(p, names, found, depth + 1, err);
			} else if (S_ISREG(st.st_mode) && !strncmp(e->d_name, "Kconfig", 7)) {
				struct il_buf b = IL_BUF_INIT;

				if (!(r = il_buf_read_file(&b, p, (size_t)8 << 20, err)))
					scan_kconfig(il_buf_str(&b), names, found);
				il_buf_release(&b);
			}
		}
		free(p);
	}
	closedir(d);
	return r;
}

int il_kconfig_defined(const char *src_dir, const struct il_strlist *names, bool *found, struct il_err *err)
{
	for (size_t i = 0; i < names->n; i++)
		found[i] = false;
	return names->n ? walk(src_dir, names, found, 0, err) : 0;
}

/* The value the final .config gives NAME: its exact "NAME=..." line, at a line start. */
static bool config_has_line(const char *cfg, const char *line)
{
	size_t n = strlen(line);

	for (const char *l = cfg; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, line, n) && (l[n] == '\n' || l[n] == 0))
			return true;
	return false;
}

static bool config_sets(const char *cfg, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = cfg; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, name, n) && l[n] == '=')
			return true;
	return false;
}

/* A fragment's lines that the final .config does not have as asked (in *missing, with their fragment in *from). */
struct miss {
	struct il_strlist line, name, frag;
};

static int check_fragment(const char *cfg, const char *fragpath, const char *text, struct miss *m,
			  struct il_strlist *required, struct il_err *err)
{
	int r = 0;

	for (const char *p = text; *p && !r;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = il_str_ndup(p, n);

		p += n + (nl ? 1 : 0);
		if (!line)
			return il_err_oom(err);
		while (*line && (line[strlen(line) - 1] == '\r' || line[strlen(line) - 1] == ' '))
			line[strlen(line) - 1] = 0;
		if (!strncmp(line, "# idlelab-required:", 19)) {
			r = il_strlist_split(required, line + 19) ? il_err_oom(err) : 0;
		} else if (!strncmp(line, "CONFIG_", 7) && strchr(line, '=')) {
			if (!config_has_line(cfg, line)) {
				char *name = il_str_ndup(line, (size_t)(strchr(line, '=') - line));

				if (!name || il_strlist_push(&m->line, line) || il_strlist_push(&m->name, name + 7) ||
				    il_strlist_push(&m->frag, fragpath))
					r = il_err_oom(err);
				free(name);
			}
		} else if (!strncmp(line, "# CONFIG_", 9) && strstr(line, " is not set")) {
			char *opt = il_str_ndup(line + 2, (size_t)(strstr(line, " is not set") - line - 2));

			if (!opt)
				r = il_err_oom(err);
			else if (config_sets(cfg, opt))
				r = il_err_set(err, IL_EINVAL, "config fragment %s: %s should be unset but the final .config "
					       "sets it", fragpath, opt);
			free(opt);
		}
		free(line);
	}
	return r;
}

int il_kconfig_verify(const char *config_path, const char *src_dir, const struct il_strlist *fragments,
		      struct il_strlist *skipped, struct il_err *err)
{
	struct il_buf cfg = IL_BUF_INIT;
	struct miss m = { { 0 }, { 0 }, { 0 } };
	struct il_strlist required = { 0 };
	bool *found = NULL;
	int r;

	if ((r = il_buf_read_file(&cfg, config_path, (size_t)16 << 20, err)))
		return r;
	for (size_t f = 0; f < fragments->n && !r; f++) {
		struct il_buf frag = IL_BUF_INIT;

		if (!(r = il_buf_read_file(&frag, fragments->v[f], (size_t)4 << 20, err)))
			r = check_fragment(il_buf_str(&cfg), fragments->v[f], il_buf_str(&frag), &m, &required, err);
		il_buf_release(&frag);
	}
	if (r || !m.name.n)
		goto out;
	if (!(found = calloc(m.name.n, sizeof(*found)))) {
		r = il_err_oom(err);
		goto out;
	}
	if ((r = il_kconfig_defined(src_dir, &m.name, found, err)))
		goto out;
	for (size_t i = 0; i < m.name.n && !r; i++) {
		char *opt = il_str_dup_printf("CONFIG_%s", m.name.v[i]);

		if (!opt)
			r = il_err_oom(err);
		else if (found[i])
			r = il_err_set(err, IL_EINVAL, "config fragment %s: %s is not set as asked in the final .config (the "
				       "tree has the option: a dependency is missing, or it is not for this arch)",
				       m.frag.v[i], m.line.v[i]);
		else if (il_strlist_has(&required, opt))
			r = il_err_set(err, IL_EINVAL, "config fragment %s: %s is required (the build cannot work without "
				       "it), but the tree %s has no such option", m.frag.v[i], opt, src_dir);
		else {
			char *s = il_str_dup_printf("%s (%s)", m.line.v[i], m.frag.v[i]);

			if (!s || il_strlist_push(skipped, s))
				r = il_err_oom(err);
			free(s);
		}
		free(opt);
	}
out:
	il_buf_release(&cfg);
	il_strlist_release(&m.line), il_strlist_release(&m.name), il_strlist_release(&m.frag);
	il_strlist_release(&required);
	free(found);
	return r;
}
