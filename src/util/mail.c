// SPDX-License-Identifier: GPL-2.0-or-later
/* One plain-text mail: its RFC 5322 text and its delivery over SMTP with libcurl (see mail.h). */
#include "util/mail.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/http.h"
#include "util/str.h"
#include "util/utf8.h"

/* RFC 5321's limit on a line, CRLF excluded; 8bit bodies must keep to it. */
#define LINE_MAX_BYTES 998
/* What one auth file may hold: one line, a user and a password. */
#define AUTH_MAX 4096

/* ---- Checking what goes into the headers and the body ---- */

/* s is UTF-8 text without control bytes (tab allowed; newline too with lines), with lines of at most 998 bytes. */
static bool text_ok(const char *s, bool lines)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t col = 0, n;

	while (*p) {
		if (*p == '\n' && lines) {
			col = 0;
			p++;
			continue;
		}
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f || !(n = il_utf8_len(p)))
			return false;
		if ((col += n) > LINE_MAX_BYTES)
			return false;
		p += n;
	}
	return true;
}

/* An address as SMTP and a header take it: "local@domain", printable ASCII, no blank or bracket. */
static bool addr_ok(const char *s)
{
	const char *at = s ? strchr(s, '@') : NULL;

	if (!at || at == s || !at[1] || strchr(at + 1, '@'))
		return false;
	for (const char *p = s; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || strchr("<>()[],;:\"\\", *p))
			return false;
	return true;
}

/* ---- The message text ---- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int add_base64(struct il_buf *b, const unsigned char *s, size_t n)
{
	int r = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
		char q[4] = { b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < n ? b64[v >> 6 & 63] : '=', i + 2 < n ? b64[v & 63] : '=' };

		r |= il_buf_add(b, q, 4);
	}
	return r;
}

/*
 * "Subject: ..." folded: ASCII at blanks past 78 columns; anything else as
 * RFC 2047 "=?UTF-8?B?...?=" words of at most 45 bytes of text each (75
 * columns with the wrapper), cut between characters, one per line.
 */
static int add_subject(struct il_buf *b, const char *s, const char *eol)
{
	bool ascii = true;
	size_t col = 9, n = strlen(s);
	int r = il_buf_adds(b, "Subject: ");

	for (const char *p = s; *p; p++)
		ascii &= !(*p & 0x80);
	if (ascii) {
		while (*s) {
			const char *sp = strchr(s + 1, ' ');
			size_t w = sp ? (size_t)(sp - s) : strlen(s);

			/* fold before a blank: the blank starts the continuation line */
			if (col > 9 && col + w > 78) {
				r |= il_buf_adds(b, eol);
				col = 0;
			}
			r |= il_buf_add(b, s, w);
			col += w;
			s += w;
		}
		return r | il_buf_adds(b, eol);
	}
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && j - i + il_utf8_len((const unsigned char *)s + j) <= 45)
			j += il_utf8_len((const unsigned char *)s + j);
		if (i)
			r |= il_buf_printf(b, "%s ", eol);
		r |= il_buf_adds(b, "=?UTF-8?B?");
		r |= add_base64(b, (const unsigned char *)s + i, j - i);
		r |= il_buf_adds(b, "?=");
		i = j;
	}
	return r | il_buf_adds(b, eol);
}

