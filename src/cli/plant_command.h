// `planter plant`, `planter uproot` and `planter replant`: the engine (src/plant) run against the
// clusters of a kubeconfig, or against the simulated fleet started in this process (--sim).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/plant_flags.h"

namespace planter::cli {

struct PlantCommands {
  CLI::App* plant = nullptr;
  CLI::App* uproot = nullptr;
  CLI::App* replant = nullptr;
  CLI::App* diff = nullptr;
};

PlantCommands add_plant_commands(CLI::App& app, PlantFlags& plant, PlantFlags& uproot,
                                 PlantFlags& replant, PlantFlags& diff);

// Each returns the process exit code: 0 done, 1 something failed or timed out, 2 bad input.
int run_plant(const PlantFlags& flags);
int run_uproot(const PlantFlags& flags);
int run_replant(const PlantFlags& flags);
// 0 no differences, 1 differences, 2 an error (kubectl diff's contract).
int run_diff(const PlantFlags& flags);

}  // namespace planter::cli
