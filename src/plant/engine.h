// The planting engine: declares every unit of a plan at the right place as soon as its
// requirements hold (DESIGN.md, "Planting engine").
//
// One state machine per unit: pending -> declaring -> declared, or failed (a permanent error);
// a unit whose requirement is provided by a failed (or blocked) unit is blocked and says which
// failure blocks it. Requirements are read from watch caches of the target clusters (FleetView);
// a change re-evaluates only the units waiting on the object that changed, and a unit whose last
// requirement starts to hold is declared in the same turn of the loop. Declaring is server-side
// apply (field manager planter/<seed>, plant/ownership.h) with the labels
// `app.kubernetes.io/managed-by: planter` and `planter.nephio.org/seed: <seed>`. The engine keeps
// no memory between runs: applying is idempotent, so planting again simply declares again.
//
// Threads: plant() runs the engine on the calling thread and returns when every unit is declared,
// failed or blocked, or when the timeout expires. Observers run on that thread too.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "fit/cluster_choice.h"
#include "kube/client.h"
#include "plan/plan.h"
#include "plan/predicate_traits.h"
#include "plant/event_loop.h"
#include "plant/fleet.h"
#include "plant/fleet_view.h"
#include "plant/ownership.h"

namespace planter::plant {

// kNotChosen: on a cluster its cluster choice did not choose; never declared (terminal).
enum class UnitState { kPending, kDeclaring, kDeclared, kFailed, kBlocked, kNotChosen };
std::string_view to_string(UnitState s);

// One stretch of a unit's wait: from `since` until `until` (-1 while it lasts), for requirement
// `requirement` (an index into Unit::requirements), or kLinkWait (its cluster's API not yet
// linked) or kRetryWait (the server's answer sent it back to wait: a kind not served yet, a
// cluster unreachable). Microseconds from the start of planting.
struct WaitSpan {
  static constexpr int32_t kLinkWait = -1;
  static constexpr int32_t kRetryWait = -2;
  int64_t since = 0;
  int64_t until = -1;
  int32_t requirement = kLinkWait;
};

// "Namespace cnf active", "cluster edge1 linked", "a retry after the server's answer".
std::string describe(const Plan& plan, const Unit& unit, const WaitSpan& span);

// What kind of thing a stretch waited for (plan/predicate_traits.h): its requirement's, a
// cluster's link, or a retry.
using planter::WaitKind;
WaitKind wait_kind(const Unit& unit, const WaitSpan& span);
// "cluster", "api", "namespace", "ready", "room", "retry".
std::string_view to_string(WaitKind kind);

// What the apply that declared a unit did, as kubectl says it: the server created the object
// (HTTP 201), changed it (a new resourceVersion), or found it as declared (the same one; a
// server-side apply that changes nothing writes nothing). kApplied: it was there, and planter had
// not seen its resourceVersion before (no preflight saw it), so which of the two is not known:
// kubectl --server-side's "serverside-applied". kReplaced: an immutable field changed, and the
// object (planter.nephio.org/on-immutable: replace) was deleted and created again, as
// `kubectl replace --force` says.
enum class Applied { kNotYet, kCreated, kConfigured, kUnchanged, kApplied, kReplaced };
std::string_view to_string(Applied a);

// What happened to one unit. Times are offsets from the start of planting.
struct UnitRecord {
  UnitState state = UnitState::kPending;
  std::optional<std::chrono::microseconds> ready;     // every requirement held
  std::optional<std::chrono::microseconds> declared;  // the apply succeeded
  std::optional<std::chrono::microseconds> failed;
  std::optional<std::chrono::microseconds> sent;  // its last apply was handed to the client
  // How long the apply that declared it was on the wire (curl's time for its last attempt); the
  // rest of sent..declared it was queued in planter (rate limit, connection room).
  std::chrono::microseconds on_wire{0};
  std::vector<WaitSpan> waits;  // in order; each change of what it waits for starts one
  // While pending: the first requirement that does not hold, and why ("Namespace cnf active:
  // phase is Terminating"). Once ready: the requirement that held it last, if any.
  std::string waiting_for;
  std::string held_by;
  std::string error;  // failed: the server's message; blocked: the failure that blocks it
  // Where its pods were steered, as its stack was found to fit: "node edge-pool-1 (leaves 5 cpu,
  // 20Gi free)".
  std::string steered;
  bool cluster_unreachable = false;    // pending because its cluster failed transiently
  int attempts = 0;                    // applies sent (a re-opened requirement sends again)
  Applied applied = Applied::kNotYet;  // by the last apply that succeeded
  // The fields whose change made planting delete the object to create it again ("spec.selector,
  // spec.template"); empty while it has not had to.
  std::string replacing;
  std::string resource_version;  // the object's after that apply
};

// A cluster choice made while planting (plan/cluster_choice.h).
struct ChoiceRecord {
  std::string name;  // ClusterChoice::name
  fit::ClusterChoiceResult result;
};

struct PlantOutcome {
  std::chrono::system_clock::time_point started;
  std::chrono::microseconds elapsed{0};
  bool timed_out = false;
  bool stopped = false;               // EngineOptions::stop was requested
  std::vector<UnitRecord> units;      // parallel to Plan::units
  std::vector<ChoiceRecord> choices;  // in the order they were made
  std::vector<std::string> warnings;  // what did not stop planting but should be heard
  // The clusters whose EngineOptions::first_writes object was written.
  std::vector<std::string> first_written;

