#include "plant/health.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "model/object.h"

namespace planter::plant {

namespace json = boost::json;

namespace {

int64_t int_at(const json::object& o, std::initializer_list<std::string_view> path,
               int64_t fallback = 0) {
  const json::value* v = find_path(o, path);
  return v && v->is_int64() ? v->as_int64() : fallback;
}

bool condition_is(const json::object& o, std::string_view type, std::string_view status) {
  const json::object* c = find_condition(o, type);
  return c && string_field(*c, {"status"}) == status;
}

// The controller has seen the latest spec: status.observedGeneration >= metadata.generation.
std::optional<Readiness> not_observed(const json::object& o) {
  int64_t generation = int_at(o, {"metadata", "generation"});
  int64_t observed = int_at(o, {"status", "observedGeneration"});
  if (generation > observed)
    return Readiness{false, "waiting for the controller to observe the latest spec"};
  return std::nullopt;
}

Readiness deployment(const json::object& o) {
  if (auto r = not_observed(o)) return *r;
  if (const json::object* p = find_condition(o, "Progressing");
      p && string_field(*p, {"reason"}) == "ProgressDeadlineExceeded")
    return {false, "the rollout exceeded its progress deadline"};
  int64_t want = int_at(o, {"spec", "replicas"}, 1);
  int64_t updated = int_at(o, {"status", "updatedReplicas"});
  int64_t replicas = int_at(o, {"status", "replicas"});
  int64_t available = int_at(o, {"status", "availableReplicas"});
  if (updated < want) return {false, fmt::format("{} of {} new replicas updated", updated, want)};
  if (replicas > updated)
    return {false, fmt::format("{} old replicas pending termination", replicas - updated)};
  if (available < updated)
    return {false, fmt::format("{} of {} updated replicas available", available, updated)};
  return {true, {}};
}

Readiness replica_set(const json::object& o) {
  if (auto r = not_observed(o)) return *r;
  int64_t want = int_at(o, {"spec", "replicas"}, 1);
  int64_t available = int_at(o, {"status", "availableReplicas"});
  if (available < want) return {false, fmt::format("{} of {} replicas available", available, want)};
  return {true, {}};
}

Readiness stateful_set(const json::object& o) {
  if (auto r = not_observed(o)) return *r;
  int64_t want = int_at(o, {"spec", "replicas"}, 1);
  int64_t ready = int_at(o, {"status", "readyReplicas"});
  int64_t updated = int_at(o, {"status", "updatedReplicas"});
  if (ready < want) return {false, fmt::format("{} of {} pods ready", ready, want)};
  if (updated < want) return {false, fmt::format("{} of {} pods updated", updated, want)};
  return {true, {}};
}

Readiness daemon_set(const json::object& o) {
  if (auto r = not_observed(o)) return *r;
  int64_t want = int_at(o, {"status", "desiredNumberScheduled"});
  int64_t updated = int_at(o, {"status", "updatedNumberScheduled"});
  int64_t available = int_at(o, {"status", "numberAvailable"});
  if (updated < want) return {false, fmt::format("{} of {} pods updated", updated, want)};
  if (available < want) return {false, fmt::format("{} of {} pods available", available, want)};
  return {true, {}};
}

Readiness job(const json::object& o) {
  if (condition_is(o, "Complete", "True")) return {true, {}};
  if (const json::object* failed = find_condition(o, "Failed");
      failed && string_field(*failed, {"status"}) == "True")
    return {false, fmt::format("the Job failed ({})", string_field(*failed, {"reason"}))};
  if (const json::value* s = find_path(o, {"spec", "suspend"}); s && s->is_bool() && s->as_bool())
    return {false, "the Job is suspended"};
  return {false, "the Job has not completed"};
}

Readiness pod(const json::object& o) {
  std::string phase = string_field(o, {"status", "phase"});
  if (phase == "Succeeded") return {true, {}};
  if (phase == "Failed") return {false, "the Pod failed"};
  std::string restart = string_field(o, {"spec", "restartPolicy"});
  if (phase == "Running" && (restart.empty() || restart == "Always") &&
      condition_is(o, "Ready", "True"))
    return {true, {}};
  return {false, phase.empty() ? "the Pod has no phase yet" : "the Pod is " + phase};
}

bool has_address(const json::object& o) {
  const json::value* ingress = find_path(o, {"status", "loadBalancer", "ingress"});
  if (!ingress || !ingress->is_array()) return false;
  for (const json::value& i : ingress->as_array())
    if (i.is_object() && (!string_field(i.as_object(), {"ip"}).empty() ||
                          !string_field(i.as_object(), {"hostname"}).empty()))
      return true;
  return false;
}

}  // namespace

Readiness check_health(const json::object& o) {
  std::string api_version = string_field(o, {"apiVersion"});
  std::string kind = string_field(o, {"kind"});
  std::string_view group = split_api_version(api_version).first;
  if (group == "apps") {
    if (kind == "Deployment") return deployment(o);
    if (kind == "ReplicaSet") return replica_set(o);
    if (kind == "StatefulSet") return stateful_set(o);
    if (kind == "DaemonSet") return daemon_set(o);
  }
  if (group == "batch" && kind == "Job") return job(o);
  if (group.empty()) {
    if (kind == "Pod") return pod(o);
    if (kind == "PersistentVolumeClaim") {
      std::string phase = string_field(o, {"status", "phase"});
      if (phase == "Bound") return {true, {}};
      return {false, phase.empty() ? "the claim has no phase yet" : "the claim is " + phase};
    }
    if (kind == "Service" && string_field(o, {"spec", "type"}) == "LoadBalancer" && !has_address(o))
      return {false, "the LoadBalancer has no address yet"};
  }
  if (group == "networking.k8s.io" && kind == "Ingress" && !has_address(o))
    return {false, "the Ingress has no address yet"};
  if (group == "apiregistration.k8s.io" && kind == "APIService" &&
      !condition_is(o, "Available", "True"))
    return {false, "the APIService is not Available"};
  return {true, {}};
}

}  // namespace planter::plant
