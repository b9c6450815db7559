"""The sim's scheduler and workload controllers as a user meets them through kubectl and the
Python client, judged after every scenario by scheduling_oracle.py (written from the Kubernetes
documentation, not from the sim's code).

Usage: scheduling.py KUBECTL KUBECONFIG, against a sim started with --nodes 3 --node-cpu 4
--node-memory 16Gi --zones 2 --workload-delay 100 --node-resource example.com/dongle=2.
Prints "ok NAME" per check and "all checks passed" at the end; exits non-zero on the first
failure.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scheduling_oracle as oracle  # noqa: E402
from kubectl_script import KUBECONFIG, check, get, kubectl  # noqa: E402
from waiting import until  # noqa: E402


def apply(manifest):
    kubectl("apply", "-f", "-", stdin=manifest)


def pods(ns):
    return get("pods", "-n", ns)["items"]


def settled(ns, count=None):
    """Waits until every default-scheduler pod of `ns` is Running, Succeeded or refused with
    PodScheduled=False (and `count` pods exist), then returns them."""
    deadline = time.time() + 30
    while True:
        items = pods(ns)
        def done(p):
            if not oracle.ours(p):
                return True
            if p["status"].get("phase") in ("Running", "Succeeded"):
                return True
            c = next((c for c in p["status"].get("conditions") or []
                      if c["type"] == "PodScheduled"), None)
            return c is not None and c["status"] == "False"
        if all(done(p) for p in items) and (count is None or len(items) == count):
            return items
        if time.time() > deadline:
            raise SystemExit(f"FAIL {ns} did not settle: " + json.dumps(
                [(p["metadata"]["name"], p["status"].get("phase")) for p in items]))
        # sleep-ok(poll): the step of a wait for observed state with a deadline
        time.sleep(0.2)


def judge(name):
    """The oracle's verdict over the whole cluster."""
    nodes = get("nodes")["items"]
    all_pods = get("pods", "-A")["items"]
    namespaces = {n["metadata"]["name"]: n["metadata"].get("labels") or {}
                  for n in get("namespaces")["items"]}
    problems = oracle.violations(nodes, all_pods, namespaces, get("pvc", "-A")["items"],
                                 get("pv")["items"], get("storageclass")["items"])
    check(f"{name}: the oracle agrees", not problems, "\n  ".join(problems))


def namespace(ns):
    kubectl("create", "namespace", ns)


def finish(ns):
    kubectl("delete", "namespace", ns, "--wait=true", "--timeout=30s")


def deployment(name, ns, replicas, spec_extra="", labels=None, cpu="100m", memory="64Mi"):
    labels = labels or {"app": name}
    label_text = ", ".join(f"{k}: {v}" for k, v in labels.items())
    return f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: {ns}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{{label_text}}}}}
  template:
    metadata: {{labels: {{{label_text}}}}}
    spec:
{spec_extra}      containers:
      - name: main
        image: registry.example/{name}:1
        resources: {{requests: {{cpu: {cpu}, memory: {memory}}}}}
"""


def required_anti_affinity(app, topology_key):
    return f"""      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {{matchLabels: {{app: {app}}}}}
            topologyKey: {topology_key}
