// SPDX-License-Identifier: GPL-2.0-or-later
/* Lookup of embedded runner scripts. */
#include "host/runners.h"

#include <string.h>

const char *il_runner_script(const char *name)
{
	for (const struct il_runner_src *r = il_runner_srcs; r->name; r++)
		if (!strcmp(r->name, name))
			return r->text;
	return NULL;
}
