// Rule "namespace": no namespaced object before its Namespace is Active.
#include "plan/rules.h"

namespace planter {

void require_namespace(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const Object& o = ctx.objects[unit.object];
  if (o.ref.ns.empty()) return;
  const auto active = ReadinessPredicate::of(ReadinessPredicate::Type::kActive);
  auto in_seed = ctx.index.namespace_of(unit.object);
  if (in_seed.empty())
    out.push_back(ctx.need(ObjectRef{"v1", "Namespace", "", o.ref.ns}, unit.cluster_index, active,
                           "namespace"));
  else
    out.push_back(ctx.need(in_seed.front(), unit.cluster_index, active, "namespace"));
}

}  // namespace planter
