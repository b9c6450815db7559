#include "sim/rbac.h"

#include <algorithm>
#include <boost/json.hpp>

#include "sim/json_access.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";
constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";

std::string key_of(std::string_view resource) {
  return std::string(kRbacGroup) + "/" + std::string(resource);
}

const json::array* arr(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_array() ? &it->value().as_array() : nullptr;
}

// A rule list field matches `value` when it lists it or "*"; `empty_matches` for resourceNames.
bool lists(const json::object& rule, std::string_view field, std::string_view value,
           bool empty_matches = false) {
  const json::array* a = arr(rule, field);
  if (!a || a->empty()) return empty_matches;
  for (const json::value& v : *a)
    if (v.is_string() && (v.as_string() == "*" || v.as_string() == value)) return true;
  return false;
}

bool rule_matches(const json::object& rule, const AccessRequest& r) {
  if (!lists(rule, "verbs", r.verb)) return false;
  if (!lists(rule, "apiGroups", r.group)) return false;
  std::string resource = r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
  bool resource_ok = lists(rule, "resources", resource);
  if (!resource_ok && !r.subresource.empty())
    resource_ok = lists(rule, "resources", "*/" + r.subresource);
  if (!resource_ok) return false;
  const json::array* names = arr(rule, "resourceNames");
  if (!names || names->empty()) return true;
  if (r.name.empty()) return false;
  return lists(rule, "resourceNames", r.name);
}

bool subject_matches(const json::object& subject, const std::string& binding_ns,
                     const AccessRequest& r) {
  std::string kind = string_at(subject, "kind");
  std::string name = string_at(subject, "name");
  if (kind == "User") return name == r.user;
  if (kind == "Group") return std::find(r.groups.begin(), r.groups.end(), name) != r.groups.end();
  if (kind == "ServiceAccount") {
    std::string ns = string_at(subject, "namespace");
    auto sa = service_account_of(r.user);
    return sa && sa->first == (ns.empty() ? binding_ns : ns) && sa->second == name;
  }
  return false;
}

bool binds(const json::object& binding, const std::string& binding_ns, const AccessRequest& r) {
  const json::array* subjects = arr(binding, "subjects");
  if (!subjects) return false;
  for (const json::value& s : *subjects)
    if (s.is_object() && subject_matches(s.as_object(), binding_ns, r)) return true;
  return false;
}

// The rules of the role a binding refers to (a RoleBinding's Role lives in its namespace).
const json::array* role_rules(const Store& store, const json::object& binding,
                              const std::string& binding_ns) {
  const json::object* ref = object_at(binding, "roleRef");
  if (!ref) return nullptr;
  std::string kind = string_at(*ref, "kind");
  StoredObject role;
  if (kind == "ClusterRole")
    role = store.get(key_of("clusterroles"), "", string_at(*ref, "name"));
  else if (kind == "Role" && !binding_ns.empty())
    role = store.get(key_of("roles"), binding_ns, string_at(*ref, "name"));
  return role ? arr(*role, "rules") : nullptr;
}

bool any_rule(const json::array* rules, const AccessRequest& r) {
  if (!rules) return false;
  for (const json::value& rule : *rules)
    if (rule.is_object() && rule_matches(rule.as_object(), r)) return true;
  return false;
}

std::string quoted_list(const json::object& rule, std::string_view field) {
  std::string out;
  if (const json::array* a = arr(rule, field))
    for (const json::value& v : *a)
      if (v.is_string()) out += (out.empty() ? "" : ",") + std::string(v.as_string());
  return "[" + out + "]";
}

}  // namespace

bool rbac_allows(const Store& store, const AccessRequest& r) {
  if (std::find(r.groups.begin(), r.groups.end(), kSystemMasters) != r.groups.end()) return true;
  for (const auto& [key, binding] : store.bucket(key_of("clusterrolebindings")))
    if (binds(*binding, "", r) && any_rule(role_rules(store, *binding, ""), r)) return true;
  if (r.ns.empty()) return false;
  const auto& bindings = store.bucket(key_of("rolebindings"));
  std::string prefix = r.ns + "/";
  for (auto it = bindings.lower_bound(prefix);
       it != bindings.end() && std::string_view(it->first).starts_with(prefix); ++it)
    if (binds(*it->second, r.ns, r) && any_rule(role_rules(store, *it->second, r.ns), r))
      return true;
  return false;
}

std::string forbidden_message(const AccessRequest& r) {
  std::string qualified = r.group.empty() ? r.resource : r.resource + "." + r.group;
  std::string resource = r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
  std::string what = r.name.empty() ? qualified : qualified + " \"" + r.name + "\"";
  std::string scope = r.ns.empty() ? "at the cluster scope" : "in the namespace \"" + r.ns + "\"";
  return what + " is forbidden: User \"" + r.user + "\" cannot " + r.verb + " resource \"" +
         resource + "\" in API group \"" + r.group + "\" " + scope;
}

Response forbidden(const AccessRequest& r, std::string message) {
  return api_status(403, "Forbidden", std::move(message),
                    json::object{{"name", r.name}, {"group", r.group}, {"kind", r.resource}});
}

std::string missing_rule(const Store& store, const AccessRequest& who, const std::string& ns,
                         const json::array& rules) {
  for (const json::value& v : rules) {
    if (!v.is_object()) continue;
    const json::object& rule = v.as_object();
    if (arr(rule, "nonResourceURLs") && !arr(rule, "resources")) continue;
    auto values = [&](std::string_view field) {
      std::vector<std::string> out;
      if (const json::array* a = arr(rule, field))
        for (const json::value& s : *a)
          if (s.is_string()) out.emplace_back(s.as_string());
      return out;
    };
    std::vector<std::string> names = values("resourceNames");
    if (names.empty()) names.emplace_back();
    for (const std::string& verb : values("verbs"))
      for (const std::string& group : values("apiGroups"))
        for (const std::string& resource : values("resources"))
          for (const std::string& name : names) {
            AccessRequest r = who;
            r.verb = verb;
            r.group = group;
            size_t slash = resource.find('/');
            r.resource = resource.substr(0, slash);
            r.subresource = slash == std::string::npos ? "" : resource.substr(slash + 1);
            r.ns = ns;
            r.name = name;
            if (!rbac_allows(store, r))
              return "{APIGroups:" + quoted_list(rule, "apiGroups") +
                     ", Resources:" + quoted_list(rule, "resources") +
                     ", Verbs:" + quoted_list(rule, "verbs") + "}";
          }
  }
  return "";
}

std::optional<std::pair<std::string, std::string>> service_account_of(const std::string& user) {
  if (!user.starts_with(kServiceAccountPrefix)) return std::nullopt;
  std::string_view rest = std::string_view(user).substr(kServiceAccountPrefix.size());
  size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return std::pair{std::string(rest.substr(0, colon)), std::string(rest.substr(colon + 1))};
}

std::vector<std::string> service_account_groups(const std::string& user) {
  auto sa = service_account_of(user);
  if (!sa) return {};
  return {"system:serviceaccounts", "system:serviceaccounts:" + sa->first};
}

}  // namespace planter::sim
