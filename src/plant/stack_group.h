// A stack as the fit model's group: its kinds of pods (the pods its members will make, policies
// written) with how many of each, its colocation and the stacks it avoids.
#pragma once

#include "fit/group.h"
#include "plan/plan.h"

namespace planter {

fit::Group stack_group(const StackNeeds& stack);

}  // namespace planter
