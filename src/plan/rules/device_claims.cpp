// Rule "device-claims": Dynamic Resource Allocation's order (docs/dra.md). A ResourceClaim or
// ResourceClaimTemplate waits for the DeviceClasses its requests name (`exactly` and each
// `firstAvailable` subrequest): kube-scheduler refuses a claim whose class does not exist, and a
// driver's class (gpu.nvidia.com) comes from the driver once it runs, so one not in the seed is
// waited for on the cluster. A built-in workload's pods, or a bare Pod, wait for the claims and
// templates their spec.resourceClaims name: a pod whose claim does not exist "won't deploy".
// What a DRA driver makes is not in the seed, but what runs the driver may be: a class or a
// template not in the seed also waits for the seed's object that makes it (the table below), so
// the plan says where it comes from, and a ComputeDomain's workload waits for its domain.
#include <set>
#include <utility>

#include "plan/rules.h"
#include "plan/stacks/pod_targets.h"

namespace planter {

namespace json = boost::json;

namespace {

constexpr std::string_view kResourceApi = "resource.k8s.io/v1";

// The objects that make DeviceClasses once their driver runs (docs/dra.md; the sim plays each,
// in src/sim/workloads/dra_drivers.cpp).
struct ClassMaker {
  std::string_view group, kind, device_class;
};
constexpr ClassMaker kClassMakers[] = {
    // The GPU Operator's DRA mode runs the DRA Driver for NVIDIA GPUs.
    {"nvidia.com", "GPUCluster", "gpu.nvidia.com"},
    // The SR-IOV DRA driver advertises the VFs a SriovResourcePolicy selects.
    {"sriovnetwork.k8snetworkplumbingwg.io", "SriovResourcePolicy",
     "sriovnetwork.k8snetworkplumbingwg.io"},
    // NVIDIA's ComputeDomain: the driver's IMEX channels.
    {"resource.nvidia.com", "ComputeDomain", "compute-domain-default-channel.nvidia.com"},
};

// A need on each of the seed's objects of this kind on the unit's cluster that makes what is
// asked: any of them (a driver's class), or those in `ns` whose spec.channel.resourceClaimTemplate
// names `template_name` (a ComputeDomain's template).
void need_makers(const RuleContext& ctx, const Unit& unit, std::string_view group,
                 std::string_view kind, std::string_view ns, std::string_view template_name,
                 std::vector<Requirement>& out) {
  std::set<std::pair<std::string_view, std::string_view>> seen;  // written for several clusters
  for (size_t i : ctx.index.of_kind(group, kind)) {
    const Object& maker = ctx.objects[i];
    if (!template_name.empty() &&
        (maker.ref.ns != ns || string_field(maker.body, {"spec", "channel", "resourceClaimTemplate",
                                                         "name"}) != template_name))
      continue;
    if (!ctx.placed_on(i, unit.cluster_index)) continue;
    if (!seen.emplace(maker.ref.ns, maker.ref.name).second) continue;
    out.push_back(ctx.need(maker.ref, unit.cluster_index,
                           ReadinessPredicate::of(ReadinessPredicate::Type::kExists),
                           "device-claims"));
  }
}

void need_class(const RuleContext& ctx, const Unit& unit, const json::value* owner,
                std::vector<Requirement>& out) {
  if (!owner || !owner->is_object()) return;
  const json::value* name = owner->as_object().if_contains("deviceClassName");
  if (!name || !name->is_string() || name->as_string().empty()) return;
  std::string_view class_name = name->as_string();
  out.push_back(
      ctx.need(ObjectRef{std::string(kResourceApi), "DeviceClass", "", std::string(class_name)},
               unit.cluster_index, ReadinessPredicate::of(ReadinessPredicate::Type::kExists),
               "device-claims"));
  if (!ctx.index.by_key("resource.k8s.io", "DeviceClass", "", class_name).empty()) return;
  for (const ClassMaker& m : kClassMakers)
    if (m.device_class == class_name) need_makers(ctx, unit, m.group, m.kind, "", "", out);
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
          name && name->is_string() && !name->as_string().empty()) {
        std::string_view n = name->as_string();
        out.push_back(ctx.need(ObjectRef{std::string(kResourceApi), kind, o.ref.ns, std::string(n)},
                               unit.cluster_index, exists, "device-claims"));
        if (std::string_view(kind) == "ResourceClaimTemplate" &&
            ctx.index.by_key("resource.k8s.io", kind, o.ref.ns, n).empty())
          need_makers(ctx, unit, "resource.nvidia.com", "ComputeDomain", o.ref.ns, n, out);
      }
  }
}

}  // namespace planter
