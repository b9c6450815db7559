// What an object's pods need of a node that not every node has (docs/node-configuration.md):
// extended resources and huge pages in their containers' requests and limits, node labels in
// their nodeSelector and required node affinity (the labels every node has left out), a
// RuntimeClass's node selector, and the resources of the secondary networks they attach to (the
// pod annotation k8s.v1.cni.cncf.io/networks -> the NetworkAttachmentDefinition, or the
// SriovNetwork that generates it -> its k8s.v1.cni.cncf.io/resourceName). Read from the pod
// templates of built-in workloads and the pod paths of custom resources (pod_shapes.h), and
// matched against the providers the seed holds (node_providers.h). The node-capability rule
// makes a unit with a need wait for nodes that meet it; its gate counts them.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/diagnostics.h"
#include "model/kinds.h"
#include "model/object.h"
#include "plan/node_providers.h"
#include "plan/readiness.h"

namespace planter {

inline constexpr std::string_view kNetworksAnnotation = "k8s.v1.cni.cncf.io/networks";
inline constexpr std::string_view kResourceNameAnnotation = "k8s.v1.cni.cncf.io/resourceName";

// A provider of the seed (a kind of node_providers.h's table), read once: how it says it is done.
struct SeedProvider {
  size_t object = 0;  // index into the seed's objects
  const NodeProvider* kind = nullptr;
  ReadinessPredicate done;  // on itself (exists when the table says nothing)
  // The object whose state says it is done (a PerformanceProfile's MachineConfigPool), and how.
  std::optional<ObjectRef> done_object;
  ReadinessPredicate done_object_when;
};

// One kind of pod of an object that needs something of its nodes.
struct NodeNeed {
  size_t object = 0;  // index into the seed's objects
  // One pod as the object makes it (metadata and spec, a RuntimeClass's node selector and
  // tolerations merged in): the nodes are matched against its nodeSelector, required node
  // affinity and tolerations.
  boost::json::object pod;
  // What one pod needs of a node's allocatable that not every node has: hugepages-<size> and
  // extended resources, by name (sorted), amounts in base units; a network's resource counts 1
  // per attachment.
  std::vector<std::pair<std::string, int64_t>> resources;
  // The node labels its selectors name (key=value, or key for Exists), for people.
  std::vector<std::string> labels;
  // Its pods claim devices (spec.resourceClaims): a node has it when its published devices can
  // serve the claims (Dynamic Resource Allocation, docs/dra.md).
  bool claims = false;
  // How many nodes must have it: one per replica when its pods must be apart (required pod
  // anti-affinity on kubernetes.io/hostname that matches the pods themselves), else one.
  int64_t nodes = 1;
  // The seed's providers of part of it (indices into NodeNeeds::providers), and the objects of
  // the NetworkAttachmentDefinitions or SriovNetworks its networks come from.
  std::vector<size_t> providers;
  std::vector<size_t> networks;
  // Networks its annotation names that the seed does not hold (namespace, name).
  std::vector<std::pair<std::string, std::string>> external_networks;
  // What nodes must have, for people: "hugepages-1Gi ≥ 2Gi, profile=performance" (empty when it
  // needs only its networks' definitions to exist).
  std::string what;
};

struct NodeNeeds {
  std::vector<NodeNeed> needs;  // in object order
  std::vector<SeedProvider> providers;
};

// The needs of every object of the seed, and the seed's providers. Problems in what they read (a
// malformed networks annotation) go to `diags`.
NodeNeeds read_node_needs(const std::vector<Object>& objects, const KindTable& kinds,
                          Diagnostics& diags);

}  // namespace planter
