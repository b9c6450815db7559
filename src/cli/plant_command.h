// `planter plant`, `planter uproot` and `planter replant`: the engine (src/plant) run against the
// clusters of a kubeconfig, or against the simulated fleet started in this process (--sim).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/client_flags.h"
#include "cli/seed_flags.h"

namespace planter::cli {

struct PlantFlags {
  SeedFlags seed;
  std::string kubeconfig;  // --kubeconfig; else $KUBECONFIG, ~/.kube/config
  std::string context;     // --context; else the current one
  bool sim = false;        // plant into a simulated fleet started in this process
  bool keep = false;       // with --sim: keep serving afterwards, until Ctrl-C
  std::string sim_kubeconfig_out;
  std::string sim_audit_log;
  std::string timeline;  // FILE.html, or FILE.svg for the chart alone
  std::string report;    // FILE.json
  std::string trace;     // FILE.json: Chrome trace events (Perfetto)
  bool verbose = false;
  double timeout_s = 0;  // 0: none
  std::string seed_name;
  bool force_conflicts = false;
  bool adopt = false;     // take over objects another seed planted (plant/ownership.h)
  bool preflight = true;  // a server-side dry run of what can be judged before the first write
  ClientFlags client;
  bool hard = false;  // replant: uproot, then plant
  bool prune = true;  // delete what the seed's inventory lists and the seed no longer holds
  bool wait = false;  // after declaring, wait until every object is healthy (kstatus)
};

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

// The seed's name for the planter.nephio.org/seed label when --seed-name is not given: the first
// source's file name without extension ("cnf.yaml" -> "cnf"), its folder's name for a file called
// seed.yaml ("examples/hello-world/seed.yaml" -> "hello-world"), a folder's own name, "stdin" for
// -; cut to a valid label value.
std::string default_seed_name(const std::vector<std::string>& sources);

}  // namespace planter::cli
