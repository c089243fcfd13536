/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LAVA job definitions for a kernel block of samples (docs/lava.md): the
 * host's job template (its deploy and boot actions, with {idlelab.kernel_url}
 * {idlelab.ramdisk_url} {idlelab.dtb_url} {idlelab.modules_url} placeholders,
 * LAVA's own {kernel} and the like left alone; a built-in one boots
 * idlelab's arm64 lab kernel under QEMU) plus one test action that writes
 * idlelab's target-side scripts into the booted system, runs the probe and
 * then each sample exactly as over SSH (runners/sample.sh), every result
 * coming back base64-armoured on the console (runners/lava-block.sh).
 * YAML goes in and out through libyaml's document API, so no value from a
 * plan or a host file is ever pasted into YAML text: quoting is the
 * emitter's job. Nothing here talks to LAVA (host/lava.h does).
 */
#ifndef IL_RUN_LAVAJOB_H
#define IL_RUN_LAVAJOB_H
#include <stdbool.h>
#include <stddef.h>
#include "util/buf.h"
#include "util/err.h"
#include "util/strlist.h"

/* One sample of the block, as runners/lava-block.sh's il_sample takes it. */
struct il_lavajob_sample {
	size_t seq;
	const char *nonce;              /* the runner's frame tag, unique per attempt */
	const char *case_name;          /* LAVA test case name; made safe ([A-Za-z0-9._-]) here */
	const char *governor;           /* NULL: left as it is */
	const struct il_strlist *disable; /* state names or indices this configuration disables */
	double quiesce_s;
	const char *cpus;               /* NULL: not pinned */
	int timeout_s;                  /* 0: none */
	const struct il_strlist *argv;  /* the workload's argv */
};

struct il_lavajob {
	const char *job_name;
	const char *device_type;
	const struct il_strlist *tags;  /* NULL or empty: none */
	const char *priority;           /* "high" | "medium" | "low" | "0".."100"; NULL: medium */
	const char *visibility;         /* NULL: public */
	const char *template_text;      /* the host's job template (YAML); NULL: the built-in QEMU arm64 one */
	const char *template_label;     /* its file, for errors */
	const char *kernel_url, *ramdisk_url, *dtb_url, *modules_url; /* the placeholders' values; NULL: "" */
	const struct il_strlist *disable_union; /* every name any configuration of the plan disables */
	const struct il_lavajob_sample *samples;
	size_t nsamples;
};

/* The names of the placeholders a job template may use ({idlelab.NAME}), NULL-terminated. */
extern const char *const il_lavajob_placeholders[];

/*
 * Render the job as YAML, appended to out. Errors: the template does not
 * parse or is not a mapping with an "actions" list (naming template_label
 * and the line), an unknown placeholder, memory ran out.
 */
int il_lavajob_render(const struct il_lavajob *j, struct il_buf *out, struct il_err *err);

/* One file the block sent back (runners/lava-block.sh's il_attach; read back by run/lavajobarmour.c). */
struct il_lavajob_file {
	char *name;               /* "probe", "sample-SEQ", "sample-SEQ.err" */
	struct il_buf data;       /* the decoded bytes */
	bool ok;                  /* complete, and its size and SHA-256 are the ones announced */
	char why[160];            /* when not ok: what was wrong */
};

/*
 * The files in a job's console output (its "target" lines, in order):
 * between "IDLELAB-BEGIN NAME SHA256 BYTES" and "IDLELAB-END NAME" only
 * lines of the base64 alphabet count (a shell trace or LAVA's own signal
 * lines are skipped; anything that damaged the data shows as a checksum
 * mismatch, never as a wrong number). A file whose END never came is there
 * with ok false, and so are two complete files of one name (neither wins). *files (caller frees with il_lavajob_files_release) has *n.
 */
int il_lavajob_unarmour(const char *const *lines, size_t nlines, struct il_lavajob_file **files, size_t *n,
			struct il_err *err);
void il_lavajob_files_release(struct il_lavajob_file *files, size_t n);

/* The built-in template's text (the lab's arm64 kernel, initramfs and device tree under QEMU). */
const char *il_lavajob_default_template(void);

#endif