"""


def settled_and_bound(ns, count):
    """settled(), until every pod of `ns` is bound or 20 s have passed."""
    deadline = time.time() + 20
    while True:
        items = settled(ns, count)
        if all(p["spec"].get("nodeName") for p in items) or time.time() > deadline:
            return items
        # sleep-ok(poll): the step of a wait for observed state with a deadline
        time.sleep(0.2)


def pending_message(p):
    c = next(c for c in p["status"]["conditions"] if c["type"] == "PodScheduled")
    return c["message"]


def node_names():
    return sorted(n["metadata"]["name"] for n in get("nodes")["items"])


NODES = node_names()


# ---- requests too large, then kubectl scale, rollout status ----
namespace("big")
apply(deployment("huge", "big", 1, cpu="5"))
p = settled("big", 1)[0]
check("a pod asking more cpu than any node has is Pending",
      p["status"]["phase"] == "Pending" and not p["spec"].get("nodeName"))
check("its message is kube-scheduler's",
      pending_message(p) == "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes "
      "are available: 3 No preemption victims found for incoming pod.", pending_message(p))
described = kubectl("describe", "pod", "-n", "big", p["metadata"]["name"]).stdout
check("kubectl describe pod shows the FailedScheduling event",
      "FailedScheduling" in described and "3 Insufficient cpu" in described, described)
# A node's change tries the pod again; the same refusal counts on the same Event, as client-go's
# recorder aggregates it (kubectl describe's "(x2 over ...)").
kubectl("label", "node", NODES[0], "example.com/touched=1")


def refusals():
    return [e for e in get("events", "-n", "big")["items"]
            if e["reason"] == "FailedScheduling" and
            e["involvedObject"]["name"] == p["metadata"]["name"]]


counted = until(lambda: [e["count"] for e in refusals()] == [2], 20)
check("a second refusal with the same message counts on the one FailedScheduling event",
      counted, [(e["metadata"]["name"], e.get("count")) for e in refusals()])
kubectl("label", "node", NODES[0], "example.com/touched-")
judge("requests too large")
apply(deployment("web", "big", 2))
kubectl("rollout", "status", "deploy/web", "-n", "big", "--timeout=20s")
kubectl("scale", "deploy/web", "-n", "big", "--replicas=5")
kubectl("rollout", "status", "deploy/web", "-n", "big", "--timeout=20s")
check("kubectl scale: five pods of web run",
      sum(1 for p in settled("big") if p["metadata"]["name"].startswith("web-")
          and p["status"]["phase"] == "Running") == 5)
kubectl("scale", "deploy/web", "-n", "big", "--replicas=1")
kubectl("rollout", "status", "deploy/web", "-n", "big", "--timeout=20s")
check("kubectl scale down: one pod of web is left",
      sum(1 for p in pods("big") if p["metadata"]["name"].startswith("web-")
          and not p["metadata"].get("deletionTimestamp")) == 1)
judge("scale")
kubectl("set", "image", "deploy/web", "-n", "big", "main=registry.example/web:2")
kubectl("rollout", "status", "deploy/web", "-n", "big", "--timeout=20s")
rses = get("rs", "-n", "big", "-l", "app=web")["items"]
current = [r for r in rses if r["spec"]["replicas"] > 0]
check("a template change makes a new ReplicaSet and scales the old one to zero",
      len(rses) == 2 and len(current) == 1 and
      current[0]["spec"]["template"]["spec"]["containers"][0]["image"] ==
      "registry.example/web:2" and
      current[0]["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "2",
      [(r["metadata"]["name"], r["spec"]["replicas"]) for r in rses])
kubectl("delete", "deploy", "web", "-n", "big")
deadline = time.time() + 20
while time.time() < deadline and any(p["metadata"]["name"].startswith("web-") for p in pods("big")):
    # sleep-ok(poll): the step of a wait for observed state with a deadline
    time.sleep(0.2)
check("deleting the Deployment collects its ReplicaSets and pods",
      not any(p["metadata"]["name"].startswith("web-") for p in pods("big")) and
      not get("rs", "-n", "big", "-l", "app=web")["items"])
finish("big")

# ---- a nodeSelector nobody has, then kubectl label releases it ----
namespace("select")
apply(deployment("ssd", "select", 1, spec_extra="      nodeSelector: {disktype: ssd}\n"))
p = settled("select", 1)[0]
check("a nodeSelector no node matches leaves the pod Pending",
      "3 node(s) didn't match Pod's node affinity/selector" in pending_message(p),
      pending_message(p))
check("the unresolvable reason is not helped by preemption",
      "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
      in pending_message(p), pending_message(p))
judge("nodeSelector unmatched")
kubectl("label", "node", NODES[1], "disktype=ssd")
kubectl("wait", "--for=condition=PodScheduled", "pod", "-l", "app=ssd", "-n", "select",
        "--timeout=20s")
p = settled("select", 1)[0]
check("kubectl label releases it onto that node", p["spec"].get("nodeName") == NODES[1],
      p["spec"].get("nodeName"))
judge("nodeSelector matched")
kubectl("label", "node", NODES[1], "disktype-")
finish("select")

# ---- required node affinity: Gt, Lt, NotIn, DoesNotExist and matchFields ----
namespace("terms")
for i, node in enumerate(NODES):
    kubectl("label", "node", node, f"example.com/generation={i + 1}")
ZONE = "topology.kubernetes.io/zone"
zones = {n["metadata"]["name"]: n["metadata"]["labels"][ZONE] for n in get("nodes")["items"]}


def required(*terms):
    lines = ["      affinity:", "        nodeAffinity:",
             "          requiredDuringSchedulingIgnoredDuringExecution:",
             "            nodeSelectorTerms:"]
    for kind, requirements in terms:
        lines.append(f"            - {kind}:")
        for key, op, values in requirements:
            lines.append(f"              - {{key: {key}, operator: {op}"
                         + (f", values: {json.dumps(values)}" if values is not None else "") + "}")
    return "\n".join(lines) + "\n"


GEN = "example.com/generation"
apply(deployment("newer", "terms", 2, spec_extra=required(
    ("matchExpressions", [(GEN, "Gt", ["1"]), (ZONE, "NotIn", [zones[NODES[1]]])]))))
apply(deployment("older", "terms", 1, spec_extra=required(
    ("matchExpressions", [(GEN, "Lt", ["2"])]))))
apply(deployment("named", "terms", 1, spec_extra=required(
    ("matchExpressions", [(GEN, "DoesNotExist", None)]),
    ("matchFields", [("metadata.name", "In", [NODES[1]])]))))
apply(deployment("unparsable", "terms", 1, spec_extra=required(
    ("matchExpressions", [(GEN, "Gt", ["one"])]))))
items = settled("terms", 5)
where = {}
for p in items:
    where.setdefault(p["metadata"]["labels"]["app"], set()).add(p["spec"].get("nodeName"))
newer_nodes = {n for i, n in enumerate(NODES) if i + 1 > 1 and zones[n] != zones[NODES[1]]}
check("Gt and NotIn ANDed in one term admit only the nodes both admit",
      where.get("newer") == (newer_nodes or {None}), (where, newer_nodes))
check("Lt admits the first generation only", where.get("older") == {NODES[0]}, where)
check("terms are ORed: matchFields names the node DoesNotExist does not admit",
      where.get("named") == {NODES[1]}, where)
p = next(p for p in items if p["metadata"]["labels"]["app"] == "unparsable")
check("a Gt bound that is not an integer matches no node",
      "3 node(s) didn't match Pod's node affinity/selector" in pending_message(p),
      pending_message(p))
judge("node affinity terms")
prefers_newest = f"""      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            preference:
              matchExpressions: [{{key: {GEN}, operator: Gt, values: ["2"]}}]
          - weight: 1
            preference:
              matchFields: [{{key: metadata.name, operator: In, values: [{NODES[0]}]}}]
