#include "sim/handler.h"
#include "sim/json_access.h"
#include "sim/rbac.h"

namespace planter::sim {

std::string Handler::verb_of(const Cluster::Target& t) const {
  const std::string& m = req.method;
  if (m == "GET") return t.name.empty() ? "list" : "get";
  if (m == "POST") return "create";
  if (m == "PUT") return "update";
  if (m == "PATCH") return "patch";
  if (m == "DELETE") return t.name.empty() ? "deletecollection" : "delete";
  return lower(m);
}

AccessRequest Handler::access(const Cluster::Target& t, std::string verb) const {
  return AccessRequest{req.user,      req.groups, std::move(verb), t.type->group, t.type->resource,
                       t.subresource, t.ns,       t.name};
}

std::optional<Response> Handler::authorize(const Cluster::Target& t, std::string verb) const {
  if (!c.options_.rbac) return std::nullopt;
  AccessRequest a = access(t, std::move(verb));
  if (rbac_allows(c.store_, a)) return std::nullopt;
  return forbidden(a, forbidden_message(a));
}

// Writing a role or a binding cannot grant more than the writer holds (RBAC's escalation
// check), unless the writer may `escalate` (roles) or `bind` (bindings).
std::optional<Response> Handler::check_escalation(const ResourceType& t,
                                                  const json::object& obj) const {
  if (!c.options_.rbac || t.group != "rbac.authorization.k8s.io") return std::nullopt;
  bool role = t.kind == "Role" || t.kind == "ClusterRole";
  bool binding = t.kind == "RoleBinding" || t.kind == "ClusterRoleBinding";
  if (!role && !binding) return std::nullopt;
  std::string ns = meta_string(obj, "namespace");
  std::string name = meta_string(obj, "name");
  AccessRequest self{req.user, req.groups, role ? "escalate" : "bind", t.group, t.resource, "",
                     ns,       name};
  const json::array* rules = nullptr;
  StoredObject referenced;
  if (role) {
    if (auto* r = obj.if_contains("rules"); r && r->is_array()) rules = &r->as_array();
  } else if (auto* ref = obj.if_contains("roleRef"); ref && ref->is_object()) {
    std::string kind = string_at(ref->as_object(), "kind");
    std::string ref_name = string_at(ref->as_object(), "name");
    self.resource = kind == "Role" ? "roles" : "clusterroles";
    self.name = ref_name;
    referenced = c.store_.get(kind == "Role" ? "rbac.authorization.k8s.io/roles"
                                             : "rbac.authorization.k8s.io/clusterroles",
                              kind == "Role" ? ns : "", ref_name);
    if (referenced)
      if (auto* r = referenced->if_contains("rules"); r && r->is_array()) rules = &r->as_array();
  }
  if (!rules || rbac_allows(c.store_, self)) return std::nullopt;
  std::string missing = missing_rule(c.store_, self, ns, *rules);
  if (missing.empty()) return std::nullopt;
  AccessRequest a = self;
  a.verb = "create";
  a.resource = t.resource;
  a.name = name;
  std::string what = t.resource + "." + t.group + " \"" + name + "\"";
  return forbidden(a, what + " is forbidden: user \"" + req.user +
                          "\" is attempting to grant RBAC permissions not currently held:\n" +
                          missing);
}

std::optional<Response> Cluster::impersonate(Request& req, const std::string& user,
                                             const std::vector<std::string>& groups) const {
  if (options_.rbac) {
    auto may = [&](std::string resource, std::string ns, std::string name) {
      AccessRequest a{req.user, req.groups,    "impersonate",  "", std::move(resource),
                      "",       std::move(ns), std::move(name)};
      if (rbac_allows(store_, a)) return std::optional<Response>();
      return std::optional<Response>(forbidden(a, forbidden_message(a)));
    };
    auto sa = service_account_of(user);
    std::optional<Response> denied =
        sa ? may("serviceaccounts", sa->first, sa->second) : may("users", "", user);
    for (const std::string& g : groups)
      if (!denied) denied = may("groups", "", g);
    if (denied) return denied;
  }
  req.impersonator = req.user;
  req.user = user;
  req.groups = groups;
  // As kube-apiserver does: a service account's groups, and every user is authenticated.
  if (groups.empty())
    for (std::string& g : service_account_groups(user)) req.groups.push_back(std::move(g));
  req.groups.emplace_back("system:authenticated");
  return std::nullopt;
}

}  // namespace planter::sim
