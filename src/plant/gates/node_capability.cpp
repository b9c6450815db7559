// The gate of the `node-capability` requirement (rule: src/plan/rules/node_capability.cpp): it
// watches the cluster's nodes and counts those that meet a node need (plan/node_needs.h): nodes
// the need's pod could be scheduled on by its nodeSelector, required node affinity, tolerations
// and cordon (the fit model's node-only filters, kube-scheduler's words), whose allocatable holds
// what one pod needs. Capacity, not room: whether there is room is the scheduler's to say (and,
// for atomic stacks, the stack-fits gate's). A provider that says "done" per node (an
// SriovNetworkNodeState) must say it for a node to count. An extended resource a node does not
// list is counted in the devices that serve it there (a DeviceClass's extendedResourceName over
// the node's ResourceSlices, fit/devices.h): on a DRA cluster no node lists nvidia.com/gpu. A
// need whose pods claim devices counts the nodes whose published devices could serve its claims
// (their templates and classes as the cluster holds them, any claim's allocation left aside:
// capacity again). Decided once per change of the cluster's nodes, devices and those states.
#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>

#include "fit/framework.h"
#include "fit/pod_info.h"
#include "fit/resources.h"
#include "fit/snapshot.h"
#include "model/object.h"
#include "plan/node_needs.h"
#include "plan/node_providers.h"
#include "plant/gates/gate.h"
#include "plant/readiness_check.h"

namespace planter::plant {

namespace json = boost::json;

namespace {

class NodeCapabilityGate : public Gate {
 public:
  explicit NodeCapabilityGate(GateContext& context) : c_(context) {}

  void require(size_t u, const Requirement& r, std::vector<std::string>& keys) override {
    waited_on_.insert(r.cluster);
    c_.fleet.watch_for_the_fit(r.cluster, "v1", "Node");
    if (extended(r) || claims(r)) {
      devices_on_.insert(r.cluster);
      for (const char* kind : kDeviceKinds) c_.fleet.watch(r.cluster, kDevices, kind);
    }
    if (claims(r)) {
      claims_on_.insert(r.cluster);
      for (const char* kind : kClaimKinds) c_.fleet.watch(r.cluster, kDevices, kind);
    }
    std::vector<NodeState>& states = states_[u] = states_of(u);
    for (const NodeState& s : states) {
      c_.fleet.watch(r.cluster, s.api_version, s.kind);
      state_kinds_[r.cluster].insert({s.api_version, s.kind});
    }
    keys.push_back(key(r.cluster));
  }

  std::optional<Wait> check(size_t u, const Requirement& r) override {
    const std::string& cluster = r.cluster;
    if (!c_.fleet.linked(cluster)) return Wait{c_.fleet.link_status(cluster)};
    if (!c_.fleet.synced(cluster, "v1", "Node")) return Wait{"reading the cluster's nodes"};
    for (const auto& [on, kinds] :
         {std::pair{&devices_on_, std::span<const char* const>(kDeviceKinds)},
          std::pair{&claims_on_, std::span<const char* const>(kClaimKinds)}})
      if (on->contains(cluster))
        for (const char* kind : kinds)
          if (!c_.fleet.synced(cluster, kDevices, kind) &&
              !c_.fleet.unserved(cluster, kDevices, kind))
            return Wait{"reading the cluster's devices"};
    size_t n = SIZE_MAX;
    std::from_chars(r.when.value.data(), r.when.value.data() + r.when.value.size(), n);
    if (n >= c_.plan.node_needs.size()) return std::nullopt;
    const std::vector<NodeState>& states = states_[u];
    for (const NodeState& s : states)
      if (!c_.fleet.synced(cluster, s.api_version, s.kind))
        return Wait{fmt::format("reading the cluster's {}s", s.kind)};
    const Decision& d = decide(cluster, n, states);
    if (d.holds) return std::nullopt;
    return Wait{d.why + progress(u), true};
  }

