/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The `boot` and `power_cycle` sections of a host file: the boot methods
 * (a table in bootcfg.c: name, which keys each takes), the parser (through
 * util/jfields, errors "FILE: boot.KEY: expected WHAT"), the JSON form, and
 * the command templates ({image} {modules} {initrd} {release} {host}
 * {address} {port}). A leaf: it knows no other host file. Executing a boot
 * is host/boot.c. struct il_boot_cfg owns its strings: il_boot_cfg_release.
 */
#ifndef IL_HOST_BOOTCFG_H
#define IL_HOST_BOOTCFG_H
#include <stdbool.h>
#include <jansson.h>
#include "util/err.h"
#include "util/strlist.h"

enum il_boot_method { IL_BOOT_NONE, IL_BOOT_LABVM, IL_BOOT_KEXEC, IL_BOOT_GRUB, IL_BOOT_COMMAND, IL_BOOT_N };

struct il_power_cycle {
	struct il_strlist argv;   /* a command run on this machine (templated like boot.argv), or */
	char *url;                /* an HTTP(S) request (util/http.h) */
	char *url_shown;          /* url with its password and query hidden: all that is printed or journaled */
	char *method;             /* HTTP method; default POST */
	char *body;               /* request body; NULL: none */
	struct il_strlist headers;
	int timeout_s;            /* for the hook itself; default 30 */
	int wait_s;               /* then wait this long for the host; 0: the boot timeout */
};

struct il_boot_cfg {
	enum il_boot_method method;
	struct il_strlist argv;   /* command: argv template (see the placeholders above) */
	struct il_strlist back_argv; /* command: back to the host's own kernel; empty: `reboot` on the host */
	char *cmdline;            /* kexec: kernel command line; NULL: the running one's /proc/cmdline */
	char *initrd;             /* kexec, grub-reboot: a file here, uploaded and used as the initrd */
	char *remote_dir;         /* where uploads go on the host; NULL: <idlelab's working directory>/boot */
	char *lab;                /* the host is lab instance `lab` (address, port, keys from it: lab/labhost.h) */
	int timeout_s;            /* boot_timeout_s: new boot up, SSH and probe within; default 300 */
	bool has_power_cycle;
	struct il_power_cycle power_cycle;
};

/*
 * Parse the `boot` and `power_cycle` values (either may be NULL) of host
 * file label into c (zeroed by the caller, or with c->lab, c->method and
 * c->timeout_s preset for a lab host). On error release c as usual.
 */
int il_boot_cfg_parse(struct il_boot_cfg *c, const json_t *boot, const json_t *power_cycle, const char *label,
		      struct il_err *err);
void il_boot_cfg_release(struct il_boot_cfg *c);
const char *il_boot_method_name(enum il_boot_method m);
/* The configuration as JSON (for `host show` and the journal); caller owns it; NULL: no memory left. */
json_t *il_boot_cfg_to_json(const struct il_boot_cfg *c);

/* The template placeholders, in the order of the vals[] il_boot_argv takes. */
enum il_boot_ph { IL_PH_IMAGE, IL_PH_MODULES, IL_PH_INITRD, IL_PH_RELEASE, IL_PH_HOST, IL_PH_ADDRESS, IL_PH_PORT,
		  IL_PH_N };

/* tpl with its placeholders replaced (vals[i] NULL: ""), as a NULL-terminated argv the caller frees with free(). */
int il_boot_argv(const struct il_strlist *tpl, const char *const vals[IL_PH_N], char ***argv, struct il_err *err);

#endif
