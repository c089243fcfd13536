// SPDX-License-Identifier: GPL-2.0-or-later
/* RFC 5322 mailboxes with GMime (util/mailbox.h). */
#include "util/mailbox.h"

#include <gmime/gmime.h>
#include <stdbool.h>
#include <string.h>

static bool gmime_ready;

void il_mailbox_gmime_init(void)
{
	if (!gmime_ready) {
		g_mime_init();
		gmime_ready = true;
	}
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

int il_mailbox_check(const char *s, const char *what, struct il_err *err)
{
	InternetAddressList *l;
	bool ok = false;

	il_mailbox_gmime_init();
	if (s && *s && !has_control(s) && (l = internet_address_list_parse(NULL, s))) {
		if (internet_address_list_length(l) == 1 && INTERNET_ADDRESS_IS_MAILBOX(internet_address_list_get_address(l, 0))) {
			InternetAddress *ia = internet_address_list_get_address(l, 0);
			const char *addr = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(ia));
			const char *name = internet_address_get_name(ia);
			const char *at = addr ? strchr(addr, '@') : NULL;

			ok = name && *name && at && at > addr && at[1];
		}
		g_object_unref(l);
	}
	return ok ? 0 : il_err_set(err, IL_EINVAL, "%s: expected \"Name <email>\", got '%s'", what, s ? s : "");
}

int il_mailbox_make(const char *name, const char *addr, const char *what, struct il_buf *out, struct il_err *err)
{
	InternetAddress *ia;
	char *s;
	int r;

	il_mailbox_gmime_init();
	if (has_control(name) || has_control(addr))
		return il_err_set(err, IL_EINVAL, "%s: control characters in '%s <%s>'", what, name, addr);
	if (!(ia = internet_address_mailbox_new(name, addr)))
		return il_err_oom(err);
	/* encode FALSE: the name as the user wrote it (UTF-8), quoted where RFC 5322 wants it */
	s = internet_address_to_string(ia, NULL, FALSE);
	g_object_unref(ia);
	if (!s)
		return il_err_oom(err);
	r = il_mailbox_check(s, what, err);
	if (!r && il_buf_adds(out, s))
		r = il_err_oom(err);
	g_free(s);
	return r;
}
