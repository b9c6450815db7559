#include "plan/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <map>
#include <set>

#include "fit/resources.h"
#include "model/quantity.h"
#include "model/yaml.h"
#include "plan/annotate_in_place.h"
#include "plan/graph_edges.h"
#include "plan/placement.h"
#include "plan/predicate_traits.h"
#include "plan/rules.h"

namespace planter {

namespace json = boost::json;

namespace {

std::string name_column(const ObjectRef& r) {
  return r.ns.empty() ? r.name : r.ns + "/" + r.name;
}

std::string kind_column(const ObjectRef& r) {
  auto g = r.group();
  return g.empty() ? r.kind : fmt::format("{}.{}", r.kind, g);
}

std::string waits_for(const Plan& plan, const Unit& u, bool wide) {
  std::string out;
  for (const Requirement& r : u.requirements) {
    if (!out.empty()) out += ", ";
    out += plan.describe(r);
    if (r.cluster != u.cluster && !traits_of(r.when.type).names_its_cluster)
      out += " on " + r.cluster;
    if (wide) out += fmt::format(" ({})", r.rule);
  }
  return out.empty() ? "-" : out;
}

std::string summary(const Plan& plan) {
  std::set<std::string> used;
  for (const Unit& u : plan.units) used.insert(u.cluster);
  return fmt::format(
      "{} unit{} of {} object{} on {} cluster{}, {} wave{}, {} requirement{} on "
      "objects not in the seed",
      plan.units.size(), plan.units.size() == 1 ? "" : "s", plan.objects.size(),
      plan.objects.size() == 1 ? "" : "s", used.size(), used.size() == 1 ? "" : "s",
      plan.wave_count(), plan.wave_count() == 1 ? "" : "s", plan.external_requirement_count(),
      plan.external_requirement_count() == 1 ? "" : "s");
}

// Graph node ids must be identifiers in DOT and Mermaid.
std::string node_id(size_t unit) {
  return fmt::format("u{}", unit);
}

std::string escape_label(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"')
      out += "\\\"";
    else
      out += c;
  }
  return out;
}

std::vector<std::string> used_clusters(const Plan& plan) {
  std::vector<std::string> out;
  for (const ClusterInfo& c : plan.clusters)
    if (std::any_of(plan.units.begin(), plan.units.end(),
                    [&](const Unit& u) { return u.cluster == c.name; }))
      out.push_back(c.name);
  return out;
}

}  // namespace

// One line per stack: what it asks, and what one node (or domain) must hold.
std::string stack_lines(const Plan& plan) {
  std::string out;
  for (const StackNeeds& s : plan.stacks) {
    // Every resource the pods ask, by kube-scheduler's rule (fit::pod_requests): what
    // `plan --fit` places.
    out +=
        fmt::format("stack {}: {} pod{}{} asking {}", s.name, s.pods, s.pods == 1 ? "" : "s",
                    s.per_node_pods ? " (and one per node)" : "", fit::resources_text(s.requests));
    if (s.colocated_on == "kubernetes.io/hostname")
      out += fmt::format("; co-located: one node must hold all of it");
    else if (!s.colocated_on.empty())
      out += fmt::format("; co-located on {}: one domain holds all of it, its biggest pod asks {}",
                         s.colocated_on, fit::resources_text(s.share));
    else
      out += fmt::format("; its biggest pod asks {}", fit::resources_text(s.share));
    out += "\n";
  }
  return out;
}

namespace {

// What the seed holds but planter never declares, and why.
std::string set_aside_lines(const Plan& plan) {
  std::string out = fmt::format("set aside ({}: read, never declared):\n", plan.set_aside.size());
  for (const SetAside& a : plan.set_aside)
    out += fmt::format("  {} {} ({}): {}\n", kind_column(a.ref), name_column(a.ref), a.source.str(),
                       a.why);
  return out;
}

}  // namespace

