#!/usr/bin/env python3
"""What the operator costs at fleet scale: SEEDS Seeds of OBJECTS ConfigMaps each, Seed i planting
on workload cluster edge(i mod CLUSTERS + 1) of a `planter sim --clusters CLUSTERS` (clusters that
already exist, found by their Cluster objects). The Seeds are created first; then `planter
operator` starts, and the time until every Seed is Planted is measured, with the peak resident
memory (VmHWM) of the operator and of the sim. With SHARDS above 1, that many operators run
(`--leader-elect --shards SHARDS`), each planting the Seeds of the shard whose Lease it holds, as
Argo CD's application controller is sharded. Numbers only; nothing passes or fails on time.

With OPERATOR_BENCH_SHAPE=rhacm, Red Hat ACM's telco hub as Seeds: Seed i creates its own
single-node cluster sno<i> (a Cluster object in the Seeds' namespace) and plants on it what a
hub's policies put there (OBJECTS is 20 and CLUSTERS 0 then, whatever is given: the Node Tuning
Operator's PerformanceProfile with its CRDs and pool, a Namespace, RBAC, a NetworkPolicy, a
Secret, ten ConfigMaps), as peer_shapes_bench's rhacm seed does for one seed.

Every shape's correctness is the sim's audit log's word: each object of every Seed created once,
on its cluster.

Usage: operator_bench.py PLANTER_BINARY KUBECTL [SEEDS] [OBJECTS] [CLUSTERS] [SHARDS]
       (defaults 1000, 50, 20, 1); OPERATOR_BENCH_ARGS: more flags for the operator, such as
       "--dashboard-addr 127.0.0.1:0" (which keeps each Seed's plan after its run)
"""
import collections
import json
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
shape = os.environ.get("OPERATOR_BENCH_SHAPE", "configmaps")
if shape not in ("configmaps", "rhacm"):
    sys.exit(f"OPERATOR_BENCH_SHAPE={shape}: the shapes are configmaps and rhacm")
if shape == "rhacm":
    objects, clusters = 20, 0
folder = tempfile.mkdtemp(prefix="planter-operator-bench-")
kubeconfig = os.path.join(folder, "kubeconfig")
audit = os.path.join(folder, "audit.jsonl")


def doc(api_version, kind, name, ns, on, rest=""):
    """A document of a Seed, and its object in the audit log's words (`v1|ConfigMap|du|x`)."""
    where = f"  namespace: {ns}\n" if ns else ""
    return (f"apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}\n{where}{on}"
            f"{rest}", f"{api_version}|{kind}|{ns}|{name}")


def crd(group, kind, version, on):
    """A stand-in for an operator's CRD: its group, kind and status; the schema left open."""
    plural = kind.lower() + "s"
    return doc("apiextensions.k8s.io/v1", "CustomResourceDefinition", f"{plural}.{group}", "", on,
               f"spec:\n  group: {group}\n  scope: Cluster\n  names: {{kind: {kind}, listKind: "
               f"{kind}List, plural: {plural}, singular: {kind.lower()}}}\n  versions:\n"
               f"  - name: {version}\n    served: true\n    storage: true\n"
               f"    subresources: {{status: {{}}}}\n    schema: {{openAPIV3Schema: {{type: object, "
               f"x-kubernetes-preserve-unknown-fields: true}}}}")


