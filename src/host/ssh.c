// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ssh transport (libssh): connect with a timeout, verify the host key
 * (strict / accept-new), authenticate with a key file or the agent, run
 * quoted argv vectors with a deadline and capped output, SFTP transfers with
 * SHA-256 verification, and reconnection on the call after a lost connection.
 * libssh errors become il_err here and nowhere else.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/quote.h"
#include "host/transport.h"
#include "util/clock.h"
#include "util/sha256.h"

#define IL_SSH_KEEPALIVE_MS 15000

struct il_ssh {
	struct il_transport base;
	ssh_session s;
	bool dead;          /* the connection failed: reconnect on the next call */
	ssh_channel held;   /* a command kept running (the host lock); dies with the session */
	double last_ms;     /* end of the last exchange (keepalive check) */
	char where[300];    /* "user@address:port" for messages */
	char addr[256];     /* the address connected to, after ~/.ssh/config */
	unsigned int port;
};

static double mono_ms(void)
{
	return il_clock_mono_s() * 1e3;
}

/* The one adapter from libssh errors to il_err. */
static int ssh_fail(struct il_ssh *c, int code, const char *what, struct il_err *err)
{
	return il_err_set(err, code, "host '%s' (%s): %s: %s", c->base.label, c->where, what,
			  c->s ? ssh_get_error(c->s) : "no session");
}

static void disconnect(struct il_ssh *c)
{
	if (c->held) {
		ssh_channel_free(c->held);
		c->held = NULL;
	}
	if (c->s) {
		ssh_disconnect(c->s);
		ssh_free(c->s);
		c->s = NULL;
	}
}

static int verify_host_key(struct il_ssh *c, struct il_err *err)
{
	const struct il_host_cfg *h = c->base.cfg;
	enum ssh_known_hosts_e st = ssh_session_is_known_server(c->s);
	unsigned char *hash = NULL;
	char *fp = NULL;
	ssh_key key = NULL;
	size_t hlen = 0;
	char hostspec[300];
	int r = 0;

	if (ssh_get_server_publickey(c->s, &key) == SSH_OK &&
	    ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hlen) == 0)
		fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
	if (c->port != 22)
		snprintf(hostspec, sizeof(hostspec), "[%s]:%u", c->addr, c->port);
	else
		snprintf(hostspec, sizeof(hostspec), "%s", c->addr);
	switch (st) {
	case SSH_KNOWN_HOSTS_OK:
		break;
	case SSH_KNOWN_HOSTS_CHANGED:
	case SSH_KNOWN_HOSTS_OTHER:
		r = il_err_set(err, IL_EHOSTKEY,
			       "host '%s': the host key of %s CHANGED (now %s %s); refusing to connect. If the change "
			       "is expected, remove the old key with: ssh-keygen -R '%s' -f '%s'",
			       c->base.label, hostspec, key ? ssh_key_type_to_char(ssh_key_type(key)) : "?",
			       fp ? fp : "?", hostspec, h->known_hosts);
		break;
	case SSH_KNOWN_HOSTS_UNKNOWN:
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		if (h->host_key_policy == IL_HOSTKEY_ACCEPT_NEW) {
			if (ssh_session_update_known_hosts(c->s) != SSH_OK)
				r = ssh_fail(c, IL_EHOSTKEY, "cannot add the host key to the known_hosts file", err);
			break;
		}
		r = il_err_set(err, IL_EHOSTKEY,
			       "host '%s': unknown host key for %s: %s %s (not in '%s'). Check the fingerprint, then "
			       "either set \"host_key_policy\": \"accept-new\" in the host file or add it with: "
			       "ssh-keyscan -p %d %s >> '%s'",
			       c->base.label, hostspec, key ? ssh_key_type_to_char(ssh_key_type(key)) : "?",
			       fp ? fp : "?", h->known_hosts, c->port, c->addr, h->known_hosts);
		break;
	default:
		r = ssh_fail(c, IL_EHOSTKEY, "cannot check the host key", err);
		break;
	}
	ssh_string_free_char(fp);
	ssh_clean_pubkey_hash(&hash);
	ssh_key_free(key);
	return r;
}

