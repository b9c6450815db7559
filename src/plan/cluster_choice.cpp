#include "plan/cluster_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

#include "plan/stacks/pod_kinds.h"

namespace planter {

namespace json = boost::json;

namespace {

std::optional<int64_t> parse_count(std::string_view text) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxClusterCount)
    return std::nullopt;
  return n;
}

std::string cluster_names(const Inventory& inventory, const std::vector<uint32_t>& clusters) {
  std::string out;
  for (uint32_t c : clusters) {
    if (!out.empty()) out += ", ";
    out += inventory.clusters()[c].name;
  }
  return out;
}

}  // namespace

std::vector<size_t> choice_indices(std::string_view arg) {
  std::vector<size_t> out;
  size_t n = 0;
  bool digits = false;
  for (size_t i = 0; i <= arg.size(); ++i) {
    char c = i < arg.size() ? arg[i] : ',';
    if (c == ',') {
      if (digits) out.push_back(n);
      n = 0;
      digits = false;
    } else {
      n = n * 10 + static_cast<size_t>(c - '0');
      digits = true;
    }
  }
  return out;
}

fit::ClusterCandidate choice_candidate(const ClusterInfo& cluster, const ClusterChoice& choice,
                                       std::chrono::system_clock::time_point now) {
  fit::ClusterCandidate c;
  c.name = cluster.name;
  if (!choice.spread.key.empty())
    if (auto it = cluster.labels.find(choice.spread.key); it != cluster.labels.end())
      c.domain = it->second;
  c.taint = fit::judge_taints(cluster.taints, choice.tolerations, now);
  c.labels = &cluster.labels;
  c.properties = &cluster.properties;
  return c;
}

