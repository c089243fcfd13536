// SPDX-License-Identifier: GPL-2.0-or-later
/* A bisection's answer: its release and its JSON (see bisectresult.h). */
#include "workflow/bisectresult.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/jfields.h"

void il_bisect_step_release(struct il_bisect_step *st)
{
	free(st->commit), free(st->subject), free(st->verdict), free(st->reason);
	json_decref(st->metrics);
	memset(st, 0, sizeof(*st));
}

void il_bisect_result_release(struct il_bisect_result *r)
{
	for (size_t i = 0; i < r->nsteps; i++)
		il_bisect_step_release(&r->steps[i]);
	free(r->steps), free(r->state), free(r->first_bad);
	if (r->confirm)
		il_bisect_step_release(r->confirm);
	free(r->confirm), free(r->confirm_note);
	il_strlist_release(&r->range);
	json_decref(r->endpoints);
	memset(r, 0, sizeof(*r));
}

static json_t *step_json(const struct il_bisect_step *s)
{
	return json_pack("{s:s,s:s?,s:s,s:s?,s:I,s:o,s:O?}", "commit", s->commit, "subject", s->subject, "verdict",
			 s->verdict, "reason", s->reason, "n", (json_int_t)s->n, "p_wrong",
			 isfinite(s->p_wrong) ? json_real(s->p_wrong) : json_null(), "metrics", s->metrics);
}

json_t *il_bisect_result_json(const struct il_bisect_result *r)
{
	json_t *steps = json_array(), *o;

	for (size_t i = 0; steps && i < r->nsteps; i++)
		if (json_array_append_new(steps, step_json(&r->steps[i]))) {
			json_decref(steps);
			return NULL;
		}
	/* "o" steals steps, also when the pack fails */
	o = json_pack("{s:s,s:s,s:s?,s:o,s:O?,s:o,s:I,s:f,s:b}", "schema", "idlelab-bisect/1", "state",
		      r->state ? r->state : "?", "first_bad", r->first_bad, "range", il_jfields_strlist_json(&r->range),
		      "endpoints", r->endpoints, "steps", steps, "samples", (json_int_t)r->samples, "p_wrong",
		      r->p_wrong, "weak", r->weak);
	if (o && (r->confirm || r->confirm_note) &&
	    json_object_set_new(o, "confirmation", r->confirm ? step_json(r->confirm) :
							    json_pack("{s:s,s:s}", "verdict", "not measured", "reason",
								      r->confirm_note))) {
		json_decref(o);
		return NULL;
	}
	return o;
}
