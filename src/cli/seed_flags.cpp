#include "cli/seed_flags.h"

#include <fmt/format.h>

#include "plugins/runner.h"
#include "seed/kustomize.h"

namespace planter::cli {

void add_seed_flags(CLI::App* cmd, SeedFlags& f) {
  auto* seed = cmd->add_option("seed", f.sources,
                               "Seed sources: files, folders (recursive .yaml/.yml/.json; a "
                               "folder with a kustomization is built), - for stdin, http(s) URLs");
  auto* filename = cmd->add_option("-f,--filename", f.filenames,
                                   "A seed source as kubectl's -f takes it (repeatable; the same "
                                   "as giving it without -f)")
                       ->allow_extra_args(false);
  auto* kustomize = cmd->add_option("-k,--kustomize", f.kustomize,
                                    "A folder with a kustomization.yaml, built with `kustomize "
                                    "build` or `kubectl kustomize` (repeatable), as kubectl's -k")
                        ->allow_extra_args(false);
  cmd->add_flag("--allow-remote-bases", f.allow_remote_bases,
                "Let kustomize fetch a kustomization's remote resources (URLs, git repositories); "
                "without it kustomize runs without network");
  cmd->callback([cmd, seed, filename, kustomize] {
    if (seed->count() == 0 && filename->count() == 0 && kustomize->count() == 0)
      throw CLI::RequiredError(cmd->get_name() +
                               ": a seed (a file, a folder, - or a URL; or -f SOURCE) or -k DIR");
  });
  cmd->add_option(
         "--ignore-annotations", f.ignore_annotations,
         "Do not honour these tools' annotations (comma-separated: kpt, helm, argocd, kapp); "
         "their objects are then planted as planter's own rules say")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--plugin", f.plugins, "Run this plugin executable (repeatable, in order)")
      ->allow_extra_args(false);
  cmd->add_option("--plugin-dir", f.plugin_dir,
                  "Run every executable in this folder, sorted by name, after --plugin ones");
  cmd->add_option("--plugin-timeout", f.plugin_timeout_s, "Seconds a plugin may run")
      ->capture_default_str();
  cmd->add_option("--plugin-network", f.plugin_network,
                  "Let this plugin (its file name or path) use the network; the others run without "
                  "(repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--plugin-max-output", f.plugin_max_output_mib,
                  "MiB a plugin may write to stdout")
      ->capture_default_str();
  cmd->add_option("--cluster", f.clusters,
                  "A workload cluster that already exists: NAME=CONTEXT (kubeconfig context)")
      ->allow_extra_args(false);
  cmd->add_option("--cluster-labels", f.cluster_labels,
                  "Labels of a known cluster for cluster-selector: NAME=k=v,k2=v2")
      ->allow_extra_args(false);
  cmd->add_option("-n,--namespace", f.default_namespace,
                  "Namespace for namespaced objects that name none")
      ->capture_default_str();
  cmd->add_flag("--create-namespace", f.create_namespace,
                "Add the --namespace Namespace to the seed when the seed does not hold it");
  cmd->add_option("--default-cluster", f.default_cluster, "Where objects without a placement go")
      ->capture_default_str();
  cmd->add_option("--opaque-stack-members", f.opaque_stack_members,
                  "A stack member whose pods planter cannot write into (a custom resource of an "
                  "operator it does not know): error, or warn and leave it as it is")
      ->check(CLI::IsMember({"error", "warn"}))
      ->capture_default_str();
}

std::vector<std::string> all_sources(const SeedFlags& f) {
  std::vector<std::string> out = f.filenames;
  out.insert(out.end(), f.sources.begin(), f.sources.end());
  out.insert(out.end(), f.kustomize.begin(), f.kustomize.end());
  return out;
}

Result<PlanRequest> make_request(const SeedFlags& f) {
  PlanRequest req;
  req.sources = all_sources(f);
  req.load.allow_remote_bases = f.allow_remote_bases;
  for (const std::string& dir : f.kustomize)
    if (!kustomization_in(dir))
      return Error{fmt::format(
          "-k {}: no kustomization.yaml, kustomization.yml or Kustomization in that folder", dir)};
  auto conventions = Conventions::ignoring(f.ignore_annotations);
  if (!conventions) return conventions.error();
  req.options.conventions = conventions.value();
  req.plugins = f.plugins;
  if (!f.plugin_dir.empty()) {
    auto dir = plugins_in_dir(f.plugin_dir);
    if (!dir) return Error{"--plugin-dir " + dir.error().message};
    req.plugins.insert(req.plugins.end(), dir->begin(), dir->end());
  }
  req.plugin_limits.timeout = std::chrono::seconds(f.plugin_timeout_s);
  req.plugin_limits.max_output_bytes = f.plugin_max_output_mib << 20;
  req.plugin_limits.network = f.plugin_network;
  req.options.default_namespace = f.default_namespace;
  req.options.create_namespace = f.create_namespace;
  req.options.stacks.allow_unreachable_members = f.opaque_stack_members == "warn";
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

Expected<Plan, int> plan_from_flags(
    const SeedFlags& f, std::function<Result<std::vector<ClusterInfo>>()> existing_clusters,
    std::function<Diagnostics(const Plan&)> also, std::map<std::string, GangPath> gang_paths) {
  auto req = make_request(f);
  if (!req) {
    fmt::print(stderr, "error: {}\n", req.error().message);
    return kExitBadInput;
  }
  req->options.existing_clusters = std::move(existing_clusters);
  req->options.stacks.gang_paths = std::move(gang_paths);
  PlanOutcome out = build_plan(req.value());
  for (const Diagnostic& w : out.diags.warnings()) fmt::print(stderr, "warning: {}\n", w.str());
  if (!out.ok()) {
    if (also && !out.plan.units.empty()) {
      Diagnostics more = also(out.plan);
      for (const Diagnostic& d : more.items()) out.diags.add(d);
    }
    fmt::print(stderr, "{}", out.diags.str());
    return kExitBadInput;
  }
  return std::move(out.plan);
}

}  // namespace planter::cli
