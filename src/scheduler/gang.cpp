#include "scheduler/gang.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "fit/framework.h"

namespace planter::scheduler {

namespace {

using fit::NodeInfo;
using fit::PodInfo;

// Places pods one by one on the snapshot, assuming each; takes them all back when it goes.
class Placer {
 public:
  Placer(fit::Snapshot& view, const GroupPolicy& policy, const std::set<std::string>& isolated,
         Search& search)
      : view_(view),
        policy_(policy),
        isolated_(isolated),
        search_(search),
        claim_mark_(view.claim_mark()) {}
  ~Placer() {
    view_.forget(placed_.size());
    view_.unselect_claims(claim_mark_);
  }
  Placer(const Placer&) = delete;
  Placer& operator=(const Placer&) = delete;

  // Another group's isolation, or this one's, keeps the pod off the node.
  std::string isolation(const NodeInfo& n) const {
    for (const std::string& other : n.groups) {
      if (other == policy_.name) continue;
      if (policy_.isolate) return "node(s) ran pods of another pod group";
      if (isolated_.contains(other)) return "node(s) were isolated for pod group " + other;
    }
    return "";
  }

  // Places `pod` on the best allowed node (only `only` when given); false with the reasons. Of
  // every node, the search stops at feasible_nodes_to_find feasible ones, starting where the
  // last search stopped.
  bool place(const PodInfo& pod, std::optional<size_t> only, std::string& why,
             const std::vector<bool>* domain = nullptr) {
    const auto& nodes = view_.nodes();
    fit::PodCycle cycle(view_, pod);
    if (const std::string& refusal = cycle.prefilter_refusal(); !refusal.empty()) {
      // No node is looked at (kube-scheduler's FitError after a PreFilter's refusal).
      why = fmt::format("0/{} nodes are available: {}.", nodes.size(), refusal);
      return false;
    }
    fit::Diagnosis diag;
    std::optional<size_t> best;
    double best_room = -std::numeric_limits<double>::infinity();
    size_t total = only ? 1 : nodes.size();
    size_t want = only ? 1 : feasible_nodes_to_find(total), found = 0, looked = 0;
    size_t start = only || total == 0 ? 0 : search_.next_start % total;
    for (; looked < total && found < want; ++looked) {
      size_t n = only ? *only : (start + looked) % total;
      if (domain && !(*domain)[n]) {
        diag.add("node(s) were outside the pod group's topology domain");
        continue;
      }
      if (std::string refused = isolation(nodes[n]); !refused.empty()) {
        diag.add(refused);
        continue;
      }
      if (fit::Status s = cycle.filter(nodes[n]); !s.ok()) {
        diag.add(s);
        continue;
      }
      ++found;
      double room = fit::room_left(nodes[n], pod.requests);
      if (room > best_room || (room == best_room && nodes[n].name < nodes[*best].name))
        best_room = room, best = n;
    }
    if (!only && total > 0) search_.next_start = (start + looked) % total;
    if (!best) {
      why = diag.message(total);
      return false;
    }
    Binding b{&pod, nodes[*best].name, {}, {}};
    device_claims(pod, nodes[*best], b.devices);
    for (const fit::ClaimBinding& c : cycle.claim_bindings(nodes[*best])) {
      b.claims.push_back({c.claim->ns, c.claim->name, c.volume ? c.volume->name : ""});
      // The group's next pods find the claim bound where this one goes.
      view_.select_claim(c.claim->ns, c.claim->name, b.node, b.claims.back().volume);
    }
    // Not owned: the pod outlives the decision.
    view_.assume(*best, std::shared_ptr<const PodInfo>(std::shared_ptr<void>(), &pod));
    placed_.push_back(std::move(b));
    return true;
  }

  const std::vector<Binding>& bindings() const { return placed_; }

