// Uprooting: deleting every unit of a plan in reverse order. A unit goes once everything that
// requires it is gone: dependents first, custom resources before their CRD, namespaced objects
// before their Namespace, everything on a workload cluster before that cluster's object. Each
// deletion is waited for until the object has really gone (finalizers included) before what it
// depended on is deleted. Only objects labelled `planter.nephio.org/seed: <seed>` are deleted;
// others, and those Helm keeps (helm.sh/resource-policy: keep), are left alone and say so.
//
// Threads: uproot() runs on the calling thread, like plant().
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "kube/client.h"
#include "plan/plan.h"
#include "plant/fleet_view.h"
#include "plant/kept_by_tools.h"

namespace planter::plant {

enum class RemovalState {
  kWaiting,   // something that requires it is still there
  kDeleting,  // delete sent; waiting for it to go
  kDeleted,   // it was planted by this seed and is gone
  kAbsent,    // it was not there (never planted, or its cluster is gone)
  kLeft,      // it is there but not planted by this seed: left alone
  kFailed,    // the delete was refused
  kBlocked,   // something that requires it could not be deleted
};
std::string_view to_string(RemovalState s);

struct RemovalRecord {
  RemovalState state = RemovalState::kWaiting;
  std::optional<std::chrono::microseconds> started;  // delete sent
  std::optional<std::chrono::microseconds> gone;     // seen gone
  std::string waiting_for;                           // while waiting or deleting
  std::string note;                                  // absent, left, failed, blocked: why
  bool kept = false;  // left alone, though the seed planted it: another tool's annotation keeps it
};

struct UprootOutcome {
  std::chrono::microseconds elapsed{0};
  bool timed_out = false;
  bool stopped = false;
  std::vector<RemovalRecord> units;  // parallel to Plan::units

  size_t count(RemovalState s) const;
  // Every unit is deleted, absent or left alone.
  bool complete() const;
};

struct UprootOptions {
  std::string seed_name;
  kube::ClientOptions client;
  std::optional<std::chrono::milliseconds> timeout;
  std::function<void(size_t unit, const RemovalRecord& record)> on_change;
  std::optional<WriteIdentity> write_as;  // as EngineOptions
  std::stop_token stop;
  // Which removal this is, and whose annotations keep an object from it (kept_by_tools.h: Helm's
  // resource-policy, Argo CD's Prune=false or Delete=false, kapp's orphan strategy; each off
  // with --ignore-annotations).
  Removal removal = Removal::kUproot;
  Conventions conventions;
};

UprootOutcome uproot(const Plan& plan, std::map<std::string, kube::RestConfig> clusters,
                     const UprootOptions& options);

// Per cluster: deleted/absent/left/not finished, then the units that are not done with why, then
// one line: "uprooted 42 units from 2 clusters in 3.1s".
std::string render_uproot_summary(const Plan& plan, const UprootOutcome& outcome);

}  // namespace planter::plant
