// What the operator does with a Seed now: a pure function of the Seed as the watch cache has it
// and of what the operator is doing for it. The controller (controller.cpp) carries it out:
// finalizers first, then stopping, starting or holding a run. Unit-tested without a server.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "model/result.h"
#include "operator/seed_resource.h"

namespace planter::op {

// The facts of a Seed that decide.
struct SeedFacts {
  int64_t generation = 0;
  bool deleting = false;               // metadata.deletionTimestamp is set
  bool has_finalizer = false;          // the uproot finalizer is on it
  std::optional<std::string> invalid;  // why its spec cannot be read
  bool uproot_on_delete = false;
  bool planted = true;                      // spec.planted
  std::string replant;                      // spec.replant: the token asked for
  std::optional<std::string> last_replant;  // status.replant: the token last planted
  std::string last_phase;                   // status.phase
  int64_t observed_generation = 0;          // status.observedGeneration
};

// Reads them from a Seed and its parsed spec.
SeedFacts seed_facts(const boost::json::object& seed, const Result<SeedSpec>& spec);

// What the operator is doing for a Seed: its current run.
struct RunState {
  std::string run_key;  // what the run is for: "plant/3/token", "uproot", "idle/3", "invalid/3"
  bool done = false;
  bool failed = false;
  bool retry_due = false;  // failed, and its backoff has passed
  std::chrono::milliseconds backoff{0};
  // Planted, and a cluster one of its choices holds must be given up now (a taint it does not
  // tolerate any more): the Seed is planted again, and the choice moves that share.
  bool moved = false;
};

struct Decision {
  enum class Finalizer { kKeep, kAdd, kRemove };
  enum class Action {
    kForget,      // the Seed is gone: stop its run, forget its status
    kNothing,     // what runs (or ran, or failed and waits to retry) is what it asks
    kStop,        // stop its run; nothing replaces it
    kPlant,       // (re)start planting under run_key
    kUproot,      // (re)start uprooting under run_key
    kInvalid,     // hold phase Failed, reason InvalidSpec, under run_key
    kNotPlanted,  // hold phase Pending, reason NotPlanted, under run_key
  };
  // Done first; when it cannot be written, the Seed is looked at again shortly, nothing else.
  Finalizer finalizer = Finalizer::kKeep;
  Action action = Action::kNothing;
  std::string run_key;
  bool replant = false;     // kPlant: the token changed since the last plant
  bool confirming = false;  // kPlant: planted already as it is now: plant again quietly
  bool failover = false;    // kPlant: planted already, but a chosen cluster must be given up
  std::chrono::milliseconds backoff{0};  // kPlant, kUproot: the retry backoff of the new run

  bool starts_run() const { return action == Action::kPlant || action == Action::kUproot; }
};

// `seed` empty: it is gone. `current`: its run, if there is one. A run that failed is started
// again (with twice its backoff, up to retry_max) once its retry is due.
Decision decide(const std::optional<SeedFacts>& seed, const std::optional<RunState>& current,
                std::chrono::milliseconds retry_min, std::chrono::milliseconds retry_max);

}  // namespace planter::op
