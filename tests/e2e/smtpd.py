#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A real SMTP server for e2e tests: Debian's aiosmtpd on 127.0.0.1 at a free
# port (written to PORTFILE), each message received written to DIR as
# N.eml (the bytes as they came, dot-unstuffed) and N.json (envelope sender,
# recipients, the login used). With USER:PASSWORD it offers AUTH (PLAIN,
# LOGIN; without TLS: loopback only) and accepts only that pair; mail
# without a login is still accepted.
# Usage: smtpd.py PORTFILE DIR [USER:PASSWORD]
import asyncio, json, os, sys

from aiosmtpd.smtp import SMTP, AuthResult

portfile, outdir = sys.argv[1], sys.argv[2]
user, _, password = (sys.argv[3] if len(sys.argv) > 3 else ":").partition(":")


class Box:
    def __init__(self):
        self.n = 0

    async def handle_DATA(self, server, session, envelope):
        self.n += 1
        base = os.path.join(outdir, str(self.n))
        with open(base + ".eml", "wb") as f:
            f.write(envelope.original_content)
        login = session.auth_data.login.decode() if session.authenticated and session.auth_data else None
        with open(base + ".json.tmp", "w") as f:
            json.dump({"from": envelope.mail_from, "to": envelope.rcpt_tos, "login": login}, f)
        os.rename(base + ".json.tmp", base + ".json")
        return "250 OK"


def check(server, session, envelope, mechanism, data):
    ok = bool(user) and data.login.decode() == user and data.password.decode() == password
    # handled=False: aiosmtpd answers a refusal with 535 itself (its default, True, would answer nothing)
    return AuthResult(success=ok, handled=False, auth_data=data if ok else None)


async def main():
    loop = asyncio.get_running_loop()
    kw = {"auth_require_tls": False, "authenticator": check} if user else {}
    box = Box()  # one for every connection: messages are numbered across them
    srv = await loop.create_server(lambda: SMTP(box, **kw), host="127.0.0.1", port=0)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(srv.sockets[0].getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)
    await srv.serve_forever()


asyncio.run(main())
