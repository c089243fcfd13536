/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The x86_64 lab's idle states: the tables of hosts/labvm-x86/idle-tables.json
 * and the ACPI SSDT made from one (ASL text for iasl). QEMU's q35 DSDT declares
 * the processors (\_SB.CPUS.C000, C001, ...) without a _CST; the SSDT, passed
 * with -acpitable, gives each one. Every entry is a C1-type FFixedHW register
 * with class (bit offset) 0: the kernel's FFH probe refuses it
 * (arch/x86/kernel/acpi/cstate.c wants class 2, MWAIT), and
 * acpi_processor_evaluate_cst() then falls back to HLT for a C1-type entry,
 * keeping the declared latency. acpi_idle adds POLL as state 0 and sets each
 * state's target residency to latency x processor.latency_factor
 * (drivers/acpi/processor_idle.c), which a table may set on the command line.
 * SystemIO C2/C3 entries would register but return at once under TCG, and
 * MWAIT hints are refused: only halts are real idle here.
 */
#ifndef IL_LAB_SSDT_H
#define IL_LAB_SSDT_H
#include <stddef.h>
#include <jansson.h>
#include "util/buf.h"
#include "util/err.h"

/* acpi_processor_evaluate_cst() keeps at most ACPI_PROCESSOR_MAX_POWER - 1 entries */
#define IL_SSDT_MAX_STATES 7

struct il_ssdt_state {
	int latency_us; /* the _CST entry's worst-case latency: the state's exit_latency */
	int power_mw;   /* its average power (acpi_idle's power_usage; no governor reads it) */
};

struct il_ssdt_table {
	char *name;
	char *description;
	int latency_factor; /* processor.latency_factor: target residency = latency x factor (kernel default 2) */
	size_t n;
	struct il_ssdt_state states[IL_SSDT_MAX_STATES];
};

struct il_ssdt_tables {
	size_t n;
	struct il_ssdt_table *v;
};

/*
 * Check and take every table of j ({"NAME": {"description", "latency_factor",
 * "states": [{"latency_us", "power_mw"}]}}): latencies strictly ascending
 * (the kernel would sort them and say "FW issue"), 1..7 states. label names
 * the file in errors. out is released with il_ssdt_tables_release, also after
 * a failure.
 */
int il_ssdt_tables_from_json(struct il_ssdt_tables *out, const json_t *j, const char *label, struct il_err *err);
int il_ssdt_tables_load(struct il_ssdt_tables *out, const char *path, struct il_err *err);
/* The tables as the lab keeps them (idle-tables.json); caller owns; NULL: no memory left. */
json_t *il_ssdt_tables_to_json(const struct il_ssdt_tables *t);
void il_ssdt_tables_release(struct il_ssdt_tables *t);

/* The table called name, or NULL. */
const struct il_ssdt_table *il_ssdt_find(const struct il_ssdt_tables *t, const char *name);

/* The SSDT's ASL source for cpus processors (C000..), appended to out. */
int il_ssdt_asl(const struct il_ssdt_table *t, int cpus, struct il_buf *out);

/* The kernel command-line words the table needs ("processor.latency_factor=N"), appended to out. */
int il_ssdt_cmdline(const struct il_ssdt_table *t, struct il_buf *out);

#endif
