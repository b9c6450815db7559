// The table from requirement type to gate: where planting checks each kind of requirement.
#include <fmt/format.h>

#include "model/object.h"
#include "plant/gates/anchor.h"
#include "plant/gates/gate.h"
#include "plant/gates/stack_fits.h"

namespace planter::plant {

using Type = ReadinessPredicate::Type;

std::string object_wake_key(std::string_view cluster, std::string_view key) {
  return fmt::format("{}\n{}", cluster, key);
}

std::string object_wake_key(std::string_view cluster, const ObjectRef& ref) {
  return object_wake_key(cluster, object_key(ref.group(), ref.kind, ref.ns, ref.name));
}

Gates::Gates(GateContext context) : context_(std::move(context)) {
  auto add = [&](std::unique_ptr<Gate> gate, std::initializer_list<Type> types) {
    for (Type t : types) by_type_[t] = gate.get();
    for (std::string_view kind : gate->kinds_read())
      by_kind_[std::string(kind)].push_back(gate.get());
    gates_.push_back(std::move(gate));
  };
  auto fits = std::make_unique<StackFitsGate>(context_);
  stack_fits_ = fits.get();
  auto anchor = std::make_unique<AnchorGate>(context_, *fits);
  add(make_cluster_ready_gate(context_), {Type::kClusterReady});
  add(make_established_gate(context_), {Type::kEstablished});
  add(make_object_state_gate(context_),
      {Type::kActive, Type::kAvailable, Type::kEndpointsReady, Type::kExists, Type::kCondition,
       Type::kJsonPath, Type::kFieldSet, Type::kHealthy, Type::kSchedulerReady});
  add(std::move(fits), {Type::kStackFits});
  add(make_node_capability_gate(context_), {Type::kNodeCapability});
  add(make_cluster_choice_gate(context_), {Type::kClusterChoice});
  add(make_healthy_for_gate(context_), {Type::kHealthyFor});
  add(make_rollout_room_gate(context_), {Type::kRolloutRoom});
  add(std::move(anchor), {Type::kAnchorScheduled});
}

Gates::~Gates() = default;

Gate& Gates::of(Type type) {
  return *by_type_.at(type);
}

void Gates::changed(const std::string& cluster, const boost::json::object& o) {
  const boost::json::value* kind = o.if_contains("kind");
  for (std::string_view k :
       {std::string_view("*"),
        kind && kind->is_string() ? std::string_view(kind->get_string()) : std::string_view()})
    if (auto it = by_kind_.find(k); !k.empty() && it != by_kind_.end())
      for (Gate* g : it->second) g->changed(cluster, o);
}

std::vector<std::string> Gates::read_for_the_run() const {
  std::vector<std::string> clusters;
  for (const auto& g : gates_) g->read_for_the_run(clusters);
  return clusters;
}

void Gates::synced(const std::string& cluster) {
  for (auto& g : gates_) g->synced(cluster);
}

void Gates::linked(const std::string& cluster) {
  for (auto& g : gates_) g->linked(cluster);
}

void Gates::kind_checked(const std::string& cluster, const std::string& api_version,
                         const std::string& kind) {
  for (auto& g : gates_) g->kind_checked(cluster, api_version, kind);
}

}  // namespace planter::plant
