// What `planter install` prints and the embedded scheduler installs: deploy/ as it is in the
// repo, compiled in (src/CMakeLists.txt embeds the files).
#pragma once

#include <span>
#include <string_view>

namespace planter::cli {

// deploy/: namespace.yaml, the CRDs, rbac.yaml, deployment.yaml, service.yaml (in that order).
std::span<const std::string_view> operator_manifests();

// deploy/scheduler/: the PodGroup CRD, rbac.yaml, deployment.yaml (in that order).
std::span<const std::string_view> scheduler_manifests();

}  // namespace planter::cli
