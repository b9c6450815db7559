#include "cli/fit_command.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cstdio>
#include <map>
#include <set>

#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "model/json_indent.h"
#include "model/yaml.h"
#include "plan/render.h"
#include "plant/existing_clusters.h"
#include "plant/stack_group.h"

namespace planter::cli {

namespace json = boost::json;

namespace {

// One stack on one cluster.
struct FitLine {
  std::string stack, cluster;
  bool fits = false;
  std::string text;  // where it lands, or why not
};

// The clusters a stack's members are placed on, in the plan's order.
std::vector<std::string> clusters_of(const Plan& plan, const StackNeeds& s) {
  std::set<size_t> members;
  for (const StackMember& m : s.members) members.insert(m.object);
  std::vector<std::string> out;
  for (const Unit& u : plan.units)
    if (members.contains(u.object) && std::find(out.begin(), out.end(), u.cluster) == out.end())
      out.push_back(u.cluster);
  return out;
}

// What the fit model reads of a cluster (fit::kSnapshotKinds), read once; an error for people
// when it cannot be read.
struct ClusterRead {
  std::vector<json::object> nodes, pods, volumes;  // volumes: claims, volumes, storage classes
  std::string error;
};

// `seed_claims`: the claims the seed declares there, read before the cluster's own (which win).
ClusterRead read_cluster(const kube::Kubeconfig& config, const std::string& context,
                         std::vector<json::object> seed_claims) {
  ClusterRead out;
  auto rest = config.rest_config(context);
  if (!rest) return {{}, {}, {}, rest.error().message};
  auto client = kube::Client::create(std::move(rest.value()));
  if (!client) return {{}, {}, {}, client.error().message};
  out.volumes = std::move(seed_claims);
  for (const fit::SnapshotKind& read : fit::kSnapshotKinds) {
    auto list = client.value()->list({read.api_version, read.kind, "", "", ""});
    if (!list)
      return {{}, {}, {}, fmt::format("cannot list {}s: {}", read.kind, list.error().str())};
    std::vector<json::object>& into = read.role == fit::SnapshotKind::kNode  ? out.nodes
                                      : read.role == fit::SnapshotKind::kPod ? out.pods
                                                                             : out.volumes;
    for (json::object& o : list.value().items) {
      o["kind"] = read.kind;  // a list's items may leave it out
      into.push_back(std::move(o));
    }
  }
  return out;
}

std::vector<FitLine> fit_all(const Plan& plan, const kube::Kubeconfig& config,
                             const std::string& self_context) {
  std::map<std::string, std::string> contexts{{"SELF", self_context}};
  std::set<std::string> made_by_seed;
  for (const ClusterInfo& c : plan.clusters) {
    if (!c.context.empty()) contexts[c.name] = c.context;
    if (c.object) made_by_seed.insert(c.name);
  }
  std::map<std::string, ClusterRead> read;
  // What stacks fitted earlier take, as planting would hold it for them.
  std::map<std::string, fit::Held> held;  // by cluster
  std::vector<FitLine> out;
  for (const StackNeeds& s : plan.stacks)
    for (const std::string& cluster : clusters_of(plan, s)) {
      FitLine line{s.name, cluster, false, ""};
      if (made_by_seed.contains(cluster)) {
        line.text = "the seed makes this cluster: planter reads it while planting";
        out.push_back(std::move(line));
        continue;
      }
      auto [it, fresh] = read.try_emplace(cluster);
      if (fresh) it->second = read_cluster(config, contexts[cluster], seed_claims(plan, cluster));
      const ClusterRead& c = it->second;
      if (!c.error.empty()) {
        line.text = "cannot read the cluster: " + c.error;
        out.push_back(std::move(line));
        continue;
      }
      auto visit = [](const std::vector<json::object>& items) {
        return [&items](const std::function<void(const json::object&)>& fn) {
          for (const json::object& o : items) fn(o);
        };
      };
      fit::GroupFit fit = fit::fit_group_on(stack_group(s), visit(c.nodes), visit(c.pods),
                                            held[cluster], visit(c.volumes));
      line.fits = fit.fits;
      line.text = fit.fits ? fit.where : fit.why;
      if (fit.fits) held[cluster][s.name] = std::move(fit.pods);
      out.push_back(std::move(line));
    }
  return out;
}

}  // namespace

void add_fit_flags(CLI::App* plan, FitFlags& f) {
  plan->add_flag("--fit", f.fit,
                 "Read the target clusters' nodes and pods (read only) and say per stack whether "
                 "it fits now, and where");
  plan->add_option("--kubeconfig", f.kubeconfig,
                   "With --fit: kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)");
  plan->add_option("--context", f.context,
                   "With --fit: kubeconfig context of the management cluster (default: the "
                   "current one)");
}

int run_plan_fit(const SeedFlags& seed, const FitFlags& flags, const std::string& output) {
  // The kubeconfig is read once, when first needed: for the management cluster's cluster objects
  // (names only they define are resolved there, as planting does), or for the fit itself.
  std::optional<Result<kube::Kubeconfig>> loaded;
  auto config = [&]() -> Result<kube::Kubeconfig>& {
    if (!loaded)
      loaded = kube::Kubeconfig::load(kube::KubeconfigSources::from_environment(flags.kubeconfig));
    return *loaded;
  };
  auto existing = [&]() -> Result<std::vector<ClusterInfo>> {
    if (!config()) return config().error();
    auto self = config()->rest_config(flags.context);
    if (!self) return self.error();
    plant::ExistingClustersOptions options;
    options.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    return plant::read_existing_clusters(self.value(), {}, options);
  };
  auto plan = plan_from_flags(seed, existing);
  if (!plan) return plan.error();
  if (!config()) {
    fmt::print(stderr, "error: --fit: {}\n", config().error().message);
    return kExitBadInput;
  }
  std::vector<FitLine> lines = fit_all(plan.value(), config().value(), flags.context);
  bool all_fit = std::all_of(lines.begin(), lines.end(), [](const FitLine& l) { return l.fits; });
  if (output == "json" || output == "yaml") {
    json::object doc = json::parse(render_json(plan.value())).as_object();
    json::array& stacks = doc["stacks"].as_array();  // in the plan's order
    for (size_t i = 0; i < stacks.size() && i < plan.value().stacks.size(); ++i) {
      json::array fits;
      for (const FitLine& l : lines)
        if (l.stack == plan.value().stacks[i].name)
          fits.push_back(json::object{
              {"cluster", l.cluster}, {"fits", l.fits}, {l.fits ? "where" : "why", l.text}});
      stacks[i].as_object()["fit"] = std::move(fits);
    }
    std::string text = output == "json" ? indent_json(json::serialize(doc)) : to_yaml(doc);
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::string text = render_table(plan.value(), output == "wide");
    text += lines.empty() ? "\nno stack to fit\n" : "\nfit now:\n";
    for (const FitLine& l : lines)
      text += fmt::format("  stack {} on {}: {}{}\n", l.stack, l.cluster,
                          !l.fits                        ? ""
                          : l.text.starts_with("across") ? "fits "
                                                         : "fits on ",
                          l.text);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return all_fit ? kExitOk : kExitFailure;
}

}  // namespace planter::cli
