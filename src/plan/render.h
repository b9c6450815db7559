// Renderings of a plan: the table people read, the JSON that tools read (docs/plan-format.md),
// and the graph as Graphviz DOT or Mermaid, with clusters as subgraphs.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "plan/plan.h"

namespace planter {

// `wide` (kubectl's -o wide) names the rule that derived each requirement: "... active
// (namespace)".
std::string render_table(const Plan& plan, bool wide = false);
// src/plan/render_json.cpp: written as it goes, no document of the units in between; write_json
// hands the text to `write` in chunks, so that it is never held whole.
std::string render_json(const Plan& plan);
void write_json(const Plan& plan, const std::function<void(std::string_view)>& write);
std::string render_dot(const Plan& plan);
std::string render_mermaid(const Plan& plan);

// The seed back as YAML with what planter decided written into the proof-of-concept annotations:
// planter.nephio.org/cluster (or /clusters) and planter.nephio.org/dependencies.
// `in_place`: the seed's own text edited where it can be (plan/annotate_in_place.h); false: every
// object written afresh, as planter read it.
std::string render_annotated_seed(const Plan& plan, bool in_place = true);

}  // namespace planter