static int authenticate(struct il_ssh *c, struct il_err *err)
{
	const struct il_host_cfg *h = c->base.cfg;
	int rc;

	if (h->identity) {
		ssh_key key = NULL;

		if (ssh_pki_import_privkey_file(h->identity, NULL, NULL, NULL, &key) != SSH_OK)
			return il_err_set(err, IL_EAUTH, "host '%s': cannot read identity file '%s' (missing, unreadable, "
					  "or protected by a passphrase: use ssh-agent instead)", c->base.label, h->identity);
		rc = ssh_userauth_publickey(c->s, NULL, key);
		ssh_key_free(key);
		if (rc != SSH_AUTH_SUCCESS)
			return il_err_set(err, IL_EAUTH, "host '%s' (%s): public key authentication with '%s' was refused",
					  c->base.label, c->where, h->identity);
		snprintf(c->base.auth, sizeof(c->base.auth), "publickey (identity file)");
		return 0;
	}
	rc = ssh_userauth_publickey_auto(c->s, NULL, NULL);
	if (rc != SSH_AUTH_SUCCESS)
		return il_err_set(err, IL_EAUTH, "host '%s' (%s): authentication with ssh-agent and the default keys "
				  "was refused (set \"identity\" in the host file?)", c->base.label, c->where);
	snprintf(c->base.auth, sizeof(c->base.auth), "publickey (agent or default keys)");
	return 0;
}

static int connect_session(struct il_ssh *c, struct il_err *err)
{
	const struct il_host_cfg *h = c->base.cfg;
	long timeout = h->connect_timeout_s;
	char *user = NULL;
	unsigned int port = 0;
	int r;

	disconnect(c);
	c->dead = false;
	c->s = ssh_new();
	if (!c->s)
		return il_err_oom(err);
	ssh_options_set(c->s, SSH_OPTIONS_HOST, h->address);
	/* ~/.ssh/config fills in what the host file leaves out; it never overrides it */
	if (h->port)
		ssh_options_set(c->s, SSH_OPTIONS_PORT, &h->port);
	if (h->user)
		ssh_options_set(c->s, SSH_OPTIONS_USER, h->user);
	/* the host's ssh_config (struct il_paths: $IDLELAB_SSH_CONFIG) names another file (tests, a lab-specific config) */
	ssh_options_parse_config(c->s, h->ssh_config);
	if (ssh_options_get(c->s, SSH_OPTIONS_USER, &user) != SSH_OK)
		ssh_options_set(c->s, SSH_OPTIONS_USER, "root");
	ssh_string_free_char(user);
	user = NULL;
	ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT, &timeout);
	ssh_options_set(c->s, SSH_OPTIONS_KNOWNHOSTS, h->known_hosts);
	/* small request/response exchanges: without this, Nagle + delayed ACK add ~40 ms per round trip */
	ssh_options_set(c->s, SSH_OPTIONS_NODELAY, &(int){ 1 });
	ssh_options_get(c->s, SSH_OPTIONS_USER, &user);
	ssh_options_get_port(c->s, &port);
	c->port = port ? port : 22;
	{
		char *host = NULL;

		ssh_options_get(c->s, SSH_OPTIONS_HOST, &host);
		snprintf(c->addr, sizeof(c->addr), "%s", host ? host : h->address);
		ssh_string_free_char(host);
	}
	snprintf(c->where, sizeof(c->where), "%s@%s:%u", user ? user : "?", c->addr, c->port);
	c->base.is_root = user && !strcmp(user, "root");
	ssh_string_free_char(user);
	if (ssh_connect(c->s) != SSH_OK) {
		r = ssh_fail(c, IL_ECONNECT, "cannot connect", err);
		disconnect(c);
		return r;
	}
	if ((r = verify_host_key(c, err)) || (r = authenticate(c, err))) {
		disconnect(c);
		return r;
	}
	c->last_ms = mono_ms();
	return 0;
}

/* ---- exec ---- */

