// Rule "rollout": an object placed on several clusters (a cluster selector, a list) and annotated
// planter.nephio.org/rollout is declared batch by batch, as a telco hub rolls a change out
// (Topology Aware Lifecycle Manager's canaries and maxConcurrency):
//
//   planter.nephio.org/rollout: "{maxConcurrency: 2, canaries: [edge3]}"
//
// The canaries (cluster names, or a count: the first N clusters by name; none by default) are the
// first batch; the other clusters follow by name, maxConcurrency at a time. Each unit of a batch
// waits for every unit of the batch before it to be healthy (or its ready-when), so a batch that
// fails, or never becomes healthy, stops the rest: its units are blocked by the failure, or wait.
//
// With `approval: NAME`, the batch after the canaries also waits for a person: for the ConfigMap
// kube-system/planter-approval-NAME on the management cluster (`planter approve NAME` writes it),
// as KubeFleet's approval after a stage or Argo CD's RollingSync step with maxUpdate 0.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "model/names.h"
#include "model/yaml.h"
#include "plan/inventory.h"
#include "plan/rules.h"

namespace planter {

namespace {

// What the rule reads: the batch of each unit whose object rolls out over its clusters, and each
// such object's units by batch.
struct RolloutIndex {
  std::vector<int> batch;  // by unit: 0 for the first batch (the canaries); -1 when none
  std::map<size_t, std::vector<std::vector<size_t>>> batches;  // object -> units by batch
  std::map<size_t, std::string> approval;  // object -> what its batch after the canaries awaits
};

constexpr int64_t kMaxConcurrency = 100;  // docs/limits.md: each unit waits on at most this many

struct Rollout {
  int64_t max_concurrency = 0;
  int64_t canary_count = 0;
  std::vector<std::string> canaries;
  std::string approval;  // the approval the batch after the canaries waits for; empty: none
};

Result<Rollout> parse_rollout(std::string_view text) {
  auto docs = parse_yaml_stream(text, kRolloutAnnotation);
  if (!docs || docs->size() != 1 || !docs->front().value.is_object())
    return Error{"is not a mapping such as {maxConcurrency: 2, canaries: [edge1]}"};
  Rollout r;
  for (const auto& [key, value] : docs->front().value.as_object()) {
    if (key == "maxConcurrency") {
      if (!value.is_int64() || value.as_int64() < 1 || value.as_int64() > kMaxConcurrency)
        return Error{
            fmt::format("maxConcurrency must be a whole number from 1 to {}", kMaxConcurrency)};
      r.max_concurrency = value.as_int64();
    } else if (key == "canaries") {
      if (value.is_int64() && value.as_int64() >= 0) {
        r.canary_count = value.as_int64();
      } else if (value.is_array()) {
        for (const auto& c : value.as_array()) {
          if (!c.is_string() || c.as_string().empty())
            return Error{"canaries must be a count or a list of cluster names"};
          r.canaries.emplace_back(c.as_string());
        }
      } else {
        return Error{"canaries must be a count or a list of cluster names"};
      }
    } else if (key == "approval") {
      // It names a ConfigMap: planter-approval-NAME, a DNS subdomain of at most 253 characters.
      std::string name = value.is_string() ? std::string(value.as_string()) : "";
      if (name.empty() || name.size() > 253 - kApprovalPrefix.size() ||
          !is_dns_subdomain(std::string(kApprovalPrefix) + name))
        return Error{
            "approval must name the approval, lowercase letters, digits, '-' and '.' (e.g. "
            "web-canary)"};
      r.approval = std::move(name);
    } else {
      return Error{fmt::format("\"{}\" is not a field of it (maxConcurrency, canaries, approval)",
                               std::string_view(key))};
    }
  }
  if (r.max_concurrency == 0) return Error{"maxConcurrency is missing"};
  if (!r.approval.empty() && r.canaries.empty() && r.canary_count == 0)
    return Error{"approval waits after the canaries, and there are none: add canaries"};
  return r;
}

}  // namespace

// Each rolled-out object's batches; a malformed annotation is reported at its object.
FamilyIndex prepare_rollouts(const RuleContext& ctx) {
  const std::vector<Object>& objects = ctx.objects;
  const std::vector<Unit>& units = ctx.units;
  Diagnostics& diags = ctx.diags;
  RolloutIndex out;
  out.batch.assign(units.size(), -1);
  for (size_t o = 0; o < objects.size(); ++o) {
    const auto* text = string_in(ctx.index.annotations(o), kRolloutAnnotation);
    if (!text) continue;
    const Object& obj = objects[o];
    auto rollout = parse_rollout(*text);
    if (!rollout) {
      diags.add(obj.where(), obj.display(),
                fmt::format("{}: {}", kRolloutAnnotation, rollout.error().message),
                "e.g. planter.nephio.org/rollout: \"{maxConcurrency: 2, canaries: [edge1]}\"");
      continue;
    }
    // Its units by cluster name.
    std::vector<size_t> by_name;
    for (size_t u = ctx.first_unit[o]; u < ctx.first_unit[o + 1]; ++u) by_name.push_back(u);
    std::sort(by_name.begin(), by_name.end(),
              [&](size_t a, size_t b) { return units[a].cluster < units[b].cluster; });
    std::vector<std::vector<size_t>> batches;
    std::set<size_t> canary;
    // Planned without its clusters (offline, where a selector matches none): nothing to order.
    if (by_name.empty()) continue;
    for (const std::string& name : rollout->canaries) {
      auto it = std::find_if(by_name.begin(), by_name.end(),
                             [&](size_t u) { return units[u].cluster == name; });
      if (it == by_name.end()) {
        diags.add(obj.where(), obj.display(),
                  fmt::format("{}: canary {} is not a cluster the object is placed on",
                              kRolloutAnnotation, name),
                  "name clusters its planter.nephio.org/cluster, /clusters or "
                  "/cluster-selector place it on");
        continue;
      }
      canary.insert(*it);
    }
    // More canaries than clusters would silently make one batch of them all: refused.
    if (rollout->canary_count > static_cast<int64_t>(by_name.size())) {
      diags.add(obj.where(), obj.display(),
                fmt::format("{}: canaries: {} is more than the {} cluster(s) the object is "
                            "placed on",
                            kRolloutAnnotation, rollout->canary_count, by_name.size()),
                fmt::format("write a count below {}, so that clusters are left for the batches "
                            "after the canaries, or name the canary clusters",
                            by_name.size()));
      continue;
    }
    for (size_t i = 0; i < by_name.size() && static_cast<int64_t>(i) < rollout->canary_count; ++i)
      canary.insert(by_name[i]);
    if (!canary.empty()) {
      batches.emplace_back();
      for (size_t u : by_name)
        if (canary.contains(u)) batches.back().push_back(u);
    }
    for (size_t u : by_name) {
      if (canary.contains(u)) continue;
      if (batches.empty() ||
          batches.back().size() >= static_cast<size_t>(rollout->max_concurrency) ||
          (batches.size() == 1 && !canary.empty()))
        batches.emplace_back();
      batches.back().push_back(u);
    }
    for (size_t b = 0; b < batches.size(); ++b)
      for (size_t u : batches[b]) out.batch[u] = static_cast<int>(b);
    out.batches[o] = std::move(batches);
    if (!rollout->approval.empty()) out.approval[o] = rollout->approval;
  }
  return FamilyIndex::of(std::move(out));
}

void require_rollout(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const RolloutIndex& rollouts = ctx.family<RolloutIndex>();
  size_t u = ctx.unit_index(unit);
  int b = rollouts.batch[u];
  if (b <= 0) return;
  // Healthy, unless the object says what ready means for it.
  ReadinessPredicate when = string_in(ctx.index.annotations(unit.object), kReadyWhenAnnotation)
                                ? ctx.ready_when(unit.object)
                                : ReadinessPredicate::of(ReadinessPredicate::Type::kHealthy);
  for (size_t before : rollouts.batches.at(unit.object)[static_cast<size_t>(b) - 1])
    out.push_back(ctx.need(unit.object, ctx.units[before].cluster_index, when, "rollout"));
  // After the canaries, a person's approval, on the management cluster.
  if (auto it = rollouts.approval.find(unit.object); b == 1 && it != rollouts.approval.end())
    out.push_back(ctx.need(ObjectRef{"v1", "ConfigMap", std::string(kApprovalNamespace),
                                     std::string(kApprovalPrefix) + it->second},
                           kSelfIndex, ReadinessPredicate::of(ReadinessPredicate::Type::kExists),
                           "rollout"));
}

}  // namespace planter