ClusterChoices read_cluster_choices(const std::vector<Object>& objects, const SeedIndex& index,
                                    const std::vector<Placement>& placements,
                                    const Inventory& inventory,
                                    const std::vector<StackNeeds>& stacks, const KindTable& kinds,
                                    Diagnostics& diags) {
  ClusterChoices out;
  out.of_object.assign(objects.size(), -1);
  std::vector<std::optional<size_t>> stack_of(objects.size());
  for (size_t s = 0; s < stacks.size(); ++s) {
    for (const StackMember& m : stacks[s].members) stack_of[m.object] = s;
    for (auto made : {stacks[s].anchor, stacks[s].pod_group})
      if (made) stack_of[*made] = s;
  }
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < objects.size(); ++i) {
    const json::object* notes = index.annotations(i);
    const auto* text = string_in(notes, kClusterCountAnnotation);
    const Object& o = objects[i];
    if (!text) {
      // What only a choice of clusters reads, on an object that makes none.
      for (auto [key, what] :
           {std::pair{kClusterSpreadAnnotation, "spreads"},
            std::pair{kClusterPreferencesAnnotation, "ranks the clusters of"},
            std::pair{kClusterTolerationsAnnotation, "tolerates taints of the clusters of"}})
        if (string_in(notes, key))
          diags.add(o.where(), o.display(),
                    fmt::format("{} {} a choice of clusters, and the object chooses none (no {})",
                                key, what, kClusterCountAnnotation),
                    fmt::format("add planter.nephio.org/cluster-count and a cluster-selector, or "
                                "remove {}",
                                key));
      continue;
    }
    auto count = parse_count(*text);
    if (!count) {
      diags.add(o.where(), o.display(),
                fmt::format("{} \"{}\" is not a whole number from 1 to {}", kClusterCountAnnotation,
                            std::string_view(*text), kMaxClusterCount),
                "e.g. planter.nephio.org/cluster-count: \"2\"");
      continue;
    }
    if (!string_in(notes, kClusterSelectorAnnotation) && !string_in(notes, kClustersAnnotation)) {
      diags.add(
          o.where(), o.display(),
          fmt::format("{} chooses among the clusters {} or {} names, and the object has "
                      "neither",
                      kClusterCountAnnotation, kClusterSelectorAnnotation, kClustersAnnotation),
          "add planter.nephio.org/cluster-selector (e.g. tier=edge)");
      continue;
    }
    // The choice's rules, each read from its annotation when there is one; a malformed one is
    // said at the object, which then makes no choice.
    bool readable = true;
    auto read = [&](std::string_view key, auto parse, auto& into, std::string_view example) {
      const json::string* text = string_in(notes, key);
      if (!text || !readable) return;
      auto parsed = parse(std::string_view(*text));
      if (parsed) {
        into = std::move(parsed.value());
        return;
      }
      readable = false;
      diags.add(o.where(), o.display(), fmt::format("{}: {}", key, parsed.error().message),
                fmt::format("e.g. {}: {}", key, example));
    };
    fit::ClusterSpread spread;
    std::vector<fit::ClusterToleration> tolerations;
    std::vector<fit::ClusterPreference> preferences;
    read(kClusterSpreadAnnotation, parse_cluster_spread, spread,
         "\"topologyKey=region,maxSkew=1,whenUnsatisfiable=DoNotSchedule\"");
    read(kClusterTolerationsAnnotation, parse_cluster_tolerations, tolerations,
         "'[{\"key\": \"maintenance\", \"operator\": \"Exists\", \"effect\": \"NoSelect\"}]'");
    read(kClusterPreferencesAnnotation, parse_cluster_preferences, preferences,
         "'[{\"weight\": 50, \"selector\": \"region=eu\"}]'");
    if (!readable) continue;
    std::string name = stack_of[i] ? "stack " + stacks[*stack_of[i]].name : o.display();
    std::vector<uint32_t> candidates(placements[i].clusters.begin(), placements[i].clusters.end());
    auto [at, fresh] = by_name.try_emplace(name, out.choices.size());
    if (fresh) {
      ClusterChoice c;
      c.name = name;
      c.source = o.source;
      c.count = *count;
      c.candidates = std::move(candidates);
      c.stack = stack_of[i];
      c.spread = std::move(spread);
      c.tolerations = std::move(tolerations);
      c.preferences = std::move(preferences);
      out.choices.push_back(std::move(c));
      const ClusterChoice& made = out.choices.back();
      if (static_cast<size_t>(made.count) > made.candidates.size()) {
        std::string message = fmt::format(
            "{} is {}, and only {} cluster(s) are candidates{}{}", kClusterCountAnnotation,
            made.count, made.candidates.size(), made.candidates.empty() ? "" : ": ",
            cluster_names(inventory, made.candidates));
        // Planned offline: the management cluster's cluster objects may add candidates.
        if (inventory.offline())
          diags.warn(o.where(), o.display(),
                     message +
                         " (of the seed and --cluster; planting also counts the cluster "
                         "objects on the management cluster)");
        else
          diags.add(o.where(), o.display(), message, "lower the count, or widen the selector");
      }
    } else {
      const ClusterChoice& first = out.choices[at->second];
      if (first.count != *count || first.candidates != candidates ||
          cluster_spread_annotation(first.spread) != cluster_spread_annotation(spread) ||
          cluster_tolerations_annotation(first.tolerations) !=
              cluster_tolerations_annotation(tolerations) ||
          cluster_preferences_annotation(first.preferences) !=
              cluster_preferences_annotation(preferences)) {
        diags.add(
            o.where(), o.display(),
            fmt::format("the members of {} choose their clusters differently (this one {} "
                        "of {}; the one at {} {} of {})",
                        name, *count, cluster_names(inventory, candidates), first.source.str(),
                        first.count, cluster_names(inventory, first.candidates)),
            "a stack goes to one choice of clusters: give every member the same "
            "placement, or use the Stack's spec.clusters");
        continue;
      }
    }
    out.of_object[i] = static_cast<int32_t>(at->second);
    out.choices[at->second].objects.push_back(i);
  }
  if (out.choices.empty()) return out;
  // The objects that follow a chosen Namespace's placement join its choice.
  for (size_t i = 0; i < objects.size(); ++i) {
    if (out.of_object[i] >= 0 || placements[i].rule != "namespace") continue;
    for (size_t ns : index.namespace_of(i))
      if (out.of_object[ns] >= 0) {
        out.of_object[i] = out.of_object[ns];
        out.choices[static_cast<size_t>(out.of_object[ns])].objects.push_back(i);
        break;
      }
  }
  // A stack's members are one choice: a member placed on its own would split it.
  for (size_t c = 0; c < out.choices.size(); ++c) {
    ClusterChoice& choice = out.choices[c];
    if (!choice.stack) continue;
    for (const StackMember& m : stacks[*choice.stack].members)
      if (out.of_object[m.object] != static_cast<int32_t>(c)) {
        const Object& o = objects[m.object];
        diags.add(o.where(), o.display(),
                  fmt::format("the other members of its stack ({}) choose {} of their clusters, "
                              "and this one does not",
                              choice.name, choice.count),
                  "give every member the same placement, or use the Stack's spec.clusters");
      }
  }
  // What the fit model places for a choice that is not a stack's: its objects' pods.
  Diagnostics scratch;  // a malformed pod-template annotation is reported by the stack step
  std::optional<PodShapesByKind> shapes;
  for (ClusterChoice& choice : out.choices) {
    if (choice.stack) continue;
    for (size_t i : choice.objects) {
      const Object& o = objects[i];
      std::vector<PodShape> kind_shapes;
      if (!kinds.is_builtin_group(o.ref.group())) {
        if (!shapes) shapes = seed_pod_shapes(objects, scratch);
        kind_shapes = pod_shapes_of(o, *shapes);
        if (kind_shapes.empty()) continue;
      }
      for (StackPods& p : pod_kinds_of(o, kinds, kind_shapes))
        choice.pod_kinds.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace planter
