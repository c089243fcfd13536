#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A kcidb-ng REST service stand-in for e2e tests, on 127.0.0.1: POST /submit
# with "Authorization: Bearer TOKEN" and a JSON body answers 200
# {"id": "sub-N", "status": "ok"}; GET /status?id=sub-N answers "inprogress"
# once, then "processed". A wrong or missing token: 401. Every request is
# appended to LOG as one JSON line (method, path, authorization, body).
# Usage: kcidbd.py PORTFILE LOG TOKEN MODE
#   MODE ok      as above
#   MODE flaky   the first POST /submit answers 503, the next ones as ok
#   MODE hang    never answers (the client's deadline)
#   MODE bad     POST /submit answers 400 {"error": "document invalid"}
import http.server, json, sys, time, urllib.parse

portfile, log, token, mode = sys.argv[1:5]
state = {"posts": 0, "polls": {}}


class Kcidb(http.server.BaseHTTPRequestHandler):
    def answer(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_req(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode("utf-8", "replace")
        with open(log, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                                "authorization": self.headers.get("Authorization"), "body": body}) + "\n")
        if mode == "hang":
            time.sleep(60)
            return
        if self.headers.get("Authorization") != "Bearer " + token:
            return self.answer(401, {"error": "invalid token"})
        u = urllib.parse.urlparse(self.path)
        if self.command == "POST" and u.path == "/submit":
            state["posts"] += 1
            if mode == "flaky" and state["posts"] == 1:
                return self.answer(503, {"error": "busy"})
            if mode == "bad":
                return self.answer(400, {"error": "document invalid"})
            json.loads(body)
            sid = "sub-%d" % state["posts"]
            state["polls"][sid] = 0
            return self.answer(200, {"id": sid, "status": "ok"})
        if self.command == "GET" and u.path == "/status":
            sid = urllib.parse.parse_qs(u.query).get("id", [""])[0]
            if sid not in state["polls"]:
                return self.answer(404, {"error": "no such submission"})
            state["polls"][sid] += 1
            return self.answer(200, {"id": sid, "status": "inprogress" if state["polls"][sid] == 1 else "processed"})
        self.answer(404, {"error": "no such endpoint"})

    do_GET = do_POST = handle_req

    def log_message(self, *a):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Kcidb)
srv.daemon_threads = True
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
