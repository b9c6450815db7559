#include "plant/readiness_check.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <charconv>
#include <chrono>
#include <ctime>
#include <optional>

#include "kube/credentials.h"
#include "model/object.h"
#include "plan/jsonpath.h"
#include "plant/health.h"

namespace planter::plant {

namespace json = boost::json;

namespace {

Readiness condition_true(const json::object& object, std::string_view type) {
  const json::object* c = find_condition(object, type);
  if (!c) return {false, fmt::format("no {} condition yet", type)};
  std::string status = string_field(*c, {"status"});
  if (status == "True") return {true, {}};
  std::string reason = string_field(*c, {"reason"});
  return {false, fmt::format("{} is {}{}", type, status.empty() ? "unknown" : status,
                             reason.empty() ? "" : " (" + reason + ")")};
}

bool endpoints_ready(const json::object& endpoints) {
  const json::value* subsets = endpoints.if_contains("subsets");
  if (!subsets || !subsets->is_array()) return false;
  for (const json::value& s : subsets->as_array()) {
    if (!s.is_object()) continue;
    const json::value* addresses = s.as_object().if_contains("addresses");
    if (addresses && addresses->is_array() && !addresses->as_array().empty()) return true;
  }
  return false;
}

// A Lease whose holder renewed it lately: its scheduler (or controller) answers. "Lately" allows
// for clock skew between planter and the holder: three lease durations.
Readiness lease_held(const json::object& lease) {
  std::string holder = string_field(lease, {"spec", "holderIdentity"});
  if (holder.empty()) return {false, "no one holds the Lease"};
  auto renewed = kube::parse_rfc3339(string_field(lease, {"spec", "renewTime"}));
  if (!renewed) return {false, fmt::format("{} holds the Lease but never renewed it", holder)};
  double duration = 15;
  if (const json::value* d = find_path(lease, {"spec", "leaseDurationSeconds"}); d && d->is_int64())
    duration = static_cast<double>(d->as_int64());
  double ago = std::chrono::duration<double>(std::chrono::system_clock::now() - *renewed).count();
  if (ago > 3 * duration)
    return {false, fmt::format("{} holds the Lease but last renewed it {:.0f}s ago", holder, ago)};
  return {true, {}};
}

// The value `steps` lead to, as kubectl prints it; empty when missing.
std::optional<std::string> eval_steps(const json::object& object,
                                      const std::vector<JsonPathStep>& steps) {
  if (steps.empty()) return json::serialize(object);
  const json::value* found = locate_jsonpath(object, steps);
  if (!found) return std::nullopt;
  if (found->is_object() || found->is_array()) return json::serialize(*found);
  return jsonpath_text(*found);
}

// A predicate's expression: parsed when it was made, else now.
Result<std::optional<std::string>> eval_predicate(const ReadinessPredicate& p,
                                                  const json::object& object) {
  if (p.steps) return eval_steps(object, *p.steps);
  return eval_jsonpath(object, p.arg);
}

}  // namespace

Readiness check_readiness(const ReadinessPredicate& p, const json::object* object) {
  using T = ReadinessPredicate::Type;
  if (!object) return {false, "not found", false};
  switch (p.type) {
    case T::kExists:
      return {true, {}};
    case T::kActive: {
      std::string phase = string_field(*object, {"status", "phase"});
      if (phase == "Active") return {true, {}};
      return {false, phase.empty() ? "no phase yet" : "phase is " + phase};
    }
    case T::kEstablished:
      return condition_true(*object, "Established");
    case T::kAvailable:
      return condition_true(*object, "Available");
    case T::kCondition:
      return condition_true(*object, p.arg);
    case T::kEndpointsReady:
      if (endpoints_ready(*object)) return {true, {}};
      return {false, "no ready endpoint"};
    case T::kClusterReady: {
      auto where = kubeconfig_location(*object);
      if (where) return {true, {}};
      return {false, where.error()};
    }
    case T::kJsonPath: {
      auto got = eval_predicate(p, *object);
      if (!got) return {false, got.error().message};
      if (!got.value()) return {false, fmt::format("{} is not set", p.arg)};
      if (*got.value() == p.value) return {true, {}};
      return {false, fmt::format("{} is \"{}\", not \"{}\"", p.arg, *got.value(), p.value)};
    }
    case T::kFieldSet: {
      auto got = eval_predicate(p, *object);
      if (!got) return {false, got.error().message};
      if (!got.value() || got.value()->empty()) return {false, fmt::format("{} is not set", p.arg)};
      return {true, {}};
    }
    case T::kSchedulerReady:
      return lease_held(*object);
    case T::kHealthy:
    case T::kHealthyFor:  // how long it has been so: its gate counts (gates/healthy_for.cpp)
      return check_health(*object);
    case T::kStackFits:
    case T::kAnchorScheduled:
    case T::kNodeCapability:
    case T::kClusterChoice:
    case T::kRolloutRoom:
      break;  // not about one object: the engine decides from its nodes and pods
  }
  return {false, "unknown predicate"};
}

Result<std::optional<std::string>> eval_jsonpath(const json::object& object,
                                                 std::string_view expr) {
  auto steps = parse_jsonpath(expr);
  if (!steps) return steps.error();
  return eval_steps(object, steps.value());
}

std::optional<std::string> cluster_failed_for_good(const json::object& cluster) {
  const json::value* status_v = cluster.if_contains("status");
  if (!status_v || !status_v->is_object()) return std::nullopt;
  const json::object& status = status_v->as_object();
  if (string_field(cluster, {"apiVersion"}).starts_with("cluster.x-k8s.io/")) {
    if (string_field(status, {"phase"}) != "Failed") return std::nullopt;
    std::string reason = string_field(status, {"failureReason"});
    std::string message = string_field(status, {"failureMessage"});
    return "phase is Failed" + (reason.empty() ? "" : ": " + reason) +
           (message.empty() ? "" : ": " + message);
  }
  const json::object* ready = find_condition(cluster, "Ready");
  if (!ready || string_field(*ready, {"status"}) != "False" ||
      string_field(*ready, {"reason"}) != "NameTaken")
    return std::nullopt;
  return "NameTaken: " + string_field(*ready, {"message"});
}

Expected<KubeconfigLocation, std::string> kubeconfig_location(const json::object& cluster) {
  std::string api_version = string_field(cluster, {"apiVersion"});
  std::string ns = string_field(cluster, {"metadata", "namespace"});
  std::string name = string_field(cluster, {"metadata", "name"});
  const json::value* status_v = cluster.if_contains("status");
  if (!status_v || !status_v->is_object()) return std::string("not provisioned yet (no status)");
  const json::object& status = status_v->as_object();

  if (api_version.starts_with("multicluster.x-k8s.io/")) {
    // A ClusterProfile: its control plane healthy, its kubeconfig in the Secret
    // <name>-kubeconfig next to it (docs/placement.md, "ClusterProfiles").
    Readiness r = condition_true(cluster, "ControlPlaneHealthy");
    if (!r.holds) return std::string("not healthy: ") + r.why;
    return KubeconfigLocation{ns, name + "-kubeconfig", "value", {}, {}};
  }
  if (api_version.starts_with("cluster.x-k8s.io/")) {
    std::string phase = string_field(status, {"phase"});
    const json::value* cp = status.if_contains("controlPlaneReady");
    bool ready = phase == "Provisioned" || (cp && cp->is_bool() && cp->as_bool());
    if (!ready) return "phase is " + (phase.empty() ? std::string("unknown") : phase);
    return KubeconfigLocation{ns, name + "-kubeconfig", "value", {}, {}};
  }

  const json::value* ready_v = status.if_contains("ready");
  bool ready = ready_v && ready_v->is_bool() && ready_v->as_bool();
  if (!ready) {
    Readiness r = condition_true(cluster, "Ready");
    if (!r.holds) return std::string("not ready: ") + r.why;
  }
  KubeconfigLocation where;
  where.context = string_field(status, {"context"});
  if (const json::value* ref = status.if_contains("kubeconfigSecretRef"); ref && ref->is_object()) {
    where.secret_name = string_field(ref->as_object(), {"name"});
    where.secret_namespace = string_field(ref->as_object(), {"namespace"});
    if (where.secret_namespace.empty()) where.secret_namespace = ns;
    std::string key = string_field(ref->as_object(), {"key"});
    if (!key.empty()) where.secret_key = key;
    if (where.secret_name.empty()) return std::string("status.kubeconfigSecretRef has no name");
    return where;
  }
  where.url = string_field(status, {"kubeconfigUrl"});
  if (!where.url.empty()) return where;
  // Ready without saying where: the Cluster API convention.
  where.secret_namespace = ns;
  where.secret_name = name + "-kubeconfig";
  return where;
}

}  // namespace planter::plant
