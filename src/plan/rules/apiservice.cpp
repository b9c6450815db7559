// Rule "apiservice": no object of an aggregated API before its APIService is Available.
#include "plan/rules.h"

namespace planter {

void require_apiservice(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const Object& o = ctx.objects[unit.object];
  for (size_t svc : ctx.index.apiservices_for(o.ref.api_version)) {
    if (!ctx.placed_on(svc, unit.cluster_index)) continue;
    out.push_back(ctx.need(svc, unit.cluster_index,
                           ReadinessPredicate::of(ReadinessPredicate::Type::kAvailable),
                           "apiservice"));
  }
}

}  // namespace planter
