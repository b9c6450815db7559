// The target of `planter plant`, `replant`, `uproot` and `diff`: the seed planned from the
// flags (exit code 2 and every problem when it is bad), the clusters it goes to (the management
// cluster of the kubeconfig or of the simulated fleet started here, --cluster contexts, and the
// clusters the seed creates once they exist), and the seed run (plant/seed_run.h) over them.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/interrupts.h"
#include "cli/plant_flags.h"
#include "daemon/http_endpoint.h"
#include "kube/kubeconfig.h"
#include "operator/plant_view.h"
#include "plan/plan.h"
#include "plant/seed_run.h"
#include "sim/server.h"

namespace planter::cli {

// Where planting goes: the clusters' RestConfigs, and the simulated fleet when --sim.
struct Targets {
  std::unique_ptr<sim::Server> sim;
  std::map<std::string, kube::RestConfig> clusters;
  std::string kubeconfig_path;  // with --sim, where its kubeconfig was written
  std::optional<kube::Kubeconfig> kubeconfig;
};

struct Prepared {
  Plan plan;
  Targets targets;
  std::string seed_name;
  Interrupts* interrupts = nullptr;
  // Over `plan` and the targets' clusters, with the created clusters that exist added.
  std::unique_ptr<plant::SeedRun> run;
  // What the preflight saw on the clusters (PreflightOutcome::live_versions).
  std::vector<std::string> live_versions;
  // --ui: the live view and its endpoint, for as long as the command lasts (--keep: until
  // Ctrl-C); the endpoint goes first.
  std::shared_ptr<op::PlantView> view;
  std::unique_ptr<daemon::HttpEndpoint> view_endpoint;
  std::string view_url;
};

// The seed's name for the planter.nephio.org/seed label when --seed-name is not given: the first
// source's file name without extension ("cnf.yaml" -> "cnf"), its folder's name for a file called
// seed.yaml ("examples/hello-world/seed.yaml" -> "hello-world"), a folder's own name, "stdin" for
// -; cut to a valid label value.
std::string default_seed_name(const std::vector<std::string>& sources);

std::optional<std::chrono::milliseconds> timeout_of(const PlantFlags& f);
// What to do about an object another seed planted: the seed name this run has and where it came
// from (a copied seed.yaml in another folder gets another name), --seed-name, then --adopt.
std::string adopt_hint(const PlantFlags& f, const std::string& seed_name);
// When a question asked before the first write stops waiting: `cap` from now, or --timeout's
// end when that is sooner.
std::chrono::steady_clock::time_point asking_deadline(const PlantFlags& f,
                                                      std::chrono::milliseconds cap);
// What a run says and returns when a signal stopped it (rc otherwise).
int interrupted(const Prepared& p, int rc);
// Writes a file the run was asked for (--report, --timeline, --trace); false, said, when it
// cannot.
bool write_text(const std::string& path, const std::string& text);

// --wait: every object healthy (plant/health_wait.h), by --timeout's end or 300 s when there is
// none; says each that becomes so, then the summary. False when some are not.
bool wait_healthy(const PlantFlags& f, Prepared& p);

// Plans the seed, finds the clusters, does `work`, then (--sim --keep) serves on until Ctrl-C.
// `nothing_done`: what an early end says was not done ("nothing was written" for `diff`).
int run_prepared(const PlantFlags& f, const std::function<int(Prepared&)>& work,
                 std::string_view nothing_done = "nothing was declared");

}  // namespace planter::cli
