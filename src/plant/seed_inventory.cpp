#include "plant/seed_inventory.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include "kube/bounded_call.h"
#include "model/stable_hash.h"
#include "plan/cluster_choice.h"
#include "plant/ownership.h"

namespace planter::plant {

namespace json = boost::json;

namespace {

constexpr std::string_view kObjectsKey = "objects";
constexpr std::string_view kChoicesKey = "choices";

// The version-free identities of the objects the plan holds on each cluster (`made`: less those
// on clusters their choices did not choose).
std::map<std::string, std::set<std::string>> keys_by_cluster(const Plan& plan,
                                                             const ChoiceRecords* made) {
  std::map<std::string, std::set<std::string>> out;
  for (const Unit& u : plan.units)
    if (!made || held_after_choices(plan, u, *made))
      out[u.cluster].insert(plan.object_of(u).ref.key());
  return out;
}

// A client per reachable cluster, made when first needed; clusters that cannot have one say why.
class Clients {
 public:
  Clients(const std::map<std::string, kube::RestConfig>& reachable, const kube::ClientOptions& o)
      : reachable_(reachable), options_(o) {}
  kube::Client* of(const std::string& cluster, std::vector<std::string>& errors) {
    auto& c = clients_[cluster];
    if (!c) {
      auto made = kube::Client::create(reachable_.at(cluster), options_);
      if (!made) {
        errors.push_back(fmt::format("cluster {}: {}", cluster, made.error().message));
        return nullptr;
      }
      c = std::move(made.value());
    }
    return c.get();
  }

 private:
  const std::map<std::string, kube::RestConfig>& reachable_;
  const kube::ClientOptions& options_;
  std::map<std::string, std::unique_ptr<kube::Client>> clients_;
};

}  // namespace

std::string inventory_name(std::string_view seed) {
  std::string name = "planter-inventory-";
  std::string cut;
  for (char c : seed)
    cut += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!cut.empty() && !std::isalnum(static_cast<unsigned char>(cut.back()))) cut.pop_back();
  if (cut != seed || cut.empty())
    cut +=
        fmt::format("{}{:08x}", cut.empty() ? "" : "-", static_cast<uint32_t>(stable_hash(seed)));
  return name + cut;
}

std::string format_items(std::vector<InventoryItem> items) {
  std::sort(items.begin(), items.end(), [](const InventoryItem& a, const InventoryItem& b) {
    return std::tie(a.wave, a.ref.api_version, a.ref.kind, a.ref.ns, a.ref.name) <
           std::tie(b.wave, b.ref.api_version, b.ref.kind, b.ref.ns, b.ref.name);
  });
  std::string out;
  for (const InventoryItem& i : items)
    out += fmt::format("{} {} {} {} {}\n", i.wave, i.ref.api_version, i.ref.kind,
                       i.ref.ns.empty() ? "-" : i.ref.ns, i.ref.name);
  return out;
}

std::vector<InventoryItem> parse_items(std::string_view text) {
  std::vector<InventoryItem> out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    InventoryItem i;
    std::string ns, rest;
    if (!(fields >> i.wave >> i.ref.api_version >> i.ref.kind >> ns >> i.ref.name) ||
        (fields >> rest) || i.wave < 0)
      continue;
    i.ref.ns = ns == "-" ? "" : ns;
    out.push_back(std::move(i));
  }
  return out;
}

std::string format_choices(const ChoiceRecords& choices) {
  std::string out;
  for (const auto& [name, clusters] : choices) {
    if (clusters.empty() || name.empty()) continue;
    std::string list;
    for (const std::string& c : clusters) list += (list.empty() ? "" : ",") + c;
    out += fmt::format("{} {}\n", list, name);
  }
  return out;
}

ChoiceRecords parse_choices(std::string_view text) {
  ChoiceRecords out;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 >= line.size()) continue;
    std::vector<std::string> clusters;
    std::istringstream list(line.substr(0, space));
    for (std::string c; std::getline(list, c, ',');)
      if (!c.empty()) clusters.push_back(c);
    if (!clusters.empty()) out[line.substr(space + 1)] = std::move(clusters);
  }
  return out;
}

