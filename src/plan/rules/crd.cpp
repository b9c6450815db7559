// Rule "crd": no custom resource before its CRD is Established and the kind is discoverable.
#include "plan/rules.h"

namespace planter {

void require_crd(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const Object& o = ctx.objects[unit.object];
  std::string_view group = o.ref.group();
  if (ctx.kinds.is_builtin_group(group)) return;
  const KindInfo* info = ctx.kinds.find(group, o.ref.kind);
  if (info && info->builtin) return;
  auto crds = ctx.index.crds_of(unit.object);
  const auto established = ReadinessPredicate::of(ReadinessPredicate::Type::kEstablished);
  if (!crds.empty()) {
    size_t crd = crds.front();
    for (size_t c : crds)
      if (ctx.placed_on(c, unit.cluster_index)) crd = c;
    out.push_back(ctx.need(crd, unit.cluster_index, established, "crd"));
    return;
  }
  // A kind served by an aggregated API server is the "apiservice" rule's business.
  std::string group_version = o.ref.api_version;
  if (!ctx.index.apiservices_for(group_version).empty()) return;
  // The CRD is installed by something else (an operator, a previous install): wait for the kind.
  out.push_back({std::nullopt, ObjectRef{o.ref.api_version, o.ref.kind, "", ""}, unit.cluster,
                 established, "crd"});  // a kind is never a unit
}

}  // namespace planter