static int drain(ssh_channel ch, int is_stderr, struct il_buf *b, bool *eof)
{
	char buf[32768];
	int n;

	while ((n = ssh_channel_poll(ch, is_stderr)) > 0) {
		n = ssh_channel_read_nonblocking(ch, buf, sizeof(buf), is_stderr);
		if (n < 0)
			return SSH_ERROR;
		if (n == 0)
			break;
		if (il_buf_add(b, buf, (size_t)n))
			return SSH_ERROR;
	}
	if (n == SSH_EOF)
		*eof = true;
	return n == SSH_ERROR ? SSH_ERROR : 0;
}

/*
 * A channel running cmd: the connection probed first when it sat idle (a
 * reboot or a NAT may have dropped it, and reconnecting is still harmless),
 * and a channel that cannot be opened retried once on a fresh connection
 * (the command has not started then).
 */
static int open_exec(struct il_ssh *c, const char *cmd, ssh_channel *out, struct il_err *err)
{
	ssh_channel ch;
	int r;

	*out = NULL;
	if (!c->dead && c->s && mono_ms() - c->last_ms > IL_SSH_KEEPALIVE_MS &&
	    (ssh_send_ignore(c->s, "idlelab-keepalive") != SSH_OK || ssh_blocking_flush(c->s, 2000) != SSH_OK))
		c->dead = true;
	if ((c->dead || !c->s || !ssh_is_connected(c->s)) && (r = connect_session(c, err)))
		return r;
	ch = ssh_channel_new(c->s);
	if (!ch || ssh_channel_open_session(ch) != SSH_OK) {
		if (ch)
			ssh_channel_free(ch);
		if ((r = connect_session(c, err)))
			return r;
		ch = ssh_channel_new(c->s);
		if (!ch || ssh_channel_open_session(ch) != SSH_OK) {
			if (ch)
				ssh_channel_free(ch);
			c->dead = true;
			return ssh_fail(c, IL_ESSH, "cannot open a channel", err);
		}
	}
	if (ssh_channel_request_exec(ch, cmd) != SSH_OK) {
		ssh_channel_free(ch);
		c->dead = true;
		return ssh_fail(c, IL_ESSH, "cannot start the command", err);
	}
	*out = ch;
	return 0;
}

/* The end of an exchange: the channel (if any) closed, the connection's last use noted. */
static void channel_end(struct il_ssh *c, ssh_channel ch)
{
	if (ch) {
		ssh_channel_close(ch);
		ssh_channel_free(ch);
	}
	c->last_ms = mono_ms();
}

static int ssh_exec(struct il_transport *t, char *const argv[], const struct il_exec_opts *o,
		    struct il_exec_result *res, struct il_err *err)
{
	struct il_ssh *c = (struct il_ssh *)t;
	struct il_buf cmd = IL_BUF_INIT;
	double deadline = mono_ms() + o->timeout_ms;
	ssh_channel ch = NULL;
	bool eof_out = false, eof_err = false;
	int r = 0;

	if (il_quote_argv(&cmd, argv))
		return il_err_oom(err);
	if ((r = open_exec(c, il_buf_str(&cmd), &ch, err)))
		goto out;
	if (o->input) {
		size_t n = strlen(o->input);

		if (n > PIPE_BUF) {
			r = il_err_set(err, IL_EINVAL, "host '%s': '%s': input of %zu bytes (at most %d)", t->label, argv[0], n,
				       PIPE_BUF);
			goto out;
		}
		if ((n && ssh_channel_write(ch, o->input, (uint32_t)n) != (int)n) || ssh_channel_send_eof(ch) != SSH_OK) {
			r = ssh_fail(c, IL_ESSH, "connection lost while sending a command its input", err);
			c->dead = true;
			goto out;
		}
	}
	while (!(eof_out && eof_err)) {
		double left = deadline - mono_ms();
		int pr;

		if (o->cancel && *o->cancel) {
			ssh_channel_request_send_signal(ch, "KILL");
			r = il_err_set(err, IL_EINTR, "host '%s': '%s' was stopped (interrupted)", t->label, argv[0]);
			goto out;
		}
		if (left <= 0) {
			ssh_channel_request_send_signal(ch, "KILL");
			r = il_err_set(err, IL_ETIMEOUT, "host '%s': '%s' timed out after %.1f s", t->label, argv[0],
				       o->timeout_ms / 1e3);
			goto out;
		}
		pr = ssh_channel_poll_timeout(ch, left > 50 ? 50 : (int)left + 1, 0);
		if (pr == SSH_ERROR || drain(ch, 0, &res->out, &eof_out) || drain(ch, 1, &res->err, &eof_err)) {
			r = ssh_fail(c, IL_ESSH, "connection lost while running a command", err);
			c->dead = true;
			goto out;
		}
		if (ssh_channel_is_eof(ch)) {
			/* pick up what arrived together with EOF */
			if (drain(ch, 0, &res->out, &eof_out) || drain(ch, 1, &res->err, &eof_err))
				break;
			eof_out = eof_err = true;
		}
		if (!ssh_is_connected(c->s)) {
			r = ssh_fail(c, IL_ESSH, "connection lost while running a command", err);
			c->dead = true;
			goto out;
		}
	}
	ssh_channel_send_eof(ch);
	res->exit_code = ssh_channel_get_exit_status(ch);
	if (res->exit_code < 0 && !ssh_is_connected(c->s)) {
		r = ssh_fail(c, IL_ESSH, "connection lost before the exit status arrived", err);
		c->dead = true;
	}
out:
	channel_end(c, ch);
	il_buf_release(&cmd);
	return r;
}

