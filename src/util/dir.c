// SPDX-License-Identifier: GPL-2.0-or-later
/* Directory listing. */
#include "util/dir.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

int il_dir_names(struct il_strlist *out, const char *dir, const char *suffix, struct il_err *err)
{
	struct il_strlist found = { 0 };
	size_t ls = strlen(suffix);
	struct dirent *de;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d)
		return il_err_set(err, IL_ENOTFOUND, "cannot open directory '%s'", dir);
	while (!r && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		char *name;

		if (n <= ls || strcmp(de->d_name + n - ls, suffix))
			continue;
		if (!(name = il_str_ndup(de->d_name, n - ls)) || il_strlist_push(&found, name))
			r = il_err_oom(err);
		free(name);
	}
	closedir(d);
	il_strlist_sort(&found);
	for (size_t i = 0; !r && i < found.n; i++)
		if (il_strlist_push(out, found.v[i]))
			r = il_err_oom(err);
	il_strlist_release(&found);
	return r;
}
