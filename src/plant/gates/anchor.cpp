#include "plant/gates/anchor.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "model/object.h"
#include "plan/stacks/stack_policy.h"
#include "plant/readiness_check.h"

namespace planter::plant {

namespace json = boost::json;

void AnchorGate::require(const std::string& cluster) {
  fleet_.watch(cluster, "v1", "Node");
  fleet_.watch(cluster, "v1", "Pod");
}

AnchorGate::Pod AnchorGate::pod(const std::string& cluster, const std::string& ns,
                                const std::string& stack) {
  std::optional<Pod> found;
  fleet_.for_each(cluster, "v1", "Pod", [&](const json::object& p) {
    const json::string* label = find_string(p, {"metadata", "labels", kAnchorLabel});
    if (!label || *label != stack || string_field(p, {"metadata", "namespace"}) != ns) return;
    if (find_path(p, {"metadata", "deletionTimestamp"})) return;
    std::string name = string_field(p, {"metadata", "name"});
    Pod a{string_field(p, {"spec", "nodeName"}), {}};
    if (a.node.empty()) {
      const json::object* scheduled = find_condition(p, "PodScheduled");
      std::string message = scheduled ? string_field(*scheduled, {"message"}) : "";
      a.why = fmt::format("anchor pod {} is not bound yet{}", name,
                          message.empty() ? "" : ": " + message);
    }
    // Of several (a rollout), the bound one decides.
    if (!found || (found->node.empty() && !a.node.empty())) found = std::move(a);
  });
  if (!found) return {"", "no anchor pod yet"};
  if (found->node.empty()) return *found;
  auto node = fleet_.get(cluster, "v1", "Node", "", found->node);
  if (!node)
    found->why = fmt::format("the anchor's node {} is gone", found->node);
  else if (auto* u = find_path(*node, {"spec", "unschedulable"}); u && u->is_bool() && u->as_bool())
    found->why = fmt::format("the anchor's node {} is cordoned", found->node);
  else if (const fit::GroupFit& f = fits_.fit_on_node(cluster, stack, found->node); !f.fits)
    // Someone else's pod may have landed there since planter chose it.
    found->why =
        fmt::format("the group no longer fits on the anchor's node {}: {}", found->node, f.why);
  return *found;
}

std::optional<std::string> AnchorGate::check(const std::string& cluster, const std::string& ns,
                                             const std::string& stack) {
  if (!fleet_.synced(cluster, "v1", "Pod") || !fleet_.synced(cluster, "v1", "Node"))
    return std::string("reading the cluster's nodes and pods");
  Pod p = pod(cluster, ns, stack);
  if (p.why.empty()) return std::nullopt;
  return p.why;
}

}  // namespace planter::plant
