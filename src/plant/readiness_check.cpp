#include "plant/readiness_check.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <charconv>

#include "model/object.h"

namespace planter::plant {

namespace json = boost::json;

const json::object* find_condition(const json::object& object, std::string_view type) {
  const json::value* conditions = find_path(object, {"status", "conditions"});
  if (!conditions || !conditions->is_array()) return nullptr;
  for (const json::value& c : conditions->as_array()) {
    if (!c.is_object()) continue;
    const json::string* t = find_string(c.as_object(), {"type"});
    if (t && *t == type) return &c.as_object();
  }
  return nullptr;
}

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

std::string scalar_text(const json::value& v) {
  switch (v.kind()) {
    case json::kind::string:
      return std::string(v.as_string());
    case json::kind::bool_:
      return v.as_bool() ? "true" : "false";
    case json::kind::null:
      return "";
    default:
      return json::serialize(v);
  }
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
      auto got = eval_jsonpath(*object, p.arg);
      if (!got) return {false, got.error().message};
      if (!got.value()) return {false, fmt::format("{} is not set", p.arg)};
      if (*got.value() == p.value) return {true, {}};
      return {false, fmt::format("{} is \"{}\", not \"{}\"", p.arg, *got.value(), p.value)};
    }
  }
  return {false, "unknown predicate"};
}

Result<std::optional<std::string>> eval_jsonpath(const json::object& object,
                                                 std::string_view expr) {
  std::string_view e = expr;
  if (e.starts_with("{")) {
    if (!e.ends_with("}")) return Error{fmt::format("jsonpath {}: missing closing brace", expr)};
    e = e.substr(1, e.size() - 2);
  }
  if (!e.starts_with(".")) return Error{fmt::format("jsonpath {}: must start with '.'", expr)};
  const json::value* cur = nullptr;  // null: still at `object` itself
  auto object_here = [&]() -> const json::object* {
    if (!cur) return &object;
    return cur->is_object() ? &cur->as_object() : nullptr;
  };
  size_t i = 0;
  auto missing = [] { return Result<std::optional<std::string>>(std::optional<std::string>{}); };
  while (i < e.size()) {
    if (e[i] == '.') {
      size_t end = e.find_first_of(".[", i + 1);
      std::string_view name = e.substr(i + 1, end == std::string_view::npos ? e.npos : end - i - 1);
      if (name.empty()) return Error{fmt::format("jsonpath {}: empty field name", expr)};
      const json::object* here = object_here();
      if (!here) return missing();
      cur = here->if_contains(name);
      if (!cur) return missing();
      i = end == std::string_view::npos ? e.size() : end;
      continue;
    }
    // '[' index ']' or '[?(@.field=="value")]'
    size_t close = e.find(']', i);
    if (close == std::string_view::npos)
      return Error{fmt::format("jsonpath {}: missing ']'", expr)};
    std::string_view inside = e.substr(i + 1, close - i - 1);
    i = close + 1;
    if (!cur || !cur->is_array()) return missing();
    const json::array& arr = cur->as_array();
    if (inside.starts_with("?(@.") && inside.ends_with(")")) {
      std::string_view cond = inside.substr(4, inside.size() - 5);
      size_t eq = cond.find("==");
      if (eq == std::string_view::npos)
        return Error{fmt::format("jsonpath {}: a filter needs ==", expr)};
      std::string_view field = cond.substr(0, eq), want = cond.substr(eq + 2);
      if (want.size() >= 2 && (want.front() == '"' || want.front() == '\'') &&
          want.back() == want.front())
        want = want.substr(1, want.size() - 2);
      const json::value* match = nullptr;
      for (const json::value& item : arr) {
        if (!item.is_object()) continue;
        const json::value* f = item.as_object().if_contains(field);
        if (f && scalar_text(*f) == want) {
          match = &item;
          break;
        }
      }
      if (!match) return missing();
      cur = match;
      continue;
    }
    size_t index = 0;
    auto [p, ec] = std::from_chars(inside.data(), inside.data() + inside.size(), index);
    if (ec != std::errc() || p != inside.data() + inside.size())
      return Error{fmt::format("jsonpath {}: [{}] is neither an index nor a filter", expr, inside)};
    if (index >= arr.size()) return missing();
    cur = &arr[index];
  }
  if (!cur) return std::optional<std::string>(json::serialize(object));
  if (cur->is_object() || cur->is_array()) return std::optional<std::string>(json::serialize(*cur));
  return std::optional<std::string>(scalar_text(*cur));
}

Expected<KubeconfigLocation, std::string> kubeconfig_location(const json::object& cluster) {
  std::string api_version = string_field(cluster, {"apiVersion"});
  std::string ns = string_field(cluster, {"metadata", "namespace"});
  std::string name = string_field(cluster, {"metadata", "name"});
  const json::value* status_v = cluster.if_contains("status");
  if (!status_v || !status_v->is_object()) return std::string("not provisioned yet (no status)");
  const json::object& status = status_v->as_object();

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
