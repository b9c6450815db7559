#include "schedule/gang.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

namespace planter::schedule {

namespace {

// kube-scheduler's summary: "0/5 nodes are available: 3 Insufficient cpu, 2 node(s) were
// unschedulable."
std::string summary(size_t nodes, const std::map<std::string, int>& reasons) {
  std::vector<std::pair<std::string, int>> list(reasons.begin(), reasons.end());
  std::stable_sort(list.begin(), list.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out = fmt::format("0/{} nodes are available", nodes);
  for (size_t i = 0; i < list.size(); ++i)
    out += fmt::format("{} {} {}", i == 0 ? ":" : ",", list[i].second, list[i].first);
  return out + ".";
}

class Placer {
 public:
  Placer(const ClusterView& view, const GroupPolicy& policy, const std::set<std::string>& isolated)
      : view_(view), policy_(policy), isolated_(isolated) {}

  // Another group's isolation, or this one's, keeps the pod off the node.
  std::string isolation(size_t n) const {
    for (const std::string& other : view_.nodes()[n].groups) {
      if (other == policy_.name) continue;
      if (policy_.isolate) return "node(s) ran pods of another pod group";
      if (isolated_.contains(other)) return "node(s) were isolated for pod group " + other;
    }
    return "";
  }

  // Places `pod` on the best allowed node (only `only` when given); false with the reasons.
  bool place(const PendingPod& pod, std::optional<size_t> only, std::string& why) {
    const auto& nodes = view_.nodes();
    PodFit fit(view_, placed_, pod);
    std::map<std::string, int> reasons;
    std::optional<size_t> best;
    double best_room = -std::numeric_limits<double>::infinity();
    for (size_t n = 0; n < nodes.size(); ++n) {
      if (only && n != *only) continue;
      std::string refused = isolation(n);
      if (refused.empty()) refused = fit.refuses(n, taken_[n]);
      if (!refused.empty()) {
        ++reasons[refused];
        continue;
      }
      Usage with = taken_[n];
      with += pod.requests;
      double room = room_left(nodes[n], with);
      if (room > best_room || (room == best_room && nodes[n].name < nodes[*best].name))
        best_room = room, best = n;
    }
    if (!best) {
      why = summary(only ? 1 : nodes.size(), reasons);
      return false;
    }
    placed_.push_back({*best, &pod});
    taken_[*best] += pod.requests;
    return true;
  }

  std::vector<std::pair<const PendingPod*, std::string>> bindings() const {
    std::vector<std::pair<const PendingPod*, std::string>> out;
    for (const Tentative& t : placed_) out.emplace_back(t.pod, view_.nodes()[t.node].name);
    return out;
  }
  Usage taken_on(size_t n) const {
    auto it = taken_.find(n);
    return it == taken_.end() ? Usage{} : it->second;
  }

 private:
  const ClusterView& view_;
  const GroupPolicy& policy_;
  const std::set<std::string>& isolated_;
  std::vector<Tentative> placed_;
  std::map<size_t, Usage> taken_;
};

}  // namespace

GroupDecision decide_group(const ClusterView& view, const std::vector<const PendingPod*>& pods,
                           const GroupPolicy& policy, const std::set<std::string>& isolated) {
  GroupDecision d;
  int64_t have = policy.bound + static_cast<int64_t>(pods.size());
  if (have < policy.min_member) {
    d.why = fmt::format("pod group {} has {} of its minMember {} pods", policy.name, have,
                        policy.min_member);
    return d;
  }
  // Biggest first, then queue order, so that packing does not strand a big pod.
  std::vector<const PendingPod*> order = pods;
  std::stable_sort(order.begin(), order.end(), [](const PendingPod* a, const PendingPod* b) {
    return a->requests.cpu + a->requests.memory / (1 << 30) >
           b->requests.cpu + b->requests.memory / (1 << 30);
  });
  const auto& nodes = view.nodes();
  auto prefix = [&](const std::string& pod) {
    return policy.name.empty()
               ? std::string()
               : fmt::format("pod group {}: {} pods cannot be placed together; pod {}: ",
                             policy.name, pods.size(), pod);
  };
  if (!policy.colocate) {
    Placer p(view, policy, isolated);
    for (const PendingPod* pod : order) {
      std::string why;
      if (!p.place(*pod, std::nullopt, why)) {
        d.why = prefix(pod->id()) + why;
        return d;
      }
    }
    d.bind = true;
    d.bindings = p.bindings();
    return d;
  }
  // A same-node group: every pod on the node where it already runs, else on the node left with
  // the most room once all of it is there.
  std::optional<size_t> chosen;
  std::optional<Placer> chosen_placer;
  double chosen_room = -std::numeric_limits<double>::infinity();
  std::string first_why;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (!policy.bound_node.empty() && nodes[n].name != policy.bound_node) continue;
    Placer p(view, policy, isolated);
    bool all = true;
    for (const PendingPod* pod : order) {
      std::string why;
      if (!p.place(*pod, n, why)) {
        if (first_why.empty())
          first_why = fmt::format("pod {} on {}: {}", pod->id(), nodes[n].name, why);
        all = false;
        break;
      }
    }
    if (!all) continue;
    double room = room_left(nodes[n], p.taken_on(n));
    if (room > chosen_room) {
      chosen_room = room;
      chosen = n;
      chosen_placer.emplace(std::move(p));
    }
  }
  if (!chosen) {
    d.why = fmt::format("pod group {}: no node holds all {} pods{}", policy.name, pods.size(),
                        first_why.empty() ? "" : " (first refusal: " + first_why + ")");
    if (!policy.bound_node.empty())
      d.why =
          fmt::format("pod group {}: node {}, where it runs, cannot hold its {} other pods ({})",
                      policy.name, policy.bound_node, pods.size(), first_why);
    return d;
  }
  d.bind = true;
  d.bindings = chosen_placer->bindings();
  return d;
}

}  // namespace planter::schedule