/* ---- a held command (the host lock) ---- */

static void ssh_hold_release(struct il_transport *t)
{
	struct il_ssh *c = (struct il_ssh *)t;

	if (!c->held)
		return;
	/* EOF on its stdin: the command ends by itself and the host lets go */
	ssh_channel_send_eof(c->held);
	ssh_channel_close(c->held);
	ssh_channel_free(c->held);
	c->held = NULL;
}

static bool ssh_hold_alive(struct il_transport *t)
{
	struct il_ssh *c = (struct il_ssh *)t;

	if (!c->held)
		return false;
	if (c->dead || !ssh_is_connected(c->s) || ssh_channel_poll_timeout(c->held, 0, 0) == SSH_EOF ||
	    !ssh_channel_is_open(c->held) || ssh_channel_is_eof(c->held)) {
		ssh_hold_release(t);
		return false;
	}
	return true;
}

static int ssh_hold(struct il_transport *t, char *const argv[], int timeout_ms, struct il_buf *first, struct il_err *err)
{
	struct il_ssh *c = (struct il_ssh *)t;
	struct il_buf cmd = IL_BUF_INIT;
	double deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 30000);
	ssh_channel ch = NULL;
	bool eof = false;
	int r = 0;

	ssh_hold_release(t);
	if (il_quote_argv(&cmd, argv))
		return il_err_oom(err);
	if ((r = open_exec(c, il_buf_str(&cmd), &ch, err)))
		goto out;
	while (!memchr(first->p ? first->p : "", '\n', first->len) && !eof) {
		double left = deadline - mono_ms();
		struct il_buf junk = IL_BUF_INIT;

		if (left <= 0) {
			r = il_err_set(err, IL_ETIMEOUT, "host '%s': '%s' said nothing within %.0f s", t->label, argv[0],
				       timeout_ms / 1e3);
			goto out;
		}
		if (ssh_channel_poll_timeout(ch, left > 50 ? 50 : (int)left + 1, 0) == SSH_ERROR ||
		    drain(ch, 0, first, &eof) || drain(ch, 1, &junk, &eof)) {
			il_buf_release(&junk);
			r = ssh_fail(c, IL_ESSH, "connection lost while starting a command", err);
			c->dead = true;
			goto out;
		}
		il_buf_release(&junk);
		eof |= ssh_channel_is_eof(ch);
	}
	if (!eof) {
		c->held = ch;
		ch = NULL;
	}
out:
	channel_end(c, ch);
	il_buf_release(&cmd);
	return r;
}

/* ---- SFTP ---- */

/*
 * End an SFTP session and wait (bounded by the session timeout) until the
 * server's sftp-server has exited. Dropbear 2022.83 reuses the channel's slot
 * once we close it; when the old sftp-server exits later, it closes whatever
 * channel now holds that slot, so the next channel (the next upload or
 * command) died at random (about 1 in 10 back-to-back uploads to the lab).
 */
