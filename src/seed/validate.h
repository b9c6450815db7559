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

// True when `s` holds `${VAR}` or `$VAR`, as left behind by an unrendered template.
bool has_template_variable(std::string_view s);

// Reports that `field` of `o` ("metadata.name", "data") holds `value`, an unrendered template.
void report_template_variable(const Object& o, std::string_view field, std::string_view value,
                              Diagnostics& diags);

}  // namespace planter
