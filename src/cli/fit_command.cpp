#include "cli/fit_command.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cstdio>
#include <map>
#include <set>

#include "fit/cluster_choice.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "model/base64.h"
#include "model/json_indent.h"
#include "model/yaml.h"
#include "plan/cluster_choice.h"
#include "plan/render.h"
#include "plant/engine.h"
#include "plant/existing_clusters.h"
#include "plant/readiness_check.h"
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

// How to reach a cluster the management cluster's cluster objects define: the kubeconfig its
// status points at, read from the management cluster as planting reads it (plant/fleet_view.cpp).
Result<kube::RestConfig> workload_rest_config(const kube::Kubeconfig& config,
                                              const std::string& self_context,
                                              const ObjectRef& cluster) {
  auto self_rest = config.rest_config(self_context);
  if (!self_rest) return self_rest.error();
  auto self = kube::Client::create(std::move(self_rest.value()));
  if (!self) return self.error();
  auto object = self.value()->get(cluster.api_version, cluster.kind, cluster.ns, cluster.name);
  if (!object)
    return Error{fmt::format("reading {}: {}", cluster.short_form(), object.error().str())};
  auto where = plant::kubeconfig_location(*object);
  if (!where) return Error{fmt::format("{}: {}", cluster.short_form(), where.error())};
  if (where->secret_name.empty())
    return Error{"its kubeconfig is at a URL (" + where->url + "), which --fit does not fetch"};
  auto secret = self.value()->get("v1", "Secret", where->secret_namespace, where->secret_name);
  if (!secret)
    return Error{fmt::format("reading {}: {}", where->secret_origin(), secret.error().str())};
  auto bytes = base64_decode(string_field(*secret, {"data", where->secret_key}));
  if (!bytes)
    return Error{fmt::format("{} has no kubeconfig under key \"{}\"", where->secret_origin(),
                             where->secret_key)};
  auto kubeconfig = kube::Kubeconfig::parse(*bytes, where->secret_origin(), "");
  if (!kubeconfig) return kubeconfig.error();
  return kubeconfig->rest_config(where->context);
}

