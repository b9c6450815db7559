"""Dynamic Resource Allocation in the sim, as a user meets it through kubectl: ResourceSlices
published as a driver would, DeviceClasses with CEL selectors, ResourceClaims and templates, and
pods that use them. Each expected outcome is the structured allocator's documented behaviour
(kubernetes.io, "Dynamic Resource Allocation"; the allocator's test table,
k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting): the case it mirrors is
named at each check.

Usage: dra.py KUBECTL KUBECONFIG, against a sim started with --nodes 3 --workload-delay 50.
Prints "ok NAME" per check and "all checks passed" at the end; exits non-zero on the first
failure.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kubectl_script import check, get, kubectl  # noqa: E402
from waiting import until  # noqa: E402

DRIVER = "gpu.example.com"


def create(manifest):
    kubectl("create", "-f", "-", stdin=manifest)


NODES = sorted(n["metadata"]["name"] for n in get("nodes")["items"])


def device(name, root="a", memory="40Gi", taint=None):
    taints = ""
    if taint:
        taints = f", taints: [{{key: {taint}, value: 'true', effect: NoSchedule}}]"
    return (f"{{name: {name}, attributes: {{pcieRoot: {{string: {root}}}, "
            f"model: {{string: A100}}}}, capacity: {{memory: {{value: {memory}}}}}{taints}}}")


def slice_for(node, devices):
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {node}-gpus}}
spec:
  driver: {DRIVER}
  nodeName: {node}
  pool: {{name: {node}, generation: 1, resourceSliceCount: 1}}
  devices: [{", ".join(devices)}]
"""


def pod(name, ns, claims, spec_claims):
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: {ns}}}
spec:
  resourceClaims: {spec_claims}
  containers:
  - name: main
    image: registry.example/train:1
    resources: {{claims: [{", ".join("{name: " + c + "}" for c in claims)}]}}
"""


def claim_template(name, ns, requests, constraints="[]"):
    return f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {{name: {name}, namespace: {ns}}}
spec:
  spec:
    devices:
      requests: {requests}
      constraints: {constraints}
"""


def pod_state(name, ns):
    return get("pod", name, "-n", ns)


def placed(name, ns):
    ok = until(lambda: pod_state(name, ns)["spec"].get("nodeName")
               and pod_state(name, ns)["status"].get("phase") == "Running")
    check(f"{ns}/{name} runs", ok, json.dumps(pod_state(name, ns)["status"]))
    return pod_state(name, ns)["spec"]["nodeName"]


def pending_with(name, ns, words):
    def refused():
        conds = pod_state(name, ns)["status"].get("conditions") or []
        c = next((c for c in conds if c["type"] == "PodScheduled"), None)
        return c and c["status"] == "False" and words in c.get("message", "")
    ok = until(refused)
    check(f"{ns}/{name} is Pending: {words}", ok, json.dumps(pod_state(name, ns)["status"]))


def claim_of(pod_name, ns, claim_name):
    statuses = pod_state(pod_name, ns)["status"].get("resourceClaimStatuses") or []
    made = next(s["resourceClaimName"] for s in statuses if s["name"] == claim_name)
    return get("resourceclaim", made, "-n", ns)


def devices_of(claim):
    return sorted(r["device"] for r in claim["status"]["allocation"]["devices"]["results"])


# ---- the fleet's devices, as a driver publishes them ----
n0, n1, n2 = NODES
create(slice_for(n0, [device("gpu-0")]))
create(slice_for(n1, [device("gpu-0"), device("gpu-1")]))
create(slice_for(n2, [device("gpu-0", root="a"), device("gpu-1", root="b"),
                      device("gpu-2", root="b", memory="80Gi"),
                      device("gpu-3", root="c", taint="example.com/broken")]))
create(f"""apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: gpu.example.com}}
spec:
  selectors:
  - cel: {{expression: 'device.driver == "{DRIVER}"'}}
""")
check("kubectl lists the slices", len(get("resourceslices")["items"]) == 3)

# ---- a claim for two GPUs lands on the node with two free (allocatortesting: "two-devices") ----
kubectl("create", "namespace", "two")
create(claim_template("pair", "two",
                      "[{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 2}}]"))
