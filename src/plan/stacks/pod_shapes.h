// Where an operator takes the fields of the pods it makes from its custom resource, so that
// planter can write stack policies there. Three sources, in order:
//
//   1. the annotation planter.nephio.org/pod-template on the kind's CRD (when the seed holds it);
//   2. a built-in table of well-known operators (MySQL operator's MysqlCluster, Percona XtraDB
//      Cluster, prometheus-operator's Prometheus and Alertmanager, MOCO, Kubeflow training jobs,
//      KubeRay's RayCluster);
//   3. properties of the CRD's schema shaped like a PodTemplateSpec (metadata and a spec with
//      containers).
//
// The annotation's value is either a comma-separated list of
//   PATH      a PodTemplateSpec: PATH.metadata.labels, PATH.spec.affinity, .tolerations,
//             .nodeSelector, and the resources of PATH.spec.containers and initContainers;
//   pod:PATH  a pod-spec-like object with labels, affinity, tolerations, nodeSelector and
//             resources directly under PATH (MySQL operator's spec.podSpec);
// or JSON: an object, or a list of objects, naming each field's path for operators whose fields
// are scattered: {"labels": "spec.pxc.labels", "affinity": "spec.pxc.affinity.advanced",
// "tolerations": "spec.pxc.tolerations", "nodeSelector": "spec.pxc.nodeSelector",
// "resources": ["spec.pxc.resources"], "replicas": "spec.pxc.size"}. Paths are dotted object keys;
// in a PATH, a step "*" stands for every value of an object and a suffix "[*]" for every item of a
// list (spec.pytorchReplicaSpecs.*.template, spec.workerGroupSpecs[*].template).
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace planter {

inline constexpr std::string_view kPodTemplateAnnotation = "planter.nephio.org/pod-template";

// Bounds of the annotation (docs/limits.md): kinds of pods, steps and characters of one path.
inline constexpr size_t kMaxPodShapes = 64;
inline constexpr size_t kMaxPathSteps = 32;
inline constexpr size_t kMaxPathBytes = 1024;

struct PodShape {
  enum class Form { kTemplate, kPodLike, kFields };
  Form form = Form::kTemplate;
  std::string path;  // kTemplate, kPodLike
  // kFields: each field's path (empty: the operator has none).
  std::string labels, affinity, tolerations, node_selector;
  std::vector<std::string> resources;
  // The replica count's path ("spec.pxc.size"); empty: a template's sibling `replicas`, else 1.
  std::string replicas;
  // A switch that turns this kind of pod off when false ("spec.proxysql.enabled").
  std::string enabled;
};

// The annotation's shapes; an error, naming the entry and the step, when it is malformed: a step
// that is not a field name ("[0]", "[abc]"), a path that does not start at spec (nothing is ever
// written into metadata or status), or past the bounds above.
Result<std::vector<PodShape>> parse_pod_shapes(std::string_view annotation);

// The built-in table's shapes of a kind; empty when the table does not know it.
std::vector<PodShape> builtin_pod_shapes(std::string_view group, std::string_view kind);

// PodTemplateSpec-shaped properties of a CRD version's openAPIV3Schema (one level of wildcards
// for maps and lists of them); empty when it has none.
std::vector<PodShape> schema_pod_shapes(const boost::json::object& schema);

}  // namespace planter
