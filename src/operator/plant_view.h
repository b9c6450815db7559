// The live view of a planting (`planter plant --ui ADDR`, docs/cli.md "The live view"): a page
// served by the binary (plain HTML and JavaScript, nothing fetched from elsewhere) that draws the
// plan, the clusters as boxes and each unit in its cluster coloured by its state, with why it
// waits and what it waits for, kept live through server-sent events as planting goes on.
//
//   /        the page, with the plan and the state at the time it is asked for
//   /plan    the plan: {seed, clusters, units: [{object, cluster, requires, external}]}
//   /state   every unit's state: {version, ended, units: {"<i>": {state, why}}}
//   /events  the state, then each change of it, as server-sent events of the same shape
//   /timeline  once the run has ended, its timeline (plant --timeline's HTML page)
//
// Threads: on_change and ended from the engine's thread, answer from the endpoint's; a mutex
// between them, never held while anything is written to a socket.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/http_endpoint.h"
#include "plan/plan.h"
#include "plant/engine.h"

namespace planter::op {

class PlantView {
 public:
  PlantView(const Plan& plan, const std::string& seed_name);
  // EngineOptions::on_change's record of unit `u`.
  void on_change(size_t u, const plant::UnitRecord& record);
  // The run ended: `summary` says how ("planted 3 units on 3 clusters in 3.01s"), `timeline`
  // is its timeline (plant/timeline.h's HTML page), which the page then links to.
  void ended(const std::string& summary, std::string timeline);
  daemon::HttpAnswer answer(const std::string& path);

 private:
  struct UnitView {
    std::string state = "pending";
    std::string why;
    uint64_t version = 0;  // the view's version when it last changed
  };
  // {"version":V,"ended":...,"units":{...}} with the units changed after `since`; mu_ held.
  std::string state_json(uint64_t since) const;

  std::string seed_name_;
  std::string plan_json_;  // made once: the plan does not change while planting
  mutable std::mutex mu_;
  std::vector<UnitView> units_;
  uint64_t version_ = 1;
  std::string ended_;
  std::string timeline_;
};

// The page, with `plan` and `state` (JSON) in it.
std::string plant_view_page(const std::string& seed_name, const std::string& plan,
                            const std::string& state);

// The pieces the operator's dashboard shares (dashboard.h): the plan as /plan serves it, a unit's
// state and why, and JSON made safe to put inside a <script> element.
std::string view_plan_json(const Plan& plan, const std::string& seed_name);
std::pair<std::string, std::string> view_unit(const plant::UnitRecord& record);
// /state's JSON: {version, ended, units}, `units` those given ({"<index>": {state, why}}).
std::string view_state_json(uint64_t version, const std::string& ended, boost::json::object units);
std::string script_safe(std::string json);

}  // namespace planter::op
