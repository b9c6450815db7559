"""Raw HTTP against planter sim (plain HTTP, stdlib only): the parts of the API that kubectl and
the Python client do not show directly. Each check prints "ok NAME" or raises.

Usage: api_conformance.py BASE_URL (a sim started with --insecure-http --watch-history 20
--bookmark-interval 1 --crd-delay 100).
"""
import http.client
import json
import os
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from waiting import until  # noqa: E402

base = urllib.parse.urlparse(sys.argv[1])


def request(method, path, body=None, content_type="application/json", headers=None):
    conn = http.client.HTTPConnection(base.hostname, base.port, timeout=30)
    h = {"Accept": "application/json"}
    if body is not None:
        h["Content-Type"] = content_type
        if not isinstance(body, (str, bytes)):
            body = json.dumps(body)
    h.update(headers or {})
    conn.request(method, path, body=body, headers=h)
    resp = conn.getresponse()
    data = resp.read()
    ctype = resp.getheader("Content-Type", "")
    conn.close()
    return resp.status, ctype, (json.loads(data) if data and "json" in ctype else data)


def watch(path, until, limit_s=10):
    """Reads watch events until `until(events)` is true or the stream ends."""
    conn = http.client.HTTPConnection(base.hostname, base.port, timeout=limit_s)
    conn.request("GET", path)
    resp = conn.getresponse()
    events = []
    while True:
        line = resp.readline()
        if not line:
            break
        events.append(json.loads(line))
        if until(events):
            break
    conn.close()
    return resp.status, events


def established(name):
    s, ct, body = request("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name)
    conds = {c["type"]: c["status"] for c in (body.get("status") or {}).get("conditions", [])}
    return conds.get("Established") == "True"


def check(name, cond, detail=""):
    if not cond:
        raise SystemExit(f"FAIL {name}: {detail}")
    print("ok", name)


def cm(name, labels=None, **extra):
    o = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}
    if labels:
        o["metadata"]["labels"] = labels
    o.update(extra)
    return o


# Discovery.
s, ct, body = request("GET", "/apis", headers={
    "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"})
check("aggregated discovery content type", ct == "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", ct)
check("aggregated discovery kind", body["kind"] == "APIGroupDiscoveryList")
s, ct, body = request("GET", "/apis/apps/v1beta1")
check("unserved group-version is 404", s == 404 and body["reason"] == "NotFound", body)
s, ct, body = request("GET", "/api/v1/namespaces/default/widgets")
check("unserved resource is a 404 Status",
      s == 404 and body == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": "the server could not find the requested resource",
                            "reason": "NotFound", "details": {}, "code": 404}, body)
s, ct, body = request("GET", "/version")
check("version", s == 200 and body["major"] == "1", body)
check("healthz", request("GET", "/healthz")[0] == 200)

# Errors are Status objects with the right reason and details.
s, ct, body = request("POST", "/api/v1/namespaces/missing/configmaps", cm("a"))
check("create in a missing namespace", s == 404 and body["message"] == 'namespaces "missing" not found'
      and body["details"] == {"name": "missing", "kind": "namespaces"}, body)
s, ct, body = request("POST", "/api/v1/namespaces/default/configmaps", cm("Bad_Name"))
check("invalid name is 422 Invalid with a cause", s == 422 and body["reason"] == "Invalid"
      and body["details"]["causes"][0]["field"] == "metadata.name", body)
s, ct, created = request("POST", "/api/v1/namespaces/default/configmaps", cm("one", {"app": "x"}))
check("create is 201 with uid and resourceVersion", s == 201 and created["metadata"]["uid"]
      and created["metadata"]["resourceVersion"], created)
s, ct, body = request("POST", "/api/v1/namespaces/default/configmaps", cm("one"))
check("duplicate is 409 AlreadyExists", s == 409 and body["reason"] == "AlreadyExists", body)
stale = dict(created)
stale["metadata"] = dict(created["metadata"], resourceVersion="1")
s, ct, body = request("PUT", "/api/v1/namespaces/default/configmaps/one", stale)
check("stale update is 409 Conflict", s == 409 and body["reason"] == "Conflict"
      and "the object has been modified" in body["message"], body)
