// What kube-apiserver's validation refuses in every object's metadata (labels and annotations, as
// apimachinery's ValidateObjectMeta checks them) and in the selectors of the apps/v1 workloads.
// Written from the Kubernetes API reference and its documented messages; the sim's own, shared
// with no planter code (planter refuses the same seeds before writing, and the two must not be
// wrong together).
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/api_errors.h"
#include "sim/catalog.h"
#include "sim/name_validation.h"

namespace planter::sim {

// A body the API server could not decode into ObjectMeta: `labels` or `annotations` that is not
// a map of strings. The message of the 400 that kube-apiserver answers ("json: cannot unmarshal
// number into Go struct field ObjectMeta.metadata.labels of type string").
std::optional<std::string> object_meta_decode_error(const boost::json::object& obj);

// Label keys and values, annotation keys and the annotations' total size: one cause per problem.
std::vector<Cause> object_meta_causes(const boost::json::object& obj);

// apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet: a selector is required, is not empty,
// and selects the pod template's labels.
std::vector<Cause> workload_selector_causes(const ResourceType& t, const boost::json::object& obj);

// v1 ConfigMap and Secret: every key of `data` (and a ConfigMap's `binaryData`, a Secret's
// `stringData`) is a config key as apimachinery's IsConfigMapKey says (at most 253 of
// [-._a-zA-Z0-9], not `.` or `..` nor starting with `..`), and a ConfigMap's key is in `data` or
// `binaryData`, not both: one cause each ("data[]: Invalid value: \"\": a valid config key must
// consist of ...").
std::vector<Cause> config_key_causes(const ResourceType& t, const boost::json::object& obj);

// The counts of workloads, as kube-apiserver decodes and validates them (int32, at least 0):
// apps/v1 Deployment, ReplicaSet and StatefulSet and v1 ReplicationController `spec.replicas`;
// batch/v1 Job (and a CronJob's job template) `parallelism`, `completions`, `backoffLimit`.
// A count outside int32 cannot be decoded: the message of the 400 kube-apiserver answers
// ("json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas
// of type int32"); nullopt when every count decodes.
std::optional<std::string> workload_count_decode_error(const ResourceType& t,
                                                       const boost::json::object& obj);
// A count below 0: one cause each ("spec.replicas: Invalid value: -1: must be greater than or
// equal to 0").
std::vector<Cause> workload_count_causes(const ResourceType& t, const boost::json::object& obj);

// The resources of a pod's containers (a Pod's, or a workload's pod template's), as
// ValidateResourceRequirements judges each request and limit: not below 0 ("must be greater than
// or equal to 0"), and for an extended resource (a name with a '/' outside kubernetes.io, such as
// nvidia.com/gpu) a whole number ("must be an integer"). One cause each, at
// spec.containers[0].resources.limits[nvidia.com/gpu].
std::vector<Cause> container_resource_causes(const ResourceType& t, const boost::json::object& obj);

}  // namespace planter::sim