  // Nodes, and the state kinds of the node providers its needs name (known while planting).
  std::vector<std::string_view> kinds_read() const override { return {"*"}; }
  void changed(const std::string& cluster, const json::object& o) override {
    if (!waited_on_.contains(cluster)) return;
    std::pair<std::string, std::string> kind{string_field(o, {"apiVersion"}),
                                             string_field(o, {"kind"})};
    bool claim_kind = std::find(std::begin(kClaimKinds), std::end(kClaimKinds), kind.second) !=
                      std::end(kClaimKinds);
    bool device = kind.first == kDevices && devices_on_.contains(cluster) &&
                  (!claim_kind || claims_on_.contains(cluster));
    if (kind != std::pair<std::string, std::string>{"v1", "Node"} && !device &&
        !state_kinds_[cluster].contains(kind))
      return;
    ++generation_[cluster];
    if (!wake_posted_.insert(cluster).second) return;
    c_.loop.post([this, cluster] {
      wake_posted_.erase(cluster);
      c_.wake(key(cluster));
    });
  }

  void synced(const std::string& cluster) override {
    ++generation_[cluster];
    if (waited_on_.contains(cluster)) c_.loop.post([this, cluster] { c_.wake(key(cluster)); });
  }

 private:
  static constexpr const char* kDevices = "resource.k8s.io/v1";
  static constexpr const char* kDeviceKinds[] = {"ResourceSlice", "DeviceClass", "DeviceTaintRule"};
  static constexpr const char* kClaimKinds[] = {"ResourceClaimTemplate", "ResourceClaim"};

  const NodeNeed* need_of(const Requirement& r) const {
    size_t n = SIZE_MAX;
    std::from_chars(r.when.value.data(), r.when.value.data() + r.when.value.size(), n);
    return n < c_.plan.node_needs.size() ? &c_.plan.node_needs[n] : nullptr;
  }
  // The need asks an extended resource (a domain-prefixed name), which devices may serve.
  bool extended(const Requirement& r) const {
    if (const NodeNeed* need = need_of(r))
      for (const auto& [name, _] : need->resources)
        if (fit::is_extended_resource(name)) return true;
    return false;
  }
  // Its pods claim devices.
  bool claims(const Requirement& r) const {
    const NodeNeed* need = need_of(r);
    return need && need->claims;
  }

  // A provider's per-node "done" (an SriovNetworkNodeState per node, node_providers.h).
  struct NodeState {
    std::string api_version, kind, ns;
    ReadinessPredicate when;
  };

  // The per-node states of the providers unit `u` waits for (read once, when it is required).
  std::vector<NodeState> states_of(size_t u) const {
    std::vector<NodeState> out;
    for (const Requirement& q : c_.plan.units[u].requirements) {
      if (q.rule != "node-capability" || !q.unit) continue;
      const ObjectRef& t = c_.plan.target(q);
      const NodeProvider* p = node_provider(t.group(), t.kind);
      if (!p || p->node_state_kind.empty()) continue;
      auto when = ReadinessPredicate::parse(p->node_state_when);
      if (!when) continue;
      out.push_back({std::string(p->node_state_api_version), std::string(p->node_state_kind), t.ns,
                     when.value()});
    }
    return out;
  }

  struct Decision {
    uint64_t generation = 0;
    bool holds = false;
    std::string why;
  };

  // How far the providers the unit waits for are, as they say it ("; MachineConfigPool
  // worker-cnf Updating, 1 of 3 machines updated"): read from the watches of their own waits.
  std::string progress(size_t u) const {
    std::string out;
    for (const Requirement& q : c_.plan.units[u].requirements) {
      if (q.rule != "node-capability" || q.when.type == ReadinessPredicate::Type::kNodeCapability)
        continue;
      const ObjectRef& t = c_.plan.target(q);
      if (t.name.empty()) continue;
      if (auto o = c_.fleet.get(q.cluster, t.api_version, t.kind, t.ns, t.name))
        if (std::string p = provider_progress(*o); !p.empty()) out += "; " + p;
    }
    return out;
  }

  static std::string key(std::string_view cluster) {
    return fmt::format("{}\nnode-capability", cluster);
  }

