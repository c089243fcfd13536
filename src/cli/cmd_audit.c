// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `idlelab audit [HOST...]`: the fleet's idle efficiency: hosts from the
 * inventory, a list file and ~/.ssh/config aliases, each probed over one
 * exec with two snapshots a window apart (host/fleet.h), judged against a
 * policy (workflow/audit.h), rendered (report/audit.h). Exit 0 clean, 3 when a
 * finding is at or above --fail-on, 1 on failure.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "host/hostkind.h"
#include "host/fleet.h"
#include "lab/labhost.h"
#include "report/audit.h"
#include "workflow/audit.h"
#include "workflow/auditfleet.h"
#include "util/clock.h"
#include "util/search.h"

enum { IL_EXIT_FINDINGS = 3 };

/* The hosts to audit, by the order named; a name given twice is audited once. */
struct targets {
	struct il_host_cfg *h;
	size_t n;
	struct il_strlist names;
};

static int add_target(struct targets *t, struct il_host_cfg *h, struct il_err *err)
{
	struct il_host_cfg *n;

	if (il_strlist_has(&t->names, h->name)) {
		il_host_release(h);
		return 0;
	}
	if (!(n = realloc(t->h, (t->n + 1) * sizeof(*n))) || il_strlist_push(&t->names, h->name)) {
		if (n)
			t->h = n;
		il_host_release(h);
		return il_err_oom(err);
	}
	t->h = n;
	t->h[t->n++] = *h;
	return 0;
}

/* A HOST argument: a host file's name, an ~/.ssh/config alias, or [user@]host[:port]; --all skips LAVA hosts. */
static int resolve(struct targets *t, const struct il_paths *paths, const char *arg, const char *label,
		   bool from_all, struct il_err *err)
{
	struct il_host_cfg h;
	struct il_buf file = IL_BUF_INIT;
	char *found = NULL;
	bool has_file;
	int r;

	/* the host file as the inventory finds it: the first directory of the hosts search path */
	if (il_buf_printf(&file, "%s.json", arg) ||
	    (!strchr(arg, '/') && il_search_find(&found, paths->hosts_dir ? paths->hosts_dir : "hosts", il_buf_str(&file))))
		return il_buf_release(&file), il_err_oom(err);
	has_file = !strcmp(arg, "local") || found;
	free(found);
	il_buf_release(&file);
	if (has_file) {
		if ((r = il_lab_host_load(&h, paths, arg, err)))
			return r;
		/* a host not reached by commands (LAVA's: a device type reached through jobs) is no machine to audit */
		if (!il_host_kinds[h.kind].commands) {
			il_host_release(&h);
			return from_all ? 0
					: il_err_set(err, IL_EINVAL, "host '%s' is a LAVA host (a device type reached "
						     "through LAVA jobs): audits reach machines over SSH or a transport", arg);
		}
	} else if (!strpbrk(arg, "@:.") && !il_host_ssh_alias(paths, arg))
		return il_err_set(err, IL_ENOTFOUND,
				  "host '%s': no host file %s.json in '%s' and no ~/.ssh/config alias (user@host audits an "
				  "address)", arg, arg, paths->hosts_dir ? paths->hosts_dir : "hosts");
	else
		/* an alias: libssh reads its HostName, Port, User and IdentityFile from the same config */
		r = il_host_from_spec(&h, arg, label, paths, err);
	return r ? r : add_target(t, &h, err);
}

static void progress(const struct il_fleet_item *it, size_t done, size_t n, void *arg)
{
	if (*(bool *)arg)
		fprintf(stderr, "\raudit: %zu/%zu hosts (%s %s)\033[K", done, n, it->cfg->name, it->code ? "failed" : "ok");
}

