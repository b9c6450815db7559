// Amounts of resources as kube-scheduler counts them (NodeResourcesFit): cpu in millicores,
// everything else in its base unit (bytes, hugepages bytes, devices), each rounded up as
// resource.Quantity's MilliValue and Value round. Every resource a pod may request or a node may
// advertise is kept: ephemeral-storage, hugepages-<size>, and extended resources
// (nvidia.com/gpu, intel.com/sriov, openshift.io/<name>). Sums saturate instead of overflowing:
// a hostile seed's 2^31 replicas of 1Ei are "more than any node has", never negative.
#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace planter::fit {

// An extended resource's name: domain-prefixed, outside kubernetes.io ("nvidia.com/gpu"), which a
// device plugin or devices (DRA's extendedResourceName) serve.
inline bool is_extended_resource(std::string_view name) {
  return name.find('/') != std::string_view::npos && !name.starts_with("kubernetes.io/");
}

struct Resources {
  int64_t milli_cpu = 0;
  int64_t memory = 0;             // bytes
  int64_t ephemeral_storage = 0;  // bytes
  // hugepages-* and extended resources, sorted by name; no zero amounts.
  std::vector<std::pair<std::string, int64_t>> scalar;

  int64_t get(std::string_view name) const;  // any resource by its name ("cpu" in millicores)
  // Whether a hugepages or extended resource is listed (a node that lists none of a resource
  // has no device plugin for it).
  bool lists(std::string_view name) const {
    for (const auto& [n, _] : scalar)
      if (n == name) return true;
    return false;
  }
  void add(std::string_view name, int64_t amount);
  Resources& operator+=(const Resources& o);
  Resources& operator-=(const Resources& o);
  Resources times(int64_t n) const;
  bool operator==(const Resources&) const = default;
};

// A ResourceList (a container's requests or limits, a node's allocatable, a pod's overhead):
// every amount by name, "pods" excluded. Amounts that are not quantities count as 0 (the seed's
// validation refuses them; a served object has none).
Resources resources_of(const boost::json::object* list);

// The pods a node takes (its allocatable "pods"; 110, the kubelet's default, when it says none),
// clamped to int32.
int64_t allowed_pods(const boost::json::object* allocatable);

// One container's requests: its limit where it states a limit and no request (as the API server
// defaults it). `container`: a container of a pod spec.
Resources container_requests(const boost::json::value& container);

// What a pod asks of its node for scheduling (kube-scheduler's computePodResourceRequest): for
// each resource, the sum of its containers' and sidecars' requests, or the biggest init
// container with the sidecars started before it, whichever is more; plus the pod's overhead. A
// container's request is its limit where it states a limit and no request (the API server
// defaults it so; a pod template from a manifest is not defaulted yet). `spec` is a pod spec.
Resources pod_requests(const boost::json::object& spec);

// Each resource the larger of the two (the biggest pod of several kinds).
Resources at_least(Resources r, const Resources& floor);

// For people: "2 cpu, 4Gi, 1 nvidia.com/gpu, 2Gi hugepages-1Gi" (amounts that are 0 left out,
// cpu and memory always said). With `asked`, only the other resources it asks for are said (what a
// node has free, next to what a stack needs).
std::string resources_text(const Resources& r, const Resources* asked = nullptr);

// Saturating int64 arithmetic for amounts.
int64_t add_sat(int64_t a, int64_t b);
int64_t mul_sat(int64_t a, int64_t b);

}  // namespace planter::fit