def rhacm_objects(on):
    """What a telco hub's policies put on a single-node cluster: 20 objects."""
    master = "{node-role.kubernetes.io/master: \"\"}"
    return [
        crd("performance.openshift.io", "PerformanceProfile", "v2", on),
        crd("machineconfiguration.openshift.io", "MachineConfigPool", "v1", on),
        doc("machineconfiguration.openshift.io/v1", "MachineConfigPool", "master", "",
            on + "  labels: {machineconfiguration.openshift.io/role: master}\n",
            f"spec:\n  nodeSelector: {{matchLabels: {master}}}"),
        doc("performance.openshift.io/v2", "PerformanceProfile", "du-perf", "", on,
            "spec:\n  cpu: {isolated: \"2-7\", reserved: \"0-1\"}\n"
            "  hugepages: {defaultHugepagesSize: 1G, pages: [{size: 1G, count: 4}]}\n"
            "  realTimeKernel: {enabled: true}\n"
            "  machineConfigPoolSelector: {machineconfiguration.openshift.io/role: master}\n"
            f"  nodeSelector: {master}"),
        doc("v1", "Namespace", "du", "", on),
        doc("v1", "ServiceAccount", "du-operator", "du", on),
        doc("rbac.authorization.k8s.io/v1", "Role", "du-operator", "du", on,
            "rules:\n- apiGroups: [\"\"]\n  resources: [configmaps]\n  verbs: [get, list, watch]"),
        doc("rbac.authorization.k8s.io/v1", "RoleBinding", "du-operator", "du", on,
            "roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: du-operator}\n"
            "subjects:\n- {kind: ServiceAccount, name: du-operator, namespace: du}"),
        doc("networking.k8s.io/v1", "NetworkPolicy", "default-deny", "du", on,
            "spec:\n  podSelector: {}\n  policyTypes: [Ingress]"),
        doc("v1", "Secret", "pull-secret", "du", on, "stringData: {token: not-a-secret}"),
    ] + [doc("v1", "ConfigMap", f"policy-{j}", "du", on,
             f"data: {{ptp: \"profile {j}\", sriov: \"pf{j}\"}}") for j in range(10)]


def seed_of(i):
    """Seed i's documents, and (cluster, object) for each the audit log is to show created."""
    if shape == "rhacm":
        cluster = f"sno{i:04}"
        on = f"  annotations: {{planter.nephio.org/cluster: {cluster}}}\n"
        own, _ = doc("planter.nephio.org/v1alpha1", "Cluster", cluster, "bench", "",
                     f"spec:\n  nodes:\n  - name: sno\n    count: 1\n    labels: "
                     f"{{node-role.kubernetes.io/master: \"\"}}")
        planted = rhacm_objects(on)
        return [own] + [d for d, _ in planted], [(cluster, w) for _, w in planted]
    cluster = f"edge{i % clusters + 1}"
    on = f"  annotations: {{planter.nephio.org/cluster: {cluster}}}\n"
    planted = [doc("v1", "ConfigMap", f"s{i}-c{j}", "default", on, f"data: {{index: \"{j}\"}}")
               for j in range(objects)]
    return [d for d, _ in planted], [(cluster, w) for _, w in planted]


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
                        "--kubeconfig-out", kubeconfig, "--audit-log", audit],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
children.append(sim)
while "kubeconfig in" not in sim.stdout.readline():
    pass
k("create", "namespace", "bench")
if shards > 1:
    k("create", "namespace", "planter-system")  # the shards' Leases
docs = []
expected = set()
for i in range(seeds):
    documents, shown = seed_of(i)
    expected.update(shown)
    inline = "\n---\n".join(documents)
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
sim_mib = peak_mib(sim.pid)
created = collections.Counter()  # (cluster, object) the audit log has created, and how often
with open(audit) as log:
    for line in log:
        e = json.loads(line)
        if e.get("verb") in ("create", "apply") and e.get("code") == 201:
            created[(e.get("cluster"), e.get("object"))] += 1
missing = expected - created.keys()
twice = sum(1 for key in expected if created[key] > 1)
where = "its own cluster" if shape == "rhacm" else f"{clusters} workload clusters"
print(f"{seeds} Seeds x {objects} objects on {where}, {who}: "
      f"{planted}/{seeds} Planted in {elapsed:.1f} s; peak resident: {each} "
      f"({sum(peaks) * 1024 / (seeds * objects):.1f} KiB per object), "
      f"sim {sim_mib:.0f} MiB ({sim_mib * 1024 / (seeds * objects):.1f} KiB per object); "
      f"audit log: {len(expected) - len(missing)} of {len(expected)} objects created, "
      f"{twice} more than once")
if missing:
    print("not created, for example:", ", ".join(" ".join(m) for m in sorted(missing)[:3]))
for o in operators:
    o.terminate()
for o in operators:
    o.wait(timeout=30)
sim.terminate()
sim.wait(timeout=30)
if planted == seeds and not missing and not twice:
    shutil.rmtree(folder)
else:
    print(f"operator logs: {folder}/operator*.log")
