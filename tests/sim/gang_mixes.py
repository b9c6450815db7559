"""200 random gang mixes against the sim's scheduler, judged by an oracle written from the
Kubernetes documentation, not from the sim's code:

- kubernetes.io "Gang Scheduling": pods of a gang are held in PreEnqueue until the PodGroup
  exists and at least minCount pods of it exist; then, if valid placements are found for at
  least minCount pods, those are bound; otherwise none is.
- "PodGroup Scheduling": a pod joining a group that already has pods bound is evaluated with
  them counted (so it is bound if it fits once minCount are scheduled).
- "Resource Management for Pods and Containers": a pod fits a node whose allocatable cpu and
  memory, less what its bound pods request, covers its requests.

Each group of a mix has nodes of its own (a label and a nodeSelector), pods of one size, and a
random minCount (up to one more than its pods, so some never reach quorum). For pods of one size,
how many fit is the number of free slots, whichever nodes the scheduler picks:
sum over nodes of min(free cpu // cpu, free memory // memory). The oracle says, per group, how
many pods are bound: all that fit when that reaches minCount, else none. Some groups then get more
pods (a second wave) that join the bound ones.

Usage: gang_mixes.py KUBECONFIG [MIXES [SEED]]. Prints one line per disagreement and
"all N mixes agree" at the end; exits non-zero on any disagreement.
"""
import random
import sys
import time

from kubernetes import client, config
from kubernetes.client.rest import ApiException

config.load_kube_config(sys.argv[1])
MIXES = int(sys.argv[2]) if len(sys.argv) > 2 else 200
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 50)
core = client.CoreV1Api()
custom = client.CustomObjectsApi()
GROUP, VERSION = "scheduling.k8s.io", "v1beta1"
GI = 2**30


def slots(nodes, cpu_m, mem_gi):
    """How many pods of one size the nodes can take: each node's free cpu and memory, divided."""
    return sum(min(free_cpu // cpu_m, free_mem // mem_gi) for free_cpu, free_mem in nodes)


def oracle(group, already_bound=0):
    """How many of the group's waiting pods the documentation says are bound."""
    waiting = group["pods"] - already_bound
    if group["pods"] < group["min"]:
        return 0  # quorum never reached: held in PreEnqueue
    fit = min(waiting, slots(group["free"], group["cpu"], group["mem"]))
    return fit if already_bound + fit >= group["min"] else 0


def node(name, label, cpu, mem):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "mix": label}},
            "status": {"allocatable": {"cpu": str(cpu), "memory": f"{mem}Gi", "pods": "110"}}}


def pod(name, ns, group, label, cpu_m, mem_gi):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"schedulingGroup": {"podGroupName": group}, "nodeSelector": {"mix": label},
                     "containers": [{"name": "main", "image": "registry.example/train:1",
                                     "resources": {"requests": {"cpu": f"{cpu_m}m",
                                                                "memory": f"{mem_gi}Gi"}}}]}}


def create(fn, *args):
    for attempt in range(20):
        try:
            return fn(*args)
        except ApiException as e:
            if e.status not in (429, 500, 503) or attempt == 19:
                raise
            time.sleep(0.1)  # sleep-ok(poll): a retry after the server said to back off


def barrier(n):
    """A pod of no group, scheduled once the scheduler has taken every pod made before it."""
    name = f"barrier-{n}"
    create(core.create_namespaced_pod, "default",
           {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "main", "image": "registry.example/pause:1"}]}})
    deadline = time.time() + 120
    while not core.read_namespaced_pod(name, "default").spec.node_name:
        if time.time() > deadline:
            raise SystemExit(f"FAIL the scheduler did not reach {name}")
        time.sleep(0.05)  # sleep-ok(poll): waiting on the scheduler's state


def bound_pods(ns):
    return {p.metadata.name for p in core.list_namespaced_pod(ns).items if p.spec.node_name}


groups = []
for m in range(MIXES):
    ns = f"mix-{m}"
    create(core.create_namespace, {"metadata": {"name": ns}})
    for g in range(rng.randint(1, 4)):
        label = f"{ns}-g{g}"
        nodes = [(rng.choice([1, 2, 4, 8]) * 1000, rng.choice([2, 4, 8, 16]))
                 for _ in range(rng.randint(1, 3))]
        for i, (cpu_m, mem) in enumerate(nodes):
            create(core.create_node, node(f"{label}-n{i}", label, cpu_m // 1000, mem))
        size = rng.randint(1, 6)
        groups.append({"ns": ns, "name": f"g{g}", "label": label, "pods": size,
                       "min": rng.randint(1, size + 1), "cpu": rng.choice([500, 1000, 2000, 3000]),
                       "mem": rng.choice([1, 2, 4]), "free": list(nodes), "wave": 0})

for g in groups:
    create(custom.create_namespaced_custom_object, GROUP, VERSION, g["ns"], "podgroups",
           {"apiVersion": f"{GROUP}/{VERSION}", "kind": "PodGroup", "metadata": {"name": g["name"]},
            "spec": {"schedulingPolicy": {"gang": {"minCount": g["min"]}}}})
    for i in range(g["pods"]):
        create(core.create_namespaced_pod, g["ns"],
               pod(f"{g['name']}-{i}", g["ns"], g["name"], g["label"], g["cpu"], g["mem"]))
barrier(1)

disagreements = []


def judge(g, expected, stage):
    bound = {p for p in bound_pods(g["ns"]) if p.startswith(g["name"] + "-")}
    if len(bound) != expected:
        disagreements.append(f"{g['ns']}/{g['name']} ({stage}): {g['pods']} pods of "
                             f"{g['cpu']}m/{g['mem']}Gi, minCount {g['min']}, nodes {g['free']}: "
                             f"oracle says {expected} bound, the sim bound {len(bound)}")
    return len(bound)


for g in groups:
    g["bound"] = judge(g, oracle(g), "first")

# The second wave: more pods for a third of the groups that were bound.
second = [g for g in groups if g["bound"] and rng.random() < 0.33]
for g in second:
    # Free capacity from what the sim reports, not from the oracle's own guess of the placement.
    used = {}
    for p in core.list_namespaced_pod(g["ns"]).items:
        if p.spec.node_name:
            used[p.spec.node_name] = used.get(p.spec.node_name, 0) + 1
    g["free"] = [(cpu_m - used.get(f"{g['label']}-n{i}", 0) * g["cpu"],
                  mem - used.get(f"{g['label']}-n{i}", 0) * g["mem"])
                 for i, (cpu_m, mem) in enumerate(g["free"])]
    extra = rng.randint(1, 3)
    for i in range(g["pods"], g["pods"] + extra):
        create(core.create_namespaced_pod, g["ns"],
               pod(f"{g['name']}-{i}", g["ns"], g["name"], g["label"], g["cpu"], g["mem"]))
    g["joined"] = extra
barrier(2)
for g in second:
    # Its pods not bound yet (those of the first wave that did not fit, and the new ones) are
    # bound as far as they fit: the group already has minCount scheduled.
    waiting = g["pods"] - g["bound"] + g["joined"]
    judge(g, g["bound"] + min(waiting, slots(g["free"], g["cpu"], g["mem"])), "second wave")

for d in disagreements:
    print("DISAGREE", d)
if disagreements:
    raise SystemExit(f"FAIL {len(disagreements)} of {len(groups)} groups disagree")
print(f"all {MIXES} mixes agree ({len(groups)} groups, {len(second)} second waves)")
