// SPDX-License-Identifier: GPL-2.0-or-later
/* The x86_64 lab's idle tables and the SSDT made from one (see ssdt.h). */
#include "lab/ssdt.h"

#include <stdlib.h>
#include <string.h>

#include "util/jfields.h"
#include "util/jsonfile.h"

struct tbl_fields {
	char *description;
	int latency_factor;
	const json_t *states;
};

static const struct il_jfield tbl_fields[] = {
	IL_JF_AT("description", IL_JF_STRING, struct tbl_fields, description),
	IL_JF_RANGE("latency_factor", IL_JF_INT, 1, 1000, struct tbl_fields, latency_factor),
	{ .key = "states", .type = IL_JF_ARRAY, .required = true, .store = true,
	  .off = offsetof(struct tbl_fields, states), .what = "an array of 1 to 7 states, latencies ascending" },
};

static const struct il_jfield state_fields[] = {
	{ .key = "latency_us", .type = IL_JF_INT, .required = true, .ranged = true, .min = 1, .max = 100000,
	  .store = true, .off = offsetof(struct il_ssdt_state, latency_us) },
	IL_JF_RANGE("power_mw", IL_JF_INT, 0, 1000000, struct il_ssdt_state, power_mw),
};

static int one_table(struct il_ssdt_table *t, const char *name, const json_t *j, const char *label, struct il_err *err)
{
	struct tbl_fields f = { .latency_factor = 2 };
	char path[256], sts[280], sp[300];
	const json_t *s;
	size_t i;
	int r;

	snprintf(path, sizeof(path), "%s", name);
	if (!json_is_object(j))
		return il_jfields_bad(err, label, NULL, name, "an object with \"states\"");
	if (!(t->name = strdup(name)))
		return il_err_oom(err);
	r = il_jfields_read(j, tbl_fields, IL_JF_COUNT(tbl_fields), &f, label, path, err);
	t->description = f.description;
	t->latency_factor = f.latency_factor;
	if (r)
		return r;
	if (!json_array_size(f.states) || json_array_size(f.states) > IL_SSDT_MAX_STATES)
		return il_jfields_bad(err, label, path, "states", "%s", tbl_fields[2].what);
	json_array_foreach(f.states, i, s) {
		struct il_ssdt_state *st = &t->states[i];

		il_jfields_path(sts, sizeof(sts), path, "states", 0);
		il_jfields_path(sp, sizeof(sp), sts, NULL, i);
		*st = (struct il_ssdt_state){ .power_mw = -1 };
		if (!json_is_object(s))
			return il_jfields_bad(err, label, sp, NULL, "an object with \"latency_us\"");
		if ((r = il_jfields_read(s, state_fields, IL_JF_COUNT(state_fields), st, label, sp, err)))
			return r;
		if (i && st->latency_us <= t->states[i - 1].latency_us)
			return il_jfields_bad(err, label, sp, "latency_us", "more than the state before (%d): states are "
				  "declared shallowest first", t->states[i - 1].latency_us);
		t->n = i + 1;
	}
	/* no power given: deeper states draw less, as a platform's would say */
	for (i = 0; i < t->n; i++)
		if (t->states[i].power_mw < 0)
			t->states[i].power_mw = (int)(1000 >> i);
	return 0;
}

int il_ssdt_tables_from_json(struct il_ssdt_tables *out, const json_t *j, const char *label, struct il_err *err)
{
	const char *name;
	json_t *v;
	int r;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(j) || !json_object_size(j))
		return il_jfields_bad(err, label, NULL, NULL, "an object of idle tables by name");
	if (!(out->v = calloc(json_object_size(j), sizeof(*out->v))))
		return il_err_oom(err);
	json_object_foreach((json_t *)j, name, v) {
		if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(name) || strlen(name) > 64)
			return il_jfields_bad(err, label, NULL, name, "a table name of lower-case letters, digits, '_' and '-'");
		r = one_table(&out->v[out->n++], name, v, label, err);
		if (r)
			return r;
	}
	return 0;
}

