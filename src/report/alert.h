/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A regression alert in the style of the kernel test robot (lkp): from the
 * JSON that describes the regressions of one branch tip against its baseline
 * (docs/alerts.md "Alert input"), a mail subject, a mail body (a header
 * paragraph, a table of at most 100 columns per workload, the commit range,
 * the reproduce and bisect commands) and the webhook JSON with the same
 * facts (schema "idlelab-alert/1"); and the webhook's delivery.
 */
#ifndef IL_REPORT_ALERT_H
#define IL_REPORT_ALERT_H
#include <jansson.h>
#include "util/err.h"
#include "util/strlist.h"

/*
 * Compose the alert from in. *subject ("idlelab: +12.7% regression of
 * WORKLOAD.METRIC (VARIANT) [and N more] on BRANCH COMMIT12", the largest
 * |change_pct| named), *body (UTF-8, LF line ends) and *webhook are the
 * caller's (free, free, json_decref); any of the three may be NULL when not
 * wanted. Nothing is returned on error: IL_EPARSE "alert: PATH: expected
 * WHAT" naming the JSON path of the bad value (unknown keys too), IL_ENOMEM.
 */
int il_alert_compose(const json_t *in, char **subject, char **body, json_t **webhook, struct il_err *err);

/*
 * POST json to url (http:// or https://) with Content-Type: application/json
 * and the extra "Name: value" headers (NULL: none). A transfer failure or an
 * answer other than 2xx (redirects are not followed) is an error naming the
 * URL redacted (il_http_url_shown) and the status: IL_ECONNECT,
 * IL_ETIMEOUT, IL_EIO (the status), IL_ENOMEM. accepted (may be NULL) is
 * called the moment a 2xx status arrives, where a delivery is recorded.
 */
int il_alert_post_webhook(const char *url, const json_t *json, const struct il_strlist *headers,
			  void (*accepted)(void *ctx), void *ctx, struct il_err *err);

#endif
