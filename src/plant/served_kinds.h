// Before the first write: the kinds of a seed that nothing will serve. A custom resource whose CRD
// is not in the seed waits for its kind, since something else may install it; but on a cluster
// that can be asked before planting (the management cluster, `--cluster NAME=CONTEXT`), a kind
// its discovery does not serve, and that no CRD or APIService of the seed defines, would wait
// forever: the seed is refused instead, as kapp refuses unknown kinds. An object that names the
// kind's CRD in `planter.nephio.org/external-dependencies` says something else installs it
// (an operator at start-up), and waits. (A stack's PodGroup needs the CRD that `planter
// scheduler` installs when it starts: with neither, it is refused like any kind.)
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "kube/client.h"
#include "model/diagnostics.h"
#include "plan/plan.h"

namespace planter::plant {

// Whether the cluster serves the kind: true, false, or nullopt when it cannot tell by `deadline`
// (transient failures retried until then).
std::optional<bool> kind_served(kube::Client& client, const std::string& api_version,
                                const std::string& kind,
                                std::chrono::steady_clock::time_point deadline);

// One error per object whose kind no discovery of `reachable` serves. A cluster that does not
// answer by `deadline` is not judged (its units wait, as before).
Diagnostics unserved_kinds(const Plan& plan,
                           const std::map<std::string, kube::RestConfig>& reachable,
                           const kube::ClientOptions& options,
                           std::chrono::steady_clock::time_point deadline);

}  // namespace planter::plant
