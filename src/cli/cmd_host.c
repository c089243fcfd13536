// SPDX-License-Identifier: GPL-2.0-or-later
/* `idlelab host list|show|check`: the inventory and the host probe. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/clipaths.h"
#include "cli/opt.h"
#include "host/probe.h"
#include "lab/labhost.h"
#include "idle/snapshotjson.h"
#include "report/environ.h"

static void print_check(json_t *j)
{
	json_t *k = json_object_get(j, "kernel"), *ci = json_object_get(j, "cpuidle"), *g;
	size_t i;

	printf("host %s: reachable via %s, auth %s, probe %.3f s\n", json_string_value(json_object_get(j, "host")),
	       json_string_value(json_object_get(j, "transport")), json_string_value(json_object_get(j, "auth")),
	       json_real_value(json_object_get(j, "probe_s")));
	printf("  user %s (uid %s), root %s, sudo %s\n", json_string_value(json_object_get(j, "user")),
	       json_string_value(json_object_get(j, "uid")), json_is_true(json_object_get(j, "root")) ? "yes" : "no",
	       json_string_value(json_object_get(j, "sudo")));
	printf("  kernel %s %s (%s)\n", json_string_value(json_object_get(k, "release")),
	       json_string_value(json_object_get(k, "arch")), json_string_value(json_object_get(k, "version")));
	printf("  cpu %s, online %s, boot_id %s\n", json_string_value(json_object_get(j, "cpu_model")) ?: "?",
	       json_string_value(json_object_get(j, "online_cpus")) ?: "?",
	       json_string_value(json_object_get(j, "boot_id")) ?: "?");
	printf("  cpuidle driver %s, governor %s%s, available:", json_string_value(json_object_get(ci, "driver")) ?: "none",
	       json_string_value(json_object_get(ci, "governor")) ?: "-",
	       json_is_true(json_object_get(ci, "governor_writable")) ? "" : " (read-only)");
	json_array_foreach(json_object_get(ci, "available_governors"), i, g)
		printf(" %s", json_string_value(g));
	printf("\n");
	json_array_foreach(json_object_get(ci, "state_tables"), i, g) {
		size_t k2;
		json_t *s;

		printf("  cpus %s:", json_string_value(json_object_get(g, "cpus")));
		json_array_foreach(json_object_get(g, "states"), k2, s)
			printf(" %s(%lld/%lld us)", json_string_value(json_object_get(s, "name")),
			       (long long)json_integer_value(json_object_get(s, "latency_us")),
			       (long long)json_integer_value(json_object_get(s, "residency_us")));
		printf("\n");
	}
	if (!json_integer_value(json_object_get(ci, "nstates_total")))
		printf("  no idle states on this host: idle counters cannot be measured here\n");
	/* the same environment lines a Tested-by discloses */
	{
		struct il_buf env = IL_BUF_INIT;

		il_environ_report(j, false, &env);
		for (const char *p = il_buf_str(&env); *p;) {
			size_t n = strcspn(p, "\n");

			printf("  %.*s\n", (int)n, p);
			p += n + (p[n] == '\n');
		}
		il_buf_release(&env);
	}
	printf("  tools:");
	{
		const char *key;
		json_t *v;

		json_object_foreach(json_object_get(j, "tools"), key, v)
			printf(" %s", key);
	}
	printf("\n");
}

int il_cmd_host(int argc, char **argv)
{
	IL_CLI_PATHS(paths);
	struct il_cli_dirs dirs = { 0 };
	bool json = false, verbose = false;
	const struct il_opt opts[] = {
		IL_CLI_OPT_HOSTS_DIR(&dirs),
		IL_OPT_BOOL_FOR("list", 'v', "verbose", &verbose, "list: also the file each host comes from (idlelab paths -v: what it shadows)"),
		IL_OPT_BOOL_FOR("show,check", 0, "json", &json, "JSON output (show, check)"),
		IL_OPT_END_,
	};
	static const char *const usage[] = { "idlelab host list [-v] [--hosts-dir DIR]",
					     "idlelab host show NAME [--hosts-dir DIR]",
					     "idlelab host check NAME [--json] [--hosts-dir DIR]", NULL };
	struct il_err err = { 0 };
	int nargs, r;

	if ((r = il_cli_begin(argc, argv, opts, usage, &dirs, &paths, &nargs)) >= 0)
		return r;
	if (!nargs)
		return il_opt_error(opts, usage, "missing action (list, show or check)");
	if (!strcmp(argv[1], "list")) {
		struct il_strlist names = { 0 };

		if (il_host_list(&names, &paths, &err))
			return il_cli_fail(&err);
		for (size_t i = 0; i < names.n; i++) {
			struct il_host_cfg h;

			if (il_lab_host_load(&h, &paths, names.v[i], &err)) {
				printf("%-16s (invalid: %s)\n", names.v[i], err.msg);
				continue;
			}
			{
				struct il_buf where = IL_BUF_INIT;

				il_host_where(&h, &where);
				if (verbose)
					printf("%-16s %-40s %s\n", h.name, il_buf_str(&where), h.path ? h.path : "(built in)");
				else
					printf("%-16s %s\n", h.name, il_buf_str(&where));
				il_buf_release(&where);
			}
			il_host_release(&h);
		}
		il_strlist_release(&names);
		return IL_EXIT_OK;
	}
	if ((!strcmp(argv[1], "show") || !strcmp(argv[1], "check")) && nargs == 2) {
		struct il_host_cfg h;
		struct il_transport *t = NULL;
		json_t *j = NULL;

		if (il_lab_host_load(&h, &paths, argv[2], &err))
			return il_cli_fail(&err);
		if (!strcmp(argv[1], "show")) {
			r = il_cli_output_json(NULL, il_host_to_json(&h), &err);
		} else if (!(r = il_transport_open(&t, &h, &err)) && !(r = il_probe_run(t, &j, NULL, &err))) {
			if (json)
				r = il_cli_output_json(NULL, j, &err);
			else {
				print_check(j);
				json_decref(j);
			}
		}
		il_transport_free(t);
		il_host_release(&h);
		return r ? il_cli_fail(&err) : IL_EXIT_OK;
	}
	return il_opt_error(opts, usage, "unknown host action '%s' or wrong arguments", argv[1]);
}
