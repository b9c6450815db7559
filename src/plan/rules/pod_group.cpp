// pod-group: a member of a stack co-scheduled by planter's scheduler (coschedule mode scheduler)
// waits for its PodGroup on the same cluster, so that no member's pod reaches the scheduler
// without its gang. A member planted where the PodGroup is not is an error.
#include <fmt/format.h>

#include "plan/rules.h"

namespace planter {

void require_pod_group(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const auto& m = ctx.stacks.member[unit.object];
  if (!m) return;
  const StackNeeds& s = (*ctx.stacks.stacks)[m->stack];
  if (!s.pod_group) return;
  const auto& on = ctx.stacks.group_on[m->stack];
  auto group = on.find(unit.cluster_index);
  if (group == on.end()) {
    const Object& o = ctx.objects[unit.object];
    ctx.diags.add(o.where(), o.display(),
                  fmt::format("the object is in the co-scheduled stack {} but planted on cluster "
                              "{}, where its PodGroup is not",
                              s.name, unit.cluster),
                  "place every member of a co-scheduled stack on one cluster (the PodGroup "
                  "follows the first member that makes pods)");
    return;
  }
  out.push_back({group->second, std::nullopt, unit.cluster,
                 ReadinessPredicate::of(ReadinessPredicate::Type::kExists), "pod-group"});
}

}  // namespace planter
