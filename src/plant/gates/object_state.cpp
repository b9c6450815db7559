// The gate of the requirements on an object's state, read from a watch of its kind (each checked
// by plant/readiness_check.h):
//   active          a Namespace is Active (rule: src/plan/rules/namespace.cpp)
//   available       an APIService is Available (rule: src/plan/rules/apiservice.cpp)
//   endpoints-ready a Service has a ready endpoint (rule: src/plan/rules/webhook.cpp)
//   exists, condition, jsonpath, field-set, healthy (rules: dependencies.cpp, depends_on.cpp,
//                   pod_references.cpp, apply_time_sources.cpp, helm_hooks.cpp, sync_waves.cpp,
//                   pod_group.cpp)
//   scheduler-ready planter's scheduler runs (rule: src/plan/rules/scheduler_ready.cpp)
// An object of the seed is watched once it is declared (its kind may not be served before); a mere
// `exists` of one needs no watch at all: its unit being declared is the answer.
#include "model/object.h"
#include "plant/gates/gate.h"

namespace planter::plant {

namespace {

using Type = ReadinessPredicate::Type;

// Kinds whose state, not only existence, is asked of an object of the seed.
bool reads_state(Type t) {
  return t == Type::kCondition || t == Type::kJsonPath || t == Type::kFieldSet ||
         t == Type::kHealthy;
}

class ObjectStateGate : public Gate {
 public:
  explicit ObjectStateGate(GateContext& c) : c_(c) {}

  void require(size_t, const Requirement& r, std::vector<std::string>& keys) override {
    const ObjectRef& target = c_.plan.target(r);
    switch (r.when.type) {
      case Type::kActive:
        keys.push_back(object_wake_key(r.cluster, target));
        c_.fleet.watch(r.cluster, "v1", "Namespace");
        return;
      case Type::kAvailable:
        keys.push_back(object_wake_key(r.cluster, target));
        c_.fleet.watch(r.cluster, "apiregistration.k8s.io/v1", "APIService");
        return;
      case Type::kEndpointsReady:
        keys.push_back(
            object_wake_key(r.cluster, object_key("", "Endpoints", target.ns, target.name)));
        c_.fleet.watch(r.cluster, "v1", "Endpoints");
        return;
      default:
        keys.push_back(object_wake_key(r.cluster, target));
        if (r.external()) c_.fleet.watch(r.cluster, target.api_version, target.kind);
        return;
    }
  }

  std::optional<Wait> check(size_t, const Requirement& r) override {
    const ObjectRef& target = c_.plan.target(r);
    if (r.when.type == Type::kEndpointsReady) {
      Readiness ok =
          c_.fleet.readiness(r.cluster, "v1", "Endpoints", target.ns, target.name, r.when);
      if (ok.holds) return std::nullopt;
      return Wait{ok.exists ? ok.why : "no endpoints yet"};
    }
    Readiness ok = c_.fleet.readiness(r.cluster, target.api_version, target.kind, target.ns,
                                      target.name, r.when);
    if (ok.holds) return std::nullopt;
    return Wait{ok.why};
  }

  void provider_declared(const Requirement& r) override {
    if (!reads_state(r.when.type)) return;
    const ObjectRef& target = c_.plan.target(r);
    c_.fleet.watch(r.cluster, target.api_version, target.kind);
  }

 private:
  GateContext& c_;
};

}  // namespace

std::unique_ptr<Gate> make_object_state_gate(GateContext& context) {
  return std::make_unique<ObjectStateGate>(context);
}

}  // namespace planter::plant
