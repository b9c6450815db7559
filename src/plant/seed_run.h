// Planting a seed safely, the use case both front ends run (the CLI's plant, replant, diff and
// uproot; the operator's Seed runs): around the engine, the steps that keep sight of what a seed
// planted on every cluster it plants on.
//
//   reach     the clusters the seed creates that exist now (created_clusters.h), added to the
//             clusters given (the management cluster, --cluster contexts); again after planting
//   open      before the first write: read each cluster's inventory, then list there everything
//             this run may write (an interrupted run still lists it)
//   close     after every unit is declared: prune what the inventories list and the seed no
//             longer holds (deepest wave first), then list what the seed holds now
//   uproot    what the inventories list beyond the seed, then the seed, then the inventories
//
// Each cluster's inventory lives on that cluster (seed_inventory.h), a created cluster's too:
// docs/plant.md, "Inventory and prune", says why and what that leaves out.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

#include "kube/client.h"
#include "plan/plan.h"
#include "plant/created_clusters.h"
#include "plant/fleet.h"
#include "plant/seed_inventory.h"
#include "plant/uproot.h"

namespace planter::plant {

struct SeedRunOptions {
  std::string seed_name;
  kube::ClientOptions client;
  std::optional<WriteIdentity> write_as;
  std::stop_token stop;
  // The end of the whole run (--timeout); none: the steps' own patience.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // What cannot stop the run but should be heard ("cluster edge1: reading ConfigMap ...").
  std::function<void(const std::string&)> warn;
  // Each object a prune or an uproot of what the inventories list took a decision on.
  std::function<void(const Plan& wave, size_t unit, const RemovalRecord&)> on_pruned;
};

// What a prune did: `complete` when everything stale is gone (or left to another owner).
struct PruneOutcome {
  size_t deleted = 0;
  bool complete = true;
  bool stopped = false;
  // Per cluster, what is still there and stays listed in the inventory.
  std::map<std::string, std::vector<InventoryItem>> kept;
};

// After planting: whether the inventories are closed, and if not, why in a person's words.
struct CloseOutcome {
  PruneOutcome pruned;
  bool complete = true;
  std::string not_pruned;  // set when it is not complete for a reason other than the prune's
};

struct SeedUprootOutcome {
  PruneOutcome beyond;  // what the inventories listed beyond the seed
  UprootOutcome seed;   // the seed's own units (empty when `beyond` did not finish)
  bool started = false;
};

class SeedRun {
 public:
  SeedRun(const Plan& plan, std::map<std::string, kube::RestConfig> clusters,
          SeedRunOptions options);

  // Adds the clusters the seed reaches through cluster objects that exist now; a second call
  // (after planting) adds those created since.
  void reach();
  const std::map<std::string, kube::RestConfig>& clusters() const { return clusters_; }
  // The plan's clusters not reachable now, and why.
  const std::map<std::string, std::string>& not_reached() const { return not_reached_; }

  // Before the first write (see above). The cluster choices earlier runs made that the plan still
  // has: the engine keeps them.
  ChoiceRecords open();
  // The inventories open() could not write, on the clusters the seed creates that were not there
  // yet: each listing what this run may write there, for the engine to write before the first
  // unit there (EngineOptions::first_writes). Made by open(); those the engine wrote
  // (PlantOutcome::first_written) are dropped, so a later slice of the run writes them no more.
  const std::map<std::string, boost::json::object>& first_writes() const { return first_writes_; }
  void written_first(const std::vector<std::string>& clusters);
  const Inventories& inventories() const { return inventories_; }

  // What the inventories list and the plan does not hold, one plan per wave, deepest first;
  // with `made`, the choices made, nor what is on clusters they did not choose.
  std::vector<Plan> stale(const ChoiceRecords* made = nullptr) const;
  PruneOutcome prune(Removal removal = Removal::kPrune, const ChoiceRecords* made = nullptr);

  // After planting. `declared`: every unit was declared (else the inventories are only rewritten
  // when the run chose clusters anew, so the choices are kept). `prune` false: the stale objects
  // stay, listed. `choices`: every choice the run holds now; once every unit is declared, what
  // the seed planted on a cluster a choice no longer holds (it moved) is stale too.
  CloseOutcome close(bool declared, bool prune, const ChoiceRecords& choices, bool chose_anew);

  // Uproots what the inventories list beyond the seed, then the seed itself (`options` gives the
  // seed's own uproot its callbacks), then deletes the inventories when nothing is left.
  SeedUprootOutcome uproot(UprootOptions options);

  // The deadline for a step: the run's, or `patience` from now when the run has none or it is
  // later.
  std::chrono::steady_clock::time_point deadline(std::chrono::milliseconds patience) const;
  // Moves the run's deadline (the operator bounds each slice's steps).
  void set_deadline(std::optional<std::chrono::steady_clock::time_point> deadline) {
    options_.deadline = deadline;
  }
  // What is left of the run's deadline (none: no deadline), for the engine and uproot.
  std::optional<std::chrono::milliseconds> remaining() const;

 private:
  InventoryOptions inventory_options() const;
  void warn_all(const std::vector<std::string>& errors) const;

  const Plan& plan_;
  std::map<std::string, kube::RestConfig> clusters_;
  std::map<std::string, std::string> not_reached_;
  std::set<std::string> gone_;
  SeedRunOptions options_;
  Inventories inventories_;
  std::map<std::string, boost::json::object> first_writes_;
};

}  // namespace planter::plant
