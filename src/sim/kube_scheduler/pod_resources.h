// What a pod asks of a node, as kube-scheduler's NodeResourcesFit counts it, and the QoS class
// kube-apiserver gives it. Read from the pod's spec as stored (after API defaulting, so a
// container with limits and no requests already requests its limits).
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace planter::sim::sched {

// Amounts of resources. cpu in millicores; memory, ephemeral-storage and every other resource
// (hugepages-2Mi, nvidia.com/gpu, ...) in whole units.
struct Resources {
  int64_t cpu_milli = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  std::map<std::string, int64_t, std::less<>> scalar;

  void add(const Resources& other);
  void subtract(const Resources& other);
  // Each amount the larger of the two.
  void raise_to(const Resources& other);
  // Reads a ResourceList ({"cpu": "100m", "memory": "1Gi", ...}); unreadable amounts are 0.
  static Resources from_list(const boost::json::object* list);
};

// The pod's request: the larger of the sum of its containers (sidecar init containers
// included) and what each init container needs while it runs, plus spec.overhead.
Resources pod_requests(const boost::json::object& pod_spec);

// cpu (millicores) and memory (bytes) for scoring: a container that requests none of one
// counts 100m cpu or 200Mi memory, as kube-scheduler's scoring does.
struct NonZeroRequests {
  int64_t cpu_milli = 0;
  int64_t memory = 0;
};
NonZeroRequests pod_nonzero_requests(const boost::json::object& pod_spec);

// A container port that takes a port of its node: (hostIP, protocol, hostPort). Two clash on
// the same protocol and port when their IPs are equal or either is 0.0.0.0 (kube-scheduler's
// NodePorts; an empty hostIP is 0.0.0.0).
struct HostPortClaim {
  std::string ip, protocol;
  int64_t port = 0;
  bool clashes(const HostPortClaim& o) const {
    return port == o.port && protocol == o.protocol &&
           (ip == o.ip || ip == "0.0.0.0" || o.ip == "0.0.0.0");
  }
};
std::vector<HostPortClaim> host_ports(const boost::json::object& pod_spec);

// "Guaranteed", "Burstable" or "BestEffort", from the cpu and memory requests and limits of
// every container and init container.
std::string qos_class(const boost::json::object& pod_spec);

}  // namespace planter::sim::sched
