// The index the stack rules share: built once per plan, after the units are made.
#include "plan/rules/stack_index.h"

#include <fmt/format.h>

namespace planter {

StackIndex StackIndex::build(const std::vector<StackNeeds>& stacks, size_t objects,
                             const std::vector<Unit>& units) {
  StackIndex out;
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

FamilyIndex prepare_stack_index(const RuleContext& ctx) {
  return FamilyIndex::of(StackIndex::build(ctx.plan.stacks, ctx.objects.size(), ctx.units));
}

std::optional<size_t> StackIndex::lead_unit(const RuleContext& ctx, const Unit& unit, size_t stack,
                                            const std::map<uint32_t, size_t>& on,
                                            std::string_view what) const {
  if (auto it = on.find(unit.cluster_index); it != on.end()) return it->second;
  const Object& o = ctx.objects[unit.object];
  ctx.diags.add(o.where(), o.display(),
                fmt::format("the object is in the co-scheduled stack {} but planted on cluster {}, "
                            "where its {} is not",
                            ctx.plan.stacks[stack].name, unit.cluster, what),
                fmt::format("place every member of a co-scheduled stack on one cluster (the {} "
                            "follows the first member that makes pods)",
                            what));
  return std::nullopt;
}

}  // namespace planter
