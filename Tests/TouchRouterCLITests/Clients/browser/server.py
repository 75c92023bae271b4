#!/usr/bin/env python3
"""The browser tests' web server (BrowserTests.swift), on 127.0.0.1 only.

    server.py LOG

GET / serves page.html, beside this file; POST /event appends the request's body, one
JSON object from the page, as a line of LOG, flushed at once. The port, chosen by the
kernel, is printed on the first line of standard output as "port N"; the server runs
until it is killed.
"""
import http.server
import os
import signal
import sys
import threading

LOCK = threading.Lock()
PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "page.html")


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.split("?")[0] not in ("/", "/page.html"):
            self.send_error(404)
            return
        with open(PAGE, "rb") as page:
            body = page.read()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode("utf-8", "replace")
        if self.path == "/event":
            line = " ".join(body.splitlines())
            with LOCK, open(sys.argv[1], "a", encoding="utf-8") as log:
                log.write(line + "\n")
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()

    def log_message(self, format, *args):
        pass


# The test process spawns with SIGTERM and SIGINT blocked: take them back, so that they end the server.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("port", server.server_address[1], flush=True)
server.serve_forever()