fresh = dict(created, data={"k": "w"})
s, ct, updated = request("PUT", "/api/v1/namespaces/default/configmaps/one", fresh)
check("update with the current resourceVersion", s == 200 and updated["data"] == {"k": "w"}, updated)
s, ct, body = request("POST", "/api/v1/namespaces/default/configmaps",
                      {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "gen-"}})
check("generateName", s == 201 and body["metadata"]["name"].startswith("gen-")
      and len(body["metadata"]["name"]) == 9, body)
s, ct, body = request("PATCH", "/api/v1/namespaces/default/configmaps/one", [{"op": "add", "path": "/data/j", "value": "1"}],
                      "application/json-patch+json")
check("json patch", s == 200 and body["data"]["j"] == "1", body)
s, ct, body = request("PATCH", "/api/v1/namespaces/default/configmaps/one", "k: v\n", "application/apply-patch+yaml")
check("apply without fieldManager is 400", s == 400, body)

# Lists: selectors and pages.
for i in range(5):
    request("POST", "/api/v1/namespaces/default/configmaps", cm(f"page-{i}", {"page": "yes"}))
s, ct, first = request("GET", "/api/v1/namespaces/default/configmaps?labelSelector=page%3Dyes&limit=2")
check("limit", len(first["items"]) == 2 and first["metadata"]["remainingItemCount"] == 3, first["metadata"])
names = [i["metadata"]["name"] for i in first["items"]]
token = first["metadata"]["continue"]
while token:
    s, ct, page = request("GET", "/api/v1/namespaces/default/configmaps?labelSelector=page%3Dyes&limit=2&continue="
                          + urllib.parse.quote(token))
    names += [i["metadata"]["name"] for i in page["items"]]
    token = page["metadata"].get("continue")
check("continue pages through everything once", names == [f"page-{i}" for i in range(5)], names)
s, ct, body = request("GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Dpage-3")
check("field selector across namespaces", [i["metadata"]["name"] for i in body["items"]] == ["page-3"], body)
s, ct, body = request("GET", "/apis/apps/v1/deployments?fieldSelector=spec.replicas%3D1")
check("unsupported field selector is 400", s == 400 and "field label not supported" in body["message"], body)

