// What other tools read but never apply, taken out of the seed before validation and planning:
// kpt's Kptfile and objects marked config.kubernetes.io/local-config (function configs), and
// hooks that Helm or Argo CD would not run on an install. The plan lists each with the reason.
#pragma once

#include <string_view>
#include <vector>

#include "model/diagnostics.h"
#include "model/object.h"
#include "plan/conventions.h"
#include "plan/plan.h"

namespace planter {

inline constexpr std::string_view kLocalConfigAnnotation = "config.kubernetes.io/local-config";

// Moves what is never declared out of `objects` (keeping the order of the rest). Malformed hook
// annotations are reported to `diags`.
std::vector<SetAside> set_aside(std::vector<Object>& objects, const Conventions& conventions,
                                Diagnostics& diags);

}  // namespace planter
