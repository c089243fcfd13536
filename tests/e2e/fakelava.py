#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# A LAVA server that misbehaves, for e2e tests: the REST API v0.2 paths idlelab
# calls, on 127.0.0.1, each request appended to LOG as one JSON line (method,
# path). Submissions are accepted (job ids 1, 2, ...) unless MODE refuses all.
# Usage: fakelava.py PORTFILE LOG MODE  (the chosen port is written to PORTFILE)
#   state5    a job's state is the integer 5, not one of LAVA's names
#   silent    a job's state is never answered (the request is held open)
#   running   a job is Running at its first poll, and never answered after
#   echo401   every request is refused with 401 and a detail that echoes its token
# A cancel is answered as LAVA does.
import http.server, json, re, sys, threading, time, os

portfile, log, mode = sys.argv[1], sys.argv[2], sys.argv[3]
lock = threading.Lock()
state = {"next": 0, "polled": set()}


class Lava(http.server.BaseHTTPRequestHandler):
    def answer(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def handle_one(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with lock, open(log, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path}) + "\n")
        if mode == "echo401":
            token = (self.headers.get("Authorization") or "").split(" ")[-1]
            return self.answer(401, {"detail": "Invalid token: " + token})
        if self.command == "POST" and self.path == "/api/v0.2/jobs/":
            with lock:
                state["next"] += 1
                job = state["next"]
            return self.answer(201, {"message": "job(s) successfully submitted", "job_ids": [job]})
        if re.fullmatch(r"/api/v0\.2/jobs/\d+/cancel/", self.path):
            return self.answer(200, {"message": "Job cancel signal sent."})
        m = re.fullmatch(r"/api/v0\.2/jobs/(\d+)/", self.path)
        if not m:
            return self.answer(404, {"detail": "Not found."})
        job = int(m.group(1))
        if mode == "state5":
            return self.answer(200, {"id": job, "state": 5, "health": "Unknown"})
        if mode == "running" and job not in state["polled"]:
            state["polled"].add(job)
            return self.answer(200, {"id": job, "state": "Running", "health": "Unknown",
                                     "actual_device": "qemu-01"})
        time.sleep(3600)

    do_GET = do_POST = handle_one

    def log_message(self, *a):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


srv = Server(("127.0.0.1", 0), Lava)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