Inventories read_inventories(const std::map<std::string, kube::RestConfig>& reachable,
                             const InventoryOptions& options) {
  Inventories out;
  Clients clients(reachable, options.client);
  std::string name = inventory_name(options.seed_name);
  // Every cluster's read at once (a fleet of a thousand is not read one after the other).
  std::vector<std::pair<std::string, kube::Client*>> asked;
  for (const auto& [cluster, _] : reachable) {
    kube::Client* c = clients.of(cluster, out.errors);
    if (c)
      asked.emplace_back(cluster, c);
    else
      out.unreadable.insert(cluster);
  }
  std::vector<kube::ApiResult<json::object>> answers = kube::bounded_calls<json::object>(
      asked.size(),
      [&](size_t i, auto done) {
        asked[i].second->get_async("v1", "ConfigMap", std::string(kInventoryNamespace), name,
                                   std::move(done));
      },
      options.deadline);
  for (size_t i = 0; i < asked.size(); ++i) {
    const std::string& cluster = asked[i].first;
    kube::ApiResult<json::object>& got = answers[i];
    if (!got) {
      if (!got.error().not_found()) {
        out.errors.push_back(fmt::format("cluster {}: reading ConfigMap {}/{}: {}", cluster,
                                         kInventoryNamespace, name, got.error().str()));
        out.unreadable.insert(cluster);
      }
      continue;
    }
    // Another seed's whose name maps to the same: not ours to read.
    if (string_field(*got, {"metadata", "labels", std::string(kInventoryLabel)}) !=
        options.seed_name)
      continue;
    out.by_cluster[cluster] = parse_items(string_field(*got, {"data", std::string(kObjectsKey)}));
    if (cluster == kSelf)
      out.choices = parse_choices(string_field(*got, {"data", std::string(kChoicesKey)}));
  }
  return out;
}

bool held_after_choices(const Plan& plan, const Unit& unit, const ChoiceRecords& made) {
  std::vector<size_t> deciding = choices_deciding(unit);
  if (deciding.empty()) return true;
  for (size_t c : deciding) {
    auto it = made.find(plan.choices[c].name);
    if (it == made.end()) return true;  // not made: it may yet choose this cluster
    if (std::find(it->second.begin(), it->second.end(), unit.cluster) != it->second.end())
      return true;
  }
  return false;
}

std::vector<Plan> stale_plans(const Plan& plan, const Inventories& inventories,
                              const ChoiceRecords* made) {
  std::map<std::string, std::set<std::string>> held = keys_by_cluster(plan, made);
  std::map<int, Plan, std::greater<>> waves;  // deepest first
  for (const auto& [cluster, items] : inventories.by_cluster) {
    const std::set<std::string>& in_plan = held[cluster];
    for (const InventoryItem& i : items) {
      if (in_plan.contains(i.ref.key())) continue;
      Plan& out = waves[i.wave];
      if (out.clusters.empty()) out.clusters = plan.clusters;
      Object o;
      o.ref = i.ref;
      o.body = {{"apiVersion", i.ref.api_version},
                {"kind", i.ref.kind},
                {"metadata", json::object{{"name", i.ref.name}}}};
      if (!i.ref.ns.empty()) o.body["metadata"].as_object()["namespace"] = i.ref.ns;
      o.source = {fmt::format("inventory of cluster {}", cluster), 0};
      Unit u;
      u.object = out.objects.size();
      u.cluster = cluster;
      u.wave = i.wave;
      out.objects.push_back(std::move(o));
      out.units.push_back(std::move(u));
    }
  }
  std::vector<Plan> out;
  for (auto& [_, p] : waves) out.push_back(std::move(p));
  return out;
}

