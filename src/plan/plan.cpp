#include "plan/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include "plan/predicate_traits.h"

namespace planter {

std::string Plan::describe(const Requirement& r) const {
  const ObjectRef& object = target(r);
  const PredicateTraits& traits = traits_of(r.when.type);
  std::string what =
      traits.describe ? traits.describe(r.when, r.cluster, object)
      : object.name.empty()
          ? fmt::format("kind {} {} {}", object.api_version, object.kind, r.when.str())
          : fmt::format("{} {}", object.short_form(), r.when.str());
  if (r.external() && traits.about_object && !traits.never_in_seed) what += " (not in seed)";
  return what;
}

std::vector<std::pair<std::string, std::vector<size_t>>> Plan::units_by_cluster() const {
  std::vector<std::pair<std::string, std::vector<size_t>>> out;
  std::unordered_map<std::string_view, size_t> at;
  for (const ClusterInfo& c : clusters)
    if (at.try_emplace(c.name, out.size()).second) out.push_back({c.name, {}});
  for (size_t u = 0; u < units.size(); ++u) {
    auto [it, fresh] = at.try_emplace(units[u].cluster, out.size());
    if (fresh) out.push_back({units[u].cluster, {}});
    out[it->second].second.push_back(u);
  }
  std::erase_if(out, [](const auto& c) { return c.second.empty(); });
  return out;
}

int Plan::wave_count() const {
  int waves = 0;
  for (const Unit& u : units) waves = std::max(waves, u.wave + 1);
  return waves;
}

size_t Plan::external_requirement_count() const {
  size_t n = 0;
  for (const Unit& u : units)
    for (const Requirement& r : u.requirements)
      n += r.external() && traits_of(r.when.type).about_object ? 1 : 0;
  return n;
}

std::string declared_user(const Object& object) {
  if (const auto* user = object.annotation(kUserAnnotation)) return std::string(*user);
  static const std::set<std::pair<std::string_view, std::string_view>> kAdminKinds = {
      {"", "Namespace"},
      {"apiextensions.k8s.io", "CustomResourceDefinition"},
      {"rbac.authorization.k8s.io", "ClusterRole"},
      {"rbac.authorization.k8s.io", "ClusterRoleBinding"},
      {"rbac.authorization.k8s.io", "Role"},
      {"rbac.authorization.k8s.io", "RoleBinding"},
      {"admissionregistration.k8s.io", "MutatingWebhookConfiguration"},
      {"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"},
      {"admissionregistration.k8s.io", "ValidatingAdmissionPolicy"},
      {"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"},
      {"apiregistration.k8s.io", "APIService"},
      {"scheduling.k8s.io", "PriorityClass"},
  };
  std::string group(object.ref.group());
  return kAdminKinds.contains({group, object.ref.kind}) ? std::string(kAdminUser) : "";
}

}  // namespace planter