create(pod("train", "two", ["gpu"], "[{name: gpu, resourceClaimTemplateName: pair}]"))
node = placed("train", "two")
claim = claim_of("train", "two", "gpu")
check("the claim made from the template is owned by the pod",
      claim["metadata"]["ownerReferences"][0]["name"] == "train"
      and claim["metadata"]["annotations"]["resource.kubernetes.io/pod-claim-name"] == "gpu",
      json.dumps(claim["metadata"]))
check("the pod with a claim for two GPUs runs where two are free, not on the one-GPU node",
      node in (n1, n2) and node != n0, node)
check("its claim is allocated two devices of that node's pool",
      len(devices_of(claim)) == 2 and all(
          r["pool"] == node for r in claim["status"]["allocation"]["devices"]["results"]),
      json.dumps(claim["status"]))
check("the allocation's nodeSelector names the node",
      claim["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]
      ["values"] == [node])
check("the claim is reserved for the pod",
      [r["name"] for r in claim["status"]["reservedFor"]] == ["train"])

# ---- a deleted pod frees its devices ("deallocation when the last consumer goes") ----
kubectl("delete", "pod", "train", "-n", "two", "--wait=true")
check("the pod's claim goes with it", until(
    lambda: not any(c["metadata"]["name"].startswith("train-gpu-")
                    for c in get("resourceclaims", "-n", "two")["items"])))

# ---- a finished pod frees its devices: its claim is reserved for no one, and deallocated ----
create(pod("once", "two", ["gpu"], "[{name: gpu, resourceClaimTemplateName: pair}]")
       .replace("spec:\n", "spec:\n  restartPolicy: Never\n", 1))
check("the finished pod still names its claim (the kubelet keeps the controller's field)", until(
    lambda: pod_state("once", "two")["status"].get("phase") == "Succeeded"
    and pod_state("once", "two")["status"].get("resourceClaimStatuses")),
    json.dumps(pod_state("once", "two")["status"]))
check("the finished pod's claim is deallocated", until(
    lambda: "allocation" not in claim_of("once", "two", "gpu").get("status", {})),
    json.dumps(claim_of("once", "two", "gpu").get("status")))
kubectl("delete", "pod", "once", "-n", "two", "--wait=true")

# ---- matchAttribute keeps two devices on one PCIe root ("with-constraint") ----
kubectl("create", "namespace", "root")
create(claim_template("same-root", "root",
                      "[{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 2, "
                      "selectors: [{cel: {expression: 'device.attributes[\"gpu.example.com\"]"
                      ".pcieRoot != \"x\"'}}]}}]",
                      "[{matchAttribute: gpu.example.com/pcieRoot}]"))
# n1's two devices share root a, so pin the pod to n2 where only gpu-1 and gpu-2 share one.
create(pod("pinned", "root", ["gpu"], "[{name: gpu, resourceClaimTemplateName: same-root}]")
       .replace("spec:\n", f"spec:\n  nodeSelector: {{kubernetes.io/hostname: {n2}}}\n", 1))
placed("pinned", "root")
check("matchAttribute: the two devices share a PCIe root (gpu-1 and gpu-2 of root b)",
      devices_of(claim_of("pinned", "root", "gpu")) == ["gpu-1", "gpu-2"],
      json.dumps(claim_of("pinned", "root", "gpu")["status"]))
kubectl("delete", "namespace", "root", "--wait=true")

# ---- firstAvailable falls back ("prioritized-list") ----
kubectl("create", "namespace", "first")
create(claim_template("big-or-small", "first", """
      - name: gpu
        firstAvailable:
        - name: huge
          deviceClassName: gpu.example.com
          selectors:
          - cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("160Gi")) >= 0'}
        - name: small
          deviceClassName: gpu.example.com"""))
create(pod("fallback", "first", ["gpu"], "[{name: gpu, resourceClaimTemplateName: big-or-small}]"))
placed("fallback", "first")
results = claim_of("fallback", "first", "gpu")["status"]["allocation"]["devices"]["results"]
check("firstAvailable: no device has 160Gi, so the second subrequest is allocated",
      [r["request"] for r in results] == ["gpu/small"], json.dumps(results))
kubectl("delete", "namespace", "first", "--wait=true")

# ---- a tainted device is skipped ("device-taints"), tolerated it is allocated ----
kubectl("create", "namespace", "taint")
only_broken = ("[{name: gpu, exactly: {deviceClassName: gpu.example.com, selectors: [{cel: "
               "{expression: 'device.attributes[\"gpu.example.com\"].pcieRoot == \"c\"'}}]%s}}]")
create(claim_template("broken", "taint", only_broken % ""))
create(pod("refused", "taint", ["gpu"], "[{name: gpu, resourceClaimTemplateName: broken}]"))
pending_with("refused", "taint", "3 cannot allocate all claims")
create(claim_template("tolerating", "taint", only_broken % (
    ", tolerations: [{key: example.com/broken, operator: Exists, effect: NoSchedule}]")))
create(pod("tolerant", "taint", ["gpu"], "[{name: gpu, resourceClaimTemplateName: tolerating}]"))
check("a request that tolerates the taint gets the tainted device",
      placed("tolerant", "taint") == n2
      and devices_of(claim_of("tolerant", "taint", "gpu")) == ["gpu-3"])
kubectl("delete", "namespace", "taint", "--wait=true")

# ---- a DeviceTaintRule taints the devices it selects: the pool of n2's node ----
create(f"""apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {{name: drain-{n2}}}
spec:
  deviceSelector: {{driver: {DRIVER}, pool: {n2}}}
  taint: {{key: example.com/maintenance, value: 'true', effect: NoSchedule}}
""")
check("kubectl lists the DeviceTaintRule", [r["metadata"]["name"] for r in
                                           get("devicetaintrules")["items"]] == [f"drain-{n2}"])
kubectl("create", "namespace", "rule")
create(claim_template("three", "rule",
                      "[{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 3}}]"))
create(pod("drained", "rule", ["gpu"], "[{name: gpu, resourceClaimTemplateName: three}]"))
# Only n2 has three untainted GPUs; the rule taints them all.
pending_with("drained", "rule", "3 cannot allocate all claims")
kubectl("delete", "devicetaintrule", f"drain-{n2}")
check("once the rule goes, the pod wanting three GPUs runs on n2", placed("drained", "rule") == n2)
kubectl("delete", "namespace", "rule", "--wait=true")

# ---- a shared claim is reserved for two pods; the second waits for a device the first frees ----
kubectl("create", "namespace", "share")
create("""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: share}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
""")
create(pod("a", "share", ["gpu"], "[{name: gpu, resourceClaimName: shared}]"))
create(pod("b", "share", ["gpu"], "[{name: gpu, resourceClaimName: shared}]"))
node_a, node_b = placed("a", "share"), placed("b", "share")
shared = get("resourceclaim", "shared", "-n", "share")
check("the shared claim is reserved for both pods, which run on its device's node",
      sorted(r["name"] for r in shared["status"]["reservedFor"]) == ["a", "b"]
      and node_a == node_b, json.dumps(shared["status"]))
kubectl("delete", "pod", "a", "b", "-n", "share", "--wait=true")
check("once both pods are gone the shared claim is deallocated", until(
    lambda: "allocation" not in get("resourceclaim", "shared", "-n", "share").get("status", {})))

# ---- a missing class and a claim not yet made are said in kube-scheduler's words ----
kubectl("create", "namespace", "words")
create(claim_template("nope", "words",
                      "[{name: gpu, exactly: {deviceClassName: gpu.nowhere.example}}]"))
create(pod("classless", "words", ["gpu"], "[{name: gpu, resourceClaimTemplateName: nope}]"))
pending_with("classless", "words", "request gpu: device class gpu.nowhere.example does not exist")
create(pod("orphan", "words", ["gpu"], "[{name: gpu, resourceClaimName: absent}]"))
pending_with("orphan", "words", 'resourceclaim.resource.k8s.io "absent" not found')
create("""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: absent, namespace: words}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
""")
placed("orphan", "words")

kubectl("delete", "namespace", "words", "--wait=true")

# ---- an extended resource served by devices (KEP-5004): no node lists example.com/gpu ----
kubectl("create", "namespace", "extended")
create(f"""apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: gpu-extended.example.com}}
spec:
  extendedResourceName: example.com/gpu
  selectors:
  - cel: {{expression: 'device.driver == "{DRIVER}"'}}
""")


def extended_pod(name, count, resource="example.com/gpu"):
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: extended}}
spec:
  containers:
  - name: main
    image: registry.example/train:1
    resources:
      requests: {{cpu: 100m, {resource}: "{count}"}}
      limits: {{{resource}: "{count}"}}
