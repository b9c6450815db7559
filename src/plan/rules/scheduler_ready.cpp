// scheduler-ready: a member of a stack co-scheduled by planter's scheduler waits for the
// scheduler to answer (its Lease kube-system/planter-scheduler held and renewed), so that no pod
// waits for a scheduler that is not there.
#include "plan/rules/stack_index.h"
#include "plan/stacks/stack_policy.h"

namespace planter {

void require_scheduler_ready(const RuleContext& ctx, const Unit& unit,
                             std::vector<Requirement>& out) {
  const StackIndex& stacks = ctx.family<StackIndex>();
  const auto& m = stacks.member[unit.object];
  if (!m) return;
  const StackNeeds& s = ctx.plan.stacks[m->stack];
  if (!s.pod_group || s.upstream_gang) return;
  if (stacks.group_on[m->stack].find(unit.cluster_index) == stacks.group_on[m->stack].end())
    return;  // rules/pod_group.cpp reports it
  out.push_back(
      {std::nullopt,
       ObjectRef{"coordination.k8s.io/v1", "Lease", std::string(kSchedulerLeaseNamespace),
                 std::string(kSchedulerLease)},
       unit.cluster,
       ReadinessPredicate{
           ReadinessPredicate::Type::kSchedulerReady, std::string(kPlanterSchedulerName), {}},
       "scheduler-ready"});
}

}  // namespace planter
