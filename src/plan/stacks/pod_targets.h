// Where an object keeps what its pods are made of: for built-in workloads their pod templates
// (Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, ReplicationController,
// PodTemplate); for a custom resource the fields its operator copies into the pods it makes
// (pod_shapes.h). Stack policies are written there.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/kinds.h"
#include "model/object.h"
#include "plan/stacks/pod_path.h"
#include "plan/stacks/pod_shapes.h"

namespace planter {

// One kind of pod an object makes, as pointers into the object's body (created where missing).
struct PodTarget {
  std::string labels_path, tolerations_path, node_selector_path;  // for messages
  PodPath affinity_at;  // where `affinity` is, as steps (planting steers pods there)
  std::string affinity_path() const { return pod_path::text(affinity_at); }
  boost::json::object* labels = nullptr;
  boost::json::object* affinity = nullptr;
  boost::json::array* tolerations = nullptr;
  const boost::json::object* node_selector = nullptr;  // read only; null when absent
  const boost::json::array* volumes = nullptr;         // read only; null when absent or unknown
  // Where schedulerName goes (the pod spec, or a pod-like object); null when the operator's
  // fields have no such place.
  boost::json::object* pod_spec = nullptr;
  std::string pod_spec_path;
  struct Sized {
    std::string path;       // "spec.template.spec.containers[0]"
    std::string container;  // its name, or the path
    boost::json::object* resources = nullptr;
  };
  std::vector<Sized> resources;
  int64_t replicas = 1;   // how many such pods the object makes
  bool per_node = false;  // a DaemonSet: one per node it may run on
};

struct PodTargets {
  std::vector<PodTarget> targets;
  // False when planter cannot tell where the object's pods come from: a custom resource of an
  // operator it does not know (docs/stacks.md says how to teach it).
  bool known = true;
  // Set when two places overlap (one holds the other, or they are the same): nothing is written
  // and `targets` is empty. Says which paths, for the error at the object.
  std::string conflict;
};

// A built-in workload's pods read in place, nothing written: its pod template (metadata and
// spec; the object itself for a Pod), how many pods it makes, and whether one runs per node.
// Nullopt for any other kind, for a PodTemplate (it makes none) and for a template that is not
// an object.
struct WorkloadPods {
  const boost::json::object* pod = nullptr;
  int64_t replicas = 1;
  bool per_node = false;
};
std::optional<WorkloadPods> builtin_workload_pods(const Object& o);

// The pod targets of `o`. `shapes` are the object's kind's pod shapes when it is a custom
// resource (empty: unknown). The object must stay alive and unmoved while the targets are used,
// and nothing but the targets may change it meanwhile.
PodTargets pod_targets(Object& o, const KindTable& kinds, const std::vector<PodShape>& shapes);

}  // namespace planter
