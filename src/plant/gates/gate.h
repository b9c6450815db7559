// How planting waits for a kind of requirement: its gate. The rule that adds a requirement is in
// src/plan/rules/ (one file per kind); its gate is here (one file per kind, or per family of kinds
// read the same way): what to watch for it, which keys wake the units waiting on it, how to check
// it, and what to do when the fleet's watches change. The engine (plant/engine.cpp) holds the
// units, their states and who waits on which key; a gate holds what it alone needs. The table
// from requirement type to gate is `Gates` (gates.cpp). docs/concepts.md: "Adding a requirement
// kind".
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fit/cluster_choice.h"
#include "plan/plan.h"
#include "plant/event_loop.h"
#include "plant/fleet.h"

namespace planter::plant {

// What a gate may use of planting.
struct GateContext {
  const Plan& plan;
  Fleet& fleet;
  EventLoop& loop;
  // Evaluates again, now, the units that wait on `key`.
  std::function<void(const std::string& key)> wake;
  // Whether a unit is declared; whether it still waits for its requirements.
  std::function<bool(size_t unit)> declared;
  std::function<bool(size_t unit)> pending;
  std::function<bool(size_t unit)> not_chosen;  // on a cluster its choice did not choose
  // A declared unit is to be declared again, once its requirements hold again (an anchor placed
  // again); `why` says so while it waits.
  std::function<void(size_t unit, std::string why)> declare_again;
  // Cluster choices (gates/cluster_choice.cpp): the clusters an earlier run chose, by choice name,
  // which are kept; and what hears each choice made now.
  std::map<std::string, std::vector<std::string>> kept_choices;
  std::function<void(const ClusterChoice& choice, const fit::ClusterChoiceResult& result)> chose;
};

class Gate {
 public:
  virtual ~Gate() = default;
  // Unit `u` has requirement `r`: the gate watches what its check reads and adds to `keys` the
  // keys whose wake must evaluate `u` again.
  virtual void require(size_t u, const Requirement& r, std::vector<std::string>& keys) = 0;
  // Why `r` does not hold for `u` now, for people; nullopt when it holds.
  struct Wait {
    std::string why;    // empty: the requirement's own words say it
    bool bare = false;  // `why` says it all, without the requirement's words before it
    // The unit is not to be declared at all (its cluster was not chosen): `why` says so.
    bool skip = false;
  };
  virtual std::optional<Wait> check(size_t u, const Requirement& r) = 0;
  // The unit `r` is on (r.unit) was declared.
  virtual void provider_declared(const Requirement& /*r*/) {}
  // After require(): the clusters it reads for units on other clusters, whatever the state of the
  // units there (a roll-out's room reads the object on each of its clusters). A cluster's watches
  // are otherwise kept open only while a unit with a requirement there (Requirement::cluster) is
  // open (Fleet::needed); these stay open for the run.
  virtual void read_for_the_run(std::vector<std::string>& /*clusters*/) const {}
  // The kinds of objects whose changes it hears (changed()), as kube-scheduler's plugins
  // register the events they need: Gates routes a change only to the gates that name its kind;
  // "*" for every kind (a gate whose kinds are known only while planting).
  virtual std::vector<std::string_view> kinds_read() const { return {}; }
  // An object of a kind it reads changed on `cluster`: added, changed or deleted.
  virtual void changed(const std::string& /*cluster*/, const boost::json::object& /*o*/) {}
  // The watches of `cluster` caught up with it.
  virtual void synced(const std::string& /*cluster*/) {}
  // Whether `cluster` can be reached changed (Fleet::link).
  virtual void linked(const std::string& /*cluster*/) {}
  // Discovery answered whether `api_version` `kind` is served on `cluster`.
  virtual void kind_checked(const std::string& /*cluster*/, const std::string& /*api_version*/,
                            const std::string& /*kind*/) {}
};

// The key of an object on a cluster, as the engine wakes its waiters on each change of it.
std::string object_wake_key(std::string_view cluster, const ObjectRef& ref);
std::string object_wake_key(std::string_view cluster, std::string_view object_key);

class StackFitsGate;

// The gate of every requirement type, made once per planting.
class Gates {
 public:
  explicit Gates(GateContext context);
  ~Gates();
  Gate& of(ReadinessPredicate::Type type);
  // To the gates that read its kind (Gate::kinds_read).
  void changed(const std::string& cluster, const boost::json::object& o);
  // What every gate reads for the run (Gate::read_for_the_run).
  std::vector<std::string> read_for_the_run() const;
  // Every gate hears these.
  void synced(const std::string& cluster);
  void linked(const std::string& cluster);
  void kind_checked(const std::string& cluster, const std::string& api_version,
                    const std::string& kind);
  // The stack-fits gate also steers what is declared (StackFitsGate::steer).
  StackFitsGate& stack_fits() { return *stack_fits_; }

 private:
  GateContext context_;
  std::vector<std::unique_ptr<Gate>> gates_;
  std::map<ReadinessPredicate::Type, Gate*> by_type_;
  std::map<std::string, std::vector<Gate*>, std::less<>> by_kind_;  // "*": every kind
  StackFitsGate* stack_fits_ = nullptr;
};

// The gates of gates.cpp's table, one per file.
std::unique_ptr<Gate> make_cluster_ready_gate(GateContext& context);
std::unique_ptr<Gate> make_established_gate(GateContext& context);
std::unique_ptr<Gate> make_object_state_gate(GateContext& context);
std::unique_ptr<Gate> make_node_capability_gate(GateContext& context);
std::unique_ptr<Gate> make_cluster_choice_gate(GateContext& context);
std::unique_ptr<Gate> make_healthy_for_gate(GateContext& context);
std::unique_ptr<Gate> make_rollout_room_gate(GateContext& context);

}  // namespace planter::plant
