#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A hand-made SMTP server on 127.0.0.1 for the faults aiosmtpd cannot make.
#   smtp_stall.py PORTFILE            takes every message ("250 OK" to the final ".") and never
#                                     answers QUIT: a nightly must not wait for the goodbye
#   smtp_stall.py PORTFILE --keep DIR answers QUIT, and writes each message to DIR/N.eml just
#                                     before its "250 OK" is sent: DIR holds every message a
#                                     client may have seen acknowledged. A client killed
#                                     between that answer and its own record of it cannot
#                                     know the message went out (RFC 1047's window), and
#                                     rightly sends it again; a test counts such kills by
#                                     comparing DIR with the client's journal after each one.
# The chosen port is written to PORTFILE.
import os, socket, sys, threading

keep = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--keep" else None
lock = threading.Lock()
count = [0]


def serve(c):
    try:
        talk(c)
    except OSError:
        pass  # the client went away (idlelab shuts the socket down after the answer to the message)
    c.close()


def talk(c):
    f = c.makefile("rb")
    c.sendall(b"220 stall ESMTP\r\n")
    data, msg = False, []
    for line in f:
        if data:
            if line == b".\r\n":
                data = False
                if keep:
                    with lock:
                        count[0] += 1
                        n = count[0]
                    with open(os.path.join(keep, "%d.eml.tmp" % n), "wb") as out:
                        out.write(b"".join(msg))
                    os.rename(os.path.join(keep, "%d.eml.tmp" % n), os.path.join(keep, "%d.eml" % n))
                c.sendall(b"250 OK\r\n")
                msg = []
            else:
                msg.append(line)
            continue
        cmd = line[:4].upper()
        if cmd in (b"EHLO", b"HELO"):
            c.sendall(b"250 stall\r\n")
        elif cmd == b"DATA":
            c.sendall(b"354 go on\r\n")
            data = True
        elif cmd == b"QUIT":
            if keep:
                c.sendall(b"221 bye\r\n")
                break
        else:
            c.sendall(b"250 OK\r\n")


s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    conn, _ = s.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
