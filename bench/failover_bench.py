#!/usr/bin/env python3
"""How soon the operator fails a choice of clusters over (issue 51): a `planter sim --clusters
CLUSTERS`, one Seed whose ConfigMap chooses COUNT of every cluster (sim.planter.io/index) and
tolerates planter.nephio.org/unreachable for TOLERATION seconds, `planter operator` probing every
second and tainting after 3 s without an answer. Once the Seed is Planted, the first chosen
cluster's API server is stopped (sim.planter.io/down); the figures are, from the sim's audit log
and the taint's timeAdded:

  decision   the toleration's end (timeAdded + TOLERATION) to the ConfigMap's write on the
             cluster that replaces it (the operator plans the Seed again, reads every candidate's
             nodes and pods, chooses, writes)
  taint      the API server stopped (the annotation's write) to the taint's write
  requests   what the operator sent between the API server's stop and the share's move, by its
             planter_api_requests_total (its probes of /readyz are not counted there)

Numbers only; nothing passes or fails on time. timeAdded has whole seconds, as metav1.Time: the
toleration ends up to a second before `taint` + TOLERATION, and `decision` counts from then.

Usage: failover_bench.py PLANTER_BINARY KUBECTL [CLUSTERS] [COUNT] [TOLERATION]
       (defaults 1000, 3, 5)
"""
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

planter, kubectl = sys.argv[1], sys.argv[2]
clusters = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
count = int(sys.argv[4]) if len(sys.argv) > 4 else 3
toleration = int(sys.argv[5]) if len(sys.argv) > 5 else 5
folder = tempfile.mkdtemp(prefix="planter-failover-bench-")
kubeconfig = os.path.join(folder, "kubeconfig")
audit = os.path.join(folder, "audit.jsonl")


def k(*args, stdin=None, check=True):
    return subprocess.run([kubectl, "--kubeconfig", kubeconfig, *args], input=stdin, text=True,
                          capture_output=True, check=check).stdout


def when(text):
    """An RFC 3339 time (fractions allowed) as seconds since the epoch."""
    text = text.rstrip("Z")
    whole, _, fraction = text.partition(".")
    t = datetime.datetime.strptime(whole, "%Y-%m-%dT%H:%M:%S").replace(
        tzinfo=datetime.timezone.utc).timestamp()
    return t + (float("0." + fraction) if fraction else 0.0)


def wait_for(what, check, limit=900):
    began = time.monotonic()
    while time.monotonic() - began < limit:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    sys.exit(f"gave up waiting for {what}")


def choice():
    out = k("get", "seed", "pick", "-n", "bench", "-o",
            "jsonpath={.status.phase} {.status.clusterChoices[0].clusters[*]}", check=False)
    phase, _, chosen = out.partition(" ")
    return phase, chosen.split()


sim = subprocess.Popen([planter, "sim", "--port", "0", "--clusters", str(clusters),
                        "--kubeconfig-out", kubeconfig, "--audit-log", audit],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
while "kubeconfig in" not in sim.stdout.readline():
    pass
k("wait", "--for=condition=Ready", "clusters.planter.nephio.org", "--all", "--timeout=900s")
k("create", "namespace", "bench")
seed = f"""apiVersion: planter.nephio.org/v1alpha1
kind: Seed
metadata: {{name: pick, namespace: bench}}
spec:
  source:
    inline: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: pick
        namespace: default
        annotations:
          planter.nephio.org/cluster-selector: sim.planter.io/index
          planter.nephio.org/cluster-count: "{count}"
          planter.nephio.org/cluster-tolerations: '[{{"key": "planter.nephio.org/unreachable", "operator": "Exists", "tolerationSeconds": {toleration}}}]'
      data: {{a: b}}
"""
k("create", "-f", "-", stdin=seed)
operator = subprocess.Popen([planter, "operator", "--kubeconfig", kubeconfig, "-n", "bench",
                             "--metrics-addr", "127.0.0.1:0", "--health-addr", "127.0.0.1:0",
                             "--cluster-probe-interval", "1", "--cluster-unreachable-after",
                             "3"],
                            stdout=open(os.path.join(folder, "operator.log"), "w"),
                            stderr=subprocess.STDOUT)
began = time.monotonic()
_, chosen = wait_for("the Seed to be planted",
                     lambda: (lambda c: c if c[0] == "Planted" and len(c[1]) == count else None)(
                         choice()))
planted = time.monotonic() - began
lost = chosen[0]
port = re.search(r"serving metrics .*port=(\d+)",
                 open(os.path.join(folder, "operator.log")).read()).group(1)


def requests_sent():
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith("planter_api_requests_total{"))


sent_before = requests_sent()
k("annotate", "clusters.planter.nephio.org", lost, "sim.planter.io/down=true")
added = wait_for("the taint", lambda: k(
    "get", "clusters.planter.nephio.org", lost, "-o",
    "jsonpath={.spec.taints[?(@.key==\"planter.nephio.org/unreachable\")].timeAdded}"))
_, now = wait_for("the share to move",
                  lambda: (lambda c: c if c[0] == "Planted" and lost not in c[1] else None)(
                      choice()))
new = [c for c in now if c not in chosen]
sent = requests_sent() - sent_before
down = tainted = written = None
with open(audit) as f:
    for line in f:
        e = json.loads(line)
        if e.get("verb") != "patch" and e.get("verb") != "apply" or e.get("code", 500) >= 300:
            continue
        if e["cluster"] == "management" and e["object"].endswith(f"|Cluster|default|{lost}"):
            if down is None:
                down = when(e["ts"])
            elif written is None:
                tainted = when(e["ts"])
        if new and e["cluster"] == new[0] and e["object"] == "v1|ConfigMap|default|pick":
            written = when(e["ts"])
expiry = when(added) + toleration
print(f"failover at {clusters} clusters (choose {count}, tolerationSeconds {toleration}): "
      f"first planting {planted:.1f} s; taint {tainted - down:.2f} s after the API server "
      f"stopped; decision {written - expiry:.2f} s after the toleration ended "
      f"({lost} -> {new[0] if new else '?'}); {sent:.0f} requests")
operator.terminate()
operator.wait(timeout=30)
sim.terminate()
sim.wait(timeout=30)
