"""Kubernetes' own gangs in the sim, as a user meets them through kubectl: scheduling.k8s.io
PodGroups and Workloads validated as kube-apiserver 1.37 does, and pods joining a PodGroup held,
placed together or not at all, and kept to one topology domain, as kube-scheduler 1.37 does with
the GenericWorkload gate on. Each expected outcome is from kubernetes.io ("Gang Scheduling",
"PodGroup Scheduling", "Scheduling Group", "PodGroup API", "Topology-Aware Workload Scheduling")
and the GangScheduling plugin's documented statuses.

Usage: gangs.py KUBECTL KUBECONFIG, against a sim started with --nodes 3 --node-cpu 4 --zones 2
(and any --api-level: a 1.36 server is judged through v1alpha2, a pre-gang one by pods naming a
PodGroup being scheduled one by one).
Prints "ok NAME" per check and "all checks passed" at the end; exits non-zero on the first
failure.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubectl_script import check, get, kubectl  # noqa: E402
from waiting import until  # noqa: E402

ZONE = "topology.kubernetes.io/zone"


def create(manifest):
    kubectl("create", "-f", "-", stdin=manifest)


def refused(manifest, words, verb="create"):
    r = kubectl(verb, "-f", "-", stdin=manifest, check=False)
    return r.returncode != 0 and words in r.stderr, r.stderr


def pod_group(name, policy, extra=""):
    return f"""apiVersion: scheduling.k8s.io/{VERSION}
kind: PodGroup
metadata: {{name: {name}, namespace: default}}
spec:
  schedulingPolicy: {policy}
{extra}"""


def pod(name, group, cpu="3"):
    joins = f"schedulingGroup: {{podGroupName: {group}}}" if group else ""
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  {joins}
  containers: [{{name: main, image: registry.example/train:1, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


def node_of(name):
    return get("pod", name)["spec"].get("nodeName")


def running(names):
    return all(get("pod", n)["status"].get("phase") == "Running" for n in names)


def scheduled_condition(group):
    conds = get("podgroup", group).get("status", {}).get("conditions") or []
    return next((c for c in conds if c["type"] == "PodGroupScheduled"), None)


def failed_scheduling(name):
    events = get("events", "--field-selector", f"involvedObject.name={name}")["items"]
    return [e["message"] for e in events if e["reason"] == "FailedScheduling"]


def settle():
    """A pod of no group, created now and run: the scheduler has had its turn at every pod made
    before it (it takes them in order)."""
    settle.n = getattr(settle, "n", 0) + 1
    name = f"marker-{settle.n}"
    create(pod(name, "", cpu="10m"))
    check(f"{name} runs", until(lambda: running([name])))


def delete_pods(names):
    kubectl("delete", "pod", *names, "--wait=false")
    until(lambda: not any(p["metadata"]["name"] in names for p in get("pods")["items"]))


# The gang API this server serves: v1beta1 (1.37), v1alpha2 (1.36), or none (before 1.35).
SERVED = kubectl("api-versions").stdout.split()
VERSION = next((v for v in ("v1beta1", "v1alpha2") if f"scheduling.k8s.io/{v}" in SERVED), None)
if VERSION is None:
    r = kubectl("get", "podgroups", check=False)
    check("a server without the gang API serves no PodGroups",
          r.returncode != 0 and "the server doesn't have a resource type" in r.stderr, r.stderr)
    for name in ("solo-0", "solo-1"):
        create(pod(name, "train", cpu="1"))
    check("pods naming a PodGroup are scheduled one by one, as before gangs",
          until(lambda: running(["solo-0", "solo-1"])))
    print("all checks passed")
    sys.exit(0)
NODES = sorted(n["metadata"]["name"] for n in get("nodes")["items"])
ZONE_OF = {n["metadata"]["name"]: n["metadata"]["labels"].get(ZONE) for n in get("nodes")["items"]}

# ---- validation, as kube-apiserver's ----
ok, err = refused(pod_group("no-policy", "{}"), "must specify one of: `basic`, `gang`")
check("a PodGroup without a scheduling policy is refused", ok, err)
ok, err = refused(pod_group("zero", "{gang: {minCount: 0}}"),
                  "spec.schedulingPolicy.gang.minCount: Required value")
check("a gang's minCount is required", ok, err)
ok, err = refused(pod_group("both", "{basic: {}, gang: {minCount: 2}}"), "exactly one of")
check("a policy is basic or gang, not both", ok, err)
ok, err = refused(f"""apiVersion: scheduling.k8s.io/{VERSION}
kind: Workload
metadata: {{name: empty, namespace: default}}
spec: {{podGroupTemplates: []}}
""", "spec.podGroupTemplates: Required value")
check("a Workload needs a pod group template", ok, err)
ok, err = refused(f"""apiVersion: scheduling.k8s.io/{VERSION}
kind: Workload
metadata: {{name: twice, namespace: default}}
spec:
  podGroupTemplates:
  - {{name: workers, schedulingPolicy: {{gang: {{minCount: 2}}}}}}
  - {{name: workers, schedulingPolicy: {{basic: {{}}}}}}
