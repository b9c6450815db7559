// A pod as the fit model's filters read it, parsed once from a Pod (or from a pod template that
// planter made into one, for a stack's kinds of pods): what it requests, what it tolerates, where
// it may go (nodeName, nodeSelector, required node affinity), its required inter-pod
// (anti-)affinity, host ports and hard topology spread constraints. Read from the Kubernetes
// documentation ("Assigning Pods to Nodes", "Taints and Tolerations", "Pod Topology Spread
// Constraints"); shares nothing with the sim's scheduler, which judges it.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fit/node_terms.h"
#include "fit/resources.h"
#include "model/label_selector.h"

namespace planter::fit {

struct Taint {
  std::string key, value, effect;
};

struct Toleration {
  std::string key, op = "Equal", value, effect;  // empty effect: every effect
  bool tolerates(const Taint& t) const;
};

bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint);

// A required pod (anti-)affinity term: which pods it matches (namespaces and label selector) and
// over which node label.
struct PodTerm {
  std::string topology_key;
  std::string owner_ns;        // the namespace of the pod that has the term
  bool any_namespace = false;  // a namespaceSelector is given (planter does not read Namespaces:
                               // any selector is taken as every namespace)
  std::vector<std::string> namespaces;
  std::optional<LabelSelector> selector;  // none: the term matches no pod

  bool matches(const std::string& ns, const Labels& labels) const;
  static std::vector<PodTerm> read(const boost::json::array& terms, const std::string& owner_ns);
};

// A container port with a hostPort: it takes (hostIP, protocol, hostPort) on its node.
struct HostPort {
  std::string ip = "0.0.0.0";
  std::string protocol = "TCP";
  int64_t port = 0;
  // Two claims clash on the same port and protocol when their IPs are equal or either is the
  // wildcard 0.0.0.0 (kube-scheduler's HostPortInfo).
  bool clashes(const HostPort& o) const;
};

// A topologySpreadConstraint with whenUnsatisfiable: DoNotSchedule (ScheduleAnyway only scores).
struct SpreadConstraint {
  int64_t max_skew = 1;
  std::string topology_key;
  std::optional<LabelSelector> selector;  // with matchLabelKeys folded in; none: counts no pod
  int64_t min_domains = 1;
  bool honor_node_affinity = true;  // nodeAffinityPolicy (default Honor)
  bool honor_taints = false;        // nodeTaintsPolicy (default Ignore)
};

struct PodInfo {
  std::string ns, name, uid, created;
  std::string node_name;  // spec.nodeName: where it is bound, or (pending) where it must go
  // Its pod group: spec.schedulingGroup.podGroupName (a scheduling.k8s.io PodGroup, Kubernetes'
  // own: `upstream_group`), else its scheduler-plugins pod-group label.
  std::string group;
  bool upstream_group = false;
  std::string stack;  // its stack label
  Labels labels;
  Resources requests;
  std::vector<Toleration> tolerations;
  std::vector<std::pair<std::string, std::string>> node_selector;
  boost::json::array node_terms;  // required nodeSelectorTerms, ORed
  bool has_node_terms = false;    // required node affinity is given (an empty list matches none)
  NodeTerms node_affinity;        // node_terms, read once
  std::vector<PodTerm> affinity, anti_affinity;
  std::vector<HostPort> host_ports;
  std::vector<SpreadConstraint> spread;
  std::vector<std::string> claims;  // persistentVolumeClaim names its volumes mount
  // spec.resourceClaims: each names a ResourceClaim, or a template a claim of its own is made
  // from (resource.k8s.io, fit/devices.h); once made, status.resourceClaimStatuses names it
  // (`claim`).
  struct DeviceClaimRef {
    std::string name, claim, template_name;
  };
  std::vector<DeviceClaimRef> device_claims;
  // Each container's extended resources, as kube-scheduler names the device request that serves
  // one where devices do (KEP-5004): `container-<i>-request-<j>`, i the container's place over
  // initContainers then containers, j the resource's among the container's sorted requests
  // (a limit standing for an absent request).
  struct ExtendedRequest {
    std::string container, resource, request;
    int64_t amount = 0;
  };
  std::vector<ExtendedRequest> extended_requests;

  // `pod`: a Pod (metadata and spec).
  static PodInfo from(const boost::json::object& pod);
  std::string id() const { return ns + "/" + name; }
  // Its placement depends on other pods (ports, inter-pod affinity, spread), not only on the
  // node and its free room.
  bool interacts() const {
    return !host_ports.empty() || !affinity.empty() || !anti_affinity.empty() || !spread.empty();
  }
  // It asks an extended resource (a domain-prefixed name outside kubernetes.io: nvidia.com/gpu),
  // which devices may serve (fit/devices.h).
  bool requests_extended() const {
    for (const auto& [name, amount] : requests.scalar)
      if (amount > 0 && is_extended_resource(name)) return true;
    return false;
  }
};

}  // namespace planter::fit
