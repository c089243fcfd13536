// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * JSON values that are always whole: strings made UTF-8, keys set without
 * replacing one another, and the builders' all-or-nothing result (a key that
 * jansson could not add is never silently missing).
 */
#include "util/json.h"

#include <string.h>

#include "util/buf.h"
#include "util/utf8.h"

bool il_json_all(json_t *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!v[i]) {
			for (size_t k = 0; k < n; k++)
				json_decref(v[k]);
			return false;
		}
	return true;
}

json_t *il_json_str(const char *s)
{
	struct il_buf b = IL_BUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	/*
	 * not UTF-8 (a console line, a remote error, a hostile host's sysfs): U+FFFD for each bad byte, as
	 * export's label values, rather than the record failing or the value left out
	 */
	j = il_utf8_add(&b, s) ? NULL : json_string(il_buf_str(&b));
	il_buf_release(&b);
	return j;
}

int il_json_set(json_t *o, const char *key, json_t *v)
{
	struct il_buf k = IL_BUF_INIT;
	size_t n = strlen(key);
	int r = -1;

	il_utf8_add(&k, key);
	for (int i = 2; !il_buf_error(&k) && (k.len != n || memcmp(il_buf_str(&k), key, n)) &&
			json_object_get(o, il_buf_str(&k));
	     i++) {
		il_buf_reset(&k);
		il_utf8_add(&k, key);
		il_buf_printf(&k, " #%d", i);
	}
	if (il_buf_error(&k))
		json_decref(v);
	else
		r = json_object_set_new(o, il_buf_str(&k), v);
	il_buf_release(&k);
	return r;
}

json_t *il_json_whole(json_t *o, int bad)
{
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}
