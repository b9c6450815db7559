// What planting did, for people and programs: the summary table printed at the end, the JSON
// report (--report), and the timeline (--timeline): an SVG Gantt chart, one row per unit, grouped
// by cluster, showing the wait for requirements (and the requirement that held it) and the
// declaration; standalone, or inside a self-contained HTML page with a legend.
#pragma once

#include <string>

#include "plan/plan.h"
#include "plant/engine.h"

namespace planter::plant {

// Per cluster: declared/total and the units that are not declared, each with what it waits for
// or why it failed. Ends with one line: "planted 42 units on 2 clusters in 3.1s".
std::string render_summary(const Plan& plan, const PlantOutcome& outcome);

// {"seed", "started", "elapsedSeconds", "timedOut", "counts", "units": [{object, cluster, wave,
// source, state, readySeconds, declaredSeconds, heldBy, waitingFor, error, attempts}]}.
std::string render_report_json(const Plan& plan, const PlantOutcome& outcome,
                               const std::string& seed_name);

std::string render_timeline_svg(const Plan& plan, const PlantOutcome& outcome,
                                const std::string& seed_name);
std::string render_timeline_html(const Plan& plan, const PlantOutcome& outcome,
                                 const std::string& seed_name);

}  // namespace planter::plant
