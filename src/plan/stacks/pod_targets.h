// Where an object keeps the pods it makes: the pod templates of built-in workloads (Pod,
// Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, ReplicationController,
// PodTemplate). Stack policies are written there.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "model/kinds.h"
#include "model/object.h"

namespace planter {

struct PodTarget {
  std::string path;                     // "spec.template", for messages
  boost::json::object* meta = nullptr;  // what carries the pods' labels
  boost::json::object* spec = nullptr;  // the pod spec
};

struct PodTargets {
  std::vector<PodTarget> targets;
  // False when planter cannot tell where the object's pods come from: a custom resource whose
  // operator planter does not know (docs/stacks.md says how to teach it).
  bool known = true;
};

// Creates missing template objects on the way, so `o` must stay alive and unmoved while the
// targets are used.
PodTargets pod_targets(Object& o, const KindTable& kinds);

}  // namespace planter
