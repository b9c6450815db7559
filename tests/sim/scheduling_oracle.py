"""An oracle for pod placement, written from the Kubernetes documentation (Resource Management for
Pods and Containers; Assigning Pods to Nodes; Taints and Tolerations; Pod Topology Spread
Constraints; Pod Quality of Service Classes), not from the sim's code. It judges a cluster's
state as `kubectl get nodes,pods -A -o json` shows it:

- every bound pod is where the rules allow it: the node's allocatable cpu, memory, pods and
  extended resources cover the requests of its pods; its nodeSelector and required node
  affinity match the node; it tolerates the node's NoSchedule and NoExecute taints; its required
  pod affinity and anti-affinity hold against the other bound pods, both ways;
- every Pending pod of the default scheduler fits on no node by those same rules, and its
  PodScheduled condition says why in kube-scheduler's words, one count per node.

`violations(nodes, pods)` returns a list of human-readable problems (empty: all is well).
"""
import re

SUFFIXES = {
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
    "n": 10**-9, "u": 10**-6, "m": 10**-3, "": 1, "k": 10**3, "M": 10**6, "G": 10**9,
    "T": 10**12, "P": 10**15, "E": 10**18,
}

KNOWN_REASONS = [
    r"Insufficient [\w./-]+", r"Too many pods", r"node\(s\) were unschedulable",
    r"node\(s\) had untolerated taint \{[^}]*\}",
    r"node\(s\) didn't match Pod's node affinity/selector",
    r"node\(s\) didn't match pod affinity rules", r"node\(s\) didn't match pod anti-affinity rules",
    r"node\(s\) didn't satisfy existing pods anti-affinity rules",
    r"node\(s\) didn't match pod topology spread constraints( \(missing required label\))?",
    r"node\(s\) didn't have free ports for the requested pod ports",
    r"node\(s\) had volume node affinity conflict",
    r"node\(s\) didn't find available persistent volumes to bind",
    r"node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access "
    r"mode",
]


def quantity(text):
    """A resource quantity ("100m", "1.5Gi", "2", "1e3") as a float in base units."""
    text = str(text)
    m = re.fullmatch(r"([+-]?[0-9.]+)(e[+-]?[0-9]+|E[+-]?[0-9]+)?([a-zA-Z]*)", text)
    if not m:
        raise ValueError(f"not a quantity: {text}")
    value = float(m.group(1) + (m.group(2) or ""))
    return value * SUFFIXES[m.group(3)]


def requests(pod):
    """What a pod asks of its node: the larger of the sum of its containers and its largest init
    container (sidecars, restartPolicy Always, add to both), plus the pod overhead."""
    spec = pod["spec"]

    def of(c):
        r = (c.get("resources") or {}).get("requests") or {}
        return {k: quantity(v) for k, v in r.items()}

    total = {}
    for c in spec.get("containers", []):
        for k, v in of(c).items():
            total[k] = total.get(k, 0) + v
    sidecars, init = {}, {}
    for c in spec.get("initContainers", []) or []:
        r = of(c)
        if c.get("restartPolicy") == "Always":
            for k, v in r.items():
                total[k] = total.get(k, 0) + v
                sidecars[k] = sidecars.get(k, 0) + v
            r = dict(sidecars)
        else:
            for k, v in sidecars.items():
                r[k] = r.get(k, 0) + v
        for k, v in r.items():
            init[k] = max(init.get(k, 0), v)
    for k, v in init.items():
        total[k] = max(total.get(k, 0), v)
    for k, v in (spec.get("overhead") or {}).items():
        total[k] = total.get(k, 0) + quantity(v)
    return total