""", 'Duplicate value: "workers"')
check("a Workload's templates have distinct names", ok, err)
create(pod_group("mutable", "{gang: {minCount: 4}}"))
kubectl("patch", "podgroup", "mutable", "--type=merge", "-p",
        '{"spec":{"schedulingPolicy":{"gang":{"minCount":2}}}}')
check("a gang's minCount may change (beta)",
      get("podgroup", "mutable")["spec"]["schedulingPolicy"]["gang"]["minCount"] == 2)
r = kubectl("patch", "podgroup", "mutable", "--type=merge", "-p",
            '{"spec":{"schedulingPolicy":{"gang":null,"basic":{}}}}', check=False)
check("a PodGroup's policy is immutable otherwise",
      r.returncode != 0 and "spec.schedulingPolicy: Invalid value" in r.stderr
      and "field is immutable" in r.stderr, r.stderr)
kubectl("delete", "podgroup", "mutable")

# ---- a pod naming a PodGroup that does not exist ----
create(pod("lonely", "absent", cpu="1"))
settle()
lonely = get("pod", "lonely")
check("a pod of a missing PodGroup stays Pending, unbound",
      lonely["status"].get("phase") == "Pending" and not lonely["spec"].get("nodeName"),
      json.dumps(lonely["status"]))
check("PreEnqueue holds it without a word: no PodScheduled condition, no FailedScheduling "
      "(kubernetes#141900)",
      not any(c["type"] == "PodScheduled" for c in lonely["status"].get("conditions") or [])
      and not failed_scheduling("lonely"), json.dumps(lonely["status"]))
create(pod_group("absent", "{basic: {}}"))
check("the pod is scheduled once its PodGroup comes", until(lambda: running(["lonely"])))
delete_pods(["lonely"])

# ---- quorum: a gang's pods wait until minCount of them exist ----
create(pod_group("trio", "{gang: {minCount: 3}}"))
create(pod("trio-0", "trio", cpu="1"))
create(pod("trio-1", "trio", cpu="1"))
settle()
check("two pods of a gang of three are held back, unbound and silent",
      not node_of("trio-0") and not node_of("trio-1") and not failed_scheduling("trio-0"))
create(pod("trio-2", "trio", cpu="1"))
check("the third pod lets the gang in: all three run",
      until(lambda: running(["trio-0", "trio-1", "trio-2"])))
cond = scheduled_condition("trio")
check("the PodGroup says PodGroupScheduled=True (Scheduled)",
      cond and cond["status"] == "True" and cond["reason"] == "Scheduled", json.dumps(cond))
delete_pods(["trio-0", "trio-1", "trio-2"])

# ---- all or nothing: 4 pods of 3 cpu on 3 nodes of 4 cpu ----
GANG = [f"gang-{i}" for i in range(4)]
create(pod_group("gang", "{gang: {minCount: 4}}"))
for name in GANG:
    create(pod(name, "gang"))
check("a gang of 4 that cannot fit is refused as a whole",
      until(lambda: all(failed_scheduling(n) for n in GANG)),
      json.dumps({n: failed_scheduling(n) for n in GANG}))
check("no pod of it has a node", not any(node_of(n) for n in GANG),
      json.dumps({n: node_of(n) for n in GANG}))
messages = sorted(failed_scheduling(n)[-1] for n in GANG)
check("three are told the gang is short, the fourth why it fits nowhere",
      messages.count("pod group is unschedulable, waiting for minCount pods from a gang to be "
                     "scheduled") == 3
      and sum("0/3 nodes are available: 3 Insufficient cpu." in m for m in messages) == 1,
      json.dumps(messages))
cond = scheduled_condition("gang")
check("the PodGroup says PodGroupScheduled=False (Unschedulable)",
      cond and cond["status"] == "False" and cond["reason"] == "Unschedulable", json.dumps(cond))
create("""apiVersion: v1
kind: Node
metadata:
  name: joined
  labels: {kubernetes.io/hostname: joined}
status:
  allocatable: {cpu: "4", memory: 32Gi, pods: "110"}
