"""planter sim at the edges of HTTP, judged as kube-apiserver behaves: a body over 3 MiB is a 413
Status, a request that is not HTTP a 400, an idle connection is closed (HTTP/1.1, and HTTP/2 with
a GOAWAY first, as Go's server does), and a sim out of file descriptors waits instead of spinning,
and serves again once idle connections are gone.

Usage: connection_limits.py PLANTER_BINARY. Starts its own sims (plain HTTP, --idle-timeout 2,
at most 64 file descriptors; then one with TLS for HTTP/2) and stops them.
"""
import http.client
import json
import os
import resource
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1]
folder = tempfile.mkdtemp(prefix="planter-limits-")


def limit_descriptors():
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))


sim = subprocess.Popen([binary, "sim", "--insecure-http", "--port", "0", "--idle-timeout", "2"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       preexec_fn=limit_descriptors)
line = sim.stdout.readline()
marker = "serving the management cluster at http://"
assert marker in line, line
host, port = line.split(marker)[1].strip().split(":")
port = int(port)


def check(name, cond, detail=""):
    if not cond:
        sim.kill()
        raise SystemExit(f"FAIL {name}: {detail}")
    print("ok", name)


def request(method, path, body=None):
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, data


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


big = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"},
                  "data": {"blob": "x" * (3 * 1024 * 1024)}})
status, data = request("POST", "/api/v1/namespaces/default/configmaps", big)
body = json.loads(data) if data.startswith(b"{") else {}
check("a body over 3 MiB is 413 RequestEntityTooLarge",
      status == 413 and body.get("reason") == "RequestEntityTooLarge"
      and body.get("message") == "Request entity too large: limit is 3145728", (status, data[:200]))

s = socket.create_connection((host, port), timeout=5)
s.sendall(b"NOT HTTP AT ALL\r\n\r\n")
answer = s.recv(4096)
s.close()
check("a request that is not HTTP is 400", answer.startswith(b"HTTP/1.1 400"), answer[:100])

s = socket.create_connection((host, port), timeout=10)
start = time.monotonic()
closed = s.recv(1) == b""
waited = time.monotonic() - start
s.close()
check("an idle connection is closed after --idle-timeout", closed and 1.5 < waited < 6, waited)

# More idle connections than the sim has descriptors.
idle = []
for _ in range(80):
    try:
        idle.append(socket.create_connection((host, port), timeout=5))
    except OSError:
        break
before = cpu_seconds(sim.pid)
# sleep-ok(time): the sim's idle timeout
time.sleep(1.5)
spent = cpu_seconds(sim.pid) - before
check("out of descriptors, the sim does not spin", spent < 0.5, f"{spent:.2f}s of CPU in 1.5s")
# sleep-ok(time): the sim's idle timeout
time.sleep(3)  # the idle ones time out and give their descriptors back
for s in idle:
    s.close()
status, _ = request("GET", "/api/v1/namespaces")
check("and then it serves again", status == 200, status)

sim.terminate()
sim.wait(timeout=10)

# HTTP/2 (TLS, ALPN h2): a connection with no stream is sent GOAWAY after --idle-timeout, then
# closed.
sim = subprocess.Popen([binary, "sim", "--port", "0", "--idle-timeout", "2"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
line = sim.stdout.readline()
marker = "serving the management cluster at https://"
check("the TLS sim starts", marker in line, line)
host, port = line.split(marker)[1].strip().split(":")
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
context.set_alpn_protocols(["h2"])
raw = socket.create_connection((host, int(port)), timeout=10)
tls = context.wrap_socket(raw, server_hostname=host)
check("the sim speaks HTTP/2 when offered", tls.selected_alpn_protocol() == "h2",
      tls.selected_alpn_protocol())
tls.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + struct.pack(">I", 0)[1:] + bytes([4, 0]) +
            struct.pack(">I", 0))  # the preface and an empty SETTINGS frame
start = time.monotonic()
received = b""
while True:
    chunk = tls.recv(65536)
    if not chunk:
        break
    received += chunk
waited = time.monotonic() - start
frame_types = []
at = 0
while at + 9 <= len(received):
    length = int.from_bytes(received[at:at + 3], "big")
    frame_types.append(received[at + 3])
    at += 9 + length
check("an idle HTTP/2 connection is told GOAWAY and closed after --idle-timeout",
      7 in frame_types and 1.5 < waited < 6, (frame_types, waited))
tls.close()
sim.terminate()
sim.wait(timeout=10)
print("all checks passed")