def qos_class(pod):
    """Guaranteed: every container has cpu and memory limits equal to its requests; BestEffort:
    none has any cpu or memory request or limit; Burstable otherwise."""
    spec = pod["spec"]
    containers = list(spec.get("containers", [])) + list(spec.get("initContainers", []) or [])
    anything, guaranteed = False, True
    for c in containers:
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        for r in ("cpu", "memory"):
            q = quantity(req[r]) if r in req else 0
            lq = quantity(lim[r]) if r in lim else 0
            if q or lq:
                anything = True
            if not lq or (q and q != lq):
                guaranteed = False
    if not anything:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def labels_of(obj):
    return obj["metadata"].get("labels") or {}


def selector_matches(sel, labels):
    """A metav1.LabelSelector: null matches nothing, {} everything."""
    if sel is None:
        return False
    for k, v in (sel.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in sel.get("matchExpressions") or []:
        key, op, values = e["key"], e["operator"], e.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def node_term_matches(term, node):
    exprs, fields = term.get("matchExpressions") or [], term.get("matchFields") or []
    if not exprs and not fields:
        return False
    labels = labels_of(node)
    for e in exprs:
        key, op, values = e["key"], e["operator"], e.get("values") or []
        has = key in labels
        if op == "In" and not (has and labels[key] in values):
            return False
        if op == "NotIn" and has and labels[key] in values:
            return False
        if op == "Exists" and not has:
            return False
        if op == "DoesNotExist" and has:
            return False
        if op in ("Gt", "Lt"):
            try:
                have, want = int(labels[key]), int(values[0])
            except (KeyError, ValueError, IndexError):
                return False
            if (op == "Gt" and not have > want) or (op == "Lt" and not have < want):
                return False
    for f in fields:
        name = node["metadata"]["name"]
        if f["key"] != "metadata.name":
            return False
        inside = name in (f.get("values") or [])
        if (f["operator"] == "In") != inside:
            return False
    return True


def node_affinity_ok(pod, node):
    spec = pod["spec"]
    for k, v in (spec.get("nodeSelector") or {}).items():
        if labels_of(node).get(k) != v:
            return False
    req = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
           .get("requiredDuringSchedulingIgnoredDuringExecution"))
    if req is None:
        return True
    return any(node_term_matches(t, node) for t in req.get("nodeSelectorTerms") or [])


def tolerates(tol, taint):
    if tol.get("effect") and tol["effect"] != taint["effect"]:
        return False
    op = tol.get("operator") or "Equal"
    if not tol.get("key"):
        return op == "Exists"
    if tol["key"] != taint["key"]:
        return False
    return op == "Exists" or tol.get("value", "") == taint.get("value", "")


def untolerated(pod, node):
    for t in (node["spec"].get("taints") or []):
        if t["effect"] in ("NoSchedule", "NoExecute") and not any(
                tolerates(tol, t) for tol in pod["spec"].get("tolerations") or []):
            return t
    return None


def term_namespaces_match(term, owner_ns, ns, namespaces):
    names, sel = term.get("namespaces") or [], term.get("namespaceSelector")
    if not names and sel is None:
        return ns == owner_ns
    if ns in names:
        return True
    if sel is not None:
        return sel == {} or selector_matches(sel, namespaces.get(ns, {}))
    return False


def term_selects(term, owner_ns, pod, namespaces):
    return term_namespaces_match(term, owner_ns, pod["metadata"]["namespace"], namespaces) and \
        selector_matches(term.get("labelSelector"), labels_of(pod))


def required_terms(pod, kind):
    aff = (pod["spec"].get("affinity") or {}).get(kind) or {}
    return aff.get("requiredDuringSchedulingIgnoredDuringExecution") or []


def volume_admits(pv, node):
    """A volume's required node affinity admits the node (none: every node)."""
    required = ((pv or {}).get("spec", {}).get("nodeAffinity") or {}).get("required")
    return not required or any(node_term_matches(t, node)
                               for t in required.get("nodeSelectorTerms") or [])


