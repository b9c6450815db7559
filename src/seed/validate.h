// Seed-level validation, run on the final seed (after plugins) and before any placement.
//
// It teaches `kinds` the seed's CustomResourceDefinitions, gives namespaced objects without a
// namespace the default one (as `kubectl apply -n` would), and reports every object-level problem:
// a namespace on a cluster-scoped kind, unsubstituted template variables, malformed CRDs, custom
// resources of a version their CRD does not serve.
#pragma once

#include <string>

#include "model/diagnostics.h"
#include "model/kinds.h"
#include "seed/seed.h"

namespace planter {

struct ValidateOptions {
  std::string default_namespace = "default";
};

void validate_seed(Seed& seed, KindTable& kinds, const ValidateOptions& options,
                   Diagnostics& diags);

}  // namespace planter
