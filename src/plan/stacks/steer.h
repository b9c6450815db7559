// Steering a released stack's pods to where planter's fit model found room for all of them: a
// preferred node affinity term of the highest weight (100) on the topology key, written into each
// member's pod affinity at declare time. A preference, not a requirement: a node that dies later
// must not strand the stack (docs/stacks.md says what this promises and what it does not).
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "plan/stacks/pod_path.h"

namespace planter {

// Adds the term at each of `affinity_paths` ("spec.template.spec.affinity",
// "spec.workerGroupSpecs[0].template.spec.affinity") of `body`; returns how many it wrote.
size_t steer_pods(boost::json::object& body, const std::vector<PodPath>& affinity_paths,
                  const std::string& key, const std::vector<std::string>& values);

}  // namespace planter
