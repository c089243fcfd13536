#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A networked PDU stand-in for e2e tests: an HTTP server on 127.0.0.1 that
# appends every request (method, path, headers, body) as one JSON line to LOG
# and then runs CMD... (the "power cycle"), answering 200 when it exits 0.
# Usage: pdu.py PORTFILE LOG [CMD...]  (the chosen port is written to PORTFILE)
# With PDU_LOG_STATUS=1 in the environment a request is logged once CMD has
# run, with the status it gets, just before that answer is sent: LOG then
# holds every request a client may have seen answered (and with what).
import http.server, json, os, subprocess, sys

portfile, log, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]


class Pdu(http.server.BaseHTTPRequestHandler):
    def handle_one(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode("utf-8", "replace")
        rec = {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
        status = os.environ.get("PDU_LOG_STATUS") == "1"
        if not status:
            self.log(rec)
        rc = subprocess.call(cmd) if cmd else 0
        if status:
            rec["status"] = 200 if rc == 0 else 500
            self.log(rec)
        self.send_response(200 if rc == 0 else 500)
        self.end_headers()
        self.wfile.write(b"cycled\n" if rc == 0 else b"cycle command failed\n")
        self.wfile.flush()

    def log(self, rec):
        with open(log, "a") as f:
            f.write(json.dumps(rec) + "\n")

    do_POST = do_PUT = do_GET = handle_one

    def log_message(self, *a):
        pass


srv = http.server.HTTPServer(("127.0.0.1", 0), Pdu)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
