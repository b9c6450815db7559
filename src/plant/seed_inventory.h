// What a seed planted, kept on each cluster it planted on, so that what the seed no longer holds
// can be pruned (cli-utils' inventory, kapp's app ConfigMap): one ConfigMap per seed and cluster,
// `planter-inventory-<seed>` in kube-system, labelled planter.nephio.org/inventory=<seed>. Its
// `objects` key lists one object per line, "<wave> <apiVersion> <kind> <namespace|-> <name>",
// sorted; the wave (the unit's depth in its plan) orders pruning, deepest first.
//
// Written before the first write of a run (what it held, and this plan's objects: an interrupted
// run still lists all it may have written) and after a complete one (this plan's objects, and what
// could not be pruned). Kept on the clusters planter can reach before planting (the management
// cluster, --cluster contexts); docs/plant.md, "Inventory and prune", says what it does not cover.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client.h"
#include "model/object.h"
#include "plan/plan.h"

namespace planter::plant {

inline constexpr std::string_view kInventoryNamespace = "kube-system";
inline constexpr std::string_view kInventoryLabel = "planter.nephio.org/inventory";

struct InventoryItem {
  ObjectRef ref;
  int wave = 0;
};

// A DNS name for the seed's inventory: the seed label lowercased, `_` as `-`, with a hash of the
// label when that changed it (two seeds never share one).
std::string inventory_name(std::string_view seed);
std::string format_items(std::vector<InventoryItem> items);
// Lines that do not read as items are skipped.
std::vector<InventoryItem> parse_items(std::string_view text);

// The cluster choices a seed made (plan/cluster_choice.h), kept in the management cluster's
// inventory under `choices` so that a replant keeps them: a line per choice, "<cluster>,<cluster>
// <choice name>", sorted by name.
using ChoiceRecords = std::map<std::string, std::vector<std::string>>;
std::string format_choices(const ChoiceRecords& choices);
ChoiceRecords parse_choices(std::string_view text);

struct InventoryOptions {
  std::string seed_name;
  kube::ClientOptions client;
  // Each read, write or delete is waited for until then (none: until it answers).
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// Per reachable cluster, what its inventory lists (none: no inventory there); `errors` says which
// could not be read, and `unreadable` names them: what they list is unknown, so nothing may be
// pruned from them, and their inventories are not written over (which would forget it).
struct Inventories {
  std::map<std::string, std::vector<InventoryItem>> by_cluster;
  ChoiceRecords choices;  // the management cluster's
  std::vector<std::string> errors;
  std::set<std::string> unreadable;
};
Inventories read_inventories(const std::map<std::string, kube::RestConfig>& reachable,
                             const InventoryOptions& options);

// Whether the plan holds `unit` once the choices in `made` are made: a unit that choices of
// clusters decide only on a cluster one of them chose (a choice not in `made`: held).
bool held_after_choices(const Plan& plan, const Unit& unit, const ChoiceRecords& made);

// What the inventories list and the plan does not hold on that cluster, as plans to uproot one
// after the other: one per wave, deepest first (a unit per object: no body but its identity).
// `made`: the choices made, whose unchosen clusters' units the plan does not hold (a choice that
// moved leaves its objects where it was, to be pruned).
std::vector<Plan> stale_plans(const Plan& plan, const Inventories& inventories,
                              const ChoiceRecords* made = nullptr);

// How an inventory is written: server-side apply as the seed's field manager, forced (it is
// planter's own record of the seed).
kube::ApplyOptions inventory_apply_options(const std::string& seed_name);

// The inventory ConfigMap of a seed on one cluster: `items`, and the management cluster's
// `choices`.
boost::json::object inventory_object(const std::string& seed_name, std::vector<InventoryItem> items,
                                     const ChoiceRecords& choices = {});

// Writes each reachable cluster's inventory: the plan's objects on it, and `also` (items to keep
// listing: an earlier inventory's, what could not be pruned); the management cluster's keeps
// `choices` too. Not the clusters in `skip` (inventories that could not be read). `made`: the
// objects on clusters their choices did not choose are not the plan's (held_after_choices).
// Errors, one per cluster.
std::vector<std::string> write_inventories(
    const Plan& plan, const std::map<std::string, kube::RestConfig>& reachable,
    const std::map<std::string, std::vector<InventoryItem>>& also, const InventoryOptions& options,
    const ChoiceRecords& choices = {}, const std::set<std::string>& skip = {},
    const ChoiceRecords* made = nullptr);

// Deletes the inventories (after an uproot left nothing of the seed). Errors, one per cluster.
std::vector<std::string> delete_inventories(
    const std::map<std::string, kube::RestConfig>& reachable, const InventoryOptions& options);

}  // namespace planter::plant
