// Rule "pod-references": a bare Pod is rejected by admission until the ServiceAccount,
// PriorityClass and RuntimeClass it names exist. (Workload controllers retry on their own, so
// Deployments and friends need no such rule.)
#include "plan/rules.h"

namespace planter {

void require_pod_references(const RuleContext& ctx, const Unit& unit,
                            std::vector<Requirement>& out) {
  const Object& o = ctx.objects[unit.object];
  if (o.ref.kind != "Pod" || !o.ref.group().empty()) return;
  const auto exists = ReadinessPredicate::of(ReadinessPredicate::Type::kExists);
  const auto* sa = find_string(o.body, {"spec", "serviceAccountName"});
  if (!sa) sa = find_string(o.body, {"spec", "serviceAccount"});
  if (sa && !sa->empty())
    out.push_back(ctx.need(ObjectRef{"v1", "ServiceAccount", o.ref.ns, std::string(*sa)},
                           unit.cluster_index, exists, "pod-references"));
  if (const auto* pc = find_string(o.body, {"spec", "priorityClassName"}); pc && !pc->empty())
    out.push_back(ctx.need(ObjectRef{"scheduling.k8s.io/v1", "PriorityClass", "", std::string(*pc)},
                           unit.cluster_index, exists, "pod-references"));
  if (const auto* rc = find_string(o.body, {"spec", "runtimeClassName"}); rc && !rc->empty())
    out.push_back(ctx.need(ObjectRef{"node.k8s.io/v1", "RuntimeClass", "", std::string(*rc)},
                           unit.cluster_index, exists, "pod-references"));
}

}  // namespace planter
