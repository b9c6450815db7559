#!/usr/bin/env python3
"""Fairness of the operator under a hostile tenant (issue 29): TRICKLING Seeds in namespace `slow`
whose URLs answer one byte every 2 s (tests/operator/trickle_server.py, https), then one small
inline Seed in namespace `good`. Prints how long the good Seed takes from its creation to Planted,
with the operator's defaults (16 planting workers, 8 fetchers, a 30 s slice). Numbers only.

Usage: operator_fairness_bench.py PLANTER_BINARY KUBECTL [TRICKLING] (default 16)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

planter, kubectl = sys.argv[1], sys.argv[2]
trickling = int(sys.argv[3]) if len(sys.argv) > 3 else 16
here = os.path.dirname(os.path.abspath(__file__))
folder = tempfile.mkdtemp(prefix="planter-fairness-bench-")
kubeconfig = os.path.join(folder, "kubeconfig")
cert, key = os.path.join(folder, "t.crt"), os.path.join(folder, "t.key")


def k(*args, stdin=None):
    return subprocess.run([kubectl, "--kubeconfig", kubeconfig, *args], input=stdin, text=True,
                          capture_output=True, check=True).stdout


def seed(ns, name, source):
    return (f"apiVersion: planter.nephio.org/v1alpha1\nkind: Seed\nmetadata:\n  name: {name}\n"
            f"  namespace: {ns}\nspec:\n  source:\n{source}\n")


subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                "-keyout", key, "-out", cert], capture_output=True, check=True)
server = subprocess.Popen([sys.executable, os.path.join(here, "../tests/operator/trickle_server.py"),
                           cert, key, "2"], stdout=subprocess.PIPE, text=True)
port = int(server.stdout.readline().split()[0])
sim = subprocess.Popen([planter, "sim", "--port", "0", "--kubeconfig-out", kubeconfig],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
while "kubeconfig in" not in sim.stdout.readline():
    pass
operator = subprocess.Popen([planter, "operator", "--kubeconfig", kubeconfig, "--seed-ca-file",
                             cert, "--metrics-addr", "127.0.0.1:0", "--health-addr",
                             "127.0.0.1:0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    k("create", "namespace", "slow")
    k("create", "namespace", "good")
    k("create", "-f", "-", stdin="\n---\n".join(
        seed("slow", f"trickle-{i}", f"    url: https://127.0.0.1:{port}/seed-{i}.yaml")
        for i in range(trickling)))
    # Every trickling Seed is being read before the good one comes.
    while True:
        phases = k("get", "seeds", "-n", "slow", "-o", "jsonpath={.items[*].status.phase}").split()
        if len(phases) == trickling:
            break
        time.sleep(0.1)
    start = time.monotonic()
    k("create", "-f", "-", stdin=seed("good", "small", "    inline: |\n      apiVersion: v1\n"
                                      "      kind: ConfigMap\n      metadata: {name: small, "
                                      "namespace: good}\n      data: {a: b}"))
    while k("get", "seed", "small", "-n", "good", "-o", "jsonpath={.status.phase}") != "Planted":
        time.sleep(0.05)
    took = time.monotonic() - start
    print(f"{trickling} trickling Seeds: the good Seed was Planted {took:.2f} s after its creation")
finally:
    for p in (operator, sim, server):
        p.terminate()
        p.wait()
    shutil.rmtree(folder, ignore_errors=True)
