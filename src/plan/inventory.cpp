#include "plan/inventory.h"

#include <fmt/format.h>

#include <set>

#include "model/rfc3339.h"
#include "model/strings.h"
#include "plan/placement_annotations.h"

namespace planter {

namespace json = boost::json;

bool is_cluster_definition(const ObjectRef& ref) {
  if (ref.kind != "Cluster") return false;
  auto g = ref.group();
  return g == "planter.nephio.org" || g == "cluster.x-k8s.io";
}

bool is_cluster_api_kind(const ObjectRef& ref) {
  auto g = ref.group();
  return is_cluster_definition(ref) || g == "cluster.x-k8s.io" || g.ends_with(".cluster.x-k8s.io");
}

namespace {

// "edge1" of "edge1" and of the proof of concept's "fleet|edge1".
std::string_view name_of_ref(std::string_view ref) {
  auto bar = ref.find('|');
  return bar == std::string_view::npos ? ref : ref.substr(bar + 1);
}

}  // namespace

ClusterReferences cluster_references(const std::vector<Object>& objects,
                                     const std::vector<ClusterInfo>& given,
                                     std::string_view default_cluster) {
  std::set<std::string, std::less<>> known{std::string(kSelf)};
  std::set<std::string, std::less<>> named;
  ClusterReferences out;
  for (const Object& o : objects) {
    if (is_cluster_definition(o.ref)) known.insert(o.ref.name);
    const json::object* annotations = o.annotations();
    if (!annotations) continue;
    if (const auto* one = string_in(annotations, kClusterAnnotation))
      named.emplace(name_of_ref(*one));
    if (const auto* many = string_in(annotations, kClustersAnnotation))
      for (std::string_view ref : split_list(*many)) named.emplace(name_of_ref(ref));
    if (string_in(annotations, kClusterSelectorAnnotation)) out.selects = true;
  }
  for (const ClusterInfo& g : given) {
    if (!g.context.empty() || g.from != "flag")
      known.insert(g.name);
    else
      named.insert(g.name);  // only --cluster-labels names it
  }
  named.emplace(default_cluster);
  for (const std::string& n : named)
    if (!n.empty() && !known.contains(n)) out.unknown.push_back(n);
  return out;
}

std::vector<fit::ClusterTaint> read_cluster_taints(const json::object& cluster) {
  std::vector<fit::ClusterTaint> out;
  const json::value* taints = find_path(cluster, {"spec", "taints"});
  if (!taints || !taints->is_array()) return out;
  for (const json::value& t : taints->get_array()) {
    if (!t.is_object()) continue;
    fit::ClusterTaint taint{string_field(t.get_object(), {"key"}),
                            string_field(t.get_object(), {"value"}),
                            string_field(t.get_object(), {"effect"}),
                            parse_rfc3339(string_field(t.get_object(), {"timeAdded"}))};
    if (taint.key.empty() || (taint.effect != "NoSelect" && taint.effect != "NoSelectIfNew" &&
                              taint.effect != "PreferNoSelect"))
      continue;
    out.push_back(std::move(taint));
    if (out.size() == 64) break;  // the Cluster CRD's maxItems (docs/limits.md)
  }
  return out;
}

Inventory Inventory::build(const std::vector<Object>& objects, std::vector<ClusterInfo> given,
                           Diagnostics& diags, bool offline) {
  Inventory inv;
  inv.offline_ = offline;
  inv.clusters_.push_back({std::string(kSelf), "self", {}, std::nullopt, {}, {}, std::nullopt});
  for (size_t i = 0; i < objects.size(); ++i) {
    const Object& o = objects[i];
    if (!is_cluster_definition(o.ref)) continue;
    if (o.ref.name == kSelf) {
      diags.add(o.where(), o.display(),
                "a cluster cannot be named SELF: that name means the "
                "management cluster",
                "rename the cluster");
      continue;
    }
    if (const ClusterInfo* prev = inv.find(o.ref.name)) {
      if (prev->object && objects[*prev->object].ref.same_object(o.ref)) continue;
      diags.add(o.where(), o.display(),
                fmt::format("another cluster is already named \"{}\" ({})", o.ref.name,
                            prev->object ? objects[*prev->object].where() : prev->from),
                "cluster names must be unique across namespaces and kinds; rename one of them");
      continue;
    }
    inv.clusters_.push_back({o.ref.name,
                             "seed",
                             o.ref.ns,
                             i,
                             {},
                             labels_of(o.labels()),
                             std::nullopt,
                             read_cluster_taints(o.body)});
  }
  // The management cluster's cluster objects (and, offline, the names only they could resolve).
  // The seed's own definition of a cluster wins: once planted, it is the same object.
  for (ClusterInfo& g : given) {
    if (g.from == "flag") continue;
    if (const ClusterInfo* prev = inv.find(g.name)) {
      if (prev->from == "management" && g.existing && prev->existing)
        diags.warn("the management cluster", g.existing->short_form(),
                   fmt::format("another cluster object is named \"{}\" too ({}); planter plants "
                               "on the first",
                               g.name, prev->existing->short_form()));
    } else {
      inv.clusters_.push_back(std::move(g));
    }
  }
  for (ClusterInfo& f : given) {
    if (f.from != "flag") continue;
    bool merged = false;
    for (ClusterInfo& c : inv.clusters_) {
      if (c.name != f.name) continue;
      // A flag names the context of a cluster the seed creates, or adds labels to a cluster.
      if (!f.context.empty()) c.context = f.context;
      for (auto& [k, v] : f.labels) c.labels[k] = v;
      merged = true;
    }
    if (merged) continue;
    if (f.context.empty()) {  // only --cluster-labels named it
      diags.add(
          "--cluster-labels", "",
          fmt::format("no cluster is named \"{}\": labels need a cluster of the seed, of "
                      "--cluster, or a cluster object on the management cluster",
                      f.name),
          fmt::format("known clusters: {}; or add --cluster {}=CONTEXT", inv.names(), f.name));
      continue;
    }
    inv.clusters_.push_back(std::move(f));
  }
  return inv;
}

const ClusterInfo* Inventory::find(std::string_view name) const {
  auto i = index_of(name);
  return i ? &clusters_[*i] : nullptr;
}

std::optional<uint32_t> Inventory::index_of(std::string_view name) const {
  for (size_t i = 0; i < clusters_.size(); ++i)
    if (clusters_[i].name == name) return static_cast<uint32_t>(i);
  return std::nullopt;
}

Result<uint32_t> Inventory::resolve(std::string_view ref) const {
  std::string_view name = ref;
  std::string_view ns;
  if (auto bar = ref.find('|'); bar != std::string_view::npos) {
    ns = ref.substr(0, bar);
    name = ref.substr(bar + 1);
  }
  auto i = index_of(name);
  if (!i)
    return Error{fmt::format(
        "cluster \"{}\" is not in the seed, not given with --cluster, and no cluster object on "
        "the management cluster has that name",
        ref)};
  const ClusterInfo& c = clusters_[*i];
  if (!ns.empty() && (c.from == "seed" || c.from == "management") && c.namespace_ != ns)
    return Error{
        fmt::format("cluster \"{}\" is in namespace \"{}\", not \"{}\"", name, c.namespace_, ns)};
  return *i;
}

std::vector<uint32_t> Inventory::select(const LabelSelector& selector) const {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < clusters_.size(); ++i)
    if (selector.matches(clusters_[i].labels)) out.push_back(static_cast<uint32_t>(i));
  return out;
}

std::string Inventory::names() const {
  std::string out;
  for (const ClusterInfo& c : clusters_) out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

}  // namespace planter
