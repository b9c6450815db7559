// The gate of the `stack-fits` requirement (rule: src/plan/rules/stack_fits.cpp): what planting
// watches for it (the cluster's nodes, pods, claims, volumes and storage classes) and how it
// checks it (the fit model, src/fit). It keeps the stacks' state: each decision, made once per
// change of what it reads, and each released stack's placement, held until the run ends so that
// two stacks are never released onto the same room.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "fit/group.h"
#include "plan/plan.h"
#include "plant/fleet.h"
#include "plant/gates/gate.h"

namespace planter::plant {

class StackFitsGate : public Gate {
 public:
  explicit StackFitsGate(GateContext& context);

  // A unit waits for its stack (r.when.arg) to fit on r.cluster: its decisions read the kinds
  // there that the fit model's snapshot holds.
  void require(size_t u, const Requirement& r, std::vector<std::string>& keys) override;
  // Holds once the stack is released (the first time it fits, here: every member on the cluster
  // is then woken in the same turn); until then the cluster cannot be read yet, or the fit model
  // says why the stack does not fit.
  std::optional<Wait> check(size_t u, const Requirement& r) override;
  // A node, pod, claim, volume or storage class changed: the decisions are made again, once per
  // burst of changes, for the stacks not released yet.
  void changed(const std::string& cluster, const boost::json::object& o) override;
  void synced(const std::string& cluster) override { invalidate(cluster); }

  // The stacks waited for on `cluster` (none: empty).
  const std::set<std::string>& stacks_on(const std::string& cluster) const;
  // The placement a released stack holds; null when it is not released.
  const fit::GroupFit* released(const std::string& cluster, const std::string& stack) const;
  // Takes a release back (its anchor is placed again).
  void unrelease(const std::string& cluster, const std::string& stack);
  // Whether the whole stack fits on `node` now (where its anchor was bound).
  const fit::GroupFit& fit_on_node(const std::string& cluster, const std::string& stack,
                                   const std::string& node);
  // True for the kinds whose changes invalidate the decisions.
  static bool reads(const boost::json::object& o);
  // The kinds the fit model reads (fit::kSnapshotKinds).
  static std::vector<std::string_view> snapshot_kinds();
  std::vector<std::string_view> kinds_read() const override { return snapshot_kinds(); }
  // The key that wakes the members of `stack` on `cluster`.
  static std::string key(std::string_view cluster, std::string_view stack);

  // The unit's body steered to where its stack was released (co-located stacks): true when
  // something was written; `where` then says where, for people.
  bool steer(const Unit& unit, boost::json::object& body, std::string& where) const;
  // A member of a custom kind: applied with fieldValidation=Strict, so that a field its schema
  // would prune (and the policy in it) is refused, never dropped with a warning.
  bool strict_fields(size_t object) const;

 private:
  // What the decisions read changed on `cluster`: they are made again when next asked.
  void invalidate(const std::string& cluster) { ++generation_[cluster]; }
  const fit::Group& group_of(const std::string& stack);
  // The decision for `group` under `k`, made again only when what it reads changed.
  const fit::GroupFit& decision(const std::string& k, const std::string& cluster,
                                const std::string& stack, const fit::Group& group);

  GateContext& c_;
  std::map<std::string, const StackNeeds*> stacks_;  // by name
  std::map<std::string, fit::Group> groups_;         // by stack name, made once
  std::unordered_map<size_t, std::pair<const StackNeeds*, const StackMember*>> members_;
  std::map<std::string, std::set<std::string>> on_cluster_;  // cluster -> stacks to fit there
  std::map<std::string, uint64_t> generation_;               // cluster -> changes of what it reads
  std::unordered_map<std::string, std::pair<uint64_t, fit::GroupFit>> decided_;
  std::unordered_map<std::string, fit::GroupFit> released_;
  std::map<std::string, std::vector<boost::json::object>> seed_claims_;  // by cluster, made once
  std::set<std::string> refit_posted_;  // clusters with a turn of decisions due
};

}  // namespace planter::plant
