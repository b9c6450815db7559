#include "operator/decision.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "model/object.h"

namespace planter::op {

namespace json = boost::json;

SeedFacts seed_facts(const json::object& seed, const Result<SeedSpec>& spec) {
  SeedFacts f;
  if (const json::value* g = find_path(seed, {"metadata", "generation"}); g && g->is_int64())
    f.generation = g->as_int64();
  f.deleting = !string_field(seed, {"metadata", "deletionTimestamp"}).empty();
  if (const json::value* fin = find_path(seed, {"metadata", "finalizers"}); fin && fin->is_array())
    for (const json::value& v : fin->as_array())
      f.has_finalizer = f.has_finalizer || (v.is_string() && v.as_string() == kUprootFinalizer);
  if (spec) {
    f.uproot_on_delete = spec->uproot_on_delete;
    f.planted = spec->planted;
    f.replant = spec->replant;
  } else {
    f.invalid = spec.error().message;
  }
  if (const json::value* r = find_path(seed, {"status", "replant"}); r && r->is_string())
    f.last_replant = std::string(r->as_string());
  f.last_phase = string_field(seed, {"status", "phase"});
  if (const json::value* o = find_path(seed, {"status", "observedGeneration"}); o && o->is_int64())
    f.observed_generation = o->as_int64();
  return f;
}

namespace {

// A run under `run_key`: nothing when the current one is it and runs, succeeded, or failed and
// waits for its retry; else a new one, its backoff doubled after a failure of the same work.
Decision run(Decision::Action action, std::string run_key, const std::optional<RunState>& current,
             std::chrono::milliseconds retry_min, std::chrono::milliseconds retry_max) {
  Decision d;
  d.action = action;
  d.backoff = retry_min;
  if (current && current->run_key == run_key) {
    if (!current->done || !current->failed || !current->retry_due) {
      d.action = Decision::Action::kNothing;
      return d;
    }
    d.backoff = std::min(current->backoff * 2, retry_max);
  }
  d.run_key = std::move(run_key);
  return d;
}

// A phase held without work: nothing when it is held already.
Decision hold(Decision::Action action, std::string run_key,
              const std::optional<RunState>& current) {
  Decision d;
  d.action = current && current->run_key == run_key ? Decision::Action::kNothing : action;
  d.run_key = std::move(run_key);
  return d;
}

}  // namespace

Decision decide(const std::optional<SeedFacts>& seed, const std::optional<RunState>& current,
                std::chrono::milliseconds retry_min, std::chrono::milliseconds retry_max) {
  using Action = Decision::Action;
  if (!seed) {
    Decision gone;
    gone.action = Action::kForget;
    return gone;
  }
  const SeedFacts& s = *seed;
  if (s.deleting) {
    Decision d;
    d.action = Action::kStop;
    if (!s.has_finalizer) return d;  // nothing to do before it goes
    if (!s.invalid && s.uproot_on_delete)
      return run(Action::kUproot, "uproot", current, retry_min, retry_max);
    d.finalizer = Decision::Finalizer::kRemove;  // it may go without an uproot
    return d;
  }
  if (s.invalid) return hold(Action::kInvalid, fmt::format("invalid/{}", s.generation), current);
  Decision d;
  if (!s.planted) {
    d = hold(Action::kNotPlanted, fmt::format("idle/{}", s.generation), current);
  } else {
    std::string key = fmt::format("plant/{}/{}", s.generation, s.replant);
    d = run(Action::kPlant, key, current, retry_min, retry_max);
    // A replant: the token changed since the seed was last planted. Planted already, as the
    // Seed is now: planting again only confirms it, quietly.
    d.replant = s.last_replant && *s.last_replant != s.replant;
    d.confirming = !d.replant && s.last_phase == "Planted" && s.observed_generation == s.generation;
    if (d.action == Action::kNothing && current && current->run_key == key && current->moved) {
      d.action = Action::kPlant;  // the same work again, for the choices to move
      d.run_key = key;
      d.backoff = retry_min;
      d.failover = true;
      d.confirming = false;
    }
  }
  if (s.uproot_on_delete != s.has_finalizer)
    d.finalizer = s.uproot_on_delete ? Decision::Finalizer::kAdd : Decision::Finalizer::kRemove;
  return d;
}

}  // namespace planter::op
