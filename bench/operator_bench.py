#!/usr/bin/env python3
"""What the operator costs at fleet scale: SEEDS Seeds of OBJECTS ConfigMaps each, Seed i planting
on workload cluster edge(i mod CLUSTERS + 1) of a `planter sim --clusters CLUSTERS` (clusters that
already exist, found by their Cluster objects). The Seeds are created first; then `planter
operator` starts, and the time until every Seed is Planted is measured, with the peak resident
memory (VmHWM) of the operator and of the sim. With SHARDS above 1, that many operators run
(`--leader-elect --shards SHARDS`), each planting the Seeds of the shard whose Lease it holds, as
Argo CD's application controller is sharded. Numbers only; nothing passes or fails on time.

Usage: operator_bench.py PLANTER_BINARY KUBECTL [SEEDS] [OBJECTS] [CLUSTERS] [SHARDS]
       (defaults 1000, 50, 20, 1); OPERATOR_BENCH_ARGS: more flags for the operator, such as
       "--dashboard-addr 127.0.0.1:0" (which keeps each Seed's plan after its run)
"""
import atexit
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

planter, kubectl = sys.argv[1], sys.argv[2]
seeds = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
objects = int(sys.argv[4]) if len(sys.argv) > 4 else 50
clusters = int(sys.argv[5]) if len(sys.argv) > 5 else 20
shards = int(sys.argv[6]) if len(sys.argv) > 6 else 1
folder = tempfile.mkdtemp(prefix="planter-operator-bench-")
kubeconfig = os.path.join(folder, "kubeconfig")


def peak_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def k(*args, stdin=None):
    return subprocess.run([kubectl, "--kubeconfig", kubeconfig, *args], input=stdin, text=True,
                          capture_output=True, check=True).stdout


children = []  # killed at exit, however the bench ends
atexit.register(lambda: [c.kill() for c in children if c.poll() is None])
sim = subprocess.Popen([planter, "sim", "--port", "0", "--clusters", str(clusters),
                        "--kubeconfig-out", kubeconfig],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
children.append(sim)
while "kubeconfig in" not in sim.stdout.readline():
    pass
k("create", "namespace", "bench")
if shards > 1:
    k("create", "namespace", "planter-system")  # the shards' Leases
docs = []
for i in range(seeds):
    cluster = f"edge{i % clusters + 1}"
    inline = "\n---\n".join(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s{i}-c{j}\n  namespace: default\n"
        f"  annotations: {{planter.nephio.org/cluster: {cluster}}}\ndata: {{index: \"{j}\"}}"
        for j in range(objects))
    indented = "\n".join("      " + line for line in inline.splitlines())
    docs.append(f"apiVersion: planter.nephio.org/v1alpha1\nkind: Seed\nmetadata:\n  name: s{i}\n"
                f"  namespace: bench\nspec:\n  source:\n    inline: |\n{indented}\n")
chunk = 100
for start in range(0, len(docs), chunk):
    k("create", "-f", "-", stdin="\n---\n".join(docs[start:start + chunk]))

sharding = ["--leader-elect", "--shards", str(shards)] if shards > 1 else []
operators = [
    subprocess.Popen([planter, "operator", "--kubeconfig", kubeconfig, "-n", "bench",
                      "--metrics-addr", "127.0.0.1:0", "--health-addr", "127.0.0.1:0", *sharding,
                      *shlex.split(os.environ.get("OPERATOR_BENCH_ARGS", ""))],
                     stdout=open(os.path.join(folder, f"operator{i}.log"), "w"),
                     stderr=subprocess.STDOUT)
    for i in range(shards)]
children += operators
began = time.monotonic()
planted = 0
while time.monotonic() - began < 900:
    # The server's table (the CRD's printer columns), not the Seeds themselves: reading
    # SEEDS x OBJECTS inline objects twice a second would cost the machine more than the operator.
    rows = k("get", "seeds", "-n", "bench", "--no-headers").splitlines()
    planted = sum(1 for row in rows if row.split()[1:2] == ["Planted"])
    if planted == seeds or any(o.poll() is not None for o in operators):
        break
    time.sleep(max(0.5, seeds / 10000))  # each look costs the sim a table of every Seed
elapsed = time.monotonic() - began
if any(o.poll() is not None for o in operators):
    sys.exit(f"an operator ended before every Seed was Planted: see {folder}/operator*.log")
peaks = [peak_mib(o.pid) for o in operators]
who = "one operator" if shards == 1 else f"{shards} shards"
each = f"operator {peaks[0]:.0f} MiB" if shards == 1 else \
    "operators " + " + ".join(f"{p:.0f}" for p in peaks) + f" = {sum(peaks):.0f} MiB"
print(f"{seeds} Seeds x {objects} objects on {clusters} workload clusters, {who}: "
      f"{planted}/{seeds} Planted in {elapsed:.1f} s; peak resident: {each} "
      f"({sum(peaks) * 1024 / (seeds * objects):.1f} KiB per object), "
      f"sim {peak_mib(sim.pid):.0f} MiB")
for o in operators:
    o.terminate()
for o in operators:
    o.wait(timeout=30)
sim.terminate()
sim.wait(timeout=30)
if planted == seeds:
    shutil.rmtree(folder)
else:
    print(f"operator logs: {folder}/operator*.log")
