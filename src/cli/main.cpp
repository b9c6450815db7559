// The `planter` command: subcommands `plan` and `annotate` (the pure half of the pipeline), and
// `sim` (the simulated fleet).
// Exit codes: 0 success, 2 bad input (nothing was declared), 1 anything else.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "cli/sim_command.h"
#include "plan/planner.h"
#include "plan/render.h"
#include "plugins/runner.h"

namespace {

using namespace planter;

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

struct SeedFlags {
  std::vector<std::string> sources;
  std::vector<std::string> plugins;
  std::string plugin_dir;
  int plugin_timeout_s = 30;
  size_t plugin_max_output_mib = 256;
  std::vector<std::string> clusters;        // NAME=CONTEXT
  std::vector<std::string> cluster_labels;  // NAME=k=v,...
  std::string default_namespace = "default";
  std::string default_cluster = "SELF";
};

void add_seed_flags(CLI::App* cmd, SeedFlags& f) {
  cmd->add_option("seed", f.sources,
                  "Seed sources: files, folders (recursive .yaml/.yml/.json), - for stdin, "
                  "http(s) URLs")
      ->required();
  cmd->add_option("--plugin", f.plugins, "Run this plugin executable (repeatable, in order)");
  cmd->add_option("--plugin-dir", f.plugin_dir,
                  "Run every executable in this folder, sorted by name, after --plugin ones");
  cmd->add_option("--plugin-timeout", f.plugin_timeout_s, "Seconds a plugin may run")
      ->capture_default_str();
  cmd->add_option("--plugin-max-output", f.plugin_max_output_mib,
                  "MiB a plugin may write to stdout")
      ->capture_default_str();
  cmd->add_option("--cluster", f.clusters,
                  "A workload cluster that already exists: NAME=CONTEXT (kubeconfig context)");
  cmd->add_option("--cluster-labels", f.cluster_labels,
                  "Labels of a known cluster for cluster-selector: NAME=k=v,k2=v2");
  cmd->add_option("-n,--namespace", f.default_namespace,
                  "Namespace for namespaced objects that name none")
      ->capture_default_str();
  cmd->add_option("--default-cluster", f.default_cluster, "Where objects without a placement go")
      ->capture_default_str();
}

// Turns the flags into a request, or says what is wrong with them.
Result<PlanRequest> make_request(const SeedFlags& f) {
  PlanRequest req;
  req.sources = f.sources;
  req.plugins = f.plugins;
  if (!f.plugin_dir.empty()) {
    auto dir = plugins_in_dir(f.plugin_dir);
    if (!dir) return Error{"--plugin-dir " + dir.error().message};
    req.plugins.insert(req.plugins.end(), dir->begin(), dir->end());
  }
  req.plugin_limits.timeout = std::chrono::seconds(f.plugin_timeout_s);
  req.plugin_limits.max_output_bytes = f.plugin_max_output_mib << 20;
  req.options.default_namespace = f.default_namespace;
  req.options.default_cluster = f.default_cluster;
  for (const std::string& c : f.clusters) {
    auto eq = c.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == c.size())
      return Error{fmt::format("--cluster {}: expected NAME=CONTEXT", c)};
    req.options.clusters.push_back(
        {c.substr(0, eq), "flag", {}, std::nullopt, c.substr(eq + 1), {}});
  }
  for (const std::string& cl : f.cluster_labels) {
    auto eq = cl.find('=');
    if (eq == std::string::npos || eq == 0)
      return Error{fmt::format("--cluster-labels {}: expected NAME=k=v,k2=v2", cl)};
    ClusterInfo info{cl.substr(0, eq), "flag", {}, std::nullopt, {}, {}};
    std::string_view rest = std::string_view(cl).substr(eq + 1);
    while (!rest.empty()) {
      auto comma = rest.find(',');
      std::string_view kv = rest.substr(0, comma);
      auto e = kv.find('=');
      if (e == std::string_view::npos || e == 0)
        return Error{fmt::format("--cluster-labels {}: \"{}\" is not k=v", cl, kv)};
      info.labels[std::string(kv.substr(0, e))] = std::string(kv.substr(e + 1));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    // Labels for a cluster named by --cluster are merged into it; others create a flag entry
    // that the inventory merges into a seed cluster of the same name.
    bool merged = false;
    for (auto& existing : req.options.clusters)
      if (existing.name == info.name) {
        for (auto& [k, v] : info.labels) existing.labels[k] = v;
        merged = true;
      }
    if (!merged) req.options.clusters.push_back(std::move(info));
  }
  return req;
}

int run_planner(const SeedFlags& flags, const std::function<std::string(const Plan&)>& render) {
  auto req = make_request(flags);
  if (!req) {
    fmt::print(stderr, "error: {}\n", req.error().message);
    return kExitBadInput;
  }
  PlanOutcome out = build_plan(req.value());
  for (const Diagnostic& w : out.diags.warnings()) fmt::print(stderr, "warning: {}\n", w.str());
  if (!out.ok()) {
    fmt::print(stderr, "{}", out.diags.str());
    return kExitBadInput;
  }
  std::string text = render(out.plan);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "planter plants a Day-1 package of Kubernetes objects (a seed) across the management "
      "cluster and workload clusters, declaring each object as soon as its hard dependencies "
      "hold."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("planter ") + PLANTER_VERSION);
  app.footer(
      "Examples:\n"
      "  planter plan examples/hello-world/seed.yaml\n"
      "  planter plan seed/ -o json --plugin ./plugins/10-network.py\n"
      "  planter annotate seed.yaml > annotated.yaml");

  SeedFlags plan_flags;
  std::string output = "table";
  auto* plan = app.add_subcommand("plan",
                                  "Print the plan of a seed: units, clusters, waves and "
                                  "what each unit waits for (no cluster is contacted)");
  add_seed_flags(plan, plan_flags);
  plan->add_option("-o,--output", output, "Output format")
      ->check(CLI::IsMember({"table", "json", "dot", "mermaid"}))
      ->capture_default_str();
  plan->footer(
      "Examples:\n"
      "  planter plan examples/hello-world/seed.yaml\n"
      "  planter plan seed.yaml -o json | jq '.units[] | select(.wave == 0)'\n"
      "  planter plan seed.yaml -o dot | dot -Tsvg > plan.svg\n"
      "  planter plan seed.yaml --cluster edge2=kind-edge2 --cluster-labels edge2=tier=edge");

  SeedFlags annotate_flags;
  auto* annotate = app.add_subcommand(
      "annotate",
      "Print the seed back with planter.nephio.org/cluster and planter.nephio.org/dependencies "
      "filled in, as planter decided them");
  add_seed_flags(annotate, annotate_flags);
  annotate->footer(
      "Examples:\n"
      "  planter annotate examples/hello-world/seed.yaml\n"
      "  planter annotate seed.yaml --plugin ./my-plugin > annotated.yaml");

  cli::SimFlags sim_flags;
  auto* sim = cli::add_sim_command(app, sim_flags);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }

  try {
    if (*plan) {
      return run_planner(plan_flags, [&](const Plan& p) {
        if (output == "json") return render_json(p);
        if (output == "dot") return render_dot(p);
        if (output == "mermaid") return render_mermaid(p);
        return render_table(p);
      });
    }
    if (*annotate) return run_planner(annotate_flags, render_annotated_seed);
    if (*sim) return cli::run_sim(sim_flags);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kExitFailure;
  }
  return kExitFailure;
}
