// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Tested-by evidence block for a reply on linux-pm: what was tested on
 * what, how often, the compact table, the verdict in words, and the trailer
 * (identity from git config through libgit2, or --as).
 */
#include "report/report.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int identity(const char *as, struct il_buf *out, struct il_err *err)
{
	git_config *cfg = NULL;
	git_buf name = { 0 }, mail = { 0 };
	int r = 0;

	if (as) {
		const char *lt = strchr(as, '<'), *at = lt ? strchr(lt, '@') : NULL, *gt = at ? strchr(at, '>') : NULL;

		if (!lt || lt == as || !at || !gt || gt[1] || strchr(as, '\n'))
			return il_err_set(err, IL_EINVAL, "--as: expected \"Name <email>\", got '%s'", as);
		return il_buf_adds(out, as) ? il_err_set(err, IL_ENOMEM, "out of memory") : 0;
	}
	git_libgit2_init();
	if (git_config_open_default(&cfg) < 0 || git_config_get_string_buf(&name, cfg, "user.name") < 0 ||
	    git_config_get_string_buf(&mail, cfg, "user.email") < 0)
		r = il_err_set(err, IL_ENOTFOUND,
			       "no user.name/user.email in git config (%s): set them, or give --as \"Name <email>\"",
			       git_error_last() ? git_error_last()->message : "not found");
	else
		il_buf_printf(out, "%s <%s>", name.ptr, mail.ptr);
	git_buf_dispose(&name);
	git_buf_dispose(&mail);
	git_config_free(cfg);
	git_libgit2_shutdown();
	return r;
}

static const char *str(const json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));

	return s ? s : "?";
}

int il_report_tested_by(const struct il_cmp *c, const char *as, struct il_buf *b, struct il_err *err)
{
	const struct il_dataset *ds = c->ds;
	json_t *rs = json_object_get(ds->meta, "run_start"), *fps = json_object_get(ds->meta, "fingerprints"), *fp, *e;
	struct il_buf who = IL_BUF_INIT;
	const char *host;
	size_t i;
	int r;

	if (!rs)
		return il_err_set(err, IL_EINVAL, "tested-by needs a run directory (a journal with a run-start record)");
	if ((r = identity(as, &who, err)))
		return r;
	il_buf_printf(b, "Tested-by: %s\n\n", il_buf_str(&who));
	json_object_foreach(fps, host, fp) {
		json_t *ci = json_object_get(fp, "cpuidle"), *k = json_object_get(fp, "kernel");

		il_buf_printf(b, "Platform: %s (%s), CPUs %s, host %s\n",
			      json_is_string(json_object_get(fp, "cpu_model")) ? str(fp, "cpu_model") : "CPU model not reported",
			      str(k, "arch"),
			      str(fp, "online_cpus"), host);
		if (json_array_size(json_object_get(rs, "kernels")))
			il_buf_printf(b, "Host's own kernel: %s (%s); the kernels measured are listed below\n",
				      str(k, "release"), str(k, "version"));
		else
			il_buf_printf(b, "Kernel: %s (%s) - the running kernel, no commit id recorded\n", str(k, "release"),
				      str(k, "version"));
		il_buf_printf(b, "cpuidle: driver %s, states:", json_is_string(json_object_get(ci, "driver")) ?
								       str(ci, "driver") : "none");
		json_array_foreach(json_object_get(json_array_get(json_object_get(ci, "state_tables"), 0), "states"), i, e)
			il_buf_printf(b, " %s (%lld/%lld us)", str(e, "name"),
				      (long long)json_integer_value(json_object_get(e, "latency_us")),
				      (long long)json_integer_value(json_object_get(e, "residency_us")));
		il_buf_adds(b, "\n");
	}
	if (json_array_size(json_object_get(rs, "kernels"))) {
		struct il_buf line = IL_BUF_INIT;

		il_buf_adds(&line, "Kernels:");
		json_array_foreach(json_object_get(rs, "kernels"), i, e) {
			if (json_is_true(json_object_get(e, "running")))
				il_buf_printf(&line, "%s %s (the host's own)", i ? ";" : "", str(e, "name"));
			else
				il_buf_printf(&line, "%s %s (commit %.12s%s%s)", i ? ";" : "", str(e, "name"), str(e, "commit"),
					      json_is_string(json_object_get(e, "subject")) ? ", " : "",
					      json_is_string(json_object_get(e, "subject")) ? str(e, "subject") : "");
		}
		il_report_wrap(b, il_buf_str(&line), 100, 2);
		il_buf_carry(b, &line);
		il_buf_adds(b, "\n");
		il_buf_release(&line);
	}
	{
		struct il_buf line = IL_BUF_INIT;
		const char *label;

		il_buf_adds(&line, "Governors:");
		json_array_foreach(json_object_get(rs, "variants"), i, e) {
			json_t *d = json_object_get(e, "disable"), *x;
			const char *gov = json_is_string(json_object_get(e, "governor")) ? str(e, "governor") : NULL;
			bool paren = (gov && strcmp(gov, str(e, "label"))) || json_array_size(d);
			size_t k;

			il_buf_printf(&line, "%s %s", i ? "," : "", str(e, "label"));
			if (paren)
				il_buf_printf(&line, " (%s", gov && strcmp(gov, str(e, "label")) ? gov : "");
			json_array_foreach(d, k, x)
				il_buf_printf(&line, "%s%s disabled", k ? ", " : gov && strcmp(gov, str(e, "label")) ? "; " : "",
					      json_is_string(x) ? json_string_value(x) : "?");
			if (paren)
				il_buf_adds(&line, ")");
			if (!strcmp(str(e, "label"), ds->var[c->ref]))
				il_buf_adds(&line, " [reference]");
		}
		il_report_wrap(b, il_buf_str(&line), 100, 2);
		il_buf_carry(b, &line);
		il_buf_reset(&line);
		il_buf_adds(&line, "\nWorkloads:");
		i = 0;
		json_object_foreach(json_object_get(rs, "workloads"), label, e) {
			const char *pk;
			json_t *pv;
			bool first = true;

			il_buf_printf(&line, "%s %s", i++ ? ";" : "", label);
			if (strcmp(label, str(e, "workload")))
				il_buf_printf(&line, " (%s)", str(e, "workload"));
			json_object_foreach(json_object_get(e, "params"), pk, pv) {
				char *v = json_dumps(pv, JSON_ENCODE_ANY | JSON_REAL_PRECISION(6));

				il_buf_printf(&line, "%s%s=%s", first ? ": " : " ", pk, v ? v : "?");
				first = false;
				free(v);
			}
		}
		il_report_wrap(b, il_buf_str(&line), 100, 2);
		il_buf_carry(b, &line);
		il_buf_release(&line);
	}
	if (il_report_on_lab(ds)) {
		il_buf_adds(b, "\n");
		il_report_wrap(b, "Note: " IL_LAB_CAVEAT, 100, 2);
	}
	il_buf_printf(b, "\nIterations: %lld per variant and workload (+%lld warmup), order %s; %zu samples counted\n\n",
		      (long long)json_integer_value(json_object_get(rs, "iterations")),
		      (long long)json_integer_value(json_object_get(rs, "warmup")), str(rs, "order"), ds->counted);
	il_report_text(c, b, true);
	il_buf_printf(b, "\nTested-by: %s\n", il_buf_str(&who));
	il_buf_release(&who);
	r = il_buf_error(b);
	return r == IL_ETOOBIG ? il_err_set(err, r, "report too large") : r ? il_err_set(err, r, "out of memory") : 0;
}