kube::ApplyOptions inventory_apply_options(const std::string& seed_name) {
  kube::ApplyOptions apply;
  apply.field_manager = seed_field_manager(seed_name);
  apply.force = true;
  return apply;
}

json::object inventory_object(const std::string& seed_name, std::vector<InventoryItem> items,
                              const ChoiceRecords& choices) {
  json::object cm{
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata", json::object{{"name", inventory_name(seed_name)},
                                {"namespace", kInventoryNamespace},
                                {"labels", json::object{{kManagedByLabel, "planter"},
                                                        {kInventoryLabel, seed_name}}}}},
      {"data", json::object{{kObjectsKey, format_items(std::move(items))}}}};
  if (!choices.empty()) cm["data"].as_object()[kChoicesKey] = format_choices(choices);
  return cm;
}

std::vector<std::string> write_inventories(
    const Plan& plan, const std::map<std::string, kube::RestConfig>& reachable,
    const std::map<std::string, std::vector<InventoryItem>>& also, const InventoryOptions& options,
    const ChoiceRecords& choices, const std::set<std::string>& skip, const ChoiceRecords* made) {
  std::vector<std::string> errors;
  Clients clients(reachable, options.client);
  std::map<std::string, std::vector<InventoryItem>> items;
  for (const Unit& u : plan.units)
    if (reachable.contains(u.cluster) && (!made || held_after_choices(plan, u, *made)))
      items[u.cluster].push_back({plan.object_of(u).ref, u.wave});
  for (const auto& [cluster, more] : also) {
    if (!reachable.contains(cluster)) continue;
    std::vector<InventoryItem>& list = items[cluster];
    std::set<std::string> listed;  // what the plan lists there already
    for (const InventoryItem& i : list) listed.insert(i.ref.key());
    for (const InventoryItem& i : more)
      if (listed.insert(i.ref.key()).second) list.push_back(i);
  }
  // The management cluster keeps the choices, whether or not the seed places objects there.
  if (!choices.empty() && reachable.contains(std::string(kSelf)))
    items.try_emplace(std::string(kSelf));
  kube::ApplyOptions apply = inventory_apply_options(options.seed_name);
  // Every cluster's written at once.
  std::vector<std::tuple<std::string, kube::Client*, json::object>> writes;
  for (auto& [cluster, list] : items) {
    if (skip.contains(cluster)) continue;
    kube::Client* c = clients.of(cluster, errors);
    if (!c) continue;
    writes.emplace_back(cluster, c,
                        inventory_object(options.seed_name, std::move(list),
                                         cluster == kSelf ? choices : ChoiceRecords{}));
  }
  std::vector<kube::ApiResult<json::object>> answers = kube::bounded_calls<json::object>(
      writes.size(),
      [&](size_t i, auto done) {
        auto& [_, c, cm] = writes[i];
        c->apply_async(std::move(cm), apply, std::move(done));
      },
      options.deadline);
  for (size_t i = 0; i < writes.size(); ++i)
    if (!answers[i])
      errors.push_back(fmt::format("cluster {}: writing the seed's inventory: {}",
                                   std::get<0>(writes[i]), answers[i].error().str()));
  return errors;
}

std::vector<std::string> delete_inventories(
    const std::map<std::string, kube::RestConfig>& reachable, const InventoryOptions& options) {
  std::vector<std::string> errors;
  Clients clients(reachable, options.client);
  for (const auto& [cluster, _] : reachable) {
    kube::Client* c = clients.of(cluster, errors);
    if (!c) continue;
    auto r = kube::bounded_call<json::object>(
        [&](auto done) {
          c->remove_async("v1", "ConfigMap", std::string(kInventoryNamespace),
                          inventory_name(options.seed_name), {}, std::move(done));
        },
        options.deadline);
    if (!r && !r.error().not_found())
      errors.push_back(
          fmt::format("cluster {}: deleting the seed's inventory: {}", cluster, r.error().str()));
  }
  return errors;
}

}  // namespace planter::plant
