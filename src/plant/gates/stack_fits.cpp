#include "plant/gates/stack_fits.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "model/kinds.h"
#include "model/object.h"
#include "plan/stacks/steer.h"
#include "plant/stack_group.h"

namespace planter::plant {

namespace json = boost::json;

namespace {

const std::set<std::string> kNone;

}  // namespace

StackFitsGate::StackFitsGate(GateContext& context) : c_(context) {
  for (const StackNeeds& s : c_.plan.stacks) {
    stacks_[s.name] = &s;
    for (const StackMember& m : s.members) members_[m.object] = {&s, &m};
  }
}

std::string StackFitsGate::key(std::string_view cluster, std::string_view stack) {
  return fmt::format("{}\nstack-fits\n{}", cluster, stack);
}

void StackFitsGate::require(size_t, const Requirement& r, std::vector<std::string>& keys) {
  on_cluster_[r.cluster].insert(r.when.arg);
  const fit::Group& group = group_of(r.when.arg);
  for (const fit::SnapshotKind& read : fit::kSnapshotKinds)
    if (reads_for(read, group)) c_.fleet.watch_for_the_fit(r.cluster, read.api_version, read.kind);
  keys.push_back(key(r.cluster, r.when.arg));
}

std::optional<Gate::Wait> StackFitsGate::check(size_t, const Requirement& r) {
  const std::string& cluster = r.cluster;
  const std::string& stack = r.when.arg;
  std::string k = key(cluster, stack);
  if (released_.contains(k)) return std::nullopt;
  if (!c_.fleet.linked(cluster)) return Wait{c_.fleet.link_status(cluster)};
  const fit::Group& group = group_of(stack);
  for (const fit::SnapshotKind& read : fit::kSnapshotKinds)
    if (reads_for(read, group) && !c_.fleet.synced(cluster, read.api_version, read.kind) &&
        !c_.fleet.unserved(cluster, read.api_version, read.kind))
      return Wait{claims_devices(group) ? "reading the cluster's nodes, pods, volumes and devices"
                                        : "reading the cluster's nodes, pods, claims, volumes and "
                                          "storage classes"};
  const fit::GroupFit& fit = decision(k, cluster, stack, group);
  if (!fit.fits) return Wait{fit.why, true};
  released_[k] = fit;
  ++generation_[cluster];
  // Every member on the cluster is released at once, in this turn.
  c_.loop.post([this, k] { c_.wake(k); });
  return std::nullopt;
}

void StackFitsGate::changed(const std::string& cluster, const json::object& o) {
  if (!reads(o) || stacks_on(cluster).empty()) return;
  invalidate(cluster);
  if (!refit_posted_.insert(cluster).second) return;
  c_.loop.post([this, cluster] {
    refit_posted_.erase(cluster);
    for (const std::string& stack : stacks_on(cluster))
      if (!released(cluster, stack)) c_.wake(key(cluster, stack));
  });
}

const std::set<std::string>& StackFitsGate::stacks_on(const std::string& cluster) const {
  auto it = on_cluster_.find(cluster);
  return it == on_cluster_.end() ? kNone : it->second;
}

std::vector<std::string_view> StackFitsGate::snapshot_kinds() {
  std::vector<std::string_view> out;
  for (const fit::SnapshotKind& r : fit::kSnapshotKinds) out.push_back(r.kind);
  return out;
}

bool StackFitsGate::reads(const json::object& o) {
  std::string kind = string_field(o, {"kind"}), api_version = string_field(o, {"apiVersion"});
  return std::any_of(
      std::begin(fit::kSnapshotKinds), std::end(fit::kSnapshotKinds),
      [&](const fit::SnapshotKind& r) { return r.kind == kind && r.api_version == api_version; });
}

const fit::Group& StackFitsGate::group_of(const std::string& stack) {
  auto [it, fresh] = groups_.try_emplace(stack);
  if (fresh) it->second = stack_group(*stacks_.at(stack));
  return it->second;
}

const fit::GroupFit& StackFitsGate::decision(const std::string& k, const std::string& cluster,
                                             const std::string& stack, const fit::Group& group) {
  uint64_t generation = generation_[cluster];
  auto cached = decided_.find(k);
  if (cached != decided_.end() && cached->second.first == generation) return cached->second.second;
  fit::Held held;  // the stacks released in this run hold their placements
  for (const std::string& other : stacks_on(cluster))
    if (auto r = released_.find(key(cluster, other)); r != released_.end() && other != stack)
      held[other] = r->second.pods;
  auto [slot_claims, fresh] = seed_claims_.try_emplace(cluster);
  if (fresh) slot_claims->second = seed_claims(c_.plan, cluster);
  auto& slot = decided_[k];
  slot = {generation, fit_on_fleet(c_.fleet, cluster, group, held, slot_claims->second)};
  return slot.second;
}

const fit::GroupFit* StackFitsGate::released(const std::string& cluster,
                                             const std::string& stack) const {
  auto it = released_.find(key(cluster, stack));
  return it == released_.end() ? nullptr : &it->second;
}

void StackFitsGate::unrelease(const std::string& cluster, const std::string& stack) {
  released_.erase(key(cluster, stack));
  ++generation_[cluster];
}

const fit::GroupFit& StackFitsGate::fit_on_node(const std::string& cluster,
                                                const std::string& stack, const std::string& node) {
  fit::Group group = group_of(stack);
  group.only_node = node;
  return decision(key(cluster, stack) + "\n" + node, cluster, stack, group);
}

bool StackFitsGate::steer(const Unit& unit, json::object& body, std::string& where) const {
  auto member = members_.find(unit.object);
  if (member == members_.end()) return false;
  auto [stack, paths] = member->second;
  const fit::GroupFit* fit = released(unit.cluster, stack->name);
  if (!fit || fit->steer_key.empty()) return false;
  if (!steer_pods(body, paths->affinity_paths, fit->steer_key, fit->steer_values)) return false;
  where = fit->where;
  return true;
}

bool StackFitsGate::strict_fields(size_t object) const {
  static const KindTable builtin = KindTable::builtin();
  return members_.contains(object) &&
         !builtin.is_builtin_group(c_.plan.objects[object].ref.group());
}

}  // namespace planter::plant
