// TaintToleration: every NoSchedule and NoExecute taint of the node must be tolerated
// (PreferNoSchedule only scores); the first one that is not is named.
#include <fmt/format.h>

#include "fit/filters/filters.h"

namespace planter::fit::filters {

Status taint_toleration(const CycleState&, const PodInfo& pod, const NodeInfo& node) {
  for (const Taint& t : node.taints) {
    if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
    if (!tolerated(pod.tolerations, t))
      return {{}, {fmt::format("node(s) had untolerated taint {{{}: {}}}", t.key, t.value)}, true};
  }
  return {};
}

}  // namespace planter::fit::filters
