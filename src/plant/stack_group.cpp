#include "plant/stack_group.h"

namespace planter {

fit::Group stack_group(const StackNeeds& stack) {
  fit::Group g;
  g.name = stack.name;
  g.colocated_on = stack.colocated_on;
  g.avoid = stack.avoid;
  for (const StackPods& p : stack.pod_kinds)
    g.kinds.push_back({fit::PodInfo::from(p.pod), p.count, p.per_node});
  return g;
}

}  // namespace planter