  const fit::Snapshot& nodes_of(const std::string& cluster) {
    uint64_t generation = generation_[cluster];
    auto& slot = snapshots_[cluster];
    if (slot.first != generation || !slot.second) {
      fit::Snapshot* snapshot = (slot.second = std::make_unique<fit::Snapshot>()).get();
      c_.fleet.for_each(cluster, "v1", "Node",
                        [snapshot](const json::object& node) { snapshot->add_node(node); });
      if (devices_on_.contains(cluster))
        for (const char* kind : kDeviceKinds)
          c_.fleet.for_each(cluster, kDevices, kind,
                            [snapshot](const json::object& o) { snapshot->add_volume_object(o); });
      // Claims without their allocations: what the devices could serve, not what is free. Read
      // whole (check() waited for their watches), so a template it lacks does not exist yet.
      if (claims_on_.contains(cluster)) {
        snapshot->set_volumes_complete();
        for (const char* kind : kClaimKinds)
          c_.fleet.for_each(cluster, kDevices, kind, [snapshot](const json::object& o) {
            json::object spec_only = o;
            spec_only.erase("status");
            snapshot->add_volume_object(spec_only);
          });
      }
      slot.first = generation;
    }
    return *slot.second;
  }

  const fit::PodInfo& pod_of(size_t n) {
    auto [it, fresh] = pods_.try_emplace(n);
    if (fresh) it->second = fit::PodInfo::from(c_.plan.node_needs[n].pod);
    return it->second;
  }

  const Decision& decide(const std::string& cluster, size_t n,
                         const std::vector<NodeState>& states) {
    uint64_t generation = generation_[cluster];
    Decision& d = decided_[cluster + "\n" + std::to_string(n)];
    if (d.generation == generation && generation != 0) return d;
    d.generation = generation;
    const NodeNeed& need = c_.plan.node_needs[n];
    const fit::PodInfo& pod = pod_of(n);
    const fit::Snapshot& snapshot = nodes_of(cluster);
    fit::Diagnosis diagnosis;
    int64_t have = 0;
    const fit::DeviceInventory& devices = snapshot.devices();
    std::optional<fit::PodDevices> claims;
    if (need.claims) claims = devices.resolve(pod);
    for (const fit::NodeInfo& node : snapshot.nodes()) {
      fit::Status s = fit::filter_node_only(pod, node);
      if (!s.ok()) {
        diagnosis.add(s);
        continue;
      }
      std::string lacks = fit::lacks_capacity(node, need.resources, &devices);
      if (lacks.empty() && claims) {
        if (!claims->refusal.empty())
          lacks = claims->refusal;
        else if (!devices.allocate(*claims, node.name, node.labels, node.allocatable))
          lacks = "cannot allocate all claims";
      }
      // A provider that says "done" per node has not said it for this one yet.
      for (const NodeState& s : states) {
        if (!lacks.empty()) break;
        Readiness state =
            c_.fleet.readiness(cluster, s.api_version, s.kind, s.ns, node.name, s.when);
        if (state.exists && !state.holds)
          lacks = fmt::format("node(s) whose {} does not say {} yet", s.kind, s.when.str());
      }
      if (!lacks.empty()) {
        diagnosis.add(lacks);
        continue;
      }
      ++have;
    }
    d.holds = have >= need.nodes;
    size_t total = snapshot.nodes().size();
    d.why = fmt::format("{} node{} of {} with {}: {}/{} node{} {} it", need.nodes,
                        need.nodes == 1 ? "" : "s", cluster, need.what, have, total,
                        total == 1 ? "" : "s", total == 1 ? "has" : "have");
    if (!diagnosis.empty()) d.why += fmt::format(" ({})", diagnosis.reasons());
    return d;
  }

  GateContext& c_;
  std::set<std::string> waited_on_;
  std::set<std::string> devices_on_;  // clusters whose devices a need reads
  std::set<std::string> claims_on_;   // and their claims and templates
  std::map<std::string, std::set<std::pair<std::string, std::string>>> state_kinds_;
  std::unordered_map<size_t, std::vector<NodeState>> states_;  // by unit
  std::map<std::string, uint64_t> generation_;
  std::set<std::string> wake_posted_;
  std::map<std::string, std::pair<uint64_t, std::unique_ptr<fit::Snapshot>>> snapshots_;
  std::unordered_map<size_t, fit::PodInfo> pods_;
  std::unordered_map<std::string, Decision> decided_;
};

}  // namespace

std::unique_ptr<Gate> make_node_capability_gate(GateContext& context) {
  return std::make_unique<NodeCapabilityGate>(context);
}

}  // namespace planter::plant
