#include "seed/planter_annotations.h"

#include <fmt/format.h>

#include <array>
#include <boost/json.hpp>

#include "model/strings.h"

namespace planter {

namespace {

namespace json = boost::json;

constexpr std::string_view kPrefix = "planter.nephio.org/";

// Where each is read: placement (plan/placement.h), rules (plan/rules.h), stacks
// (plan/stacks/stack_policy.h, pod_shapes.h), node providers (plan/node_providers.h), the
// operator's identity (plan/plan.h), and what planter writes itself (adopted-from by planting,
// same-node and isolate on the PodGroups of co-scheduled stacks). `networks` is the proof of
// concept's soft reference to a Network (its hello-world writes it): accepted, and no order
// follows from it.
constexpr std::array<std::string_view, 20> kKeys = {
    "planter.nephio.org/cluster",
    "planter.nephio.org/clusters",
    "planter.nephio.org/cluster-selector",
    "planter.nephio.org/cluster-count",
    "planter.nephio.org/cluster-spread",
    "planter.nephio.org/cluster-tolerations",
    "planter.nephio.org/cluster-preferences",
    "planter.nephio.org/rollout",
    "planter.nephio.org/dependencies",
    "planter.nephio.org/external-dependencies",
    "planter.nephio.org/ready-when",
    "planter.nephio.org/stack",
    "planter.nephio.org/pod-template",
    "planter.nephio.org/user",
    "planter.nephio.org/resource-prefix",
    "planter.nephio.org/adopted-from",
    "planter.nephio.org/same-node",
    "planter.nephio.org/isolate",
    "planter.nephio.org/networks",
    kOnImmutableAnnotation,
};

}  // namespace

std::span<const std::string_view> planter_annotation_keys() {
  return kKeys;
}

bool replaced_on_immutable(const Object& o) {
  const json::string* v = o.annotation(kOnImmutableAnnotation);
  return v && *v == "replace";
}

void check_planter_annotations(const Object& o, Diagnostics& diags) {
  const json::value* annotations = find_path(o.body, {"metadata", "annotations"});
  if (!annotations || !annotations->is_object()) return;
  for (const auto& kv : annotations->get_object()) {
    std::string_view key = kv.key();
    if (!key.starts_with(kPrefix)) continue;
    if (key == kOnImmutableAnnotation && !replaced_on_immutable(o)) {
      diags.add(o.where(), o.display(),
                fmt::format("metadata.annotations[\"{}\"]: {} is not a choice: the only one is "
                            "\"replace\"",
                            key, json::serialize(kv.value())),
                "set it to replace (delete and create the object again when a replant changes "
                "an immutable field), or remove it to have such a change refused");
      continue;
    }
    if (std::find(kKeys.begin(), kKeys.end(), key) != kKeys.end()) continue;
    std::string_view best;
    size_t best_distance = 4;
    for (std::string_view known : kKeys)
      if (size_t d = edit_distance(key.substr(kPrefix.size()), known.substr(kPrefix.size()));
          d < best_distance)
        best = known, best_distance = d;
    diags.add(o.where(), o.display(),
              fmt::format("metadata.annotations: planter reads no annotation \"{}\"", key),
              best.empty()
                  ? fmt::format("remove it, or use one of the keys docs/annotations.md lists "
                                "(planter.nephio.org/ is planter's own prefix)")
                  : fmt::format("did you mean `{}`?", best));
  }
}

}  // namespace planter