"""
apply(deployment("preferring", "terms", 2, spec_extra=prefers_newest))
preferring = [p for p in settled("terms", 7) if p["metadata"]["labels"]["app"] == "preferring"]
check("preferred node affinity: the heavier term's node takes every replica",
      {p["spec"].get("nodeName") for p in preferring} == {NODES[2]},
      [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in preferring])
finish("terms")
for node in NODES:
    kubectl("label", "node", node, f"{GEN}-")

# ---- taints with and without tolerations; cordon ----
namespace("taints")
kubectl("taint", "nodes", NODES[0], "dedicated=gold:NoSchedule")
pin = f"      nodeSelector: {{kubernetes.io/hostname: {NODES[0]}}}\n"
apply(deployment("tolerant", "taints", 1, spec_extra=pin + "      tolerations: [{key: dedicated, "
                 "operator: Equal, value: gold, effect: NoSchedule}]\n"))
apply(deployment("intolerant", "taints", 1, spec_extra=pin))
items = {p["metadata"]["labels"]["app"]: p for p in settled("taints", 2)}
check("a pod that tolerates the taint runs on the tainted node",
      items["tolerant"]["spec"].get("nodeName") == NODES[0])
msg = pending_message(items["intolerant"])
check("a pod that does not is refused with the taint named",
      "1 node(s) had untolerated taint {dedicated: gold}" in msg and
      "2 node(s) didn't match Pod's node affinity/selector" in msg, msg)
judge("taints")
kubectl("taint", "nodes", NODES[0], "dedicated=gold:NoSchedule-")
kubectl("wait", "--for=condition=PodScheduled", "pod", "-l", "app=intolerant", "-n", "taints",
        "--timeout=20s")
p = next(p for p in pods("taints") if p["metadata"]["labels"]["app"] == "intolerant")
check("removing the taint lets it in", p["spec"].get("nodeName") == NODES[0],
      p["spec"].get("nodeName"))
kubectl("cordon", NODES[2])
apply(deployment("cordoned", "taints", 1,
                 spec_extra=f"      nodeSelector: {{kubernetes.io/hostname: {NODES[2]}}}\n"))
p = next(p for p in settled("taints", 3) if p["metadata"]["labels"]["app"] == "cordoned")
check("a cordoned node takes no new pod", "1 node(s) were unschedulable" in pending_message(p),
      pending_message(p))
judge("cordon")
kubectl("uncordon", NODES[2])
kubectl("wait", "--for=condition=PodScheduled", "pod", "-l", "app=cordoned", "-n", "taints",
        "--timeout=20s")
p = next(p for p in pods("taints") if p["metadata"]["labels"]["app"] == "cordoned")
check("uncordon lets it in", p["spec"].get("nodeName") == NODES[2], p["spec"].get("nodeName"))
finish("taints")

# ---- required anti-affinity over hostname: N replicas on N nodes, one more Pending ----
namespace("anti")
apply(deployment("spread", "anti", 4,
                 spec_extra=required_anti_affinity("spread", "kubernetes.io/hostname")))
items = settled("anti", 4)
bound = [p for p in items if p["spec"].get("nodeName")]
check("three replicas run, each on its own node",
      len(bound) == 3 and len({p["spec"]["nodeName"] for p in bound}) == 3)
pending = [p for p in items if not p["spec"].get("nodeName")]
check("the fourth is Pending for anti-affinity",
      len(pending) == 1 and
      "3 node(s) didn't match pod anti-affinity rules" in pending_message(pending[0]),
      pending and pending_message(pending[0]))
judge("anti-affinity")
gone = bound[0]
kubectl("delete", "pod", "-n", "anti", gone["metadata"]["name"], "--wait=true")
items = settled("anti", 4)
bound = [p for p in items if p["spec"].get("nodeName")]
check("a replica deleted frees its node for one pod, the other stays Pending",
      len(bound) == 3 and len({p["spec"]["nodeName"] for p in bound}) == 3 and
      gone["spec"]["nodeName"] in {p["spec"]["nodeName"] for p in bound},
      [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in items])
judge("anti-affinity after a delete")
finish("anti")

# ---- anti-affinity over a topology its nodes are relabelled in ----
namespace("racks")
for node, rack in zip(NODES, ("a", "a", "b")):
    kubectl("label", "node", node, f"example.com/rack={rack}", "--overwrite")
apply(deployment("racked", "racks", 3,
                 spec_extra=required_anti_affinity("racked", "example.com/rack")))
items = settled("racks", 3)
in_a = [p for p in items if p["spec"].get("nodeName") in NODES[:2]]
check("one replica per rack, the third Pending",
      len(in_a) == 1 and sum(1 for p in items if p["spec"].get("nodeName") == NODES[2]) == 1 and
      sum(1 for p in items if not p["spec"].get("nodeName")) == 1,
      [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in items])
# The node of rack a that holds a replica moves to rack c: rack a is empty, and the Pending
# replica goes to its other node.
held = in_a[0]["spec"]["nodeName"]
kubectl("label", "node", held, "example.com/rack=c", "--overwrite")
items = settled_and_bound("racks", 3)
check("a node relabelled out of a rack lets the Pending replica into the rack it left",
      sorted(p["spec"].get("nodeName") or "" for p in items) == sorted(NODES),
      [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in items])
judge("anti-affinity over relabelled racks")
finish("racks")
for node in NODES:
    kubectl("label", "node", node, "example.com/rack-")

# ---- required affinity across two Deployments, both directions ----
namespace("affinity")
near_db = """      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: db}}
            topologyKey: kubernetes.io/hostname
