#include "fit/framework.h"

#include <fmt/format.h>

#include <algorithm>

#include "fit/filters/filters.h"

namespace planter::fit {

const std::vector<FilterPlugin>& default_filters() {
  static const std::vector<FilterPlugin> table = {
      {"NodeUnschedulable", true, nullptr, &filters::node_unschedulable},
      {"NodeName", true, nullptr, &filters::node_name},
      {"TaintToleration", true, nullptr, &filters::taint_toleration},
      {"NodeAffinity", true, nullptr, &filters::node_affinity},
      {"NodePorts", false, nullptr, &filters::node_ports},
      {"NodeResourcesFit", false, nullptr, &filters::node_resources_fit},
      {"VolumeRestrictions", false, &filters::prefilter_volume_restrictions,
       &filters::volume_restrictions},
      {"VolumeBinding", false, &filters::prefilter_volume_binding, &filters::volume_binding},
      {"PodTopologySpread", false, &filters::prefilter_topology_spread,
       &filters::pod_topology_spread},
      {"InterPodAffinity", false, &filters::prefilter_inter_pod_affinity,
       &filters::inter_pod_affinity},
      {"DynamicResources", false, &filters::prefilter_dynamic_resources,
       &filters::dynamic_resources},
  };
  return table;
}

namespace {

// The first refusal of the plugins `run` selects, in table order; ok when none refuses.
template <typename Select>
Status first_refusal(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                     Select run) {
  if (!state.refusal.empty()) return {state.refused_by, {state.refusal}, true};
  for (const FilterPlugin& p : default_filters()) {
    if (!run(p)) continue;
    Status s = p.filter(state, pod, node);
    if (!s.ok()) {
      s.plugin = p.name;
      return s;
    }
  }
  return {};
}

}  // namespace

Status filter_node_only(const PodInfo& pod, const NodeInfo& node) {
  static const CycleState kNone;
  return first_refusal(kNone, pod, node, [](const FilterPlugin& p) { return p.node_only; });
}

std::string lacks_capacity(const NodeInfo& node,
                           const std::vector<std::pair<std::string, int64_t>>& amounts,
                           const DeviceInventory* devices) {
  for (const auto& [name, amount] : amounts) {
    if (node.allocatable.get(name) >= amount) continue;
    if (!node.allocatable.lists(name) && devices)
      if (auto served = devices->capacity(name, node.name, node.labels); served) {
        if (*served >= amount) continue;
        return "cannot allocate all claims";  // DynamicResources' words for it
      }
    return "Insufficient " + name;
  }
  return {};
}

PodCycle::PodCycle(const Snapshot& snapshot, const PodInfo& pod) : pod_(pod) {
  for (const FilterPlugin& p : default_filters())
    if (p.prefilter) p.prefilter(state_, pod, snapshot);
}

Status PodCycle::filter(const NodeInfo& node, bool node_only) const {
  return first_refusal(state_, pod_, node,
                       [&](const FilterPlugin& p) { return !node_only || p.node_only; });
}

Status PodCycle::filter_dynamic(const NodeInfo& node) const {
  return first_refusal(state_, pod_, node, [](const FilterPlugin& p) { return !p.node_only; });
}

Status PodCycle::filter_only(std::string_view plugin, const NodeInfo& node) const {
  return first_refusal(state_, pod_, node, [&](const FilterPlugin& p) { return p.name == plugin; });
}

std::vector<ClaimBinding> PodCycle::claim_bindings(const NodeInfo& node) const {
  std::vector<ClaimBinding> out;
  if (!filters::waiting_claims_bind(state_.volumes, node, &out)) out.clear();
  return out;
}

void Diagnosis::add(const Status& s) {
  for (const std::string& r : s.reasons) ++counts_[r];
}

std::string Diagnosis::reasons() const {
  std::vector<std::string> parts;
  for (const auto& [reason, n] : counts_) parts.push_back(fmt::format("{} {}", n, reason));
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string Diagnosis::message(size_t nodes) const {
  std::string out = fmt::format("0/{} nodes are available", nodes);
  if (!counts_.empty()) out += ": " + reasons();
  return out + ".";
}

}  // namespace planter::fit
