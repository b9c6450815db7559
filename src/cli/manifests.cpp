#include "cli/manifests.h"

namespace planter::cli {

namespace {

constexpr std::string_view kOperator[] = {
#include "cli/install_manifests.inc"
};

constexpr std::string_view kScheduler[] = {
#include "cli/scheduler_manifests.inc"
};

}  // namespace

std::span<const std::string_view> operator_manifests() {
  return kOperator;
}

std::span<const std::string_view> scheduler_manifests() {
  return kScheduler;
}

}  // namespace planter::cli
