// SPDX-License-Identifier: GPL-2.0-or-later
/* Search paths of directories, earlier ones shadowing later ones (see search.h). */
#include "util/search.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "util/trust.h"
#include "util/dir.h"
#include "util/str.h"

int il_search_split(struct il_strlist *out, const char *search)
{
	return search && il_strlist_split_on(out, search, IL_SEARCH_SEP) ? IL_ENOMEM : 0;
}

int il_search_find(char **out, const char *search, const char *file)
{
	struct il_strlist dirs = { 0 };
	int r;

	*out = NULL;
	if ((r = il_search_split(&dirs, search)))
		return r;
	for (size_t i = 0; !r && !*out && i < dirs.n; i++) {
		struct stat st;
		char *p = il_str_dup_printf("%s/%s", dirs.v[i], file);

		if (!p)
			r = IL_ENOMEM;
		else if (!lstat(p, &st))
			*out = p;
		else
			free(p);
	}
	il_strlist_release(&dirs);
	return r;
}

int il_search_names(struct il_strlist *out, const char *search, const char *suffix, struct il_err *err)
{
	struct il_strlist dirs = { 0 }, seen = { 0 }, names = { 0 };
	size_t opened = 0;
	int r;

	if ((r = il_search_split(&dirs, search)))
		return il_err_oom(err);
	for (size_t i = 0; !r && i < dirs.n; i++) {
		struct il_strlist here = { 0 };
		struct il_err e = { 0 };

		if ((r = il_dir_names(&here, dirs.v[i], suffix, &e))) {
			r = r == IL_ENOTFOUND ? 0 : r;
			il_strlist_release(&here);
			continue;
		}
		opened++;
		for (size_t k = 0; !r && k < here.n; k++) {
			char *f, why[PATH_MAX + 80];

			/* the first directory's file is the one that counts, trusted or not */
			if (il_strlist_has(&seen, here.v[k]))
				continue;
			if (il_strlist_push(&seen, here.v[k]) || !(f = il_str_dup_printf("%s/%s%s", dirs.v[i], here.v[k], suffix))) {
				r = IL_ENOMEM;
				break;
			}
			/* a file root may not trust is not offered (idlelab paths -v says why) */
			if (il_trust_path(f, why, sizeof(why)) != IL_EPERM && il_strlist_push(&names, here.v[k]))
				r = IL_ENOMEM;
			free(f);
		}
		il_strlist_release(&here);
	}
	if (!r && !opened)
		r = il_err_set(err, IL_ENOTFOUND, "cannot open directory '%s'", dirs.n ? dirs.v[0] : "");
	else if (r)
		il_err_oom(err);
	il_strlist_sort(&names);
	for (size_t i = 0; !r && i < names.n; i++)
		if (il_strlist_push(out, names.v[i]))
			r = il_err_oom(err);
	il_strlist_release(&names);
	il_strlist_release(&seen);
	il_strlist_release(&dirs);
	return r;
}
