// PodTopologySpread's filter as kube-scheduler runs it for constraints with
// whenUnsatisfiable: DoNotSchedule. For each constraint the pods matching its labelSelector (and
// matchLabelKeys) in the pod's namespace are counted per value of its topologyKey, over the
// nodes the pod's node affinity admits (nodeAffinityPolicy Honor, the default) whose taints it
// tolerates only under nodeTaintsPolicy Honor; a node fits when placing the pod there keeps
// (count + 1) - (smallest count) within maxSkew. ScheduleAnyway constraints only score, and the
// sim does not score them (docs/sim.md).
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/kube_scheduler/cache.h"

namespace planter::sim::sched {

class TopologySpreadCheck {
 public:
  TopologySpreadCheck(const boost::json::object& pod, const std::string& ns, const Cache& cache);

  struct Failure {
    std::string reason;
    bool resolvable = true;
  };
  std::optional<Failure> filter(const NodeInfo& node) const;

  static constexpr const char* kReason = "node(s) didn't match pod topology spread constraints";
  static constexpr const char* kMissingLabelReason =
      "node(s) didn't match pod topology spread constraints (missing required label)";

 private:
  struct Constraint {
    std::string topology_key;
    int64_t max_skew = 1;
    int64_t min_domains = 1;
    boost::json::object selector;  // labelSelector with matchLabelKeys folded in
    CompiledSelector compiled;
    bool has_selector = false;  // without a labelSelector a constraint counts no pod
    bool self_match = false;
    int64_t min_count = 0;  // the smallest count over the domains (0 below minDomains)
    std::unordered_map<std::string, int64_t> counts;  // value -> matching pods
  };
  std::vector<Constraint> constraints_;
};

}  // namespace planter::sim::sched
