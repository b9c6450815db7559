#include "plant/gang_paths.h"

#include <memory>
#include <optional>
#include <utility>

#include "plant/served_kinds.h"

namespace planter::plant {

namespace {

// The cluster's path, or nullopt when it does not answer (it keeps v1beta1).
std::optional<GangPath> path_of(kube::Client& client,
                                std::chrono::steady_clock::time_point deadline) {
  const std::pair<const char*, GangPath> offers[] = {
      {"scheduling.k8s.io/v1beta1", GangPath::kUpstream},
      {"scheduling.k8s.io/v1alpha2", GangPath::kUpstreamAlpha},
      {"scheduling.x-k8s.io/v1alpha1", GangPath::kPlantersScheduler}};
  for (const auto& [api_version, path] : offers) {
    std::optional<bool> served = kind_served(client, api_version, "PodGroup", deadline);
    if (!served) return std::nullopt;
    if (*served) return path;
  }
  return GangPath::kAnchor;
}

}  // namespace

std::map<std::string, GangPath> choose_gang_paths(
    const Plan& plan, const std::map<std::string, kube::RestConfig>& reachable,
    const kube::ClientOptions& options, std::chrono::steady_clock::time_point deadline) {
  std::map<std::string, GangPath> out;
  std::map<std::string, std::optional<GangPath>> asked;  // by cluster
  for (const StackNeeds& stack : plan.stacks) {
    if (!stack.upstream_gang || !stack.pod_group) continue;
    for (const Unit& unit : plan.units) {
      if (unit.object != *stack.pod_group) continue;
      auto answer = asked.find(unit.cluster);
      if (answer == asked.end()) {
        std::optional<GangPath> path;
        if (auto config = reachable.find(unit.cluster); config != reachable.end())
          if (auto client = kube::Client::create(config->second, options))
            path = path_of(*client.value(), deadline);
        answer = asked.emplace(unit.cluster, path).first;
      }
      if (!answer->second || *answer->second == GangPath::kUpstream) continue;
      GangPath& chosen = out.try_emplace(stack.name, *answer->second).first->second;
      if (*answer->second > chosen) chosen = *answer->second;
    }
  }
  return out;
}

}  // namespace planter::plant