"""


create(extended_pod("plain", 2))
node = placed("plain", "extended")
status = pod_state("plain", "extended")["status"].get("extendedResourceClaimStatus") or {}
check("the pod's status maps its container's resource to a request of its own claim",
      status.get("requestMappings") == [{"containerName": "main", "resourceName": "example.com/gpu",
                                         "requestName": "container-0-request-1"}],
      json.dumps(status))
claim = get("resourceclaim", status.get("resourceClaimName", "none"), "-n", "extended")
check("the claim is the scheduler's for the pod's extended resources, owned by the pod",
      claim["metadata"]["annotations"].get("resource.kubernetes.io/extended-resource-claim")
      == "true" and claim["metadata"]["ownerReferences"][0]["name"] == "plain"
      and claim["metadata"]["name"].startswith("plain-extended-resources-"),
      json.dumps(claim["metadata"]))
check("two devices of the pod's node are allocated to it",
      len(devices_of(claim)) == 2 and all(
          r["pool"] == node for r in claim["status"]["allocation"]["devices"]["results"])
      and node in (n1, n2), json.dumps(claim.get("status")))
create("""apiVersion: v1
kind: Pod
metadata: {name: limited, namespace: extended}
spec:
  containers:
  - name: main
    image: registry.example/train:1
    resources:
      requests: {cpu: 100m}
      limits: {example.com/gpu: "1"}