""")
check("a node joins: all four are bound", until(lambda: all(node_of(n) for n in GANG)),
      json.dumps({n: node_of(n) for n in GANG}))
check("one to a node", len({node_of(n) for n in GANG}) == 4)
cond = scheduled_condition("gang")
check("PodGroupScheduled turns True", cond and cond["status"] == "True", json.dumps(cond))
delete_pods(GANG)

# ---- a topology constraint: the whole group in one zone ----
zone_nodes = {}
for n, z in ZONE_OF.items():
    zone_nodes.setdefault(z, []).append(n)
big_zone = max(zone_nodes, key=lambda z: len(zone_nodes[z]))
check("the fleet: two zones, one of two nodes", len(zone_nodes) == 2 and len(zone_nodes[big_zone]) == 2,
      json.dumps(zone_nodes))
RACKED = [f"racked-{i}" for i in range(3)]
create(pod_group("racked", "{gang: {minCount: 3}}",
                 f"  schedulingConstraints: {{topology: [{{key: {ZONE}}}]}}\n"))
for name in RACKED:
    create(pod(name, "racked"))
check("a group no zone holds waits, though the nodes together could hold it",
      until(lambda: all(failed_scheduling(n) for n in RACKED))
      and not any(node_of(n) for n in RACKED), json.dumps({n: node_of(n) for n in RACKED}))
kubectl("label", "node", "joined", f"{ZONE}={big_zone}")
check("a third node in the zone: the group is bound there",
      until(lambda: all(node_of(n) for n in RACKED)),
      json.dumps({n: node_of(n) for n in RACKED}))
zones = {get("node", node_of(n))["metadata"]["labels"][ZONE] for n in RACKED}
check("all in one zone", zones == {big_zone}, json.dumps(sorted(zones)))
delete_pods(RACKED)

PAIR = ["pair-0", "pair-1"]
create(pod_group("pair", "{gang: {minCount: 2}}",
                 f"  schedulingConstraints: {{topology: [{{key: {ZONE}}}]}}\n"))
for name in PAIR:
    create(pod(name, "pair", cpu="1"))
check("a pair with a topology constraint runs", until(lambda: running(PAIR)))
zones = {get("node", node_of(n))["metadata"]["labels"][ZONE] for n in PAIR}
check("in one zone", len(zones) == 1, json.dumps(sorted(zones)))
kubectl("delete", "pod", "pair-1", "--wait=false")
create(pod("pair-2", "pair", cpu="1"))
check("a pod joining later runs", until(lambda: running(["pair-2"])))
check("in the zone of the pod already bound",
      get("node", node_of("pair-2"))["metadata"]["labels"][ZONE] == zones.pop())

r = kubectl("patch", "pod", "pair-2", "--type=merge", "-p",
            '{"spec":{"schedulingGroup":{"podGroupName":"other"}}}', check=False)
check("a pod's schedulingGroup is immutable",
      r.returncode != 0 and "spec.schedulingGroup" in r.stderr, r.stderr)

# ---- the Job controller gangs a fixed-shape Indexed Job (KEP-5547) ----
def job(name, pods, cpu):
    return f"""apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: default}}
spec:
  completionMode: Indexed
  completions: {pods}
  parallelism: {pods}
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: main, image: registry.example/train:1, resources: {{requests: {{cpu: "{cpu}"}}}}}}]
"""


create(job("train", 3, "1"))
check("the indexed Job completes", until(
    lambda: any(c["type"] == "Complete" and c["status"] == "True"
                for c in get("job", "train").get("status", {}).get("conditions") or [])),
      json.dumps(get("job", "train").get("status")))
check("every index done", get("job", "train")["status"].get("completedIndexes") == "0-2",
      json.dumps(get("job", "train")["status"]))
workload = get("workload", "train")
check("the Job controller made its Workload: a gang template of minCount 3",
      workload["spec"]["controllerRef"] == {"apiGroup": "batch", "kind": "Job", "name": "train"}
      and workload["spec"]["podGroupTemplates"][0]["schedulingPolicy"] == {"gang": {"minCount": 3}},
      json.dumps(workload["spec"]))
train_uid = get("job", "train")["metadata"]["uid"]
groups = [g for g in get("podgroups")["items"]
          if any(r["uid"] == train_uid for r in g["metadata"].get("ownerReferences", []))]
check("and one PodGroup from it, owned by the Job",
      len(groups) == 1
      and groups[0]["spec"]["podGroupTemplateRef"]["workload"]["workloadName"] == "train",
      json.dumps(groups))
train_pods = [p for p in get("pods")["items"] if p["metadata"]["name"].startswith("train-")]
check("its pods join the PodGroup, one per index",
      sorted(p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
             for p in train_pods) == ["0", "1", "2"]
      and all(p["spec"]["schedulingGroup"]["podGroupName"] == groups[0]["metadata"]["name"]
              for p in train_pods), json.dumps([p["metadata"]["name"] for p in train_pods]))

create(job("huge", 5, "3"))
check("a gang-scheduled Job that cannot fit whole runs none of its pods",
      until(lambda: len([p for p in get("pods")["items"]
                         if p["metadata"]["name"].startswith("huge-")]) == 5
            and all(failed_scheduling(p["metadata"]["name"]) for p in get("pods")["items"]
                    if p["metadata"]["name"].startswith("huge-")))
      and not any(p["spec"].get("nodeName") for p in get("pods")["items"]
                  if p["metadata"]["name"].startswith("huge-")))

print("all checks passed")
