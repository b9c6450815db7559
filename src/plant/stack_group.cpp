#include "plant/stack_group.h"

namespace planter {

fit::Group stack_group(const StackNeeds& stack) {
  fit::Group g;
  g.name = stack.name;
  g.colocated_on = stack.colocated_on;
  g.avoid = stack.avoid;
  for (const StackPods& p : stack.pod_kinds)
    g.kinds.push_back({fit::PodInfo::from(p.pod), p.count, p.per_node});
  return g;
}

fit::Group choice_group(const Plan& plan, const ClusterChoice& choice) {
  if (choice.stack) return stack_group(plan.stacks[*choice.stack]);
  fit::Group g;
  g.name = choice.name;
  for (const StackPods& p : choice.pod_kinds)
    g.kinds.push_back({fit::PodInfo::from(p.pod), p.count, p.per_node});
  return g;
}

bool claims_devices(const fit::Group& group) {
  for (const fit::PodKind& k : group.kinds)
    if (!k.pod.device_claims.empty() || k.pod.requests_extended()) return true;
  return false;
}

bool reads_for(const fit::SnapshotKind& kind, const fit::Group& group) {
  return !kind.devices || claims_devices(group);
}

std::vector<boost::json::object> seed_claims(const Plan& plan, const std::string& cluster) {
  std::vector<boost::json::object> out;
  for (const Unit& u : plan.units) {
    if (u.cluster != cluster) continue;
    const Object& o = plan.object_of(u);
    bool volume = o.ref.kind == "PersistentVolumeClaim" && o.ref.api_version == "v1";
    bool device = o.ref.api_version == "resource.k8s.io/v1" &&
                  (o.ref.kind == "DeviceClass" || o.ref.kind == "ResourceClaim" ||
                   o.ref.kind == "ResourceClaimTemplate");
    if (!volume && !device) continue;
    boost::json::object claim = o.body;
    claim["kind"] = o.ref.kind;
    claim["apiVersion"] = o.ref.api_version;
    if (boost::json::object* meta = claim["metadata"].if_object(); meta && !o.ref.ns.empty())
      (*meta)["namespace"] = o.ref.ns;
    out.push_back(std::move(claim));
  }
  return out;
}

fit::GroupFit fit_on_fleet(plant::Fleet& fleet, const std::string& cluster, const fit::Group& group,
                           const fit::Held& held, const std::vector<boost::json::object>& claims) {
  using Fn = std::function<void(const boost::json::object&)>;
  auto visit = [&](fit::SnapshotKind::Role role) {
    return [&fleet, &cluster, &claims, &group, role](const Fn& fn) {
      if (role == fit::SnapshotKind::kVolume)
        for (const boost::json::object& c : claims) fn(c);  // the cluster's own, read next, win
      for (const fit::SnapshotKind& read : fit::kSnapshotKinds)
        if (read.role == role && reads_for(read, group))
          fleet.for_each(cluster, read.api_version, read.kind, fn);
    };
  };
  return fit::fit_group_on(group, visit(fit::SnapshotKind::kNode), visit(fit::SnapshotKind::kPod),
                           held, visit(fit::SnapshotKind::kVolume));
}

}  // namespace planter
