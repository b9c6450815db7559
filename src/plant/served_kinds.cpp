#include "plant/served_kinds.h"

#include <fmt/format.h>

#include <memory>
#include <set>

#include "kube/retry.h"
#include "model/object.h"
#include "plan/predicate_traits.h"

namespace planter::plant {

namespace {

// The requirement on the kind itself (no object named) whose CRD is not in the seed.
const Requirement* kind_wait(const Plan& plan, const Unit& unit) {
  for (const Requirement& r : unit.requirements)
    if (r.external() && traits_of(r.when.type).serves_a_kind && plan.target(r).name.empty())
      return &r;
  return nullptr;
}

// True when the unit names, as an external dependency, a CRD of its kind's group: something else
// installs that CRD (an operator at start-up).
bool installed_by_another(const Plan& plan, const Unit& unit) {
  std::string suffix = "." + std::string(plan.object_of(unit).ref.group());
  for (const Requirement& r : unit.requirements) {
    if (!r.external() || traits_of(r.when.type).serves_a_kind) continue;
    const ObjectRef& t = plan.target(r);
    if (t.kind == "CustomResourceDefinition" && t.name.ends_with(suffix)) return true;
  }
  return false;
}

// "group|Kind" of every CRD on the cluster, Established or not yet: a kind whose CRD is there
// will be served. Empty when they cannot be listed.
std::set<std::string> crd_kinds(kube::Client& client) {
  std::set<std::string> out;
  auto list = client.list({"apiextensions.k8s.io/v1", "CustomResourceDefinition", "", "", ""});
  if (!list) return out;
  for (const boost::json::object& crd : list->items)
    if (const auto* group = find_string(crd, {"spec", "group"}))
      if (const auto* kind = find_string(crd, {"spec", "names", "kind"}))
        out.insert(std::string(*group) + "|" + std::string(*kind));
  return out;
}

}  // namespace

std::optional<bool> kind_served(kube::Client& client, const std::string& api_version,
                                const std::string& kind,
                                std::chrono::steady_clock::time_point deadline) {
  auto r = kube::retry_transient([&] { return client.resource(api_version, kind); }, deadline);
  if (r) return true;
  if (r.error().kind_unknown()) return false;
  return std::nullopt;
}

Diagnostics unserved_kinds(const Plan& plan,
                           const std::map<std::string, kube::RestConfig>& reachable,
                           const kube::ClientOptions& options,
                           std::chrono::steady_clock::time_point deadline) {
  Diagnostics out;
  std::map<std::string, std::unique_ptr<kube::Client>> clients;
  std::map<std::string, std::optional<bool>> answers;  // cluster|apiVersion|kind
  std::set<std::string> unreachable;
  std::map<std::string, std::set<std::string>> crds_on;  // cluster -> crd_kinds()
  for (const Unit& unit : plan.units) {
    const Requirement* wait = kind_wait(plan, unit);
    if (!wait || unreachable.contains(unit.cluster)) continue;
    auto config = reachable.find(unit.cluster);
    if (config == reachable.end() || installed_by_another(plan, unit)) continue;
    const ObjectRef& kind = plan.target(*wait);
    std::string key = unit.cluster + "|" + kind.api_version + "|" + kind.kind;
    auto answer = answers.find(key);
    if (answer == answers.end()) {
      auto& client = clients[unit.cluster];
      if (!client) {
        auto made = kube::Client::create(config->second, options);
        if (!made) {
          unreachable.insert(unit.cluster);
          continue;
        }
        client = std::move(made.value());
      }
      answer =
          answers.emplace(key, kind_served(*client, kind.api_version, kind.kind, deadline)).first;
      if (!answer->second) {
        unreachable.insert(unit.cluster);  // it does not answer: its units wait, as before
        continue;
      }
    }
    if (answer->second.value_or(true)) continue;
    auto crds = crds_on.find(unit.cluster);
    if (crds == crds_on.end())
      crds = crds_on.emplace(unit.cluster, crd_kinds(*clients[unit.cluster])).first;
    if (crds->second.contains(std::string(kind.group()) + "|" + kind.kind)) {
      answer->second = true;  // its CRD is there, not Established yet
      continue;
    }
    const Object& o = plan.object_of(unit);
    out.add(o.where(), o.display(),
            fmt::format("kind {} {} is not served by cluster {}, and no CRD or APIService of the "
                        "seed defines it: it would wait forever",
                        kind.api_version, kind.kind, unit.cluster),
            fmt::format("add its CRD to the seed or install it first; when something else "
                        "installs it (an operator at start-up), name that CRD in "
                        "planter.nephio.org/external-dependencies: "
                        "apiextensions.k8s.io/v1|CustomResourceDefinition||<plural>.{}",
                        kind.group()));
  }
  return out;
}

}  // namespace planter::plant
