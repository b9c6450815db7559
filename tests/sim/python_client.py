"""The Kubernetes Python client (Debian's python3-kubernetes) against planter sim.

Usage: python_client.py KUBECONFIG. Prints one JSON object with what it saw; the C++ test
(python_client_test.cpp) checks it.
"""
import json
import sys
import threading

from kubernetes import client, config, watch

config.load_kube_config(sys.argv[1])
core = client.CoreV1Api()
result = {"namespaces": [ns.metadata.name for ns in core.list_namespace().items]}

events = []
# The watch starts at the list's resourceVersion: every change after it is delivered, however
# late the watch's connection opens (no sleep hoping it is open).
since = core.list_namespaced_config_map("default").metadata.resource_version


def watch_configmaps():
    w = watch.Watch()
    for event in w.stream(core.list_namespaced_config_map, "default", resource_version=since,
                          timeout_seconds=10):
        events.append([event["type"], event["object"].metadata.name,
                       (event["object"].data or {}).get("colour")])
        if event["type"] == "DELETED":
            w.stop()


thread = threading.Thread(target=watch_configmaps)
thread.start()

body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="from-python", labels={"app": "py"}),
                          data={"colour": "green"})
created = core.create_namespaced_config_map("default", body)
result["created_resource_version"] = created.metadata.resource_version
result["created_uid"] = created.metadata.uid
core.patch_namespaced_config_map("from-python", "default", {"data": {"colour": "blue"}})
result["selected"] = [cm.metadata.name for cm in
                      core.list_namespaced_config_map("default", label_selector="app=py").items]
try:
    core.create_namespaced_config_map("default", body)
except client.exceptions.ApiException as e:
    result["duplicate"] = {"status": e.status, "reason": json.loads(e.body)["reason"]}
core.delete_namespaced_config_map("from-python", "default")
thread.join(timeout=15)
result["events"] = events
print(json.dumps(result))
