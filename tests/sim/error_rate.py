"""Sends 1,000 requests (creates and lists, alternately) to a `planter sim --error-rate` served
over plain HTTP and prints what came back as one JSON object: the status codes, how many
failures carried Retry-After, and the ConfigMaps the client saw created."""
import json
import sys
import urllib.error
import urllib.request

url = sys.argv[1]
codes = {}
failures = retry_after = 0
created = []
for i in range(1000):
    if i % 2 == 0:
        body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm{i}"}}
        req = urllib.request.Request(
            url + "/api/v1/namespaces/default/configmaps", data=json.dumps(body).encode(),
            method="POST", headers={"Content-Type": "application/json"})
    else:
        req = urllib.request.Request(url + "/api/v1/namespaces/default/configmaps?limit=5")
    try:
        with urllib.request.urlopen(req) as r:
            code = r.status
        if i % 2 == 0:
            created.append(f"cm{i}")
    except urllib.error.HTTPError as e:
        code = e.code
        failures += 1
        if e.headers.get("Retry-After"):
            retry_after += 1
    codes[str(code)] = codes.get(str(code), 0) + 1
print(json.dumps({"codes": codes, "failures": failures, "retry_after": retry_after,
                  "created": created}))