""")
placed("limited", "extended")
mappings = (pod_state("limited", "extended")["status"].get("extendedResourceClaimStatus") or {}).get(
    "requestMappings")
check("a limit stands for the request it lacks: the GPU is the container's second request",
      mappings == [{"containerName": "main", "resourceName": "example.com/gpu",
                    "requestName": "container-0-request-1"}], json.dumps(mappings))
kubectl("delete", "pod", "limited", "-n", "extended", "--wait=true")
create(extended_pod("too-many", 5))
pending_with("too-many", "extended", "3 cannot allocate all claims")
create(extended_pod("implicit", 1, "deviceclass.resource.kubernetes.io/gpu.example.com"))
placed("implicit", "extended")
kubectl("delete", "pod", "plain", "-n", "extended", "--wait=true")
check("the pod's extended-resource claim goes with it", until(
    lambda: not any(c["metadata"]["name"].startswith("plain-extended-resources-")
                    for c in get("resourceclaims", "-n", "extended")["items"])))

kubectl("delete", "namespace", "extended", "--wait=true")

# ---- the sim plays the SR-IOV DRA driver: VFs as devices once a SriovResourcePolicy exists ----
create("""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: sriovresourcepolicies.sriovnetwork.k8snetworkplumbingwg.io}
spec:
  group: sriovnetwork.k8snetworkplumbingwg.io
  scope: Namespaced
  names: {kind: SriovResourcePolicy, listKind: SriovResourcePolicyList,
          plural: sriovresourcepolicies, singular: sriovresourcepolicy}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
