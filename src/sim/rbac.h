// The sim's RBAC authorizer (`planter sim --authorization rbac`): kube-apiserver's RBAC mode,
// reduced to what a test of planter's security needs. It reads Roles, ClusterRoles, RoleBindings
// and ClusterRoleBindings straight from the cluster's store, so a binding applied a moment ago
// counts for the next request.
//
// Covered: subjects (User, Group, ServiceAccount), rules with verbs, apiGroups, resources
// ("resource/subresource" and "*"), resourceNames; the `impersonate` verb on users, groups and
// serviceaccounts; the escalation check on writes of Roles and ClusterRoles (the writer must hold
// every rule it grants, or the `escalate` verb) and of bindings (the writer must hold the role's
// rules, or the `bind` verb). Members of system:masters are allowed everything. Not covered:
// aggregated ClusterRoles, nonResourceURLs (every authenticated user may read discovery, OpenAPI
// and health, as the bootstrap role system:discovery allows), the bootstrap roles themselves.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/api.h"
#include "sim/store.h"

namespace planter::sim {

inline constexpr std::string_view kSystemMasters = "system:masters";

// Who asks and what for, as kube-apiserver's authorizer.Attributes.
struct AccessRequest {
  std::string user;
  std::vector<std::string> groups;
  std::string verb;  // get list watch create update patch delete deletecollection impersonate ...
  std::string group;
  std::string resource;
  std::string subresource;
  std::string ns;
  std::string name;
};

// True when some binding in `store` gives the user a rule that matches the request.
bool rbac_allows(const Store& store, const AccessRequest& request);

// The message a kube-apiserver gives when it forbids `request`:
// `clusterroles.rbac.authorization.k8s.io "x" is forbidden: User "u" cannot create resource
// "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope`.
std::string forbidden_message(const AccessRequest& request);
// The 403 Forbidden Status for `request`, with `message` (forbidden_message(), or the escalation
// check's).
Response forbidden(const AccessRequest& request, std::string message);

// The escalation check: every rule of `rules` (a Role's or ClusterRole's) is one the user already
// holds in `ns` ("" for cluster-wide). Returns the first rule it does not hold, as text, or "".
std::string missing_rule(const Store& store, const AccessRequest& who, const std::string& ns,
                         const boost::json::array& rules);

// The namespace and name of a service account's user "system:serviceaccount:NS:NAME"; none for
// other users.
std::optional<std::pair<std::string, std::string>> service_account_of(const std::string& user);
// The groups Kubernetes gives a service account's user: system:serviceaccounts and
// system:serviceaccounts:NS; none for other users.
std::vector<std::string> service_account_groups(const std::string& user);

}  // namespace planter::sim
