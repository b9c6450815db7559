#include "sim/kube_scheduler/topology_spread.h"

#include <algorithm>
#include <limits>

#include "sim/json_access.h"

namespace planter::sim::sched {

namespace json = boost::json;

TopologySpreadCheck::TopologySpreadCheck(const json::object& pod, const std::string& ns,
                                         const Cache& cache) {
  const json::object* spec = object_at(pod, "spec");
  auto* list = spec ? spec->if_contains("topologySpreadConstraints") : nullptr;
  if (!list || !list->is_array()) return;
  const json::object* pod_labels = object_at(object_at(pod, "metadata"), "labels");
  std::vector<std::string> all_keys;
  std::vector<std::pair<bool, bool>> policies;  // honour affinity, honour taints
  for (const auto& v : list->as_array()) {
    if (!v.is_object()) continue;
    const json::object& c = v.as_object();
    if (string_at(c, "whenUnsatisfiable") != "DoNotSchedule") continue;
    Constraint con;
    con.topology_key = string_at(c, "topologyKey");
    con.max_skew = std::max<int64_t>(1, int_at(&c, "maxSkew", 1));
    con.min_domains = std::max<int64_t>(1, int_at(&c, "minDomains", 1));
    if (const json::object* sel = object_at(c, "labelSelector")) con.selector = *sel;
    // matchLabelKeys: the pod's own values of those keys join the selector.
    if (auto* keys = c.if_contains("matchLabelKeys"); keys && keys->is_array() && pod_labels)
      for (const auto& k : keys->as_array()) {
        if (!k.is_string()) continue;
        auto* value = pod_labels->if_contains(k.as_string());
        if (!value || !value->is_string()) continue;
        auto& exprs = con.selector["matchExpressions"];
        if (!exprs.is_array()) exprs = json::array{};
        exprs.as_array().push_back(
            json::object{{"key", k}, {"operator", "In"}, {"values", json::array{*value}}});
      }
    json::value selector_value = con.selector;
    con.self_match =
        c.contains("labelSelector") && label_selector_matches(&selector_value, pod_labels);
    policies.emplace_back(string_at(c, "nodeAffinityPolicy") != "Ignore",
                          string_at(c, "nodeTaintsPolicy") == "Honor");
    all_keys.push_back(con.topology_key);
    con.has_selector = c.contains("labelSelector");
    constraints_.push_back(std::move(con));
  }
  if (constraints_.empty()) return;
  static const json::object kNone;
  const json::object& pod_spec = spec ? *spec : kNone;
  const RequiredNodeAffinity required(pod_spec);
  for (size_t i = 0; i < constraints_.size(); ++i) {
    Constraint& con = constraints_[i];
    auto [honour_affinity, honour_taints] = policies[i];
    json::value selector_value = con.selector;
    con.compiled = CompiledSelector(&selector_value);
    for (const NodeInfo* node : cache.nodes()) {
      // Only nodes with every constraint's key are domains.
      bool keyed = std::all_of(all_keys.begin(), all_keys.end(),
                               [&](const std::string& k) { return node->label(k) != nullptr; });
      if (!keyed) continue;
      if (honour_affinity && !required.matches(node->label_values(), node->name)) continue;
      if (honour_taints && first_untolerated(pod_spec, node->taints)) continue;
      int64_t& count = con.counts[*node->label(con.topology_key)];
      if (!con.has_selector) continue;
      for (const auto& [_, placed] : node->pods) {
        if (placed->ns != ns) continue;
        if (!meta_string(*placed->pod, "deletionTimestamp").empty()) continue;
        if (con.compiled.matches(placed->labels())) ++count;
      }
    }
    con.min_count = std::numeric_limits<int64_t>::max();
    for (const auto& [_, count] : con.counts) con.min_count = std::min(con.min_count, count);
    if (con.counts.empty() || static_cast<int64_t>(con.counts.size()) < con.min_domains)
      con.min_count = 0;
  }
}

std::optional<TopologySpreadCheck::Failure> TopologySpreadCheck::filter(
    const NodeInfo& node) const {
  for (const auto& con : constraints_) {
    const std::string* value = node.label(con.topology_key);
    if (!value) return Failure{kMissingLabelReason, false};
    auto it = con.counts.find(*value);
    int64_t here = it == con.counts.end() ? 0 : it->second;
    if (here + (con.self_match ? 1 : 0) - con.min_count > con.max_skew)
      return Failure{kReason, true};
  }
  return std::nullopt;
}

}  // namespace planter::sim::sched
