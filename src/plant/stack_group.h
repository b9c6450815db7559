// A stack as the fit model's group: its kinds of pods (the pods its members will make, policies
// written) with how many of each, its colocation and the stacks it avoids.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "fit/group.h"
#include "plan/plan.h"

namespace planter {

fit::Group stack_group(const StackNeeds& stack);

// The PersistentVolumeClaims the seed declares on `cluster`, as the cluster will hold them (their
// namespace set): the fit model binds the claims a stack's pods mount as the cluster will, before
// they exist there (a claim the cluster already holds is read from the cluster instead).
std::vector<boost::json::object> seed_claims(const Plan& plan, const std::string& cluster);

}  // namespace planter
