// SPDX-License-Identifier: GPL-2.0-or-later
/* JSON files read safely. */
#include "util/jsonfile.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/search.h"
#include "util/trust.h"

int il_json_load(const char *path, json_t **out, struct il_err *err)
{
	struct il_buf b = IL_BUF_INIT;
	json_error_t je;
	int r;

	*out = NULL;
	if ((r = il_buf_read_file(&b, path, (size_t)16 << 20, err)))
		return r;
	if (!(*out = json_loadb(b.p ? b.p : "", b.len, JSON_REJECT_DUPLICATES, &je)))
		r = il_err_set(err, IL_EPARSE, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	il_buf_release(&b);
	return r;
}

int il_json_load_named(const char *dir, const char *name, const char *kind, const char *noun, json_t **out,
		       char **path, struct il_err *err)
{
	struct il_buf p = IL_BUF_INIT;
	char *found = NULL, why[PATH_MAX + 80];
	int r;

	*path = NULL;
	*out = NULL;
	/* the first directory of the search path holding NAME.json (a plain directory: that one) */
	if (il_buf_printf(&p, "%s.json", name) || il_search_find(&found, dir, p.p))
		return il_buf_release(&p), il_err_oom(err);
	il_buf_reset(&p);
	if (!found && !strchr(dir, IL_SEARCH_SEP))
		r = il_buf_printf(&p, "%s/%s.json", dir, name) ? IL_ENOMEM : IL_ENOTFOUND;
	else if (!found)
		r = il_buf_printf(&p, "%s.json' in '%s", name, dir) ? IL_ENOMEM : IL_ENOTFOUND;
	else if (il_trust_path(found, why, sizeof(why)) == IL_EPERM)
		/* a file another user could have written: root must not run or reach what it says */
		r = il_err_set(err, IL_EPERM, "%s '%s': %s: refused (idlelab takes %ss only from files that root or "
					      "this user alone could have written; idlelab paths -v lists what it refuses)",
			       kind, name, why, noun);
	else
		r = il_json_load(found, out, err);
	if (r == IL_ENOTFOUND)
		r = il_err_set(err, IL_ENOTFOUND, "%s '%s': no %s '%s' (see 'idlelab %s list')", kind, name, noun,
			       found ? found : p.p, kind);
	else if (r == IL_ENOMEM)
		il_err_oom(err);
	if (!r)
		*path = found;
	else
		free(found);
	il_buf_release(&p);
	return r;
}

static int dump_chunk(const char *data, size_t n, void *out)
{
	return il_buf_add(out, data, n) ? -1 : 0;
}

int il_json_dump(struct il_buf *out, const json_t *j, size_t flags)
{
	if (json_dump_callback(j, dump_chunk, out, flags) && !il_buf_error(out))
		return IL_ENOMEM;
	return il_buf_error(out);
}

char *il_json_dumps(const json_t *j, size_t flags)
{
	struct il_buf b = IL_BUF_INIT;
	char *s;

	if (!j || il_json_dump(&b, j, flags) || !(s = il_buf_detach(&b))) {
		il_buf_release(&b);
		return NULL;
	}
	return s;
}