int il_ssdt_tables_load(struct il_ssdt_tables *out, const char *path, struct il_err *err)
{
	json_t *j = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = il_json_load(path, &j, err)))
		return r;
	r = il_ssdt_tables_from_json(out, j, path, err);
	json_decref(j);
	return r;
}

json_t *il_ssdt_tables_to_json(const struct il_ssdt_tables *t)
{
	json_t *o = json_object();
	int bad = !o;

	for (size_t i = 0; !bad && i < t->n; i++) {
		const struct il_ssdt_table *x = &t->v[i];
		json_t *st = json_array(), *e = json_object();

		for (size_t k = 0; k < x->n; k++)
			bad |= json_array_append_new(st, json_pack("{s:i,s:i}", "latency_us", x->states[k].latency_us,
								   "power_mw", x->states[k].power_mw));
		if (x->description)
			bad |= json_object_set_new(e, "description", json_string(x->description));
		bad |= json_object_set_new(e, "latency_factor", json_integer(x->latency_factor));
		bad |= json_object_set_new(e, "states", st);
		bad |= json_object_set_new(o, x->name, e);
	}
	if (bad)
		json_decref(o), o = NULL;
	return o;
}

void il_ssdt_tables_release(struct il_ssdt_tables *t)
{
	for (size_t i = 0; t->v && i < t->n; i++)
		free(t->v[i].name), free(t->v[i].description);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

const struct il_ssdt_table *il_ssdt_find(const struct il_ssdt_tables *t, const char *name)
{
	for (size_t i = 0; name && i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return &t->v[i];
	return NULL;
}

int il_ssdt_asl(const struct il_ssdt_table *t, int cpus, struct il_buf *out)
{
	int r = 0;

	r |= il_buf_printf(out, "/* made by idlelab from idle table \"%s\": POLL (acpi_idle's own) +", t->name);
	for (size_t i = 0; i < t->n; i++)
		r |= il_buf_printf(out, " C%zu %d/%d us", i + 1, t->states[i].latency_us,
				   t->states[i].latency_us * t->latency_factor);
	r |= il_buf_adds(out, " (latency/residency) */\n"
			      "DefinitionBlock (\"\", \"SSDT\", 2, \"IDLLAB\", \"LABCST\", 0x00000001)\n{\n");
	for (int c = 0; c < cpus; c++)
		r |= il_buf_printf(out, "    External (\\_SB.CPUS.C%03X, ProcessorObj)\n", c);
	/* Package { count, Package { register, type, latency, power }, ... } (ACPI 6.4, 8.4.1.1) */
	r |= il_buf_printf(out, "    Name (\\_SB.ILCS, Package (0x%02zX)\n    {\n        0x%02zX", t->n + 1, t->n);
	for (size_t i = 0; i < t->n; i++)
		r |= il_buf_printf(out, ",\n        Package (0x04)\n        {\n"
					"            ResourceTemplate ()\n            {\n"
					"                Register (FFixedHW, 0x01, 0x00, 0x0000000000000000, 0x01, )\n"
					"            },\n            0x01, 0x%04X, 0x%08X\n        }",
				   (unsigned)t->states[i].latency_us, (unsigned)t->states[i].power_mw);
	r |= il_buf_adds(out, "\n    })\n");
	for (int c = 0; c < cpus; c++)
		r |= il_buf_printf(out, "    Scope (\\_SB.CPUS.C%03X)\n    {\n        Method (_CST, 0, NotSerialized)\n"
					"        {\n            Return (\\_SB.ILCS)\n        }\n    }\n", c);
	r |= il_buf_adds(out, "}\n");
	return r ? IL_ENOMEM : 0;
}

int il_ssdt_cmdline(const struct il_ssdt_table *t, struct il_buf *out)
{
	return il_buf_printf(out, "processor.latency_factor=%d", t->latency_factor) ? IL_ENOMEM : 0;
}
