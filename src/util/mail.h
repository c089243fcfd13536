/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One plain-text mail: its RFC 5322 form (headers, UTF-8 body, CRLF) and its
 * delivery over SMTP with libcurl (util/http.c's shared setup: SMTP only,
 * no signals, timeouts, one error mapping). Credentials come from an auth
 * file that must be private to the caller; the password never reaches a
 * message, and the server URL is only ever shown redacted.
 */
#ifndef IL_UTIL_MAIL_H
#define IL_UTIL_MAIL_H
#include <stdbool.h>
#include "util/buf.h"
#include "util/err.h"
#include "util/strlist.h"

struct il_mail {
	const char *url;               /* smtp://host:port or smtps://host:port */
	bool starttls;                 /* require STARTTLS (CURLUSESSL_ALL) on smtp:// */
	const char *auth_file;         /* NULL: no login; else one line "user:password" (il_mail_auth_read) */
	const char *from;              /* an address, "user@domain" */
	const struct il_strlist *to;   /* addresses; at least one to send */
	const char *subject, *body;    /* UTF-8; the body's lines end in LF (made CRLF here) */
	long timeout_s;                /* the whole delivery, and each server answer in it; 0: 60 s */
	const char *message_id;        /* the Message-ID's part before "@" (letters, digits, . - _ + =); NULL: made unique */
	/*
	 * Called once the server accepted the message (its answer to the final
	 * "."), before the goodbye (QUIT) that may still hang: whoever must
	 * record the delivery records it here, not after il_mail_send returns.
	 */
	void (*accepted)(void *ctx);
	void *accepted_ctx;
};

/*
 * The message as sent: Date, From, To (left out when m->to is NULL or empty:
 * a dry run), Subject (RFC 2047 encoded-words when not ASCII), Message-ID,
 * MIME-Version, Content-Type text/plain; charset=utf-8,
 * Content-Transfer-Encoding 8bit, a blank line and the body; line ends CRLF
 * when crlf, else LF. Appended to out. IL_EINVAL (naming the field) for an
 * address or subject that would break the header (a line end, a control
 * byte, not an address), a body that is not UTF-8, with a control byte or
 * a line over 998 bytes.
 */
int il_mail_compose(const struct il_mail *m, bool crlf, struct il_buf *out, struct il_err *err);

/*
 * Send m: compose it, log in with the auth file's credentials when given,
 * and hand it to the server (libcurl does the SMTP dialogue and the
 * dot-stuffing). Errors name the URL redacted (il_http_url_shown) and never
 * the password: IL_EINVAL (the mail, or a URL that is not smtp:// or
 * smtps://), IL_EPERM/IL_EIO/IL_ENOTFOUND (the auth file), IL_ECONNECT (the
 * server, with its words), IL_EAUTH (login refused), IL_ETIMEOUT. The
 * whole dialogue, and each server answer in it, takes at most timeout_s; the
 * goodbye (QUIT) is not waited for: once the message was answered the
 * connection is shut down.
 */
int il_mail_send(const struct il_mail *m, struct il_err *err);

/*
 * The credentials in path: its first line "user:password" (a final CR/LF
 * dropped; the password may hold ':'). path must be a regular file (a
 * symbolic link is refused, never followed) owned by this process's
 * effective uid with no permission for group or others (mode 0600 or
 * stricter): IL_EPERM otherwise, IL_ENOTFOUND when missing, IL_EPARSE when
 * the line has no ':' or an empty user. Messages name the file, never its
 * contents. *user and *password are the caller's: free *password with
 * il_mail_auth_wipe.
 */
int il_mail_auth_read(const char *path, char **user, char **password, struct il_err *err);

/* Overwrite and free a password (NULL is fine). */
void il_mail_auth_wipe(char *password);

#endif