""")
check("the policy's CRD is served", until(
    lambda: kubectl("get", "sriovresourcepolicies", "-A", check=False).returncode == 0))
kubectl("label", "node", n1, "feature.node.kubernetes.io/network-sriov.capable=true",
        "sim.planter.io/sriov-vfs=4")
kubectl("create", "namespace", "nic")
create("""apiVersion: sriovnetwork.k8snetworkplumbingwg.io/v1alpha1
kind: SriovResourcePolicy
metadata: {name: all-devices, namespace: nic}
spec: {configs: [{}]}
""")
check("the driver publishes the VFs of the SR-IOV node", until(
    lambda: any(s["spec"]["driver"] == "sriovnetwork.k8snetworkplumbingwg.io"
                and s["spec"]["nodeName"] == n1 and len(s["spec"]["devices"]) == 4
                for s in get("resourceslices")["items"])))
create(claim_template("two-vfs", "nic",
                      "[{name: vf, exactly: {deviceClassName: sriovnetwork.k8snetworkplumbingwg.io,"
                      " count: 2}}]",
                      "[{matchAttribute: sriovnetwork.k8snetworkplumbingwg.io/PFName}]"))
create(pod("cnf", "nic", ["vf"], "[{name: vf, resourceClaimTemplateName: two-vfs}]"))
check("a pod claiming two VFs of one PF runs on the SR-IOV node", placed("cnf", "nic") == n1)
vfs = devices_of(claim_of("cnf", "nic", "vf"))
check("its two VFs share a PF (vf-0 and vf-2 of ens1f0, VFs alternating over the PFs)",
      vfs == ["vf-0", "vf-2"], vfs)

# ---- NVIDIA ComputeDomains: a channel per clique node, a template per domain, its nodes ----
create("""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: computedomains.resource.nvidia.com}
spec:
  group: resource.nvidia.com
  scope: Namespaced
  names: {kind: ComputeDomain, listKind: ComputeDomainList, plural: computedomains,
          singular: computedomain}
  versions:
  - name: v1beta1
    served: true
    storage: true
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
""")
check("the ComputeDomain CRD is served", until(
    lambda: kubectl("get", "computedomains", "-A", check=False).returncode == 0))
for n in (n1, n2):
    kubectl("label", "node", n, "nvidia.com/gpu.clique=fabric-1.1")
kubectl("create", "namespace", "mnnvl")
create("""apiVersion: resource.nvidia.com/v1beta1
kind: ComputeDomain
metadata: {name: training, namespace: mnnvl}
spec:
  numNodes: 2
  channel: {resourceClaimTemplate: {name: training-channel}}
""")
check("the domain's controller makes its claim template, owned by the domain", until(
    lambda: kubectl("get", "resourceclaimtemplate", "training-channel", "-n", "mnnvl",
                    check=False).returncode == 0))
tmpl = get("resourceclaimtemplate", "training-channel", "-n", "mnnvl")
check("the template asks the default channel class",
      tmpl["spec"]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"]
      == "compute-domain-default-channel.nvidia.com"
      and tmpl["metadata"]["ownerReferences"][0]["kind"] == "ComputeDomain", json.dumps(tmpl))
check("each clique node publishes its IMEX channel", until(
    lambda: sorted(s["spec"]["nodeName"] for s in get("resourceslices")["items"]
                   if s["spec"]["driver"] == "compute-domain.nvidia.com") == sorted([n1, n2])))
check("the domain is NotReady before any workload runs in it",
      get("computedomain", "training", "-n", "mnnvl").get("status", {}).get("status")
      in (None, "NotReady"))
for i in range(3):
    create(pod(f"rank-{i}", "mnnvl", ["channel"],
               "[{name: channel, resourceClaimTemplateName: training-channel}]"))
# A node's channel goes to one claim: two ranks run, one per clique node, the third waits.
check("two ranks are placed, one on each clique node", until(
    lambda: sorted(pod_state(f"rank-{i}", "mnnvl")["spec"].get("nodeName") or ""
                   for i in range(3)) == sorted(["", n1, n2])))
waiting = [i for i in range(3) if not pod_state(f"rank-{i}", "mnnvl")["spec"].get("nodeName")]
pending_with(f"rank-{waiting[0]}", "mnnvl", "cannot allocate all claims")
check("the domain turns Ready once its two nodes' daemons run", until(
    lambda: get("computedomain", "training", "-n", "mnnvl").get("status", {}).get("status")
    == "Ready"))
nodes = get("computedomain", "training", "-n", "mnnvl")["status"]["nodes"]
check("its status lists both nodes, Ready, in the clique with distinct indices",
      sorted(n["name"] for n in nodes) == sorted([n1, n2])
      and all(n["status"] == "Ready" and n["cliqueID"] == "fabric-1.1" for n in nodes)
      and sorted(n["index"] for n in nodes) == [0, 1], json.dumps(nodes))
kubectl("delete", "computedomain", "training", "-n", "mnnvl", "--wait=true")
check("the template goes with its domain", until(
    lambda: kubectl("get", "resourceclaimtemplate", "training-channel", "-n", "mnnvl",
                    check=False).returncode != 0))

print("all checks passed")
