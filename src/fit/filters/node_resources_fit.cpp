// NodeResourcesFit: the node has a free pod slot, and room for every resource the pod requests:
// cpu, memory, ephemeral-storage, hugepages-* and extended resources (a resource the node does not
// advertise has no room). Every shortage is a reason.
#include "fit/filters/filters.h"

namespace planter::fit::filters {

std::vector<std::string> insufficient(const NodeInfo& node, const Resources& need, int64_t pods,
                                      const DeviceInventory* devices) {
  std::vector<std::string> out;
  if (add_sat(node.pod_count, pods) > node.allowed_pods) out.emplace_back(kTooManyPods);
  auto check = [&](std::string_view name, int64_t amount) {
    if (amount > 0 && amount > node.free(name)) out.push_back("Insufficient " + std::string(name));
  };
  check("cpu", need.milli_cpu);
  check("memory", need.memory);
  check("ephemeral-storage", need.ephemeral_storage);
  for (const auto& [name, amount] : need.scalar) {
    // Served by devices where no device plugin lists it: DynamicResources' to judge.
    if (devices && !node.allocatable.lists(name) && !devices->serving_class(name).empty()) continue;
    check(name, amount);
  }
  return out;
}

Status node_resources_fit(const CycleState& state, const PodInfo& pod, const NodeInfo& node) {
  return {{}, insufficient(node, pod.requests, 1, state.devices.inventory), false};
}

}  // namespace planter::fit::filters