std::string render_table(const Plan& plan, bool wide) {
  struct Row {
    std::string wave, cluster, kind, name, waits;
  };
  std::vector<Row> rows;
  rows.push_back({"WAVE", "CLUSTER", "KIND", "NAME", "WAITS FOR"});
  for (const Unit& u : plan.units) {
    const Object& o = plan.object_of(u);
    rows.push_back({std::to_string(u.wave), u.cluster, kind_column(o.ref), name_column(o.ref),
                    waits_for(plan, u, wide)});
  }
  size_t w[4] = {0, 0, 0, 0};
  for (const Row& r : rows) {
    w[0] = std::max(w[0], r.wave.size());
    w[1] = std::max(w[1], r.cluster.size());
    w[2] = std::max(w[2], r.kind.size());
    w[3] = std::max(w[3], r.name.size());
  }
  std::string out;
  out.reserve(rows.size() * 100);
  for (const Row& r : rows)
    out += fmt::format("{:<{}}   {:<{}}   {:<{}}   {:<{}}   {}\n", r.wave, w[0], r.cluster, w[1],
                       r.kind, w[2], r.name, w[3], r.waits);
  out += "\n" + summary(plan) + "\n";
  if (!plan.stacks.empty()) out += "\n" + stack_lines(plan);
  if (!plan.set_aside.empty()) out += "\n" + set_aside_lines(plan);
  return out;
}

namespace {

// The nodes a unit's pods need (node-capability), drawn once per cluster and need: their ids
// ("nc<k>") by unit, and each one's label.
struct CapabilityNodes {
  std::vector<std::pair<size_t, std::string>> edges;                         // (unit, node id)
  std::vector<std::vector<std::pair<std::string, std::string>>> by_cluster;  // (id, what)

  CapabilityNodes(const Plan& plan, const std::vector<std::string>& clusters) {
    by_cluster.resize(clusters.size());
    std::map<std::pair<std::string, std::string>, std::string> ids;
    for (size_t i = 0; i < plan.units.size(); ++i)
      for (const Requirement& r : plan.units[i].requirements) {
        if (!traits_of(r.when.type).about_nodes) continue;
        auto [it, fresh] =
            ids.try_emplace({r.cluster, r.when.arg}, "nc" + std::to_string(ids.size()));
        if (fresh)
          for (size_t k = 0; k < clusters.size(); ++k)
            if (clusters[k] == r.cluster) by_cluster[k].emplace_back(it->second, r.when.arg);
        edges.emplace_back(i, it->second);
      }
  }
};

}  // namespace

std::string render_dot(const Plan& plan) {
  std::string out =
      "digraph plan {\n  rankdir=LR;\n  compound=true;\n  node [shape=box, "
      "fontname=\"monospace\"];\n";
  std::vector<std::string> clusters = used_clusters(plan);
  CapabilityNodes capability(plan, clusters);
  for (size_t k = 0; k < clusters.size(); ++k) {
    const std::string& cluster = clusters[k];
    out += fmt::format("  subgraph \"cluster_{}\" {{\n    label=\"{}\";\n", escape_label(cluster),
                       escape_label(cluster));
    for (size_t i = 0; i < plan.units.size(); ++i) {
      const Unit& u = plan.units[i];
      if (u.cluster != cluster) continue;
      const Object& o = plan.object_of(u);
      out +=
          fmt::format("    {} [label=\"{}\\n{}\\nwave {}\"];\n", node_id(i),
                      escape_label(kind_column(o.ref)), escape_label(name_column(o.ref)), u.wave);
    }
    for (const auto& [id, what] : capability.by_cluster[k])
      out += fmt::format("    {} [shape=hexagon, label=\"nodes with\\n{}\"];\n", id,
                         escape_label(what));
    out += "  }\n";
  }
  GraphEdges g = graph_edges(plan, clusters);
  if (!g.reduced)
    out += fmt::format("  // more than {} units: every requirement is drawn, implied ones too\n",
                       kMaxReducedUnits);
  for (const GraphEdges::ClusterEdge& e : g.cluster_edges)
    out += fmt::format("  {} -> {} [lhead=\"cluster_{}\", label=\"cluster-ready\"];\n",
                       node_id(e.from), node_id(e.first), escape_label(clusters[e.cluster]));
  for (const GraphEdges::Edge& e : g.edges)
    out += fmt::format("  {} -> {} [label=\"{}\"];\n", node_id(e.from), node_id(e.to),
                       escape_label(e.label));
  for (const auto& [unit, id] : capability.edges)
    out += fmt::format("  {} -> {} [label=\"node-capability\"];\n", id, node_id(unit));
  out += "}\n";
  return out;
}