/* RFC 5322's date, in UTC, without the locale's day and month names. */
static int add_date(struct il_buf *b, const char *eol)
{
	static const char *const day[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	return il_buf_printf(b, "Date: %s, %02d %s %04d %02d:%02d:%02d +0000%s", day[tm.tm_wday], tm.tm_mday,
			     mon[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec, eol);
}

/* A Message-ID unique without a registry: time, pid and 64 random bits, at the sender's domain. */
static int add_message_id(struct il_buf *b, const char *from, const char *local, const char *eol)
{
	uint32_t rnd[2] = { 0, 0 };
	time_t now = time(NULL);
	struct tm tm;

	/* the caller's: the same message sent again keeps its id, so a reader's mail client shows it once */
	if (local)
		return il_buf_printf(b, "Message-ID: <%s@%s>%s", local, strchr(from, '@') + 1, eol);
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd[0] = (uint32_t)clock(), rnd[1] = (uint32_t)now; /* still unique enough with time and pid */
	gmtime_r(&now, &tm);
	return il_buf_printf(b, "Message-ID: <%04d%02d%02d%02d%02d%02d.%ld.%08x%08x.idlelab@%s>%s", tm.tm_year + 1900,
			     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (long)getpid(), rnd[0], rnd[1],
			     strchr(from, '@') + 1, eol);
}

int il_mail_compose(const struct il_mail *m, bool crlf, struct il_buf *out, struct il_err *err)
{
	const char *eol = crlf ? "\r\n" : "\n";
	int r;

	if (!addr_ok(m->from))
		return il_err_set(err, IL_EINVAL, "mail: from: expected an address user@domain, got '%s'",
				  m->from ? m->from : "");
	for (size_t i = 0; m->to && i < m->to->n; i++)
		if (!addr_ok(m->to->v[i]))
			return il_err_set(err, IL_EINVAL, "mail: to: expected an address user@domain, got '%s'", m->to->v[i]);
	if (m->message_id && (!*m->message_id || strlen(m->message_id) > 200 ||
			      m->message_id[strspn(m->message_id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
							     "0123456789.-_+=")]))
		return il_err_set(err, IL_EINVAL, "mail: message_id: expected letters, digits and . - _ + = (at most 200)");
	if (!m->subject || !*m->subject || !text_ok(m->subject, false))
		return il_err_set(err, IL_EINVAL, "mail: subject: expected one line of UTF-8 text");
	if (!m->body || !text_ok(m->body, true))
		return il_err_set(err, IL_EINVAL, "mail: body: expected UTF-8 text without control characters, lines "
				  "of at most %d bytes", LINE_MAX_BYTES);
	r = add_date(out, eol);
	r |= il_buf_printf(out, "From: %s%s", m->from, eol);
	if (m->to && m->to->n) {
		r |= il_buf_adds(out, "To: ");
		for (size_t i = 0; i < m->to->n; i++)
			r |= il_buf_printf(out, "%s%s%s%s", i ? "," : "", i ? eol : "", i ? "    " : "", m->to->v[i]);
		r |= il_buf_adds(out, eol);
	}
	r |= add_subject(out, m->subject, eol);
	r |= add_message_id(out, m->from, m->message_id, eol);
	r |= il_buf_printf(out, "MIME-Version: 1.0%sContent-Type: text/plain; charset=utf-8%s"
				"Content-Transfer-Encoding: 8bit%s%s", eol, eol, eol, eol);
	for (const char *p = m->body; *p;) {
		const char *nl = strchr(p, '\n');
		size_t w = nl ? (size_t)(nl - p) : strlen(p);

		r |= il_buf_add(out, p, w);
		r |= il_buf_adds(out, eol);
		p += w + (nl != NULL);
	}
	return r == IL_ENOMEM ? il_err_oom(err) : r ? il_err_set(err, r, "mail: larger than its buffer") : 0;
}

/* ---- The auth file ---- */

void il_mail_auth_wipe(char *password)
{
	if (password) {
		explicit_bzero(password, strlen(password));
		free(password);
	}
}

int il_mail_auth_read(const char *path, char **user, char **password, struct il_err *err)
{
	char text[AUTH_MAX + 1];
	struct stat st;
	ssize_t n = 0, got;
	char *colon, *nl;
	int fd, r = 0;

	*user = *password = NULL;
	/* O_NOFOLLOW: a link planted at the path is refused, not followed to someone else's file */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP)
		return il_err_set(err, IL_EPERM, "auth file '%s': a symbolic link (refused: it must be the file itself)",
				  path);
	if (fd < 0)
		return il_err_set(err, errno == ENOENT ? IL_ENOTFOUND : IL_EIO, "auth file '%s': %s", path, strerror(errno));
	if (fstat(fd, &st))
		r = il_err_set(err, IL_EIO, "auth file '%s': %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		r = il_err_set(err, IL_EPERM, "auth file '%s': not a regular file (refused)", path);
	else if (st.st_uid != geteuid())
		r = il_err_set(err, IL_EPERM, "auth file '%s': owned by uid %ld, not by this user (uid %ld): refused",
			       path, (long)st.st_uid, (long)geteuid());
	else if (st.st_mode & 077)
		r = il_err_set(err, IL_EPERM, "auth file '%s': mode %04o lets others read it: refused (chmod 600)", path,
			       (unsigned)(st.st_mode & 07777));
	while (!r && n < AUTH_MAX && (got = read(fd, text + n, (size_t)(AUTH_MAX - n))) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			r = il_err_set(err, IL_EIO, "auth file '%s': %s", path, strerror(errno));
		else
			n += got;
	}
	close(fd);
	text[n] = 0;
	if (!r) {
		if ((nl = strchr(text, '\n')))
			*nl = 0;
		if ((nl = strchr(text, '\r')))
			*nl = 0;
		colon = strchr(text, ':');
		if (!colon || colon == text)
			r = il_err_set(err, IL_EPARSE, "auth file '%s': expected one line \"user:password\"", path);
		else if (!(*user = il_str_ndup(text, (size_t)(colon - text))) || !(*password = strdup(colon + 1)))
			r = il_err_oom(err);
	}
	explicit_bzero(text, sizeof(text));
	if (r) {
		free(*user);
		il_mail_auth_wipe(*password);
		*user = *password = NULL;
	}
	return r;
}

/* ---- Delivery ---- */

struct reader {
	const char *p;
	size_t left;
};

static size_t on_read(char *dst, size_t sz, size_t n, void *ctx)
{
	struct reader *rd = ctx;
	size_t k = sz * n < rd->left ? sz * n : rd->left;

	memcpy(dst, rd->p, k);
	rd->p += k;
	rd->left -= k;
	return k;
}

/*
 * curl_easy_cleanup sends the goodbye (QUIT) and waits for its answer as long
 * as for any other (timeout_s; libcurl's default is 120 s). Once the message
 * was answered, or the dialogue failed, nothing depends on it: the socket is
 * shut down first, so QUIT fails at once instead of waiting on a server that
 * never answers it. SIGPIPE (the TLS layer writes with write(2)) is ignored
 * meanwhile.
 */
static void cleanup_now(CURL *c)
{
	curl_socket_t s = CURL_SOCKET_BAD;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;

	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	if (curl_easy_getinfo(c, CURLINFO_ACTIVESOCKET, &s) == CURLE_OK && s != CURL_SOCKET_BAD)
		shutdown(s, SHUT_RDWR);
	curl_easy_cleanup(c);
	sigaction(SIGPIPE, &old, NULL);
}

int il_mail_send(const struct il_mail *m, struct il_err *err)
{
	struct il_buf text = IL_BUF_INIT;
	struct curl_slist *rcpt = NULL;
	char ebuf[CURL_ERROR_SIZE] = "", *shown = NULL, *user = NULL, *password = NULL;
	struct reader rd;
	CURLcode cc;
	CURL *c = NULL;
	int r;

	if (!m->url || (strncmp(m->url, "smtp://", 7) && strncmp(m->url, "smtps://", 8)))
		return il_err_set(err, IL_EINVAL, "mail: expected an smtp:// or smtps:// server URL");
	if (!(shown = il_http_url_shown(m->url)))
		return il_err_oom(err);
	if (!m->to || !m->to->n) {
		r = il_err_set(err, IL_EINVAL, "mail via %s: no recipient", shown);
		goto cleanup;
	}
	if ((r = il_mail_compose(m, true, &text, err)))
		goto cleanup;
	if (m->auth_file && (r = il_mail_auth_read(m->auth_file, &user, &password, err)))
		goto cleanup;
	if (!(c = il_http_curl_open(m->url, "smtp,smtps", m->timeout_s ? m->timeout_s : 60, 15, ebuf, err))) {
		r = IL_ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < m->to->n; i++) {
		struct curl_slist *t = curl_slist_append(rcpt, m->to->v[i]);

		if (!t) {
			r = il_err_oom(err);
			goto cleanup;
		}
		rcpt = t;
	}
	rd = (struct reader){ text.p, text.len };
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, m->from);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
	curl_easy_setopt(c, CURLOPT_READDATA, &rd);
	curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)text.len);
	if (m->starttls)
		curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	if (user) {
		curl_easy_setopt(c, CURLOPT_USERNAME, user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, password);
	}
	/* each answer too, not only the whole: libcurl's own wait for one is 120 s */
	curl_easy_setopt(c, CURLOPT_SERVER_RESPONSE_TIMEOUT, m->timeout_s ? m->timeout_s : 60L);
	cc = curl_easy_perform(c);
	if (cc == CURLE_OK) {
		/* accepted: said before the goodbye, which happens at cleanup and may hang on a bad server */
		if (m->accepted)
			m->accepted(m->accepted_ctx);
	} else {
		/* libcurl's words name the server and the SMTP reply, never the credentials */
		r = il_http_curl_fail(shown, cc, ebuf, err);
		il_err_prefix(err, "mail via ");
	}
cleanup:
	if (c)
		cleanup_now(c);
	curl_slist_free_all(rcpt);
	free(user);
	il_mail_auth_wipe(password);
	il_buf_release(&text);
	free(shown);
	return r;
}