"""
apply(deployment("front", "affinity", 2, spec_extra=near_db))
items = settled("affinity", 2)
check("a pod whose affinity no pod satisfies waits (the first-pod problem)",
      all("3 node(s) didn't match pod affinity rules" in pending_message(p) for p in items),
      [pending_message(p) for p in items])
judge("affinity before its target")
apply(deployment("db", "affinity", 1))
items = settled_and_bound("affinity", 3)
db = next(p for p in items if p["metadata"]["labels"]["app"] == "db")
check("once the db runs, the front pods join it on its node",
      all(p["spec"].get("nodeName") == db["spec"]["nodeName"] for p in items),
      [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in items])
self_affine = """      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: cache}}
            topologyKey: kubernetes.io/hostname
"""
apply(deployment("cache", "affinity", 3, spec_extra=self_affine))
caches = [p for p in settled("affinity", 6) if p["metadata"]["labels"]["app"] == "cache"]
check("a group with affinity to itself starts (the first pod may go anywhere) and stays together",
      all(p["spec"].get("nodeName") for p in caches) and
      len({p["spec"]["nodeName"] for p in caches}) == 1,
      [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in caches])
judge("affinity")
finish("affinity")

# ---- zone spread ----
namespace("zones")
spread = """      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector: {matchLabels: {app: zonal}}
"""
apply(deployment("zonal", "zones", 4, spec_extra=spread))
items = settled("zones", 4)
zone_of = {n["metadata"]["name"]: n["metadata"]["labels"]["topology.kubernetes.io/zone"]
           for n in get("nodes")["items"]}
per_zone = {}
for p in items:
    z = zone_of[p["spec"]["nodeName"]]
    per_zone[z] = per_zone.get(z, 0) + 1
check("four replicas spread two and two over two zones", sorted(per_zone.values()) == [2, 2],
      per_zone)
judge("zone spread")
finish("zones")

# ---- a DaemonSet skips a tainted node ----
namespace("daemons")
kubectl("taint", "nodes", NODES[2], "maintenance=true:NoExecute")
apply("""apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: daemons}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: registry.example/agent:1}]
""")
kubectl("rollout", "status", "ds/agent", "-n", "daemons", "--timeout=20s")
items = settled("daemons", 2)
check("the DaemonSet runs on the two untainted nodes only",
      sorted(p["spec"]["nodeName"] for p in items) == NODES[:2])
ds = get("ds", "agent", "-n", "daemons")
check("its status desires two", ds["status"]["desiredNumberScheduled"] == 2 and
      ds["status"]["numberReady"] == 2, ds["status"])
judge("daemonset")
kubectl("taint", "nodes", NODES[2], "maintenance=true:NoExecute-")
finish("daemons")

# ---- QoS classes, extended resources, Jobs ----
namespace("qos")
apply("""apiVersion: v1
kind: Pod
metadata: {name: guaranteed, namespace: qos}
spec:
  initContainers: [{name: init, image: busybox, resources: {limits: {cpu: 100m, memory: 32Mi}}}]
  containers: [{name: c, image: busybox, resources: {limits: {cpu: 200m, memory: 64Mi, example.com/dongle: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: burstable, namespace: qos}
spec:
  initContainers: [{name: init, image: busybox}]
  containers: [{name: c, image: busybox, resources: {requests: {cpu: 100m}, limits: {cpu: 200m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: besteffort, namespace: qos}
spec:
  containers: [{name: c, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata: {name: too-many-dongles, namespace: qos}
spec:
  containers: [{name: c, image: busybox, resources: {limits: {example.com/dongle: "3"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: batch, namespace: qos}
spec:
  completions: 3
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
""")
kubectl("wait", "--for=condition=Complete", "job/batch", "-n", "qos", "--timeout=30s")
items = {p["metadata"]["name"]: p for p in settled("qos")}
check("QoS classes as Kubernetes gives them",
      [items[n]["status"]["qosClass"] for n in ("guaranteed", "burstable", "besteffort")] ==
      ["Guaranteed", "Burstable", "BestEffort"])
check("limits without requests request the limits",
      items["guaranteed"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "200m")
check("an extended resource no node has enough of",
      "3 Insufficient example.com/dongle" in pending_message(items["too-many-dongles"]),
      pending_message(items["too-many-dongles"]))
job = get("job", "batch", "-n", "qos")
check("the Job ran three pods to completion", job["status"].get("succeeded") == 3, job["status"])
judge("qos")
finish("qos")

# ---- host ports by host IP; a kubelet's admission of a pod bound past its node's devices ----
namespace("ports")
def port_pod(name, ip=None):
    ip_text = f", hostIP: {ip}" if ip else ""
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: ports}}
spec:
  nodeSelector: {{kubernetes.io/hostname: {NODES[0]}}}
  containers: [{{name: c, image: busybox, ports: [{{containerPort: 80, hostPort: 8080{ip_text}}}]}}]
"""
apply(port_pod("on-ip-1", "127.0.0.1") + "---\n" + port_pod("on-ip-2", "127.0.0.2"))
items = {p["metadata"]["name"]: p for p in settled("ports", 2)}
check("one host port on two host IPs: both run on the node (kube-scheduler's NodePorts)",
      all(items[n]["status"].get("phase") == "Running" for n in ("on-ip-1", "on-ip-2")),
      [items[n]["status"].get("phase") for n in items])
apply(port_pod("on-every-ip"))
items = {p["metadata"]["name"]: p for p in settled("ports", 3)}
check("the wildcard 0.0.0.0 clashes with both",
      "didn't have free ports for the requested pod ports" in
      pending_message(items["on-every-ip"]), items["on-every-ip"]["status"])
def dongle_pod(name, count):
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: ports}}
spec:
  nodeName: {NODES[1]}
  containers: [{{name: c, image: busybox, resources: {{limits: {{example.com/dongle: "{count}"}}}}}}]
"""
apply(dongle_pod("first", 2))
check("a pod bound by name to a node with room runs",
      until(lambda: get("pod", "first", "-n", "ports")["status"].get("phase") == "Running"))
apply(dongle_pod("second", 1))
check("a pod bound past the node's devices is rejected by its kubelet",
      until(lambda: get("pod", "second", "-n", "ports")["status"].get("phase") == "Failed"),
      get("pod", "second", "-n", "ports")["status"])
status = get("pod", "second", "-n", "ports")["status"]
check("in a kubelet's words", status.get("reason") == "OutOfexample.com/dongle" and
      status.get("message", "").startswith(
          "Pod was rejected: Node didn't have enough resource: example.com/dongle, requested: 1, "
          "used: 2, capacity: 2"), status)
finish("ports")

# ---- another scheduler's pod waits; the Python client binds it ----
namespace("manual")
apply("""apiVersion: v1
kind: Pod
metadata: {name: mine, namespace: manual}
spec:
  schedulerName: my-scheduler
  containers: [{name: c, image: busybox}]
""")
# The sim's scheduler takes pods in order: once a later pod of its own is bound, it has seen (and
# left alone) the other scheduler's.
apply("""apiVersion: v1
kind: Pod
metadata: {name: after, namespace: manual}
spec:
  containers: [{name: c, image: busybox}]
""")
check("the sim's scheduler binds its own pod", until(
    lambda: get("pod", "after", "-n", "manual")["spec"].get("nodeName")))
p = get("pod", "mine", "-n", "manual")
check("a pod of another scheduler stays Pending, untouched",
      not p["spec"].get("nodeName") and not p["status"].get("conditions"), p["status"])
from kubernetes import client, config  # noqa: E402
config.load_kube_config(KUBECONFIG)
v1 = client.CoreV1Api()
v1.create_namespaced_pod_binding(
    "mine", "manual",
    client.V1Binding(metadata=client.V1ObjectMeta(name="mine"),
                     target=client.V1ObjectReference(kind="Node", api_version="v1",
                                                     name=NODES[2])),
    _preload_content=False)
kubectl("wait", "--for=condition=Ready", "pod/mine", "-n", "manual", "--timeout=20s")
check("the Python client bound it through pods/binding and it runs there",
      get("pod", "mine", "-n", "manual")["spec"]["nodeName"] == NODES[2])
again = kubectl("create", "-f", "-", "--raw", "/api/v1/namespaces/manual/pods/mine/binding",
                check=False, stdin=json.dumps({"apiVersion": "v1", "kind": "Binding",
                                               "metadata": {"name": "mine"},
                                               "target": {"kind": "Node", "name": NODES[0]}}))
check("a second binding is a conflict", again.returncode != 0 and
      "already assigned to node" in again.stderr, again.stderr)
judge("manual binding")
finish("manual")

# ---- storage: a local claim binds where its first pod runs; a ReadWriteOnce one attaches once ----
namespace("storage")
classes = {c["metadata"]["name"]: c for c in get("storageclass")["items"]}
check("the sim serves the StorageClasses standard (default, Immediate) and local",
      classes["standard"]["volumeBindingMode"] == "Immediate" and
      classes["standard"]["metadata"]["annotations"].get(
          "storageclass.kubernetes.io/is-default-class") == "true" and
      classes["local"]["volumeBindingMode"] == "WaitForFirstConsumer")


def claim_user(name, claim, cpu, extra=""):
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: storage, labels: {{app: {claim}}}}}
spec:
{extra}  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: {cpu}}}}}}}]
  volumes: [{{name: data, persistentVolumeClaim: {{claimName: {claim}}}}}]
"""


apply("""apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: shared, namespace: storage}
spec:
  storageClassName: local
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
""")
# The volume controller says it waits (its WaitForFirstConsumer Event); the claim is Pending.
check("a local claim says it waits for its first consumer", until(
    lambda: "WaitForFirstConsumer" in kubectl(
        "get", "events", "-n", "storage", "--field-selector", "involvedObject.name=shared",
        "-o", "jsonpath={.items[*].reason}").stdout))
check("a local claim waits for its first consumer",
      get("pvc", "shared", "-n", "storage")["status"]["phase"] == "Pending")
apply(claim_user("writer", "shared", "3"))
kubectl("wait", "--for=condition=Ready", "pod/writer", "-n", "storage", "--timeout=20s")
kubectl("wait", "--for=jsonpath={.status.phase}=Bound", "pvc/shared", "-n", "storage",
        "--timeout=20s")
writer_node = get("pod", "writer", "-n", "storage")["spec"]["nodeName"]
pv = get("pv", get("pvc", "shared", "-n", "storage")["spec"]["volumeName"])
check("its volume was provisioned on the writer's node",
      pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]
      ["values"] == [writer_node], pv["spec"])
apply(claim_user("reader", "shared", "3"))
p = settled("storage", 2)
reader = next(x for x in p if x["metadata"]["name"] == "reader")
check("a second pod of the claim that does not fit beside the first is Pending, and says why",
      pending_message(reader).startswith("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) "
                                         "had volume node affinity conflict."),
      pending_message(reader))
judge("local claim")
kubectl("delete", "pod", "reader", "-n", "storage")
apply("""apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: disk, namespace: storage}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
""")
kubectl("wait", "--for=jsonpath={.status.phase}=Bound", "pvc/disk", "-n", "storage",
        "--timeout=20s")
check("a claim without a class gets the default one, bound at once",
      get("pvc", "disk", "-n", "storage")["spec"]["storageClassName"] == "standard")
apart = """  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: disk}}
        topologyKey: kubernetes.io/hostname
"""
apply(claim_user("first", "disk", "100m", apart))
kubectl("wait", "--for=condition=Ready", "pod/first", "-n", "storage", "--timeout=20s")
apply(claim_user("second", "disk", "100m", apart))
until(lambda: "Multi-Attach error" in kubectl("describe", "pod", "second", "-n",
                                              "storage").stdout)
second = get("pod", "second", "-n", "storage")
described = kubectl("describe", "pod", "second", "-n", "storage").stdout
check("a ReadWriteOnce volume attached to another node keeps the second pod ContainerCreating",
      second["spec"].get("nodeName") and second["status"]["phase"] == "Pending" and
      "Multi-Attach error" in described, described)
kubectl("delete", "pod", "first", "-n", "storage")
kubectl("wait", "--for=condition=Ready", "pod/second", "-n", "storage", "--timeout=20s")
second = get("pod", "second", "-n", "storage")
check("once the first pod is gone the volume attaches to the second",
      second["status"]["phase"] == "Running" and
      any(c["state"].get("running") for c in second["status"]["containerStatuses"]),
      second["status"])
judge("storage")
# A pod bound past any scheduler (spec.nodeName) whose WaitForFirstConsumer claim nobody bound:
# the kubelet cannot mount it. Then a scheduled pod binds the claim on another node.
apply("""apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: later, namespace: storage}
spec:
  storageClassName: local
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
""")
apply(claim_user("early", "later", "100m", f"  nodeName: {NODES[0]}\n"))


def mount_failures(pod):
    return kubectl("get", "events", "-n", "storage", "--field-selector",
                   f"involvedObject.name={pod},reason=FailedMount", "-o",
                   "jsonpath={.items[*].message}").stdout


check("a pod bound before its claim stays ContainerCreating with kubelet's FailedMount",
      until(lambda: "error processing PVC storage/later: PVC is not bound" in
            mount_failures("early")) and
      get("pod", "early", "-n", "storage")["status"]["phase"] == "Pending",
      mount_failures("early"))
apply(claim_user("placed", "later", "100m",
                 f"  nodeSelector: {{kubernetes.io/hostname: {NODES[1]}}}\n"))
kubectl("wait", "--for=condition=Ready", "pod/placed", "-n", "storage", "--timeout=20s")
check("once the claim is bound on another node, the first pod's node cannot mount it",
      until(lambda: "MountVolume.NodeAffinity check failed" in mount_failures("early")) and
      get("pod", "early", "-n", "storage")["status"]["phase"] == "Pending",
      mount_failures("early"))
finish("storage")

# ---- volumes made by hand, allowed topologies, ReadWriteOncePod ----
namespace("volumes")
zone_of = {n["metadata"]["name"]: n["metadata"]["labels"]["topology.kubernetes.io/zone"]
           for n in get("nodes")["items"]}
apply(f"""apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {{name: handmade}}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {{name: zonal}}
provisioner: sim.planter.io/zonal
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions:
  - {{key: topology.kubernetes.io/zone, values: [{zone_of[NODES[1]]}]}}
""")
for pv_name, node, size in (("big", NODES[0], "10Gi"), ("small", NODES[0], "1Gi")):
    apply(f"""apiVersion: v1
kind: PersistentVolume
metadata: {{name: hand-{pv_name}}}
spec:
  storageClassName: handmade
  capacity: {{storage: {size}}}
  accessModes: [ReadWriteOnce]
  local: {{path: /mnt/{pv_name}}}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{{key: kubernetes.io/hostname, operator: In, values: [{node}]}}]
""")


def volume_claim(name, storage_class, size, modes="[ReadWriteOnce]"):
    return f"""apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: {name}, namespace: volumes}}
spec:
  storageClassName: {storage_class}
  accessModes: {modes}
  resources: {{requests: {{storage: {size}}}}}
"""


def volume_user(name, claim):
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: volumes}}
spec:
  containers: [{{name: c, image: busybox}}]
  volumes: [{{name: data, persistentVolumeClaim: {{claimName: {claim}}}}}]
"""


apply(volume_claim("hand", "handmade", "5Gi"))
apply(volume_user("on-hand", "hand"))
kubectl("wait", "--for=condition=Ready", "pod/on-hand", "-n", "volumes", "--timeout=20s")
kubectl("wait", "--for=jsonpath={.status.phase}=Bound", "pvc/hand", "-n", "volumes",
        "--timeout=20s")
check("a claim of a class without a provisioner binds the volume made by hand that holds it, "
      "and its pod runs on that volume's node",
      get("pvc", "hand", "-n", "volumes")["spec"]["volumeName"] == "hand-big" and
      get("pod", "on-hand", "-n", "volumes")["spec"]["nodeName"] == NODES[0] and
      get("pv", "hand-big")["spec"]["claimRef"]["name"] == "hand",
      get("pvc", "hand", "-n", "volumes"))
apply(volume_claim("hand2", "handmade", "5Gi"))
apply(volume_user("no-volume", "hand2"))
p = next(x for x in settled("volumes", 2) if x["metadata"]["name"] == "no-volume")
check("with no volume left that holds it, the pod is Pending and says why",
      pending_message(p).startswith("0/3 nodes are available: 3 node(s) didn't find available "
                                    "persistent volumes to bind."), pending_message(p))
check("and nothing is provisioned for it",
      get("pvc", "hand2", "-n", "volumes")["status"]["phase"] == "Pending" and
      not get("pvc", "hand2", "-n", "volumes")["spec"].get("volumeName"))
apply(volume_claim("zoned", "zonal", "1Gi"))
apply(volume_user("in-zone", "zoned"))
kubectl("wait", "--for=condition=Ready", "pod/in-zone", "-n", "volumes", "--timeout=20s")
check("a claim of a class with allowedTopologies is provisioned, and its pod runs, in that zone",
      zone_of[get("pod", "in-zone", "-n", "volumes")["spec"]["nodeName"]] == zone_of[NODES[1]])
apply(volume_claim("solo", "standard", "1Gi", "[ReadWriteOncePod]"))
apply(volume_user("solo-a", "solo"))
kubectl("wait", "--for=condition=Ready", "pod/solo-a", "-n", "volumes", "--timeout=20s")
apply(volume_user("solo-b", "solo"))
p = next(x for x in settled("volumes", 5) if x["metadata"]["name"] == "solo-b")
check("a second pod of a ReadWriteOncePod claim fits on no node, in kube-scheduler's words",
      pending_message(p) == "0/3 nodes are available: 3 node has pod using PersistentVolumeClaim "
      "with the same name and ReadWriteOncePod access mode. preemption: 0/3 nodes are available: "
      "3 No preemption victims found for incoming pod.", pending_message(p))
judge("volumes")
kubectl("delete", "pod", "solo-a", "-n", "volumes")
kubectl("wait", "--for=condition=Ready", "pod/solo-b", "-n", "volumes", "--timeout=30s")
check("once the first pod is gone, the second takes the claim",
      get("pod", "solo-b", "-n", "volumes")["status"]["phase"] == "Running")
finish("volumes")
kubectl("delete", "pv", "hand-big", "hand-small")
kubectl("delete", "storageclass", "handmade", "zonal")

# ---- a StatefulSet: pods in order, claims from templates that stay ----
namespace("ordered")
apply("""apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: ordered}
spec:
  serviceName: db
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: registry.example/db:1}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      storageClassName: local
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
""")
kubectl("rollout", "status", "sts/db", "-n", "ordered", "--timeout=30s")
items = sorted(settled("ordered", 3), key=lambda p: p["metadata"]["creationTimestamp"] +
               p["metadata"]["name"])
check("three pods db-0, db-1, db-2, each made once the previous ran",
      [p["metadata"]["name"] for p in items] == ["db-0", "db-1", "db-2"] and
      all(items[i]["metadata"]["creationTimestamp"] >= items[i - 1]["status"]["startTime"]
          for i in range(1, 3)),
      [(p["metadata"]["name"], p["metadata"]["creationTimestamp"]) for p in items])
claims = {c["metadata"]["name"]: c for c in get("pvc", "-n", "ordered")["items"]}
check("each has its claim data-db-<i>, bound on its node",
      sorted(claims) == ["data-db-0", "data-db-1", "data-db-2"] and
      all(c["status"]["phase"] == "Bound" for c in claims.values()))
kubectl("scale", "sts/db", "-n", "ordered", "--replicas=1")
deadline = time.time() + 20
while time.time() < deadline and len(pods("ordered")) != 1:
    # sleep-ok(poll): the step of a wait for observed state with a deadline
    time.sleep(0.2)
check("scaled down, the highest ordinals go and their claims stay",
      [p["metadata"]["name"] for p in pods("ordered")] == ["db-0"] and
      len(get("pvc", "-n", "ordered")["items"]) == 3)
judge("statefulset")
finish("ordered")

# ---- deleting a node deletes its pods; their controllers make new ones ----
namespace("nodes")
apply(deployment("movers", "nodes", 3))
kubectl("rollout", "status", "deploy/movers", "-n", "nodes", "--timeout=20s")
victim = NODES[0]
kubectl("delete", "node", victim)
deadline = time.time() + 20
while time.time() < deadline:
    items = [p for p in pods("nodes") if not p["metadata"].get("deletionTimestamp")]
    if len(items) == 3 and all(p["spec"].get("nodeName") not in (None, victim) for p in items):
        break
    # sleep-ok(poll): the step of a wait for observed state with a deadline
    time.sleep(0.2)
check("the deleted node's pods were replaced on the others",
      len(items) == 3 and all(p["spec"].get("nodeName") in NODES[1:] for p in items),
      [(p["metadata"]["name"], p["spec"].get("nodeName")) for p in items])
kubectl("rollout", "status", "deploy/movers", "-n", "nodes", "--timeout=20s")
judge("node deletion")
finish("nodes")

print("all checks passed")