# Watches: resume from a resourceVersion, 410 once it is compacted, bookmarks, timeouts.
s, ct, listing = request("GET", "/api/v1/namespaces/default/configmaps")
rv = listing["metadata"]["resourceVersion"]
request("PATCH", "/api/v1/namespaces/default/configmaps/page-0", {"data": {"k": "changed"}}, "application/merge-patch+json")
s, events = watch(f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={rv}", lambda e: len(e) >= 1)
check("watch resumes from a resourceVersion", events[0]["type"] == "MODIFIED"
      and events[0]["object"]["metadata"]["name"] == "page-0", events)
for i in range(30):
    request("PATCH", "/api/v1/namespaces/default/configmaps/page-1", {"data": {"n": str(i)}}, "application/merge-patch+json")
s, events = watch(f"/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={rv}", lambda e: True)
check("expired resourceVersion is 410 Gone", s == 200 and events[0]["type"] == "ERROR"
      and events[0]["object"]["code"] == 410 and events[0]["object"]["reason"] == "Expired", events)
start = time.time()
s, events = watch("/api/v1/namespaces/kube-system/configmaps?watch=1&timeoutSeconds=1", lambda e: False)
check("timeoutSeconds ends the stream", s == 200 and events == [] and 0.9 < time.time() - start < 5, events)
s, events = watch("/api/v1/namespaces/kube-system/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=5",
                  lambda e: any(x["type"] == "BOOKMARK" for x in e))
check("bookmarks", any(x["type"] == "BOOKMARK" and x["object"]["metadata"]["resourceVersion"] for x in events), events)
s, events = watch("/api/v1/namespaces/default/configmaps?watch=1&labelSelector=app%3Dx", lambda e: len(e) >= 1)
check("watch without resourceVersion starts with the current state", events[0]["type"] == "ADDED"
      and events[0]["object"]["metadata"]["name"] == "one", events)

# Finalizers hold a deletion; removing the last one completes it.
request("POST", "/api/v1/namespaces/default/configmaps", cm("held"))
request("PATCH", "/api/v1/namespaces/default/configmaps/held", {"metadata": {"finalizers": ["example.org/hold"]}},
        "application/merge-patch+json")
s, ct, body = request("DELETE", "/api/v1/namespaces/default/configmaps/held")
check("delete with a finalizer marks the object", s == 200 and body["metadata"].get("deletionTimestamp"), body)
s, ct, body = request("PATCH", "/api/v1/namespaces/default/configmaps/held", {"metadata": {"finalizers": None}},
                      "application/merge-patch+json")
check("removing the last finalizer deletes", request("GET", "/api/v1/namespaces/default/configmaps/held")[0] == 404)

# Garbage collection follows ownerReferences unless the delete orphans.
owner = request("POST", "/api/v1/namespaces/default/configmaps", cm("owner"))[2]
ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}
for n in ("dep-a", "dep-b"):
    o = cm(n)
    o["metadata"]["ownerReferences"] = [ref]
    request("POST", "/api/v1/namespaces/default/configmaps", o)
request("DELETE", "/api/v1/namespaces/default/configmaps/owner?propagationPolicy=Background")
check("background deletion removes dependents",
      until(lambda: request("GET", "/api/v1/namespaces/default/configmaps/dep-a")[0] == 404
            and request("GET", "/api/v1/namespaces/default/configmaps/dep-b")[0] == 404))
s, ct, body = request("DELETE", "/api/v1/namespaces/default/configmaps?labelSelector=page%3Dyes")
s, ct, body = request("GET", "/api/v1/namespaces/default/configmaps?labelSelector=page%3Dyes")
check("deletecollection", body["items"] == [], body)

# CRDs: NamesAccepted then Established; custom resources have status and no strategic merge.
crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "gadgets.example.org"},
       "spec": {"group": "example.org", "scope": "Namespaced",
                "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                              "schema": {"openAPIV3Schema": {"type": "object",
                                                             "x-kubernetes-preserve-unknown-fields": True}}}]}}
s, ct, body = request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
check("crd create", s == 201, body)
check("kind not served before Established", request("GET", "/apis/example.org/v1/namespaces/default/gadgets")[0] == 404)
until(lambda: established("gadgets.example.org"))
s, ct, body = request("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.org")
conds = {c["type"]: c["status"] for c in body["status"]["conditions"]}
check("crd conditions", conds == {"NamesAccepted": "True", "Established": "True"}, conds)
g = {"apiVersion": "example.org/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": {"a": 1},
     "status": {"ready": True}}
s, ct, body = request("POST", "/apis/example.org/v1/namespaces/default/gadgets", g)
check("status is dropped on create", s == 201 and "status" not in body and body["metadata"]["generation"] == 1, body)
s, ct, body = request("PUT", "/apis/example.org/v1/namespaces/default/gadgets/g/status",
                      dict(body, status={"ready": True}, spec={"a": 99}))
check("status write changes status only", s == 200 and body["status"] == {"ready": True}
      and body["spec"] == {"a": 1} and body["metadata"]["generation"] == 1, body)
s, ct, body = request("PATCH", "/apis/example.org/v1/namespaces/default/gadgets/g", {"spec": {"a": 2}},
                      "application/merge-patch+json")
check("spec change bumps generation", body["metadata"]["generation"] == 2 and body["status"] == {"ready": True}, body)
s, ct, body = request("PATCH", "/apis/example.org/v1/namespaces/default/gadgets/g", {"spec": {"a": 3}},
                      "application/strategic-merge-patch+json")
