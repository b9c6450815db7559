#include "sim/kube_scheduler/node_plugins.h"

#include <algorithm>
#include <cmath>

#include "sim/json_access.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

std::optional<Rejection> node_unschedulable(const IncomingPod& pod, const NodeInfo& node) {
  if (!node.unschedulable) return std::nullopt;
  // A pod that tolerates the unschedulable taint may still go there (DaemonSet pods do).
  Taint taint{"node.kubernetes.io/unschedulable", "", "NoSchedule"};
  if (tolerated(*pod.spec, taint)) return std::nullopt;
  return Rejection{{"node(s) were unschedulable"}, false};
}

std::optional<Rejection> taint_toleration(const IncomingPod& pod, const NodeInfo& node) {
  const Taint* t = first_untolerated(*pod.spec, node.taints);
  if (!t) return std::nullopt;
  return Rejection{{"node(s) had untolerated taint {" + t->key + ": " + t->value + "}"}, false};
}

std::optional<Rejection> node_affinity(const IncomingPod& pod, const NodeInfo& node) {
  if (pod.node_affinity.matches(node.label_values(), node.name)) return std::nullopt;
  return Rejection{{"node(s) didn't match Pod's node affinity/selector"}, false};
}

std::optional<Rejection> node_ports(const IncomingPod& pod, const NodeInfo& node) {
  if (pod.host_ports.empty()) return std::nullopt;
  for (const auto& [_, placed] : node.pods)
    for (const auto& used : placed->host_ports)
      if (std::any_of(pod.host_ports.begin(), pod.host_ports.end(),
                      [&](const HostPortClaim& want) { return want.clashes(used); }))
        return Rejection{{"node(s) didn't have free ports for the requested pod ports"}, true};
  return std::nullopt;
}

std::optional<Rejection> node_resources_fit(const IncomingPod& pod, const NodeInfo& node) {
  Rejection r;
  if (static_cast<int64_t>(node.pods.size()) + 1 > node.allocatable_pods)
    r.reasons.emplace_back("Too many pods");
  const Resources& want = pod.requests;
  const Resources& have = node.allocatable;
  const Resources& used = node.requested;
  if (want.cpu_milli > 0 && want.cpu_milli > have.cpu_milli - used.cpu_milli)
    r.reasons.emplace_back("Insufficient cpu");
  if (want.memory > 0 && want.memory > have.memory - used.memory)
    r.reasons.emplace_back("Insufficient memory");
  if (want.ephemeral_storage > 0 &&
      want.ephemeral_storage > have.ephemeral_storage - used.ephemeral_storage)
    r.reasons.emplace_back("Insufficient ephemeral-storage");
  for (const auto& [name, amount] : want.scalar) {
    if (amount <= 0) continue;
    auto h = have.scalar.find(name);
    if (h == have.scalar.end() && pod.dra_backed.contains(name)) continue;
    auto u = used.scalar.find(name);
    int64_t free =
        (h == have.scalar.end() ? 0 : h->second) - (u == used.scalar.end() ? 0 : u->second);
    if (amount > free) r.reasons.emplace_back("Insufficient " + name);
  }
  if (r.reasons.empty()) return std::nullopt;
  return r;
}

}  // namespace

IncomingPod incoming_pod(const json::object& pod) {
  static const json::object kNone;
  IncomingPod in;
  in.pod = &pod;
  in.spec = object_at(pod, "spec");
  if (!in.spec) in.spec = &kNone;
  in.requests = pod_requests(*in.spec);
  in.nonzero = pod_nonzero_requests(*in.spec);
  in.host_ports = host_ports(*in.spec);
  in.node_affinity = RequiredNodeAffinity(*in.spec);
  in.node_preferences = PreferredNodeAffinity(*in.spec);
  return in;
}

std::optional<Rejection> filter_node(const IncomingPod& pod, const NodeInfo& node) {
  if (auto r = node_unschedulable(pod, node)) return r;
  if (auto r = taint_toleration(pod, node)) return r;
  if (auto r = node_affinity(pod, node)) return r;
  if (auto r = node_ports(pod, node)) return r;
  if (auto r = node_resources_fit(pod, node)) return r;
  return std::nullopt;
}

int64_t least_allocated_score(const IncomingPod& pod, const NodeInfo& node) {
  auto one = [](int64_t requested, int64_t allocatable) -> int64_t {
    if (allocatable <= 0 || requested > allocatable) return 0;
    return (allocatable - requested) * kMaxNodeScore / allocatable;
  };
  int64_t cpu =
      one(node.nonzero_requested.cpu_milli + pod.nonzero.cpu_milli, node.allocatable.cpu_milli);
  int64_t memory = one(node.nonzero_requested.memory + pod.nonzero.memory, node.allocatable.memory);
  return (cpu + memory) / 2;
}

int64_t balanced_allocation_score(const IncomingPod& pod, const NodeInfo& node) {
  auto fraction = [](int64_t requested, int64_t allocatable) {
    if (allocatable <= 0) return 1.0;
    return std::min(1.0, static_cast<double>(requested) / static_cast<double>(allocatable));
  };
  double cpu =
      fraction(node.requested.cpu_milli + pod.requests.cpu_milli, node.allocatable.cpu_milli);
  double memory = fraction(node.requested.memory + pod.requests.memory, node.allocatable.memory);
  // The standard deviation of the two fractions.
  double deviation = std::abs(cpu - memory) / 2;
  return static_cast<int64_t>((1 - deviation) * static_cast<double>(kMaxNodeScore));
}

}  // namespace planter::sim::sched
