#include "plan/placement.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/strings.h"

namespace planter {

namespace json = boost::json;

namespace {

bool is_namespace(const ObjectRef& r) {
  return r.kind == "Namespace" && r.group().empty();
}
bool is_crd(const ObjectRef& r) {
  return r.kind == "CustomResourceDefinition" && r.group() == "apiextensions.k8s.io";
}
// Namespaces and CRDs are placed by usage, so they wait for the first tier.
bool second_tier(const ObjectRef& r) {
  return is_namespace(r) || is_crd(r);
}

// Adds `more` to `into`, keeping it ascending.
void merge_clusters(ClusterSet& into, std::span<const uint32_t> more) {
  for (uint32_t c : more) {
    auto at = std::lower_bound(into.begin(), into.end(), c);
    if (at == into.end() || *at != c) into.insert(at, c);
  }
}

// Reads the placement annotations of one object; nullopt when it has none.
std::optional<Placement> read_explicit(const Object& o, const json::object* annotations,
                                       const Inventory& inventory, Diagnostics& diags) {
  if (!annotations) return std::nullopt;
  const auto* one = string_in(annotations, kClusterAnnotation);
  const auto* many = string_in(annotations, kClustersAnnotation);
  const auto* selector = string_in(annotations, kClusterSelectorAnnotation);
  if (!one && !many && !selector) return std::nullopt;
  Placement p{{}, "explicit"};
  auto add_ref = [&](std::string_view annotation, std::string_view ref) {
    auto name = inventory.resolve(ref);
    if (!name) {
      diags.add(o.where(), o.display(), fmt::format("{}: {}", annotation, name.error().message),
                fmt::format("known clusters: {}; define the cluster in the seed, create its "
                            "cluster object on the management cluster, or pass "
                            "--cluster NAME=CONTEXT",
                            inventory.names()));
      return;
    }
    uint32_t one = name.value();
    const ClusterInfo& target = inventory.clusters()[one];
    if (target.from == "seed" && is_cluster_definition(o.ref) && target.name == o.ref.name &&
        target.namespace_ == o.ref.ns) {
      diags.add(o.where(), o.display(),
                fmt::format("{}: a cluster cannot be placed on itself: nothing can be declared on "
                            "\"{}\" before this object has created it",
                            annotation, target.name),
                "remove the annotation: cluster definitions go to the management cluster");
      return;
    }
    merge_clusters(p.clusters, {&one, 1});
  };
  if (one) add_ref(kClusterAnnotation, *one);
  if (many) {
    auto refs = split_list(*many);
    if (refs.empty())
      diags.add(
          o.where(), o.display(),
          fmt::format("{} \"{}\" names no cluster", kClustersAnnotation, std::string_view(*many)),
          "list cluster names separated by commas, e.g. edge1,edge2");
    for (auto ref : refs) add_ref(kClustersAnnotation, ref);
  }
  if (selector) {
    auto sel = LabelSelector::parse(*selector);
    if (!sel) {
      diags.add(o.where(), o.display(),
                fmt::format("{}: {}", kClusterSelectorAnnotation, sel.error().message),
                "write a label selector such as `tier=edge,region in (eu,us)`");
    } else {
      auto chosen = inventory.select(sel.value());
      if (chosen.empty() && inventory.offline())
        diags.warn(o.where(), o.display(),
                   fmt::format("{} \"{}\" matches no cluster of the seed or --cluster; planting "
                               "also matches the cluster objects on the management cluster",
                               kClusterSelectorAnnotation, std::string_view(*selector)));
      else if (chosen.empty())
        diags.add(o.where(), o.display(),
                  fmt::format("{} \"{}\" matches no known cluster", kClusterSelectorAnnotation,
                              std::string_view(*selector)),
                  "label the clusters (in the seed, on the management cluster's cluster objects, "
                  "or with --cluster-labels NAME=k=v)");
      merge_clusters(p.clusters, chosen);
    }
  }
  return p;
}

std::optional<Placement> place_explicitly(const PlacementContext& ctx, size_t i) {
  return ctx.explicit_placement[i];
}

std::optional<Placement> place_with_namespace(const PlacementContext& ctx, size_t i) {
  const Object& o = ctx.objects[i];
  if (o.ref.ns.empty()) return std::nullopt;
  Placement p{{}, "namespace"};
  bool found = false;
  for (size_t j : ctx.index.namespace_of(i)) {
    if (!ctx.explicit_placement[j]) continue;
    found = true;
    merge_clusters(p.clusters, ctx.explicit_placement[j]->clusters);
  }
  if (!found) return std::nullopt;
  return p;
}

std::optional<Placement> place_by_usage(const PlacementContext& ctx, size_t i) {
  if (!second_tier(ctx.objects[i].ref)) return std::nullopt;
  SeedIndex::Objects users = usage_users(ctx.objects, ctx.index, i);
  Placement p{{}, "usage"};
  for (size_t j : users)
    if (ctx.placed[j]) merge_clusters(p.clusters, ctx.placed[j]->clusters);
  if (p.clusters.empty()) return std::nullopt;
  return p;
}

std::optional<Placement> place_cluster_definition(const PlacementContext& ctx, size_t i) {
  if (!is_cluster_api_kind(ctx.objects[i].ref)) return std::nullopt;
  return Placement{{kSelfIndex}, "cluster-definition"};
}

std::optional<Placement> place_by_default(const PlacementContext& ctx, size_t) {
  return Placement{{ctx.default_cluster}, "default"};
}

constexpr PlacementRule kPlacementRules[] = {
    {"explicit", "planter.nephio.org/cluster, /clusters or /cluster-selector", place_explicitly},
    {"namespace", "a namespaced object follows its Namespace's explicit placement",
     place_with_namespace},
    {"usage", "a Namespace or CRD goes wherever the objects that need it go", place_by_usage},
    {"cluster-definition", "cluster definitions go to the management cluster",
     place_cluster_definition},
    {"default", "everything else goes to the default target", place_by_default},
};

}  // namespace

SeedIndex::Objects usage_users(const std::vector<Object>& objects, const SeedIndex& index,
                               size_t object) {
  const Object& o = objects[object];
  if (is_namespace(o.ref)) return index.in_namespace(o.ref.name);
  if (!is_crd(o.ref)) return {};
  const auto* g = find_string(o.body, {"spec", "group"});
  const auto* k = find_string(o.body, {"spec", "names", "kind"});
  if (!g || !k) return {};
  return index.of_kind(*g, *k);
}

std::span<const PlacementRule> placement_rules() {
  return kPlacementRules;
}

std::vector<Placement> place_objects(const std::vector<Object>& objects, const SeedIndex& index,
                                     const Inventory& inventory, uint32_t default_cluster,
                                     Diagnostics& diags) {
  std::vector<std::optional<Placement>> explicit_placement(objects.size());
  for (size_t i = 0; i < objects.size(); ++i)
    explicit_placement[i] = read_explicit(objects[i], index.annotations(i), inventory, diags);

  std::vector<std::optional<Placement>> placed(objects.size());
  PlacementContext ctx{objects, index, inventory, default_cluster, explicit_placement, placed};
  for (bool tier2 : {false, true}) {
    for (size_t i = 0; i < objects.size(); ++i) {
      if (second_tier(objects[i].ref) != tier2) continue;
      for (const PlacementRule& rule : kPlacementRules) {
        if (auto p = rule.apply(ctx, i)) {
          placed[i] = std::move(p);
          break;
        }
      }
    }
  }
  std::vector<Placement> out;
  out.reserve(objects.size());
  for (auto& p : placed) out.push_back(std::move(*p));
  return out;
}

}  // namespace planter
