// Placement: which clusters each object of a seed goes to.
//
// The built-in rules form one ordered table (placement_rules()); the first rule that has an answer
// for an object decides. Namespaces and CRDs without an explicit placement are placed in a second
// tier, after everything else, because they go wherever the objects that need them go.
#pragma once

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/diagnostics.h"
#include "model/object.h"
#include "plan/inventory.h"
#include "plan/placement_annotations.h"
#include "plan/seed_index.h"

namespace planter {

// Clusters as indices into Inventory::clusters(), ascending (inventory order), no duplicates. Most
// objects go to one or two clusters, which fit without an allocation.
using ClusterSet = boost::container::small_vector<uint32_t, 2>;

struct Placement {
  ClusterSet clusters;
  std::string_view rule;  // the rule that decided
};

struct PlacementContext {
  const std::vector<Object>& objects;
  const SeedIndex& index;
  const Inventory& inventory;
  uint32_t default_cluster;
  // Explicit placements (from annotations), computed first for every object.
  const std::vector<std::optional<Placement>>& explicit_placement;
  // Decisions of the first tier, read by usage propagation.
  const std::vector<std::optional<Placement>>& placed;
};

struct PlacementRule {
  std::string_view name;
  std::string_view summary;
  std::optional<Placement> (*apply)(const PlacementContext& ctx, size_t object);
};

// The objects whose placement a Namespace or CRD follows when placed by usage (the objects in the
// Namespace, the custom resources of the CRD's kind); empty for other objects.
SeedIndex::Objects usage_users(const std::vector<Object>& objects, const SeedIndex& index,
                               size_t object);

// The built-in placement rules, in the order they are tried.
std::span<const PlacementRule> placement_rules();

// Places every object; `default_cluster` is an index into the inventory. An object whose
// annotations name an unknown cluster is reported and gets an empty placement.
std::vector<Placement> place_objects(const std::vector<Object>& objects, const SeedIndex& index,
                                     const Inventory& inventory, uint32_t default_cluster,
                                     Diagnostics& diags);

}  // namespace planter
