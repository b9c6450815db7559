// The index the stack rules share: built once per plan, after the units are made.
#include "plan/rules.h"

namespace planter {

StackIndex StackIndex::build(const std::vector<StackNeeds>& stacks, size_t objects,
                             const std::vector<Unit>& units) {
  StackIndex out;
  out.stacks = &stacks;
  out.member.assign(objects, std::nullopt);
  out.anchor_on.resize(stacks.size());
  out.group_on.resize(stacks.size());
  for (size_t s = 0; s < stacks.size(); ++s)
    for (const StackMember& m : stacks[s].members)
      if (m.object < objects) out.member[m.object] = Membership{s, !m.affinity_paths.empty()};
  for (size_t u = 0; u < units.size(); ++u)
    for (size_t s = 0; s < stacks.size(); ++s) {
      if (stacks[s].anchor && units[u].object == *stacks[s].anchor)
        out.anchor_on[s][units[u].cluster_index] = u;
      if (stacks[s].pod_group && units[u].object == *stacks[s].pod_group)
        out.group_on[s][units[u].cluster_index] = u;
    }
  return out;
}

}  // namespace planter
