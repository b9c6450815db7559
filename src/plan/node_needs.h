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
#include <string>
#include <utility>
#include <vector>

#include "model/diagnostics.h"
#include "model/kinds.h"
#include "model/object.h"

namespace planter {

inline constexpr std::string_view kNetworksAnnotation = "k8s.v1.cni.cncf.io/networks";
inline constexpr std::string_view kResourceNameAnnotation = "k8s.v1.cni.cncf.io/resourceName";

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
  // How many nodes must have it: one per replica when its pods must be apart (required pod
  // anti-affinity on kubernetes.io/hostname that matches the pods themselves), else one.
  int64_t nodes = 1;
  // Objects of the seed that provide part of it (node_providers.h), and the
  // NetworkAttachmentDefinitions or SriovNetworks its networks come from.
  std::vector<size_t> providers;
  std::vector<size_t> networks;
  // Networks its annotation names that the seed does not hold (namespace, name).
  std::vector<std::pair<std::string, std::string>> external_networks;
  // "hugepages-1Gi ≥ 2Gi, profile=performance".
  std::string what;
};

// The needs of every object of the seed, in object order. Problems in what they read (a
// malformed networks annotation) go to `diags`.
std::vector<NodeNeed> read_node_needs(const std::vector<Object>& objects, const KindTable& kinds,
                                      Diagnostics& diags);

}  // namespace planter
