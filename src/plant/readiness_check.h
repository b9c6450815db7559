// Whether an object as a cluster reports it satisfies a readiness predicate, read from a watch
// cache. Pure: the engine decides which object to look at, this says whether it is ready and,
// when it is not, why, in words for the progress line and the timeout report.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>

#include "model/result.h"
#include "plan/readiness.h"
#include "plant/conditions.h"

namespace planter::plant {

// `object` is null when the cluster does not have it. kEndpointsReady looks at the Service's
// Endpoints object; kClusterReady at the cluster object (see kubeconfig_location).
Readiness check_readiness(const ReadinessPredicate& predicate, const boost::json::object* object);

// Evaluates the JSONPath subset that readiness annotations use, kubectl's form: `{.a.b}`,
// `.a.b[0].c`, `.status.conditions[?(@.type=="Ready")].status`. Scalars come back as kubectl
// prints them ("true", "3", "Ready"); a missing path is an empty optional; a malformed
// expression an error.
Result<std::optional<std::string>> eval_jsonpath(const boost::json::object& object,
                                                 std::string_view expression);

// Where a provisioned cluster's kubeconfig is, as its cluster object says.
struct KubeconfigLocation {
  std::string secret_namespace;  // a Secret (Cluster API's `<name>-kubeconfig`, or planter's
  std::string secret_name;       // status.kubeconfigSecretRef)
  std::string secret_key = "value";
  std::string url;      // or the proof of concept's status.kubeconfigUrl
  std::string context;  // the context to use; empty: the kubeconfig's current one

  // For people and as a key: "Secret ns/name" (for a Secret location).
  std::string secret_origin() const { return "Secret " + secret_namespace + "/" + secret_name; }
  bool operator==(const KubeconfigLocation&) const = default;
};

// For a planter.nephio.org Cluster, a cluster.x-k8s.io Cluster or a multicluster.x-k8s.io
// ClusterProfile: where its kubeconfig is once it is provisioned (a ClusterProfile: once its
// control plane is healthy, in the Secret <name>-kubeconfig next to it), or why it is not ready
// yet (an error for people, "phase is Provisioning").
Expected<KubeconfigLocation, std::string> kubeconfig_location(const boost::json::object& cluster);

// A cluster object whose status says it will never be provisioned: a planter.nephio.org Cluster
// whose Ready condition is False for NameTaken (its name is another cluster's), or a Cluster API
// Cluster in phase Failed. What its status says ("NameTaken: ..."); nullopt while it may come.
std::optional<std::string> cluster_failed_for_good(const boost::json::object& cluster);

}  // namespace planter::plant
