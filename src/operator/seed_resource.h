// The Seed API (planter.nephio.org/v1alpha1, deploy/crds): reading a Seed's spec, fetching its
// source, and planning it. Nothing here talks to a cluster except through the callbacks given.
#pragma once

#include <atomic>
#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/diagnostics.h"
#include "model/label_selector.h"
#include "model/result.h"
#include "plan/plan.h"
#include "plan/stacks/stack_policy.h"

namespace planter::op {

inline constexpr std::string_view kGroup = "planter.nephio.org";
inline constexpr std::string_view kSeedApiVersion = "planter.nephio.org/v1alpha1";
inline constexpr std::string_view kUprootFinalizer = "planter.nephio.org/uproot";
inline constexpr size_t kMaxConfigMapRefs = 1000;

struct SeedSpec {
  enum class Source { kInline, kConfigMap, kUrl, kFluxSource };
  Source source = Source::kInline;
  std::string inline_text;
  // configMapRef (one) or configMapRefs (several, up to kMaxConfigMapRefs), read in their order:
  // with a key, that key; without, every key in key order.
  struct ConfigMapRef {
    std::string name;
    std::string key;
  };
  std::vector<ConfigMapRef> config_maps;
  // configMapSelector: every ConfigMap of the Seed's namespace it selects, in name order, each
  // with every key in key order.
  std::optional<LabelSelector> config_map_selector;
  std::string url;  // source.url, or the proof of concept's spec.seedUrl
  // sourceRef: a Flux source of the Seed's namespace (GitRepository, OCIRepository, Bucket)
  // whose artifact holds the seed, read under `path` (operator/flux_artifact.h).
  std::string source_kind, source_name, source_path;
  bool planted = true;
  std::string replant;  // a token: a change replants
  bool hard = false;    // replantMode: hard
  bool uproot_on_delete = false;
  bool adopt = false;  // take over objects another seed planted (plant/ownership.h)
  // Once planted, watch that every object becomes healthy (plant/health_wait.h): condition
  // Healthy.
  bool wait = false;
  // spec.driftCheckInterval: once planted, how often the objects are compared with the seed
  // (a server-side dry run, as `planter diff`); none: never.
  std::optional<std::chrono::seconds> drift_check_interval;
  std::string service_account = "default";
  std::vector<std::string> plugins;
  // status.clusterChoices, the operator's own record: the clusters each cluster choice of the
  // seed chose (plan/cluster_choice.h), kept by the next runs. What does not read as one is
  // left out.
  std::map<std::string, std::vector<std::string>> kept_choices;
};

// Reads a Seed's spec; the error names the field and says what to write instead.
Result<SeedSpec> parse_seed_spec(const boost::json::object& seed);

// The planter.nephio.org/seed label of a Seed's objects: "<namespace>.<name>", cut to a valid
// label value (with a hash of the whole when it is too long).
std::string seed_label(const std::string& ns, const std::string& name);

// What the operator may fetch: https URLs only unless file URLs are allowed; a size limit.
struct SourceLimits {
  bool allow_file_urls = false;
  size_t max_bytes = 64u << 20;
  // A URL's whole transfer (the operator sets it to its --planting-slice).
  std::chrono::milliseconds timeout{30'000};
  // Set from another thread to give a fetch up (the Seed changed or went away).
  const std::atomic<bool>* cancel = nullptr;
  // A PEM bundle of the CAs that Seed URLs' servers are verified against; empty: the system's.
  std::string ca_file;
};

// Reads ConfigMaps (one by name, or those a selector selects, in any order) and Flux sources (by
// kind and name); an error message when the server cannot answer.
struct SourceReader {
  std::function<Result<boost::json::object>(const std::string& kind, const std::string& ns,
                                            const std::string& name)>
      flux_source;
  std::function<Result<boost::json::object>(const std::string& ns, const std::string& name)>
      config_map;
  std::function<Result<std::vector<boost::json::object>>(const std::string& ns,
                                                         const LabelSelector& selector)>
      config_maps;
};

// The seed's YAML, in parts read in order, each named in messages by its own name ("configmap
// cnf/seed key a.yaml", "spec.source.inline", the URL), and a name for the whole.
struct SeedText {
  struct Part {
    std::string text;
    std::string name;
  };
  std::vector<Part> parts;
  std::string name;
  static SeedText one(std::string text, std::string name) {
    return {{{std::move(text), name}}, name};
  }
  size_t size() const;
};
Result<SeedText> fetch_seed_source(const SeedSpec& spec, const std::string& ns,
                                   const SourceLimits& limits, const SourceReader& read);

// Plans a Seed's text: its namespace is the default for namespaced objects that name none;
// `plugins` are paths, run in order. The error lists every problem of the seed (bounded).
struct PlannedSeed {
  Plan plan;
  std::vector<std::string> warnings;
};
// `existing_clusters` reads the management cluster's cluster objects when the seed needs them (see
// PlanOptions::existing_clusters); `gang_paths`, how the clusters gang the mode-gang stacks when
// not as planned (plant/gang_paths.h).
Result<PlannedSeed> plan_seed_text(
    const SeedText& text, const std::string& ns, const std::vector<std::string>& plugins,
    std::function<Result<std::vector<ClusterInfo>>()> existing_clusters = nullptr,
    std::map<std::string, GangPath> gang_paths = {});

// "the seed has 3 problems" and each of them (the first 20), for a Seed's Failed condition.
std::string describe_problems(const Diagnostics& diags);

}  // namespace planter::op
