// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stop rule over comparisons (stats/compare.h): whether every key
 * comparison is decided, or settled (the unknown ones futile within an
 * adaptive run's maximum), over one comparison or several judged together,
 * and a run's journal judged as its report is (run/engine.h's judge).
 */
#include "stats/compare.h"

bool il_compare_decided(const struct il_cmp *c)
{
	size_t total = 0;

	for (int v = 0; v < IL_NVERDICTS; v++)
		total += c->n[v];
	return total && c->n[IL_VERDICT_UNKNOWN] == 0 && c->n[IL_VERDICT_UNRELIABLE] == 0;
}

bool il_compare_settled(const struct il_cmp *c)
{
	return il_compare_decided(c) || (c->iter_max && c->n[IL_VERDICT_UNKNOWN] && c->n[IL_VERDICT_UNRELIABLE] == 0 &&
					 c->nfutile == c->n[IL_VERDICT_UNKNOWN]);
}

int il_compare_judge(const struct il_cmp *c, size_t n, struct il_buf *why)
{
	size_t cnt[IL_NVERDICTS] = { 0 }, needed = 0, iter_max = 0;
	bool decided = n > 0, settled = n > 0;
	int r;

	for (size_t i = 0; i < n; i++) {
		for (int v = 0; v < IL_NVERDICTS; v++)
			cnt[v] += c[i].n[v];
		needed = c[i].n_needed_max > needed ? c[i].n_needed_max : needed;
		iter_max = c[i].iter_max > iter_max ? c[i].iter_max : iter_max;
		decided &= il_compare_decided(&c[i]);
		settled &= il_compare_settled(&c[i]);
	}
	if (decided) {
		il_buf_printf(why, "every key comparison decided (%zu better, %zu worse, %zu changed, %zu the same)",
			      cnt[IL_VERDICT_BETTER], cnt[IL_VERDICT_WORSE], cnt[IL_VERDICT_CHANGED], cnt[IL_VERDICT_SAME]);
		r = 1;
	} else if (settled) {
		il_buf_printf(why, "%zu better, %zu worse, %zu changed, %zu the same; the %zu unknown would need up to %zu "
				   "samples a side, beyond the run's maximum of %zu",
			      cnt[IL_VERDICT_BETTER], cnt[IL_VERDICT_WORSE], cnt[IL_VERDICT_CHANGED], cnt[IL_VERDICT_SAME],
			      cnt[IL_VERDICT_UNKNOWN], needed, iter_max);
		r = 2;
	} else {
		il_buf_printf(why, "%zu key comparison%s unknown", cnt[IL_VERDICT_UNKNOWN], cnt[IL_VERDICT_UNKNOWN] == 1 ? "" : "s");
		if (needed)
			il_buf_printf(why, " (up to %zu samples per side would tell)", needed);
		if (cnt[IL_VERDICT_UNRELIABLE])
			il_buf_printf(why, ", %zu unreliable (host not quiet)", cnt[IL_VERDICT_UNRELIABLE]);
		r = 0;
	}
	return r;
}

int il_compare_run_decided(const char *run_dir, struct il_buf *why, struct il_err *err)
{
	struct il_cmp_opts o = IL_CMP_OPTS_INIT;
	struct il_dataset ds = { 0 };
	struct il_cmp c = { 0 };
	struct il_err e = { 0 };
	int r;

	if ((r = il_datajournal_add_run(&ds, run_dir, NULL, err))) {
		il_dataset_release(&ds);
		return r;
	}
	if (il_compare(&c, &ds, &o, &e)) {
		/* nothing counted yet (every sample failed, say): not decided, and why */
		il_buf_adds(why, e.msg);
		r = 0;
	} else {
		r = il_compare_judge(&c, 1, why);
	}
	il_compare_release(&c);
	il_dataset_release(&ds);
	return il_buf_error(why) ? il_err_oom(err) : r;
}