static void sftp_end(sftp_session sf)
{
	ssh_channel ch = sf->channel;

	if (ch && !ssh_channel_is_closed(ch)) {
		ssh_channel_send_eof(ch);
		ssh_channel_get_exit_status(ch);
	}
	sftp_free(sf);
}

static int sftp_open_session(struct il_ssh *c, sftp_session *out, struct il_err *err)
{
	int r;

	if ((c->dead || !c->s || !ssh_is_connected(c->s)) && (r = connect_session(c, err)))
		return r;
	/*
	 * Our own channel for the subsystem, so that a host without an SFTP
	 * server is seen (the channel ends at once) before sftp_init(), which in
	 * libssh 0.10 spins forever on a channel that reached EOF.
	 */
	{
		ssh_channel ch = ssh_channel_new(c->s);
		int pr;

		if (!ch || ssh_channel_open_session(ch) != SSH_OK || ssh_channel_request_subsystem(ch, "sftp") != SSH_OK) {
			if (ch)
				ssh_channel_free(ch);
			return ssh_fail(c, IL_ESSH, "cannot start the sftp subsystem", err);
		}
		pr = ssh_channel_poll_timeout(ch, 500, 0);
		if (pr == SSH_EOF || pr == SSH_ERROR || ssh_channel_is_eof(ch) || ssh_channel_is_closed(ch)) {
			struct il_buf e = IL_BUF_INIT;
			char buf[512];
			int n;

			while ((n = ssh_channel_read_nonblocking(ch, buf, sizeof(buf), 1)) > 0)
				il_buf_add(&e, buf, (size_t)n);
			r = il_err_set(err, IL_EUNSUPPORTED, "host '%s': no SFTP server (the sftp subsystem ended at once%s%s)",
				       c->base.label, e.len ? ": " : "", il_buf_str(&e));
			il_buf_release(&e);
			ssh_channel_free(ch);
			return r;
		}
		*out = sftp_new_channel(c->s, ch);
		if (!*out) {
			ssh_channel_free(ch);
			return il_err_oom(err);
		}
	}
	if (sftp_init(*out) != SSH_OK) {
		r = ssh_fail(c, IL_ESSH, "cannot start SFTP (is the sftp subsystem enabled?)", err);
		if (*out)
			sftp_free(*out);
		*out = NULL;
		return r;
	}
	return 0;
}

