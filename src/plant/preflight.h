// Before the first write, the API servers judge the seed: every object whose cluster can be asked
// now (the management cluster, `--cluster NAME=CONTEXT`) goes through the very apply planting will
// send, as a server-side dry run (`dryRun=All`, the seed's field manager, forced again after a
// conflict only where planting would force it), all at once within the client's limits. What a
// server refuses for good — a schema, an admission webhook, RBAC, a quota, an immutable field,
// another field manager's conflict, an object another seed planted (plant/ownership.h) — is bad
// input, every refusal at once, before anything is declared (Argo CD's dry run before a sync).
//
// What cannot be judged yet is checked when it is planted, by the apply itself: an object on a
// cluster the seed creates, of a kind not served yet (its CRD is in the seed), in a Namespace not
// there yet, or whose body takes values from other objects at apply time. A cluster that does not
// answer by the deadline is not judged either.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kube/client.h"
#include "model/diagnostics.h"
#include "plan/plan.h"
#include "plant/fleet.h"

namespace planter::plant {

struct PreflightOptions {
  std::string seed_name;
  kube::ClientOptions client;
  bool force_conflicts = false;  // as planting will apply
  bool adopt = false;
  std::string adopt_hint = "use --adopt to take it over";
  // Whom planting writes the management cluster's objects as (the operator's impersonation):
  // the dry run is sent as that identity too, so RBAC judges it as it will judge the write.
  std::optional<WriteIdentity> write_as;
  std::chrono::steady_clock::time_point deadline;
  // The cluster objects on a host, where the caller keeps them watched (the operator, on the
  // management cluster): nullopt, or none given, lists them. A watch may not have seen a
  // cluster object made just before; its provisioner then says NameTaken, and planting fails.
  std::function<std::optional<std::vector<ClusterInfo>>(const std::string& host)> clusters_on;
};

// What to do about a server's refusal of a dry run, in the words the refused object's diagnostic
// ends with: a conflict, missing rights, a webhook that cannot dry-run, or the object itself.
std::string preflight_hint(const kube::ApiError& e);

struct PreflightOutcome {
  Diagnostics refused;  // one per object a server refused, with its words
  size_t checked = 0;   // objects a server accepted or refused
  size_t later = 0;     // objects that could not be judged now (see above)
  // Objects whose change an immutable field refuses and that say to be made again
  // (planter.nephio.org/on-immutable: replace): planting deletes and creates them. Each with
  // the fields ("spec.schedulingConstraints"); without the annotation such a change is refused.
  std::vector<std::pair<size_t, std::string>> replaced;
  // Parallel to Plan::units: the resourceVersion of each object the dry run found on its
  // cluster (empty: not there, or not judged), for saying which apply left it unchanged
  // (EngineOptions::live_versions).
  std::vector<std::string> live_versions;
};

PreflightOutcome preflight(const Plan& plan,
                           const std::map<std::string, kube::RestConfig>& reachable,
                           const PreflightOptions& options);

}  // namespace planter::plant
