// The gate of `cluster-ready` (rule: src/plan/rules/cluster_ready.cpp): a unit of a workload
// cluster waits until planter has linked that cluster (its kubeconfig read, its API answering).
// The engine evaluates a cluster's units again whenever its link changes, so no key is needed.
#include "plant/gates/gate.h"

namespace planter::plant {

namespace {

class ClusterReadyGate : public Gate {
 public:
  explicit ClusterReadyGate(GateContext& c) : c_(c) {}

  void require(size_t, const Requirement&, std::vector<std::string>&) override {}

  std::optional<Wait> check(size_t u, const Requirement&) override {
    const std::string& cluster = c_.plan.units[u].cluster;
    if (c_.fleet.linked(cluster)) return std::nullopt;
    return Wait{c_.fleet.link_status(cluster)};
  }

 private:
  GateContext& c_;
};

}  // namespace

std::unique_ptr<Gate> make_cluster_ready_gate(GateContext& context) {
  return std::make_unique<ClusterReadyGate>(context);
}

}  // namespace planter::plant
