// Whether an object is Current, as kstatus (sigs.k8s.io/cli-utils) reads it: what `plant --wait`
// waits for after declaring. Being deleted is never Current; the built-in kinds by their rollout
// (health.h: a Deployment, StatefulSet or DaemonSet rolled out, a Job complete, a PVC bound...);
// any object whose status.observedGeneration is behind metadata.generation is in progress; a
// Reconciling condition True is in progress and Stalled True has failed; a Ready condition that
// is not True is not Current. When it is not, `why` says so with the object's own condition
// message when it has one.
#pragma once

#include <boost/json/object.hpp>

#include "plant/readiness_check.h"

namespace planter::plant {

Readiness check_current(const boost::json::object& object);

}  // namespace planter::plant