static int ssh_upload(struct il_transport *t, const char *local, const char *remote, struct il_err *err)
{
	struct il_ssh *c = (struct il_ssh *)t;
	struct il_buf tmp = IL_BUF_INIT;
	struct il_sha256 h;
	sftp_session sf = NULL;
	sftp_file f = NULL;
	char lhex[65], rhex[65], buf[65536];
	ssize_t n;
	int fd, r;

	fd = open(local, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return il_err_set(err, IL_EIO, "cannot open '%s': %s", local, strerror(errno));
	if (il_sha256_init(&h)) {
		close(fd);
		return il_err_oom(err);
	}
	if ((r = sftp_open_session(c, &sf, err)))
		goto out;
	/* a random name created exclusively: nothing planted at a guessable name is followed or truncated */
	il_transport_tmpname(&tmp, remote);
	f = sftp_open(sf, tmp.p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (!f) {
		r = il_err_set(err, IL_EIO, "host '%s': cannot create '%s': %s", t->label, tmp.p, ssh_get_error(c->s));
		goto out;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		il_sha256_update(&h, buf, (size_t)n);
		if (sftp_write(f, buf, (size_t)n) != n) {
			r = ssh_fail(c, IL_EIO, "SFTP write failed", err);
			c->dead = !ssh_is_connected(c->s);
			goto out;
		}
	}
	if (n < 0) {
		r = il_err_set(err, IL_EIO, "cannot read '%s': %s", local, strerror(errno));
		goto out;
	}
	sftp_close(f);
	f = NULL;
	il_sha256_final(&h, lhex);
	if ((r = il_transport_sha256(t, tmp.p, rhex, err)))
		goto out;
	if (strcmp(lhex, rhex)) {
		r = il_err_set(err, IL_EIO, "host '%s': checksum mismatch after upload of '%s' (sent %s, got %s)",
			       t->label, local, lhex, rhex);
		sftp_unlink(sf, tmp.p);
		goto out;
	}
	r = il_transport_rename(t, tmp.p, remote, err);
out:
	if (h.ctx)
		il_sha256_final(&h, lhex);
	if (f)
		sftp_close(f);
	if (r && sf && tmp.p)
		sftp_unlink(sf, tmp.p);
	if (sf)
		sftp_end(sf);
	close(fd);
	il_buf_release(&tmp);
	return r;
}

static int ssh_download(struct il_transport *t, const char *remote, const char *local, struct il_err *err)
{
	struct il_ssh *c = (struct il_ssh *)t;
	struct il_buf tmp = IL_BUF_INIT;
	struct il_sha256 h = { 0 };
	sftp_session sf = NULL;
	sftp_file f = NULL;
	char lhex[65], rhex[65], buf[65536];
	ssize_t n;
	int fd = -1, r;

	if ((r = sftp_open_session(c, &sf, err)))
		return r;
	f = sftp_open(sf, remote, O_RDONLY, 0);
	if (!f) {
		r = il_err_set(err, IL_EIO, "host '%s': cannot open '%s': %s", t->label, remote, ssh_get_error(c->s));
		goto out;
	}
	il_buf_printf(&tmp, "%s.idlelab-tmp.XXXXXX", local);
	fd = mkostemp(tmp.p, O_CLOEXEC); /* exclusive, random: see il_buf_write_file_atomic */
	if (fd < 0 || il_sha256_init(&h)) {
		r = il_err_set(err, IL_EIO, "cannot create '%s': %s", tmp.p, strerror(errno));
		goto out;
	}
	while ((n = sftp_read(f, buf, sizeof(buf))) > 0) {
		il_sha256_update(&h, buf, (size_t)n);
		if (write(fd, buf, (size_t)n) != n) {
			r = il_err_set(err, IL_EIO, "cannot write '%s': %s", tmp.p, strerror(errno));
			goto out;
		}
	}
	if (n < 0) {
		r = ssh_fail(c, IL_EIO, "SFTP read failed", err);
		goto out;
	}
	il_sha256_final(&h, lhex);
	if ((r = il_transport_sha256(t, remote, rhex, err)))
		goto out;
	if (strcmp(lhex, rhex)) {
		r = il_err_set(err, IL_EIO, "host '%s': checksum mismatch downloading '%s'", t->label, remote);
		goto out;
	}
	if (fsync(fd) || close(fd)) {
		fd = -1;
		r = il_err_set(err, IL_EIO, "cannot sync '%s': %s", tmp.p, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp.p, local))
		r = il_err_set(err, IL_EIO, "cannot rename '%s' to '%s': %s", tmp.p, local, strerror(errno));
out:
	if (h.ctx)
		il_sha256_final(&h, lhex);
	if (fd >= 0)
		close(fd);
	if (r && tmp.p)
		unlink(tmp.p);
	if (f)
		sftp_close(f);
	if (sf)
		sftp_end(sf);
	il_buf_release(&tmp);
	return r;
}

static void ssh_free_transport(struct il_transport *t)
{
	struct il_ssh *c = (struct il_ssh *)t;

	ssh_hold_release(t);
	disconnect(c);
	free(c);
}

int il_ssh_open(struct il_transport **out, const struct il_host_cfg *cfg, struct il_err *err)
{
	struct il_ssh *c = calloc(1, sizeof(*c));
	int r;

	*out = NULL;
	if (!c)
		return il_err_oom(err);
	c->base.cfg = cfg;
	c->base.label = cfg->name;
	c->base.exec = ssh_exec;
	c->base.upload = ssh_upload;
	c->base.hold = ssh_hold;
	c->base.hold_alive = ssh_hold_alive;
	c->base.hold_release = ssh_hold_release;
	c->base.download = ssh_download;
	c->base.free = ssh_free_transport;
	if ((r = connect_session(c, err))) {
		free(c);
		return r;
	}
	*out = &c->base;
	return 0;
}
