#include "plant/seed_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace planter::plant {

namespace {

// How long a step waits for clusters that do not answer when the run has no deadline of its own.
constexpr std::chrono::seconds kReachPatience{30};

}  // namespace

SeedRun::SeedRun(const Plan& plan, std::map<std::string, kube::RestConfig> clusters,
                 SeedRunOptions options)
    : plan_(plan), clusters_(std::move(clusters)), options_(std::move(options)) {}

std::chrono::steady_clock::time_point SeedRun::deadline(std::chrono::milliseconds patience) const {
  auto own = std::chrono::steady_clock::now() + patience;
  return options_.deadline ? std::min(*options_.deadline, own) : own;
}

std::optional<std::chrono::milliseconds> SeedRun::remaining() const {
  if (!options_.deadline) return std::nullopt;
  auto left = *options_.deadline - std::chrono::steady_clock::now();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
      std::max(left, std::chrono::steady_clock::duration::zero()));
}

void SeedRun::reach() {
  CreatedClustersOptions o;
  o.client = options_.client;
  o.write_as = options_.write_as;
  o.deadline = deadline(kReachPatience);
  CreatedClusters found = reach_created_clusters(plan_, clusters_, o);
  for (auto& [name, config] : found.reached) {
    clusters_[name] = std::move(config);
    not_reached_.erase(name);
    gone_.erase(name);
  }
  for (auto& [name, why] : found.not_reached) not_reached_[name] = std::move(why);
  for (const std::string& name : found.gone) gone_.insert(name);
}

InventoryOptions SeedRun::inventory_options() const {
  InventoryOptions o;
  o.seed_name = options_.seed_name;
  o.client = options_.client;
  o.deadline = options_.deadline;
  return o;
}

void SeedRun::warn_all(const std::vector<std::string>& errors) const {
  if (options_.warn)
    for (const std::string& e : errors) options_.warn(e);
}

ChoiceRecords SeedRun::open() {
  inventories_ = read_inventories(clusters_, inventory_options());
  warn_all(inventories_.errors);
  // The clusters earlier runs chose stay chosen; the choices this seed no longer makes are dropped.
  ChoiceRecords choices;
  for (const ClusterChoice& c : plan_.choices)
    if (auto it = inventories_.choices.find(c.name); it != inventories_.choices.end())
      choices.insert(*it);
  warn_all(write_inventories(plan_, clusters_, inventories_.by_cluster, inventory_options(),
                             choices, inventories_.unreadable));
  std::map<std::string, std::vector<InventoryItem>> items;
  for (const Unit& u : plan_.units)
    if (!clusters_.contains(u.cluster))
      items[u.cluster].push_back({plan_.object_of(u).ref, u.wave});
  first_writes_.clear();
  for (auto& [cluster, list] : items)
    first_writes_.emplace(cluster, inventory_object(options_.seed_name, std::move(list)));
  return choices;
}

void SeedRun::written_first(const std::vector<std::string>& clusters) {
  for (const std::string& c : clusters) first_writes_.erase(c);
}

std::vector<Plan> SeedRun::stale(const ChoiceRecords* made) const {
  return stale_plans(plan_, inventories_, made);
}

PruneOutcome SeedRun::prune(Removal removal, const ChoiceRecords* made) {
  PruneOutcome out;
  for (const Plan& wave : stale(made)) {
    UprootOptions options;
    options.seed_name = options_.seed_name;
    options.removal = removal;
    options.conventions = plan_.conventions;
    options.client = options_.client;
    options.write_as = options_.write_as;
    options.timeout = remaining();
    options.stop = options_.stop;
    UprootOutcome r = plant::uproot(wave, clusters_, options);
    for (size_t u = 0; u < wave.units.size(); ++u) {
      const Unit& unit = wave.units[u];
      const RemovalRecord& rec = r.units[u];
      bool gone = rec.state == RemovalState::kDeleted || rec.state == RemovalState::kAbsent;
      if (rec.state == RemovalState::kDeleted) ++out.deleted;
      if (!gone && rec.state != RemovalState::kLeft) {
        out.complete = false;
        out.kept[unit.cluster].push_back({wave.object_of(unit).ref, unit.wave});
      }
      if (options_.on_pruned) options_.on_pruned(wave, u, rec);
    }
    if (r.stopped || options_.stop.stop_requested()) out.stopped = true;
    if (!r.complete() || out.stopped) {
      out.complete = false;
      break;
    }
  }
  return out;
}

CloseOutcome SeedRun::close(bool declared, bool prune_stale, const ChoiceRecords& choices,
                            bool chose_anew) {
  CloseOutcome out;
  bool stopped = options_.stop.stop_requested();
  // The clusters the run created: their inventories list what it planted there.
  if (declared && !stopped) reach();
  if (declared && !stopped && inventories_.errors.empty()) {
    const ChoiceRecords* made = prune_stale ? &choices : nullptr;
    if (prune_stale) {
      out.pruned = prune(Removal::kPrune, made);
      out.complete = out.pruned.complete;
    } else {
      out.pruned.kept = inventories_.by_cluster;
    }
    if (!options_.stop.stop_requested())
      warn_all(write_inventories(plan_, clusters_, out.pruned.kept, inventory_options(), choices,
                                 {}, made));
  } else if (declared && !stopped && prune_stale) {
    // An inventory that cannot be read hides what the seed planted before: nothing is pruned,
    // anywhere, and the run says so and fails instead of passing for a prune.
    std::vector<std::string> unread(inventories_.unreadable.begin(), inventories_.unreadable.end());
    out.complete = false;
    out.not_pruned = fmt::format(
        "not pruned: the inventory of cluster(s) {} could not be read (see the warnings above), "
        "so nothing the seed no longer holds was deleted on any cluster; fix access to ConfigMap "
        "{}/{} there and run again",
        fmt::join(unread, ", "), kInventoryNamespace, inventory_name(options_.seed_name));
  } else if (chose_anew && inventories_.errors.empty()) {
    // Not complete, but what was chosen is kept for the next run.
    warn_all(
        write_inventories(plan_, clusters_, inventories_.by_cluster, inventory_options(), choices));
  }
  return out;
}

SeedUprootOutcome SeedRun::uproot(UprootOptions options) {
  SeedUprootOutcome out;
  inventories_ = read_inventories(clusters_, inventory_options());
  warn_all(inventories_.errors);
  out.beyond = prune();
  if (!out.beyond.complete) return out;
  out.started = true;
  out.seed = plant::uproot(plan_, clusters_, options);
  if (!out.seed.complete() || !inventories_.errors.empty()) return out;
  // A cluster the uproot deleted took its inventory with it.
  std::map<std::string, kube::RestConfig> left = clusters_;
  for (size_t u = 0; u < plan_.units.size(); ++u) {
    const Object& o = plan_.object_of(plan_.units[u]);
    if (!is_cluster_definition(o.ref) || out.seed.units[u].state != RemovalState::kDeleted)
      continue;
    for (const ClusterInfo& c : plan_.clusters)
      if (c.object && &plan_.objects[*c.object] == &o) left.erase(c.name);
  }
  warn_all(delete_inventories(left, inventory_options()));
  return out;
}

}  // namespace planter::plant
