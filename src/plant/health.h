// Whether an object is healthy as Argo CD judges the built-in kinds (its documented resource
// health): a rolled-out Deployment, ReplicaSet, StatefulSet or DaemonSet, a complete Job, a
// succeeded or running-and-ready Pod, a bound PersistentVolumeClaim, a LoadBalancer Service or an
// Ingress with an address, an Available APIService; any other kind once it exists. The
// `healthy` predicate of sync waves and depends-on.
#pragma once

#include <boost/json/object.hpp>

#include "plant/conditions.h"

namespace planter::plant {

Readiness check_health(const boost::json::object& object);

}  // namespace planter::plant
