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

std::vector<boost::json::object> seed_claims(const Plan& plan, const std::string& cluster) {
  std::vector<boost::json::object> out;
  for (const Unit& u : plan.units) {
    if (u.cluster != cluster) continue;
    const Object& o = plan.object_of(u);
    if (o.ref.kind != "PersistentVolumeClaim" || o.ref.api_version != "v1") continue;
    boost::json::object claim = o.body;
    claim["kind"] = "PersistentVolumeClaim";
    if (boost::json::object* meta = claim["metadata"].if_object()) (*meta)["namespace"] = o.ref.ns;
    out.push_back(std::move(claim));
  }
  return out;
}

}  // namespace planter
