// SPDX-License-Identifier: GPL-2.0-or-later
/* Lookup of embedded runner scripts. */
#include "host/runners.h"

#include <string.h>

const char *il_runners_embedded(const struct il_runner_src *table, const char *name)
{
	for (const struct il_runner_src *r = table; r->name; r++)
		if (!strcmp(r->name, name))
			return r->text;
	return NULL;
}

const char *il_runners_script(const char *name)
{
	return il_runners_embedded(il_runner_srcs, name);
}