std::string render_mermaid(const Plan& plan) {
  std::string out = "flowchart LR\n";
  auto label = [](std::string s) {
    std::replace(s.begin(), s.end(), '"', '\'');
    return s;
  };
  auto clusters = used_clusters(plan);
  CapabilityNodes capability(plan, clusters);
  for (size_t k = 0; k < clusters.size(); ++k) {
    const std::string& cluster = clusters[k];
    out += fmt::format("  subgraph c{}[\"{}\"]\n", k, label(cluster));
    for (const auto& [id, what] : capability.by_cluster[k])
      out += fmt::format("    {}{{{{\"nodes with<br/>{}\"}}}}\n", id, label(what));
    for (size_t i = 0; i < plan.units.size(); ++i) {
      const Unit& u = plan.units[i];
      if (u.cluster != cluster) continue;
      const Object& o = plan.object_of(u);
      out += fmt::format("    {}[\"{}<br/>{}\"]\n", node_id(i), label(kind_column(o.ref)),
                         label(name_column(o.ref)));
    }
    out += "  end\n";
  }
  GraphEdges g = graph_edges(plan, clusters);
  for (const GraphEdges::ClusterEdge& e : g.cluster_edges)
    out += fmt::format("  {} -->|cluster-ready| c{}\n", node_id(e.from), e.cluster);
  for (const GraphEdges::Edge& e : g.edges)
    out += fmt::format("  {} -->|{}| {}\n", node_id(e.from), e.label, node_id(e.to));
  for (const auto& [unit, id] : capability.edges)
    out += fmt::format("  {} -->|node-capability| {}\n", id, node_id(unit));
  return out;
}

std::string render_annotated_seed(const Plan& plan, bool in_place) {
  // Gather, per object, its clusters and the seed objects it waits for.
  std::vector<std::vector<std::string>> clusters(plan.objects.size());
  std::vector<std::vector<std::string>> deps(plan.objects.size());
  for (const Unit& u : plan.units) {
    clusters[u.object].push_back(u.cluster);
    for (const Requirement& r : u.requirements) {
      if (!r.unit) continue;  // external requirements are derived again from the rules
      if (derived_again(r.rule)) continue;  // the annotated seed derives it again itself
      std::string id = plan.object_of(plan.units[*r.unit]).ref.id();
      auto& d = deps[u.object];
      if (std::find(d.begin(), d.end(), id) == d.end()) d.push_back(id);
    }
  }
  // What to set on each object; read from the plan, nothing copied yet.
  AnnotationEdits edits(plan.objects.size());
  for (size_t i = 0; i < plan.objects.size(); ++i) {
    const Object& o = plan.objects[i];
    const auto& c = clusters[i];
    std::map<std::string, std::string>& set = edits[i];
    bool placed_by_author = o.annotation(kClusterAnnotation) || o.annotation(kClustersAnnotation) ||
                            o.annotation(kClusterSelectorAnnotation);
    if (!placed_by_author && c.size() == 1) set[std::string(kClusterAnnotation)] = c.front();
    if (!placed_by_author && c.size() > 1)
      set[std::string(kClustersAnnotation)] = fmt::format("{}", fmt::join(c, ","));
    if (!o.annotation(kUserAnnotation) && declared_user(o) == kAdminUser)
      set[std::string(kUserAnnotation)] = std::string(kAdminUser);
    if (!deps[i].empty()) {
      std::string joined = fmt::format("{}", fmt::join(deps[i], ","));
      if (const auto* existing = o.annotation(kDependenciesAnnotation);
          existing && !existing->empty()) {
        // Keep what the author wrote; add what planter derived.
        std::string merged(*existing);
        for (const auto& d : deps[i])
          if (merged.find(d) == std::string::npos) merged += "," + d;
        joined = merged;
      }
      set[std::string(kDependenciesAnnotation)] = joined;
    }
  }
  // The seed's own text, comments and all, where it can be edited in place.
  if (in_place)
    if (auto text = annotate_in_place(plan, edits)) return *text;
  // Else every object afresh. Stacks first: planning the output again applies them again (adding
  // nothing) and gives the same plan, stack-fits included.
  std::vector<json::value> docs;
  docs.reserve(plan.stacks.size() + plan.objects.size() + plan.set_aside.size());
  for (const StackNeeds& s : plan.stacks) docs.emplace_back(s.body);
  for (size_t i = 0; i < plan.objects.size(); ++i) {
    Object o = plan.objects[i];
    for (const auto& [key, value] : edits[i]) o.set_annotation(key, value);
    docs.emplace_back(std::move(o.body));
  }
  // What is set aside goes back as it was read (after the rest): planning the output again sets it
  // aside again, and the tools that read it (kpt, helm test, Argo CD) still find it.
  for (const SetAside& a : plan.set_aside) docs.emplace_back(a.body);
  std::vector<const json::value*> ptrs;
  for (const auto& d : docs) ptrs.push_back(&d);
  return to_yaml_stream(ptrs);
}

}  // namespace planter
