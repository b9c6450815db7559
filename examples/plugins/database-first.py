#!/usr/bin/env python3
"""A planter plugin: an application's workloads wait for its database.

Objects that belong together carry the label `app.kubernetes.io/part-of` (the Kubernetes
recommended labels). In each such group, the StatefulSets labelled
`app.kubernetes.io/component: database` are the databases; every other Deployment, StatefulSet,
DaemonSet, Job or CronJob of the group gets a `planter.nephio.org/dependencies` entry naming each
database of its group on its own cluster, and each database gets a
`planter.nephio.org/ready-when` saying it is ready when all its replicas are.

Annotations already there are kept: an author's or an earlier plugin's word wins, as it does over
planter's built-in rules. Reads and writes both a plain multi-document stream and a KRM
`config.kubernetes.io/v1 ResourceList`, answering in the format it was given. Needs PyYAML
(Debian: python3-yaml).
"""
import re
import sys

import yaml

PART_OF = "app.kubernetes.io/part-of"
COMPONENT = "app.kubernetes.io/component"
DEPENDENCIES = "planter.nephio.org/dependencies"
READY_WHEN = "planter.nephio.org/ready-when"
CLUSTER = "planter.nephio.org/cluster"
WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"}


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML reads YAML 1.1, where `yes`, `no`, `on` and `off` are booleans. planter and kubectl
    read YAML 1.2, where they are strings; keep them strings, or the plugin would change the seed
    (an environment variable `value: on` would come back as `true`)."""


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def metadata(obj):
    return obj.get("metadata") or {}


def labels(obj):
    return metadata(obj).get("labels") or {}


def placement(obj):
    return (metadata(obj).get("annotations") or {}).get(CLUSTER, "")


def annotate(obj, key, value):
    meta = obj.setdefault("metadata", {})
    if not meta.get("annotations"):
        meta["annotations"] = {}
    meta["annotations"].setdefault(key, value)


def main():
    docs = [d for d in yaml.load_all(sys.stdin, Loader=Yaml12Loader) if d is not None]
    resource_list = (len(docs) == 1 and docs[0].get("kind") == "ResourceList"
                     and str(docs[0].get("apiVersion", "")).startswith("config.kubernetes.io/"))
    objects = (docs[0].get("items") or []) if resource_list else docs

    databases = {}  # (part-of, cluster annotation) -> [objects]
    for obj in objects:
        lab = labels(obj)
        if obj.get("kind") == "StatefulSet" and lab.get(COMPONENT) == "database" and PART_OF in lab:
            databases.setdefault((lab[PART_OF], placement(obj)), []).append(obj)

    for dbs in databases.values():
        for db in dbs:
            replicas = (db.get("spec") or {}).get("replicas", 1)
            annotate(db, READY_WHEN, "jsonpath={.status.readyReplicas}=%d" % replicas)

    for obj in objects:
        lab = labels(obj)
        if obj.get("kind") not in WORKLOADS or lab.get(COMPONENT) == "database":
            continue
        dbs = databases.get((lab.get(PART_OF), placement(obj)), [])
        if not dbs:
            continue
        # Kind/name is in the dependent's namespace; Kind/namespace/name when they differ.
        namespace = metadata(obj).get("namespace")
        names = []
        for db in dbs:
            db_namespace = metadata(db).get("namespace")
            name = metadata(db)["name"]
            names.append("StatefulSet/%s" % name if db_namespace == namespace
                         else "StatefulSet/%s/%s" % (db_namespace or "default", name))
        annotate(obj, DEPENDENCIES, ",".join(names))

    yaml.safe_dump_all(docs, sys.stdout, sort_keys=False, explicit_start=True)


if __name__ == "__main__":
    try:
        main()
    except yaml.YAMLError as err:
        sys.exit("database-first: the seed is not YAML: %s" % err)
