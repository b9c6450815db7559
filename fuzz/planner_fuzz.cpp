// libFuzzer target: load and plan any bytes, as `planter plan` does (no plugins). Bad input ends
// in diagnostics, never in a crash, a hang or an unbounded plan.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "plan/planner.h"
#include "seed/seed.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  planter::Seed seed;
  planter::Diagnostics diags;
  planter::parse_seed_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.yaml",
                           seed, diags);
  if (!diags.empty() || seed.objects.empty()) return 0;
  planter::PlanOptions options;
  options.clusters.push_back({"edge1", "flag", {}, std::nullopt, "kind-edge1", {{"tier", "edge"}}});
  planter::PlanOutcome out = planter::plan_seed(std::move(seed), options);
  (void)out;
  return 0;
}