check("strategic merge patch on a custom resource is 415", s == 415, body)
s, ct, body = request("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.org")
check("deleting the CRD removes its kind and objects",
      until(lambda: request("GET", "/apis/example.org/v1/namespaces/default/gadgets/g")[0] == 404
            and request("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.org")[0] == 404))
# Structural schemas: what kube-apiserver refuses, drops and fills in for a custom resource.
widget_schema = {"type": "object", "properties": {"spec": {
    "type": "object", "required": ["size"],
    "properties": {
        "size": {"type": "integer", "minimum": 1, "maximum": 10},
        "mode": {"type": "string", "enum": ["fast", "safe"], "default": "safe"},
        "name": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8},
        "port": {"x-kubernetes-int-or-string": True},
        "note": {"type": "string"},
        "owner": {"type": "string", "nullable": True},
        "tags": {"type": "array", "maxItems": 2, "items": {"type": "string"}}}}}}
crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.example.org"},
       "spec": {"group": "example.org", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                "versions": [{"name": "v1", "served": True, "storage": True,
                              "schema": {"openAPIV3Schema": widget_schema}}]}}
s, ct, body = request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
check("schema crd create", s == 201, body)
until(lambda: established("widgets.example.org"))
bad = {"apiVersion": "example.org/v1", "kind": "Widget", "metadata": {"name": "w"},
       "spec": {"size": 0, "mode": "slow", "name": "Abc", "port": True, "tags": ["a", "b", "c"]}}
s, ct, body = request("POST", "/apis/example.org/v1/namespaces/default/widgets", bad)
causes = {c["field"]: (c["reason"], c["message"]) for c in body.get("details", {}).get("causes", [])}
check("an invalid custom resource is 422 Invalid", s == 422 and body["reason"] == "Invalid", body)
check("minimum", causes.get("spec.size") == ("FieldValueInvalid",
      "Invalid value: 0: spec.size in body should be greater than or equal to 1"), causes)
check("enum", causes.get("spec.mode") == ("FieldValueNotSupported",
      'Unsupported value: "slow": supported values: "fast", "safe"'), causes)
check("pattern", causes.get("spec.name") == ("FieldValueInvalid",
      'Invalid value: "Abc": spec.name in body should match \'^[a-z]+$\''), causes)
check("int-or-string", causes.get("spec.port", ("",))[0] == "FieldValueTypeInvalid", causes)
check("maxItems", causes.get("spec.tags", ("",))[0] == "FieldValueTooMany", causes)
check("the message names the object", body["message"].startswith('Widget.example.org "w" is invalid: '), body)
s, ct, body = request("POST", "/apis/example.org/v1/namespaces/default/widgets",
                      {"apiVersion": "example.org/v1", "kind": "Widget", "metadata": {"name": "w"},
                       "spec": {"name": "ok"}})
check("required", s == 422 and body["details"]["causes"][0]["field"] == "spec.size"
      and body["details"]["causes"][0]["message"] == "Required value", body)
s, ct, body = request("POST", "/apis/example.org/v1/namespaces/default/widgets",
                      {"apiVersion": "example.org/v1", "kind": "Widget", "metadata": {"name": "w"},
                       "spec": {"size": "3"}})
check("type", s == 422 and body["details"]["causes"][0]["message"]
      == 'Invalid value: "3": spec.size in body must be of type integer: "string"', body)
s, ct, body = request("POST", "/apis/example.org/v1/namespaces/default/widgets",
                      {"apiVersion": "example.org/v1", "kind": "Widget", "metadata": {"name": "w"},
                       "spec": {"size": 2, "port": "http", "note": None, "owner": None}})
check("a valid one is created with defaults, non-nullable nulls dropped",
      s == 201 and body["spec"] == {"size": 2, "port": "http", "owner": None, "mode": "safe"}, body)
print("all checks passed")
