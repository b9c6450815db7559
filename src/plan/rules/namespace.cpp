// Rule "namespace": no namespaced object before its Namespace is Active.
#include "plan/rules.h"

namespace planter {

void require_namespace(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const Object& o = ctx.objects[unit.object];
  if (o.ref.ns.empty()) return;
  out.push_back(ctx.need(ObjectRef{"v1", "Namespace", "", o.ref.ns}, unit.cluster,
                         ReadinessPredicate::of(ReadinessPredicate::Type::kActive), "namespace"));
}

}  // namespace planter
