// A stack as the fit model's group: its kinds of pods (the pods its members will make, policies
// written) with how many of each, its colocation and the stacks it avoids.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "fit/group.h"
#include "plan/plan.h"
#include "plant/fleet.h"

namespace planter {

fit::Group stack_group(const StackNeeds& stack);
// What a cluster choice places: its stack's group, or its objects' pods.
fit::Group choice_group(const Plan& plan, const ClusterChoice& choice);

// Whether a pod of the group claims devices (resource.k8s.io) or asks an extended resource
// (devices may serve it), and so whether the fit model reads `kind` of the cluster for it: the
// device kinds only then (a cluster older than 1.34 serves none of them: its watches say so).
bool claims_devices(const fit::Group& group);
bool reads_for(const fit::SnapshotKind& kind, const fit::Group& group);

// The PersistentVolumeClaims the seed declares on `cluster`, and its DeviceClasses,
// ResourceClaims and ResourceClaimTemplates, as the cluster will hold them (their namespace
// set): the fit model binds the claims a stack's pods mount, and allocates the devices they
// claim, as the cluster will, before they exist there (an object the cluster already holds is
// read from the cluster instead).
std::vector<boost::json::object> seed_claims(const Plan& plan, const std::string& cluster);

// Fits `group` on `cluster` as the fleet's watches hold it (fit::kSnapshotKinds; the caller
// watches them and waits for them to be synced), next to the `held` groups, with `claims` (the
// seed's, seed_claims()) read before the cluster's own.
fit::GroupFit fit_on_fleet(plant::Fleet& fleet, const std::string& cluster, const fit::Group& group,
                           const fit::Held& held, const std::vector<boost::json::object>& claims);

}  // namespace planter
