// Before the first write: how each cluster gangs the seed's mode-gang stacks (docs/coscheduling.md,
// "Which gang a cluster gets"). A stack's PodGroup goes to a cluster that serves Kubernetes' own
// gang API as v1beta1 (1.37) as planned; one serving it as v1alpha2 (1.36) gets it in that
// version; one serving neither but scheduler-plugins' PodGroup (its CRD installed, as `planter
// install --scheduler` does) gets that PodGroup and planter's scheduler; one with none of them an
// anchor on one node. A cluster that cannot be asked yet (one the seed creates) keeps v1beta1.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "kube/client.h"
#include "plan/plan.h"
#include "plan/stacks/stack_policy.h"

namespace planter::plant {

// The stacks (by name) whose cluster gangs them otherwise than v1beta1, and how; for
// StackOptions::gang_paths when the seed is planned again. A stack planted on several clusters
// takes the path every one of them offers (the last of GangPath's order).
std::map<std::string, GangPath> choose_gang_paths(
    const Plan& plan, const std::map<std::string, kube::RestConfig>& reachable,
    const kube::ClientOptions& options, std::chrono::steady_clock::time_point deadline);

}  // namespace planter::plant
