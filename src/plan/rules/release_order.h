// The order an install gives a release, computed once per plan for the rules helm-hooks and
// sync-waves (src/plan/rules/): Helm's releases, each the units of one seed file on one cluster,
// with their pre-install and post-install hooks in Helm's order; and Argo CD's sync steps, each
// cluster's units grouped by (phase, wave) in Argo CD's order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/object.h"
#include "plan/conventions.h"
#include "plan/hooks.h"
#include "plan/plan.h"
#include "plan/seed_index.h"

namespace planter {

class ReleaseOrder {
 public:
  ReleaseOrder() = default;
  static ReleaseOrder build(const std::vector<Object>& objects, const std::vector<Unit>& units,
                            const SeedIndex& index, const Conventions& conventions);

  // A Helm release with at least one hook: its units by install phase. `before` and `after` are
  // in the order Helm runs them: by hook weight, then name, then kind (helm/helm#12414).
  struct Release {
    std::vector<size_t> before, with, after;
  };
  struct HelmPlace {
    const Release* release = nullptr;  // null: the unit's release has no hook
    InstallPhase phase = InstallPhase::kWith;
    size_t position = 0;  // in release->before or ->after
  };
  HelmPlace helm(size_t unit) const;

  // The units of the sync step just before this unit's on its cluster (Argo CD waits for all of
  // them to be healthy); empty for the first step, and on clusters where no object has an Argo CD
  // annotation.
  std::span<const size_t> previous_step(size_t unit) const;

 private:
  std::vector<Release> releases_;
  std::vector<int32_t> release_of_;  // per unit, -1 for none
  std::vector<InstallPhase> helm_phase_;
  std::vector<uint32_t> helm_position_;
  std::vector<std::vector<size_t>> steps_;  // sync steps of every cluster, each cluster's in order
  std::vector<int32_t> previous_of_;        // per unit: the index of its previous step, or -1
};

// A Namespace or a CRD that names no hook, wave or phase is applied first by both tools (Helm's
// --create-namespace and crds/ folder, Argo CD's kind order): it waits for no hook or wave.
bool applied_first(const Object& object);

}  // namespace planter