def volume_may_bind(pvc, pv):
    """Persistent Volumes, "Binding": an available volume binds a claim of its class and volume
    mode whose access modes it offers, whose request it holds, whose selector its labels meet,
    unless it is reserved (claimRef) for another claim."""
    c, v = pvc["spec"], pv["spec"]
    ref = v.get("claimRef")
    if ref and (ref.get("namespace"), ref.get("name")) != (pvc["metadata"]["namespace"],
                                                           pvc["metadata"]["name"]):
        return False
    if pv["metadata"].get("deletionTimestamp"):
        return False
    if (v.get("storageClassName") or "") != (c.get("storageClassName") or ""):
        return False
    if (v.get("volumeMode") or "Filesystem") != (c.get("volumeMode") or "Filesystem"):
        return False
    if not set(c.get("accessModes") or []) <= set(v.get("accessModes") or []):
        return False
    want = ((c.get("resources") or {}).get("requests") or {}).get("storage", "0")
    if quantity((v.get("capacity") or {}).get("storage", "0")) < quantity(want):
        return False
    if c.get("selector") is not None and not selector_matches(c["selector"], labels_of(pv)):
        return False
    return True


def topology_admits(storage_class, node):
    """Storage Classes, "Allowed Topologies": some term's label expressions all hold on the node
    (no terms: every node)."""
    terms = storage_class.get("allowedTopologies") or []
    if not terms:
        return True
    labels = labels_of(node)
    return any(t.get("matchLabelExpressions") and
               all(labels.get(e["key"]) in (e.get("values") or [])
                   for e in t["matchLabelExpressions"]) for t in terms)


def volume_problems(pod, node, volumes):
    """The pod's persistentVolumeClaims on the node (Persistent Volumes; Storage Classes, "Volume
    Binding Mode"): a bound claim's volume must admit the node; an unbound claim must wait for
    its first consumer and then bind on the node, to an available volume there (each volume to
    one claim) or to one its class can provision there."""
    pvcs, pvs, classes = volumes
    ns = pod["metadata"]["namespace"]
    out = []
    chosen = set()
    for v in pod["spec"].get("volumes") or []:
        claim = (v.get("persistentVolumeClaim") or {}).get("claimName")
        if not claim:
            continue
        pvc = pvcs.get((ns, claim))
        if pvc is None:
            out.append(f"claim {claim} missing")
            continue
        if pvc["spec"].get("volumeName"):
            pv = pvs.get(pvc["spec"]["volumeName"])
            if not volume_admits(pv, node):
                out.append(f"volume {pv['metadata']['name']} is not on {node['metadata']['name']}")
            continue
        sc = classes.get(pvc["spec"].get("storageClassName") or "")
        if not sc or sc.get("volumeBindingMode") != "WaitForFirstConsumer":
            out.append(f"claim {claim} is unbound and binds at once")
            continue
        selected = (pvc["metadata"].get("annotations") or {}).get(
            "volume.kubernetes.io/selected-node")
        if selected:
            if selected != node["metadata"]["name"]:
                out.append(f"claim {claim} is provisioned on {selected}")
            continue
        free = sorted((p for p in pvs.values() if p["metadata"]["name"] not in chosen and
                       volume_may_bind(pvc, p) and volume_admits(p, node)),
                      key=lambda p: quantity(p["spec"].get("capacity", {}).get("storage", "0")))
        if free:
            chosen.add(free[0]["metadata"]["name"])
            continue
        if sc.get("provisioner") in (None, "", "kubernetes.io/no-provisioner") or \
                not topology_admits(sc, node):
            out.append(f"no volume for claim {claim} on {node['metadata']['name']}")
    return out


