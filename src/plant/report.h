// What planting did, for people and programs: the summary table printed at the end and the JSON
// report (--report). The timeline is plant/timeline.h, the trace plant/trace.h.
#pragma once

#include <string>

#include "plan/plan.h"
#include "plant/engine.h"

namespace planter::plant {

// Per cluster: declared/total and the units that are not declared, each with what it waits for
// or why it failed. Ends with one line: "planted 42 units on 2 clusters in 3.1s".
std::string render_summary(const Plan& plan, const PlantOutcome& outcome);

// {"seed", "started", "elapsedSeconds", "timedOut", "counts", "units": [{object, cluster, wave,
// source, state, readySeconds, sentSeconds, declaredSeconds, onWireSeconds, heldBy, waitingFor,
// error, attempts, criticalPath (true on the timeline's critical path), waits: [{for, kind
// (cluster, api, namespace, ready, room, retry: the timeline's colours), fromSeconds,
// toSeconds}]}]}.
std::string render_report_json(const Plan& plan, const PlantOutcome& outcome,
                               const std::string& seed_name);

}  // namespace planter::plant