  // The pod's ResourceClaims as they are reserved on `node` (which passed DynamicResources):
  // each allocated there (the same allocation the view takes when the pod is assumed), or
  // allocated before; and, where devices serve its extended resources, a claim of its own.
  void device_claims(const PodInfo& pod, const fit::NodeInfo& node,
                     std::vector<DeviceClaimChoice>& out) const {
    if (!view_.devices().takes_devices(pod)) return;
    fit::PodDevices claims = view_.devices().resolve(pod);
    auto got = view_.devices().allocate(claims, node.name, node.labels, node.allocatable);
    if (!got) return;  // the filter said it fits: nothing to write (cannot happen)
    for (const fit::DeviceClaim* c : claims.allocated)
      out.push_back({c->ns, c->name, {}, true, {}});
    for (size_t c = 0; c < claims.to_allocate.size(); ++c) {
      const std::string& key = claims.to_allocate[c].first;
      auto slash = key.find('/');
      out.push_back({key.substr(0, slash), key.substr(slash + 1), (*got)[c], false, {}});
    }
    if (got->size() > claims.to_allocate.size()) {
      out.push_back({pod.ns, "", got->back(), false, claims.served_by_devices(node.allocatable)});
    }
  }

 private:
  fit::Snapshot& view_;
  const GroupPolicy& policy_;
  const std::set<std::string>& isolated_;
  Search& search_;
  size_t claim_mark_;
  std::vector<Binding> placed_;
};

}  // namespace

boost::json::object allocation_of(const DeviceClaimChoice& c, const std::string& node) {
  namespace json = boost::json;
  json::array results;
  for (const auto& [request, device] : c.allocation.results) {
    auto first = device.find('/'), last = device.rfind('/');
    results.push_back(json::object{{"request", request},
                                   {"driver", device.substr(0, first)},
                                   {"pool", device.substr(first + 1, last - first - 1)},
                                   {"device", device.substr(last + 1)}});
  }
  json::object allocation{{"devices", json::object{{"results", std::move(results)}}}};
  if (c.allocation.node_local)
    allocation["nodeSelector"] = json::object{
        {"nodeSelectorTerms",
         json::array{json::object{
             {"matchFields",
              json::array{json::object{{"key", "metadata.name"},
                                       {"operator", "In"},
                                       {"values", json::array{json::string(node)}}}}}}}}};
  return allocation;
}

boost::json::object extended_claim_of(const DeviceClaimChoice& c, const fit::PodInfo& pod) {
  namespace json = boost::json;
  json::array requests;
  for (const fit::PodDevices::Extended& e : c.extended)
    requests.push_back(json::object{{"name", e.request},
                                    {"exactly", json::object{{"deviceClassName", e.device_class},
                                                             {"allocationMode", "ExactCount"},
                                                             {"count", e.count}}}});
  return json::object{
      {"apiVersion", "resource.k8s.io/v1"},
      {"kind", "ResourceClaim"},
      {"metadata",
       json::object{{"generateName", pod.name + "-extended-resources-"},
                    {"namespace", pod.ns},
                    {"annotations",
                     json::object{{"resource.kubernetes.io/extended-resource-claim", "true"}}},
                    {"ownerReferences", json::array{json::object{{"apiVersion", "v1"},
                                                                 {"kind", "Pod"},
                                                                 {"name", pod.name},
                                                                 {"uid", pod.uid},
                                                                 {"controller", true},
                                                                 {"blockOwnerDeletion", true}}}}}},
      {"spec", json::object{{"devices", json::object{{"requests", std::move(requests)}}}}}};
}

boost::json::array extended_mappings(const DeviceClaimChoice& c) {
  namespace json = boost::json;
  json::array out;
  for (const fit::PodDevices::Extended& e : c.extended)
    out.push_back(json::object{
        {"containerName", e.container}, {"resourceName", e.resource}, {"requestName", e.request}});
  return out;
}

size_t feasible_nodes_to_find(size_t nodes) {
  constexpr size_t kMinNodes = 100, kMinPercent = 5;
  if (nodes < kMinNodes) return nodes;
  size_t less = nodes / 125;
  size_t percent = less >= 50 - kMinPercent ? kMinPercent : 50 - less;
  return std::max(kMinNodes, nodes * percent / 100);
}

namespace {

// A scheduling.k8s.io PodGroup: in each candidate domain (every node, or the nodes sharing a value
// of the topology key), its pods placed one after another as far as they fit; the domain placing
// most wins (ties: the first by value); bound when, there, at least min_member of the group are.
GroupDecision decide_upstream(fit::Snapshot& view, const std::vector<const PodInfo*>& order,
                              const GroupPolicy& policy, const std::set<std::string>& isolated,
                              Search& search) {
  const auto& nodes = view.nodes();
  std::map<std::string, std::vector<bool>> domains;
  if (policy.topology_key.empty()) {
    domains[""] = std::vector<bool>(nodes.size(), true);
  } else {
    for (size_t n = 0; n < nodes.size(); ++n) {
      const std::string* value = nodes[n].label(policy.topology_key);
      if (!value || (!policy.bound_domain.empty() && *value != policy.bound_domain)) continue;
      auto [it, _] = domains.try_emplace(*value, nodes.size(), false);
      it->second[n] = true;
    }
  }
  GroupDecision d;
  int64_t best = -1;
  std::string best_why;
  for (const auto& [value, mask] : domains) {
    Placer p(view, policy, isolated, search);
    std::string first_why;
    for (const PodInfo* pod : order) {
      std::string why;
      if (!p.place(*pod, std::nullopt, why, policy.topology_key.empty() ? nullptr : &mask) &&
          first_why.empty())
        first_why = fmt::format("pod {}: {}", pod->id(), why);
    }
    auto placed = static_cast<int64_t>(p.bindings().size());
    if (placed > best) {
      best = placed;
      best_why = first_why;
      d.bindings = p.bindings();
    }
  }
  std::string where = policy.topology_key.empty()
                          ? std::string()
                          : fmt::format(" in one domain of {}", policy.topology_key);
  if (domains.empty()) {
    d.why = fmt::format("pod group {}: no node has the label {} of its topology constraint",
                        policy.name, policy.topology_key);
    return d;
  }
  if (policy.bound + best < policy.min_member) {
    d.bindings.clear();
    d.why = fmt::format("pod group {}: minCount {} not reached: {} bound, {} more fit{}; {}",
                        policy.name, policy.min_member, policy.bound, best, where, best_why);
    return d;
  }
  if (best == 0) {
    d.why = fmt::format("pod group {}: {}", policy.name, best_why);
    return d;
  }
  d.bind = true;
  return d;
}

}  // namespace

GroupDecision decide_group(fit::Snapshot& view, const std::vector<const PodInfo*>& pods,
                           const GroupPolicy& policy, const std::set<std::string>& isolated,
                           Search& search) {
  GroupDecision d;
  int64_t have = policy.bound + static_cast<int64_t>(pods.size());
  if (have < policy.min_member) {
    d.why = fmt::format("pod group {} has {} of its {} {} pods", policy.name, have,
                        policy.upstream ? "minCount" : "minMember", policy.min_member);
    return d;
  }
  // Biggest first, then queue order, so that packing does not strand a big pod.
  std::vector<const PodInfo*> order = pods;
  auto size = [](const PodInfo* p) {
    return static_cast<double>(p->requests.milli_cpu) / 1000 +
           static_cast<double>(p->requests.memory) / (1 << 30);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const PodInfo* a, const PodInfo* b) { return size(a) > size(b); });
  if (policy.upstream) return decide_upstream(view, order, policy, isolated, search);
  const auto& nodes = view.nodes();
  auto prefix = [&](const std::string& pod) {
    return policy.name.empty()
               ? std::string()
               : fmt::format("pod group {}: {} pods cannot be placed together; pod {}: ",
                             policy.name, pods.size(), pod);
  };
  if (!policy.colocate) {
    Placer p(view, policy, isolated, search);
    for (const PodInfo* pod : order) {
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
  double chosen_room = -std::numeric_limits<double>::infinity();
  std::string first_why;
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (!policy.bound_node.empty() && nodes[n].name != policy.bound_node) continue;
    Placer p(view, policy, isolated, search);
    bool all = true;
    for (const PodInfo* pod : order) {
      std::string why;
      if (!p.place(*pod, n, why)) {
        if (first_why.empty())
          first_why = fmt::format("pod {} on {}: {}", pod->id(), nodes[n].name, why);
        all = false;
        break;
      }
    }
    if (!all) continue;
    double room = fit::room_left(nodes[n], {});
    if (room > chosen_room) {
      chosen_room = room;
      chosen = n;
      d.bindings = p.bindings();
    }
  }
  if (!chosen) {
    d.bindings.clear();
    d.why = fmt::format("pod group {}: no node holds all {} pods{}", policy.name, pods.size(),
                        first_why.empty() ? "" : " (first refusal: " + first_why + ")");
    if (!policy.bound_node.empty())
      d.why =
          fmt::format("pod group {}: node {}, where it runs, cannot hold its {} other pods ({})",
                      policy.name, policy.bound_node, pods.size(), first_why);
    return d;
  }
  d.bind = true;
  return d;
}

}  // namespace planter::scheduler