def read_write_once_pod_taken(pod, bound, volumes, ignore=None):
    """Persistent Volumes, "Access Modes": a ReadWriteOncePod claim is used by one pod at most."""
    pvcs = volumes[0]
    ns = pod["metadata"]["namespace"]

    def claims(p):
        return {(v.get("persistentVolumeClaim") or {}).get("claimName")
                for v in p["spec"].get("volumes") or []} - {None}
    once = {c for c in claims(pod)
            if "ReadWriteOncePod" in (pvcs.get((ns, c)) or {}).get("spec", {}).get(
                "accessModes", [])}
    return once and any(p is not ignore and p["metadata"]["namespace"] == ns and
                        p["metadata"]["uid"] != pod["metadata"]["uid"] and claims(p) & once
                        for p, _ in bound)


def fit_problems(pod, node, bound, nodes_by_name, namespaces, ignore=None,
                 volumes=({}, {}, {})):
    """Why `pod` may not run on `node` given the pods in `bound` (list of (pod, node name)); an
    empty list when it may."""
    problems = volume_problems(pod, node, volumes)
    if read_write_once_pod_taken(pod, bound, volumes, ignore):
        problems.append("read-write-once-pod claim in use")
    ns = pod["metadata"]["namespace"]
    if node["spec"].get("unschedulable") and not any(
            tolerates(t, {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
            for t in pod["spec"].get("tolerations") or []):
        problems.append("unschedulable")
    t = untolerated(pod, node)
    if t:
        problems.append(f"taint {t['key']}={t.get('value', '')}:{t['effect']}")
    if not node_affinity_ok(pod, node):
        problems.append("node affinity")
    here = [p for p, n in bound if n == node["metadata"]["name"] and p is not ignore]
    alloc = node["status"]["allocatable"]
    want = requests(pod)
    if len(here) + 1 > quantity(alloc.get("pods", "110")):
        problems.append("pods")
    used = {}
    for p in here:
        for k, v in requests(p).items():
            used[k] = used.get(k, 0) + v
    for k, v in want.items():
        if v > 0 and k != "pods" and v > quantity(alloc.get(k, 0)) - used.get(k, 0) + 1e-9:
            problems.append(f"insufficient {k}")
    others = [(p, nodes_by_name[n]) for p, n in bound if p is not ignore and n in nodes_by_name]
    # Required affinity: a pod in the same topology domain matching every term, unless no pod
    # anywhere matches them and the pod matches its own terms (the first pod of a group).
    aff = required_terms(pod, "podAffinity")
    if aff:
        if any(t["topologyKey"] not in labels_of(node) for t in aff):
            problems.append("affinity topology key")
        else:
            def matches_all(p):
                return all(term_selects(t, ns, p, namespaces) for t in aff)
            anywhere = [(p, n) for p, n in others if matches_all(p)]
            near = all(any(labels_of(n).get(t["topologyKey"]) == labels_of(node)[t["topologyKey"]]
                           for p, n in anywhere) for t in aff) and anywhere
            if not near and not (not anywhere and matches_all(pod)):
                problems.append("pod affinity")
    for t in required_terms(pod, "podAntiAffinity"):
        key = t["topologyKey"]
        if key in labels_of(node) and any(
                term_selects(t, ns, p, namespaces) and labels_of(n).get(key) == labels_of(node)[key]
                for p, n in others):
            problems.append("pod anti-affinity")
    for p, n in others:
        for t in required_terms(p, "podAntiAffinity"):
            key = t["topologyKey"]
            if key in labels_of(node) and labels_of(n).get(key) == labels_of(node)[key] and \
                    term_selects(t, p["metadata"]["namespace"], pod, namespaces):
                problems.append("existing pod anti-affinity")
    for c in pod["spec"].get("topologySpreadConstraints") or []:
        if c.get("whenUnsatisfiable") != "DoNotSchedule":
            continue
        key = c["topologyKey"]
        if key not in labels_of(node):
            problems.append("spread topology key")
            continue
        counts = {}
        for n in nodes_by_name.values():
            if key in labels_of(n) and node_affinity_ok(pod, n):
                counts.setdefault(labels_of(n)[key], 0)
        for p, n in others:
            if key in labels_of(n) and labels_of(n)[key] in counts and \
                    p["metadata"]["namespace"] == ns and \
                    selector_matches(c.get("labelSelector"), labels_of(p)):
                counts[labels_of(n)[key]] += 1
        if not counts:
            continue
        low = min(counts.values()) if len(counts) >= (c.get("minDomains") or 1) else 0
        self_match = 1 if selector_matches(c.get("labelSelector"), labels_of(pod)) else 0
        if counts.get(labels_of(node)[key], 0) + self_match - low > c.get("maxSkew", 1):
            problems.append("topology spread")
    return problems


def ours(pod):
    return (pod["spec"].get("schedulerName") or "default-scheduler") == "default-scheduler"


def violations(nodes, pods, namespaces=None, pvcs=(), pvs=(), classes=()):
    namespaces = namespaces or {}
    volumes = ({(c["metadata"]["namespace"], c["metadata"]["name"]): c for c in pvcs},
               {v["metadata"]["name"]: v for v in pvs},
               {c["metadata"]["name"]: c for c in classes})
    nodes_by_name = {n["metadata"]["name"]: n for n in nodes}
    live = [p for p in pods if p["status"].get("phase") not in ("Succeeded", "Failed")
            and not p["metadata"].get("deletionTimestamp")]
    bound = [(p, p["spec"]["nodeName"]) for p in live if p["spec"].get("nodeName")]
    out = []
    for p, n in bound:
        name = f"{p['metadata']['namespace']}/{p['metadata']['name']}"
        if n not in nodes_by_name:
            out.append(f"{name} is bound to {n}, which does not exist")
            continue
        # Taints added after binding do not move a pod (NoSchedule), so only resources, node
        # affinity and pod (anti-)affinity are judged for bound pods.
        problems = [x for x in fit_problems(p, nodes_by_name[n], bound, nodes_by_name, namespaces,
                                            ignore=p, volumes=volumes)
                    if not x.startswith("taint") and x != "unschedulable"]
        if problems:
            out.append(f"{name} on {n} breaks: {', '.join(problems)}")
        want = qos_class(p)
        if p["status"].get("qosClass") != want:
            out.append(f"{name} has QoS class {p['status'].get('qosClass')}, not {want}")
    for p in live:
        if p["spec"].get("nodeName") or not ours(p):
            continue
        name = f"{p['metadata']['namespace']}/{p['metadata']['name']}"
        fits = [n for n in nodes
                if not fit_problems(p, n, bound, nodes_by_name, namespaces, volumes=volumes)]
        if fits:
            out.append(f"{name} is Pending but fits on {fits[0]['metadata']['name']}")
        cond = next((c for c in p["status"].get("conditions") or []
                     if c["type"] == "PodScheduled"), None)
        if not cond or cond.get("status") != "False" or cond.get("reason") != "Unschedulable":
            out.append(f"{name} is Pending without PodScheduled=False (Unschedulable)")
            continue
        out.extend(message_problems(name, cond.get("message", ""), len(nodes)))
    return out


def message_problems(name, message, node_count):
    m = re.fullmatch(r"0/(\d+) nodes are available: (.*?)\. preemption: 0/(\d+) nodes are "
                     r"available: (.*)\.", message)
    if not m:
        return [f"{name}: message {message!r} is not kube-scheduler's"]
    out = []
    if int(m.group(1)) != node_count or int(m.group(3)) != node_count:
        out.append(f"{name}: message counts {m.group(1)} nodes, the cluster has {node_count}")
    total = 0
    for part in m.group(2).split(", "):
        pm = re.fullmatch(r"(\d+) (.*)", part)
        if not pm or not any(re.fullmatch(r, pm.group(2)) for r in KNOWN_REASONS):
            out.append(f"{name}: {part!r} is not a reason kube-scheduler gives")
            continue
        total += int(pm.group(1))
    if total < node_count:
        out.append(f"{name}: reasons cover {total} of {node_count} nodes")
    return out
