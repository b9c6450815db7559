// The timeline (`plant --timeline`): an SVG Gantt chart of a plant, one row per unit, grouped by
// cluster. A row shows each stretch of the unit's wait in the colour of what it waited for (a
// cluster, a kind to be served, a Namespace, an object to be ready, nodes (room, their
// configuration, a scheduler), a retry), then its apply queued in planter and on the wire, and a
// mark where it was declared. The critical path (what held the last unit back, link by link) is
// marked; rows identical to the pixel are drawn once with a count. Standalone, or inside a
// self-contained HTML page.
#pragma once

#include <string>
#include <vector>

#include "plan/plan.h"
#include "plant/engine.h"

namespace planter::plant {

// The units, last first, whose waits made the plant as long as it was: the unit that ended last,
// then the provider of the requirement that held it last, and so on back to one that waited for
// nothing in the seed.
std::vector<size_t> critical_path(const Plan& plan, const PlantOutcome& outcome);

std::string render_timeline_svg(const Plan& plan, const PlantOutcome& outcome,
                                const std::string& seed_name);
std::string render_timeline_html(const Plan& plan, const PlantOutcome& outcome,
                                 const std::string& seed_name);

}  // namespace planter::plant
