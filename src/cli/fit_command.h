// `planter plan --fit`: before planting, reads the target clusters' nodes and pods (read only)
// and says per stack whether it fits now under its policy and where it would land, or why not
// (docs/stacks.md, "What-if").
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/seed_flags.h"

namespace planter::cli {

struct FitFlags {
  bool fit = false;
  std::string kubeconfig;
  std::string context;
};

void add_fit_flags(CLI::App* plan, FitFlags& f);

// Plans the seed, prints the plan as `output` says with each stack's fit, and returns the exit
// code: 0 when every stack fits (a stack that chooses its clusters: when its choice can be made)
// and every cluster choice can be made, 1 when not or a cluster cannot be read, 2 for bad
// input.
int run_plan_fit(const SeedFlags& seed, const FitFlags& fit, const std::string& output);

}  // namespace planter::cli
