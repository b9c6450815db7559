// Rule "device-claims": Dynamic Resource Allocation's order (docs/dra.md). A ResourceClaim or
// ResourceClaimTemplate waits for the DeviceClasses its requests name (`exactly` and each
// `firstAvailable` subrequest): kube-scheduler refuses a claim whose class does not exist, and a
// driver's class (gpu.nvidia.com) comes from the driver once it runs, so one not in the seed is
// waited for on the cluster. A built-in workload's pods, or a bare Pod, wait for the claims and
// templates their spec.resourceClaims name: a pod whose claim does not exist "won't deploy".
#include "plan/rules.h"
#include "plan/stacks/pod_targets.h"

namespace planter {

namespace json = boost::json;

namespace {

constexpr std::string_view kResourceApi = "resource.k8s.io/v1";

void need_class(const RuleContext& ctx, const Unit& unit, const json::value* owner,
                std::vector<Requirement>& out) {
  if (!owner || !owner->is_object()) return;
  const json::value* name = owner->as_object().if_contains("deviceClassName");
  if (!name || !name->is_string() || name->as_string().empty()) return;
  out.push_back(ctx.need(
      ObjectRef{std::string(kResourceApi), "DeviceClass", "", std::string(name->as_string())},
      unit.cluster_index, ReadinessPredicate::of(ReadinessPredicate::Type::kExists),
      "device-claims"));
}

// The requests of a claim's spec (a ResourceClaim's spec, a template's spec.spec).
void need_classes(const RuleContext& ctx, const Unit& unit, const json::value* claim_spec,
                  std::vector<Requirement>& out) {
  if (!claim_spec || !claim_spec->is_object()) return;
  const json::value* requests = find_path(claim_spec->as_object(), {"devices", "requests"});
  if (!requests || !requests->is_array()) return;
  for (const json::value& r : requests->as_array()) {
    if (!r.is_object()) continue;
    need_class(ctx, unit, &r, out);  // resource.k8s.io/v1beta1: the class on the request itself
    need_class(ctx, unit, r.as_object().if_contains("exactly"), out);
    if (const json::value* first = r.as_object().if_contains("firstAvailable");
        first && first->is_array())
      for (const json::value& sub : first->as_array()) need_class(ctx, unit, &sub, out);
  }
}

}  // namespace

void require_device_claims(const RuleContext& ctx, const Unit& unit,
                           std::vector<Requirement>& out) {
  const Object& o = ctx.objects[unit.object];
  if (o.ref.group() == "resource.k8s.io") {
    if (o.ref.kind == "ResourceClaim") need_classes(ctx, unit, o.body.if_contains("spec"), out);
    if (o.ref.kind == "ResourceClaimTemplate")
      need_classes(ctx, unit, find_path(o.body, {"spec", "spec"}), out);
    return;
  }
  auto pods = builtin_workload_pods(o);
  if (!pods || !pods->pod) return;
  const json::value* claims = find_path(*pods->pod, {"spec", "resourceClaims"});
  if (!claims || !claims->is_array()) return;
  const auto exists = ReadinessPredicate::of(ReadinessPredicate::Type::kExists);
  for (const json::value& c : claims->as_array()) {
    if (!c.is_object()) continue;
    for (auto [field, kind] : {std::pair{"resourceClaimName", "ResourceClaim"},
                               std::pair{"resourceClaimTemplateName", "ResourceClaimTemplate"}})
      if (const json::value* name = c.as_object().if_contains(field);
          name && name->is_string() && !name->as_string().empty())
        out.push_back(ctx.need(
            ObjectRef{std::string(kResourceApi), kind, o.ref.ns, std::string(name->as_string())},
            unit.cluster_index, exists, "device-claims"));
  }
}

}  // namespace planter
