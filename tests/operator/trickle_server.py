#!/usr/bin/env python3
"""An https server that answers every GET slowly: a 200 with a YAML comment, one byte every
INTERVAL seconds, for ever (what a hostile tenant's Seed URL can do). Prints its port and pid,
then serves.

usage: trickle_server.py CERT KEY INTERVAL
"""
import http.server
import os
import socketserver
import ssl
import sys
import time


class Trickle(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/yaml")
        self.end_headers()
        try:
            self.wfile.write(b"#")
            while True:
                # sleep-ok(time): the trickle's pace is the hostile input
                time.sleep(float(sys.argv[3]))
                self.wfile.write(b" ")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Trickle)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], os.getpid(), flush=True)
server.serve_forever()
