// Label keys that more than one layer reads: Kubernetes' own and the ones planter writes into
// pods. Here so that the fit model (which sits on model) and the planner agree on them.
#pragma once

#include <string_view>

namespace planter {

inline constexpr std::string_view kHostnameKey = "kubernetes.io/hostname";
// The label every pod of a stack gets, with the stack's name as its value.
inline constexpr std::string_view kStackLabel = "planter.nephio.org/stack";
// The label that puts a pod in a gang (scheduler-plugins' PodGroup API).
inline constexpr std::string_view kPodGroupLabelKey = "scheduling.x-k8s.io/pod-group";
// scheduler-plugins' PodGroup, which the planner writes and `planter scheduler` reads, and the
// annotations of it planter's scheduler honours.
inline constexpr std::string_view kPodGroupApiVersionText = "scheduling.x-k8s.io/v1alpha1";
inline constexpr std::string_view kSameNodeAnnotationKey = "planter.nephio.org/same-node";
inline constexpr std::string_view kIsolateAnnotationKey = "planter.nephio.org/isolate";

}  // namespace planter