int il_cmd_audit(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	struct il_cli_dirs dirs = { 0 };
	bool all = false, verbose = false;
	double window = 5;
	const char *inventory = NULL, *policy_f = NULL, *fmt_s = "text", *fail_s = "warning", *out = NULL;
	long jobs = 64;
	const struct il_opt opts[] = {
		IL_CLI_OPT_HOSTS_DIR(&dirs),
		IL_OPT_BOOL(0, "all", &all, "every host file of the inventory directory"),
		IL_OPT_STR(0, "inventory", &inventory, "FILE", "hosts from FILE: one [user@]host[:port] a line"),
		IL_OPT_DBL(0, "window", &window, "S", "seconds between the two snapshots (default 5)"),
		IL_OPT_NUM(0, "jobs", &jobs, "N", "hosts in flight (default 64)"),
		IL_OPT_STR(0, "policy", &policy_f, "FILE", "the audit policy (default: built in, as examples/audit/policy.json)"),
		IL_OPT_STR(0, "format", &fmt_s, "FMT", "text, json, csv or html (default text)"),
		IL_OPT_STR(0, "fail-on", &fail_s, "SEVERITY", "exit 3 when a finding is at least info, warning (default) or critical"),
		IL_OPT_STR('o', "output", &out, "FILE", "write the report to FILE instead of stdout"),
		IL_OPT_BOOL('v', "verbose", &verbose, "show progress on stderr"),
		IL_OPT_END_,
	};
	static const char *const usage[] = {
		"idlelab audit [HOST...] [--all] [--inventory FILE] [--window S] [--jobs N] [--policy FILE]",
		"              [--format text|json|csv|html] [--fail-on SEVERITY] [-o FILE]", NULL
	};
	struct targets t = { 0 };
	struct il_audit_policy pol;
	struct il_fleet_item *items = NULL;
	struct il_audit_host *hosts = NULL;
	struct il_audit_fleet fleet = { 0 };
	struct il_audit_run run = { 0 };
	struct il_fleet_opts fo = { 0 };
	struct il_buf text = IL_BUF_INIT;
	struct il_err err = { 0 };
	enum il_audit_fmt fmt;
	enum il_audit_sev fail_on;
	double t0;
	int nargs, r, rc = IL_EXIT_FAIL;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (il_audit_fmt_parse(fmt_s, &fmt, &err) || il_audit_sev_parse(fail_s, &fail_on, &err))
		return il_opt_error(opts, usage, "%s", err.msg);
	if (window < 0 || window > 3600)
		return il_opt_error(opts, usage, "--window: expected seconds from 0 to 3600, not %g", window);
	if (jobs < 1 || jobs > 4096)
		return il_opt_error(opts, usage, "--jobs: expected 1 to 4096");
	if (!nargs && !all && !inventory)
		return il_opt_error(opts, usage, "no hosts: name some, or give --all or --inventory FILE");
	if (il_audit_policy_default(&pol, &err))
		return il_cli_fail(&err);
	if (policy_f && (r = il_audit_policy_load(&pol, policy_f, &err)))
		goto done;
	for (int i = 1; i <= nargs; i++)
		if ((r = resolve(&t, &paths, argv[i], "argument", false, &err)))
			goto done;
	if (all) {
		struct il_strlist names = { 0 };

		if ((r = il_host_list(&names, &paths, &err)))
			goto done;
		for (size_t i = 0; i < names.n && !r; i++)
			if (strcmp(names.v[i], "local"))
				r = resolve(&t, &paths, names.v[i], "inventory", true, &err);
		il_strlist_release(&names);
		if (r)
			goto done;
	}
	if (inventory) {
		struct il_strlist lines = { 0 };

		r = il_host_list_file(&lines, inventory, &err);
		for (size_t i = 0; i < lines.n && !r; i++) {
			struct il_host_cfg h;

			if (!(r = il_host_from_spec(&h, lines.v[i], inventory, &paths, &err)))
				r = add_target(&t, &h, &err);
		}
		il_strlist_release(&lines);
		if (r)
			goto done;
	}
	if (!t.n) {
		il_err_set(&err, IL_EINVAL, "no hosts to audit (the inventory is empty)");
		goto done;
	}
	items = calloc(t.n, sizeof(*items));
	hosts = calloc(t.n, sizeof(*hosts));
	if (!items || !hosts) {
		il_err_oom(&err);
		goto done;
	}
	for (size_t i = 0; i < t.n; i++)
		items[i].cfg = &t.h[i];
	fo.jobs = (size_t)jobs;
	fo.window_s = window;
	fo.done = progress;
	fo.arg = &verbose;
	t0 = il_clock_mono_s();
	if ((r = il_fleet_collect(items, t.n, &fo, &err)))
		goto done;
	run.wall_s = il_clock_mono_s() - t0;
	if (verbose)
		fprintf(stderr, "\n");
	run.window_s = window;
	run.jobs = (size_t)jobs < t.n ? (size_t)jobs : t.n;
	t0 = il_clock_mono_s();
	for (size_t i = 0; i < t.n; i++) {
		struct il_fleet_item *it = &items[i];

		run.connect_s += it->connect_s;
		run.exec_s += it->exec_s;
		r = it->code ? il_audit_unreached(&hosts[i], t.h[i].name, it->code, it->msg, &pol, &err) :
			       il_audit_judge(&hosts[i], t.h[i].name, it->fp, &it->a, &it->b, &pol, &err);
		il_fleet_item_release(it);
		if (r)
			goto done;
	}
	if ((r = il_audit_fleet_make(&fleet, hosts, t.n, &err)))
		goto done;
	run.judge_s = il_clock_mono_s() - t0;
	if ((r = il_report_audit(&fleet, &run, fmt, &text, &err)) || (r = il_cli_output(out, text.p, text.len, &err)))
		goto done;
	rc = il_audit_fleet_fails(&fleet, fail_on) ? IL_EXIT_FINDINGS : IL_EXIT_OK;
done:
	if (rc == IL_EXIT_FAIL)
		il_cli_fail(&err);
	il_buf_release(&text);
	il_audit_fleet_release(&fleet);
	for (size_t i = 0; items && i < t.n; i++)
		il_fleet_item_release(&items[i]);
	for (size_t i = 0; hosts && i < t.n; i++)
		il_audit_host_release(&hosts[i]);
	for (size_t i = 0; i < t.n; i++)
		il_host_release(&t.h[i]);
	free(t.h);
	il_strlist_release(&t.names);
	free(items);
	free(hosts);
	il_audit_policy_release(&pol);
	return rc;
}