// `seed_claims`: the claims the seed declares there, read before the cluster's own (which win).
ClusterRead read_cluster(Result<kube::RestConfig> rest, std::vector<json::object> seed_claims) {
  ClusterRead out;
  if (!rest) return {{}, {}, {}, rest.error().message};
  auto client = kube::Client::create(std::move(rest.value()));
  if (!client) return {{}, {}, {}, client.error().message};
  out.volumes = std::move(seed_claims);
  for (const fit::SnapshotKind& read : fit::kSnapshotKinds) {
    auto list = client.value()->list({read.api_version, read.kind, "", "", ""});
    if (!list && read.devices && list.error().kind_unknown()) continue;  // before 1.34: none
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

auto visit(const std::vector<json::object>& items) {
  return [&items](const std::function<void(const json::object&)>& fn) {
    for (const json::object& o : items) fn(o);
  };
}

// The clusters the fit reads, each read once.
struct Clusters {
  const Plan& plan;
  const kube::Kubeconfig& config;
  std::string self_context;
  std::set<std::string> made_by_seed;
  std::map<std::string, ClusterRead> read;

  Clusters(const Plan& p, const kube::Kubeconfig& c, std::string self)
      : plan(p), config(c), self_context(std::move(self)) {
    for (const ClusterInfo& info : plan.clusters)
      if (info.object) made_by_seed.insert(info.name);
  }
  Result<kube::RestConfig> rest_config(const std::string& cluster) const {
    for (const ClusterInfo& info : plan.clusters) {
      if (info.name != cluster) continue;
      if (!info.context.empty()) return config.rest_config(info.context);
      if (info.existing) return workload_rest_config(config, self_context, *info.existing);
    }
    return config.rest_config(self_context);  // SELF
  }
  const ClusterRead& of(const std::string& cluster) {
    auto [it, fresh] = read.try_emplace(cluster);
    if (fresh) it->second = read_cluster(rest_config(cluster), seed_claims(plan, cluster));
    return it->second;
  }
};

// Each cluster choice as planting would make it now (without the clusters earlier runs chose).
std::vector<plant::ChoiceRecord> choose_all(const Plan& plan, Clusters& clusters) {
  std::vector<plant::ChoiceRecord> out;
  for (const ClusterChoice& choice : plan.choices) {
    fit::Group group = choice_group(plan, choice);
    std::vector<fit::ClusterCandidate> candidates;
    auto now = std::chrono::system_clock::now();  // for tolerationSeconds
    for (uint32_t index : choice.candidates) {
      const ClusterInfo& info = plan.clusters[index];
      const std::string& name = info.name;
      candidates.push_back(choice_candidate(info, choice, now));
      if (clusters.made_by_seed.contains(name)) {
        candidates.back().why = "the seed makes this cluster: planter reads it while planting";
        continue;
      }
      const ClusterRead& c = clusters.of(name);
      if (!c.error.empty()) {
        candidates.back().why = "cannot read the cluster: " + c.error;
        continue;
      }
      candidates.back().with(
          fit::fit_group_on(group, visit(c.nodes), visit(c.pods), {}, visit(c.volumes)));
    }
    out.push_back({choice.name, fit::choose_clusters(choice.count, candidates, {}, choice.spread,
                                                     choice.preferences)});
  }
  return out;
}

std::vector<FitLine> fit_all(const Plan& plan, Clusters& clusters) {
  const std::set<std::string>& made_by_seed = clusters.made_by_seed;
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
      const ClusterRead& c = clusters.of(cluster);
      if (!c.error.empty()) {
        line.text = "cannot read the cluster: " + c.error;
        out.push_back(std::move(line));
        continue;
      }
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
  Clusters clusters(plan.value(), config().value(), flags.context);
  std::vector<FitLine> lines = fit_all(plan.value(), clusters);
  std::vector<plant::ChoiceRecord> choices = choose_all(plan.value(), clusters);
  // A stack that chooses its clusters need not fit on every candidate: its choice says.
  std::set<std::string> chosen_stacks;
  for (const ClusterChoice& c : plan.value().choices)
    if (c.stack) chosen_stacks.insert(plan.value().stacks[*c.stack].name);
  bool all_fit =
      std::all_of(lines.begin(), lines.end(),
                  [&](const FitLine& l) { return l.fits || chosen_stacks.contains(l.stack); }) &&
      std::all_of(choices.begin(), choices.end(),
                  [](const plant::ChoiceRecord& c) { return c.result.complete; });
  if (output == "json" || output == "yaml") {
    json::object doc = json::parse(render_json(plan.value())).as_object();
    // In the plan's order; a plan without stacks (a cluster choice alone) has none.
    json::array no_stacks;
    json::value* listed = doc.if_contains("stacks");
    json::array& stacks = listed && listed->is_array() ? listed->get_array() : no_stacks;
    for (size_t i = 0; i < stacks.size() && i < plan.value().stacks.size(); ++i) {
      json::array fits;
      for (const FitLine& l : lines)
        if (l.stack == plan.value().stacks[i].name)
          fits.push_back(json::object{
              {"cluster", l.cluster}, {"fits", l.fits}, {l.fits ? "where" : "why", l.text}});
      stacks[i].as_object()["fit"] = std::move(fits);
    }
    json::array jchoices;
    for (size_t i = 0; i < choices.size(); ++i) {
      const plant::ChoiceRecord& c = choices[i];
      json::array candidates, chosen;
      for (const fit::ScoredCandidate& s : c.result.ranked) {
        json::object jc{{"cluster", s.name}, {"fits", s.fits}, {"chosen", s.chosen}};
        if (s.fits) jc["score"] = s.score;
        if (!s.why.empty()) jc["why"] = s.why;
        if (!s.domain.empty()) jc["domain"] = s.domain;
        if (!s.shares.empty()) jc["shares"] = s.shares;
        candidates.push_back(std::move(jc));
      }
      for (const std::string& name : c.result.chosen) chosen.push_back(json::string(name));
      const ClusterChoice& choice = plan.value().choices[i];
      json::object jc{{"name", c.name},
                      {"count", choice.count},
                      {"chosen", std::move(chosen)},
                      {"candidates", std::move(candidates)}};
      if (!choice.spread.key.empty()) {
        jc["spread"] = json::object{
            {"topologyKey", choice.spread.key},
            {"maxSkew", choice.spread.max_skew},
            {"whenUnsatisfiable", choice.spread.hard ? "DoNotSchedule" : "ScheduleAnyway"}};
        jc["skew"] = c.result.skew;
        if (!c.result.why.empty()) jc["why"] = c.result.why;
      }
      jchoices.push_back(std::move(jc));
    }
    if (!jchoices.empty()) doc["choices"] = std::move(jchoices);
    std::string text = output == "json" ? indent_json(json::serialize(doc)) : to_yaml(doc);
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::string text = render_table(plan.value(), output == "wide");
    if (!lines.empty())
      text += "\nfit now:\n";
    else if (choices.empty())
      text += "\nno stack or cluster choice to fit\n";
    for (const FitLine& l : lines)
      text += fmt::format("  stack {} on {}: {}{}\n", l.stack, l.cluster,
                          !l.fits                        ? ""
                          : l.text.starts_with("across") ? "fits "
                                                         : "fits on ",
                          l.text);
    for (size_t i = 0; i < choices.size(); ++i) {
      const plant::ChoiceRecord& c = choices[i];
      const ClusterChoice& choice = plan.value().choices[i];
      text +=
          fmt::format("\n{} chooses {} of {} cluster(s){}: {}\n", c.name, choice.count,
                      choice.candidates.size(),
                      choice.spread.key.empty()
                          ? ""
                          : fmt::format(" spread over {}", fit::spread_text(choice.spread)),
                      c.result.complete ? fit::chosen_text(c.result)
                      : c.result.why.empty()
                          ? fmt::format("only {} fit now, it would wait", c.result.chosen.size())
                          : fmt::format("only {} can be chosen now, it would wait: {}",
                                        c.result.chosen.size(), c.result.why));
      if (!choice.spread.key.empty() && c.result.complete)
        text += fmt::format("  skew {}\n", c.result.skew);
      for (const fit::ScoredCandidate& s : c.result.ranked) {
        std::string domain = choice.spread.key.empty() ? ""
                             : s.domain.empty()        ? " (no " + choice.spread.key + ")"
                                                       : " (" + s.domain + ")";
        text += s.fits ? fmt::format("  {}{}: {}score {}{}\n", s.name, domain,
                                     s.chosen ? "chosen, " : "", s.score,
                                     s.shares.empty() ? "" : " (" + s.shares + ")")
                       : fmt::format("  {}{}: {}\n", s.name, domain, s.why);
      }
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return all_fit ? kExitOk : kExitFailure;
}

}  // namespace planter::cli
