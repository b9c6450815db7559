// The flags every command that reads a seed shares (plan, annotate, plant, uproot, replant),
// and the exit codes of the `planter` command.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/result.h"
#include "plan/planner.h"

namespace planter::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;   // something failed or timed out
constexpr int kExitBadInput = 2;  // the seed or the flags are wrong; nothing was declared

struct SeedFlags {
  std::vector<std::string> sources;             // positional
  std::vector<std::string> filenames;           // -f, as kubectl's
  std::vector<std::string> kustomize;           // -k DIR: folders with a kustomization
  bool allow_remote_bases = false;              // a kustomization's remote resources
  std::vector<std::string> ignore_annotations;  // kpt, helm, argocd, kapp
  std::vector<std::string> plugins;
  std::string plugin_dir;
  int plugin_timeout_s = 30;
  size_t plugin_max_output_mib = 256;
  std::vector<std::string> plugin_network;
  std::vector<std::string> clusters;        // NAME=CONTEXT
  std::vector<std::string> cluster_labels;  // NAME=k=v,...
  std::string default_namespace = "default";
  bool create_namespace = false;
  std::string default_cluster = "SELF";
  // A stack member whose pods planter cannot write into: "error" (bad input) or "warn".
  std::string opaque_stack_members = "error";
};

void add_seed_flags(CLI::App* cmd, SeedFlags& f);
// The seed sources in the order given: -f ones, positional ones, then -k folders.
std::vector<std::string> all_sources(const SeedFlags& f);
// Turns the flags into a request, or says what is wrong with them.
Result<PlanRequest> make_request(const SeedFlags& f);
// The whole planning pipeline for a command: warnings and every problem go to stderr; a bad seed
// or bad flags give the exit code (kExitBadInput) instead of a plan. `existing_clusters` reads the
// management cluster's cluster objects when the seed needs them (see PlanOptions); without it the
// plan is made offline.
// `also`, when given, is asked for the problems the servers see in a seed planning refused (a
// kind nothing serves), so that every problem is reported in one round.
// `gang_paths`: how the clusters gang the mode-gang stacks, when not as planned
// (plant/gang_paths.h).
Expected<Plan, int> plan_from_flags(
    const SeedFlags& f,
    std::function<Result<std::vector<ClusterInfo>>()> existing_clusters = nullptr,
    std::function<Diagnostics(const Plan&)> also = nullptr,
    std::map<std::string, GangPath> gang_paths = {});

}  // namespace planter::cli