  size_t count(UnitState s) const;
  // Every unit is declared, or on a cluster its choice did not choose: the seed is planted.
  bool all_declared() const {
    return count(UnitState::kDeclared) + count(UnitState::kNotChosen) == units.size();
  }
};

// Without EngineOptions::timeout, how long a cluster may fail transiently (refused, reset, 429,
// 5xx, timeouts) before the units it fails for fail; with a timeout they retry until it ends.
inline constexpr std::chrono::minutes kTransientGiveUp{10};

struct EngineOptions {
  std::string seed_name;  // the planter.nephio.org/seed label
  kube::ClientOptions client;
  bool force_conflicts = false;  // take over fields another manager owns (not another seed)
  // Take over objects another seed planted (plant/ownership.h); how the user asks for it.
  bool adopt = false;
  std::string adopt_hint = "use --adopt to take it over";
  std::optional<std::chrono::milliseconds> timeout;
  // Called on the engine's thread after every state change of a unit, and when what a pending
  // unit waits for changes.
  std::function<void(size_t unit, const UnitRecord& record)> on_change;
  // Writes on the management cluster as another user (the operator's impersonation).
  std::optional<WriteIdentity> write_as;
  // A stop request ends planting early (requests in flight finish; their answers are dropped).
  std::stop_token stop;
  // Ends planting early, as `timeout` would (PlantOutcome::timed_out), when a look every this
  // long finds nothing changed since the last one (no unit's state, no cluster's link) and every
  // open unit waiting for a cluster that is not linked (one being provisioned, or not
  // answering): the operator gives the Seed's worker back until its next slice instead of
  // holding it for the hour a cluster may take to install.
  std::optional<std::chrono::milliseconds> yield_waiting_on_clusters;
  // The clusters an earlier run chose, by choice name: they stay chosen (the seed's inventory
  // keeps them, seed_inventory.h).
  std::map<std::string, std::vector<std::string>> kept_choices;
  // Parallel to Plan::units, or empty: the resourceVersion each unit's object had before
  // planting, where the preflight's dry run found it (PreflightOutcome::live_versions); an
  // apply that leaves it as it was is `unchanged`.
  std::vector<std::string> live_versions;
  // Per cluster: an object to apply there before any unit (first_writes.h; the seed's inventory
  // on a cluster the seed creates). A refusal is a warning, not a failure of the units.
  std::map<std::string, boost::json::object> first_writes;
  // What a process keeps of the fleet between runs (fleet_cache.h; the operator's); none: every
  // run links and watches its clusters anew.
  FleetCache* fleet_cache = nullptr;
};

// Plants `plan`. `clusters`: how to reach the management cluster ("SELF") and the clusters given
// on the command line; the seed's own clusters are reached through their cluster objects.
PlantOutcome plant(const Plan& plan, std::map<std::string, kube::RestConfig> clusters,
                   const EngineOptions& options);

// The same through a fleet `make_fleet` makes (FleetView over real clusters in plant(); a double
// in the engine's unit tests). It is called once, with the engine's loop and its handlers.
using FleetFactory = std::function<std::unique_ptr<Fleet>(EventLoop& loop, FleetHandlers handlers)>;
PlantOutcome plant_with(const Plan& plan, const FleetFactory& make_fleet,
                        const EngineOptions& options);

// The object as planter declares it: the seed's object with planter's labels.
boost::json::object declared_body(const Object& object, const std::string& seed_name);
// Records on a body that it was taken over from another seed (--adopt).
void mark_adopted(boost::json::object& body, const std::string& from_seed);
// That body with its apply-time substitutions made, when it can be known before planting (what
// the preflight and `planter diff` send); nullopt when it takes values from other objects.
std::optional<boost::json::object> body_known_before(const Plan& plan, const Unit& unit,
                                                     const std::string& seed_name);

}  // namespace planter::plant
