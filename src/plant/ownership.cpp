#include "plant/ownership.h"

#include <fmt/format.h>

namespace planter::plant {

std::string seed_field_manager(std::string_view seed) {
  return std::string(kFieldManagerPrefix) + std::string(seed);
}

std::optional<std::string> owning_seed(const kube::ApiError& conflict, std::string_view own) {
  // kube-apiserver's cause: `conflict with "planter/cnf" using v1` (the manager, quoted).
  constexpr std::string_view kWith = "conflict with \"";
  for (const kube::StatusCause& c : conflict.causes) {
    std::string_view m = c.message;
    size_t at = m.find(kWith);
    if (at == std::string_view::npos) continue;
    m.remove_prefix(at + kWith.size());
    std::string_view manager = m.substr(0, m.find('"'));
    if (!manager.starts_with(kFieldManagerPrefix)) continue;
    std::string_view seed = manager.substr(kFieldManagerPrefix.size());
    if (!seed.empty() && seed != own) return std::string(seed);
  }
  return std::nullopt;
}

ConflictCall decide_conflict(const kube::ApiError& conflict, std::string_view own_seed, bool adopt,
                             bool force_conflicts, std::string_view adopt_hint,
                             std::string_view force_hint) {
  if (std::optional<std::string> owner = owning_seed(conflict, own_seed)) {
    std::string why = adopt ? "" : fmt::format("planted by seed \"{}\"; {}", *owner, adopt_hint);
    return {adopt ? ConflictCall::kForce : ConflictCall::kRefuse, std::move(*owner),
            std::move(why)};
  }
  if (force_conflicts) return {ConflictCall::kForce, {}, {}};
  return {ConflictCall::kRefuse, {}, std::string(force_hint)};
}

}  // namespace planter::plant
