// `planter plant --trace FILE`: the run as a Chrome trace (the Trace Event Format's JSON, which
// Perfetto's UI and chrome://tracing open). A process per cluster, a thread per unit (named by its
// object); per unit a "waiting" slice from the start until its requirements held (named by the
// requirement that held it last) and a "declaring" slice until the apply answered; a flow arrow
// from each provider's declaration to each unit whose requirement it satisfied.
#pragma once

#include <string>

#include "plan/plan.h"
#include "plant/engine.h"

namespace planter::plant {

std::string render_trace_json(const Plan& plan, const PlantOutcome& outcome,
                              const std::string& seed_name);

}  // namespace planter::plant
