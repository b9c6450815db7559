// The Seed controller's parts, shared by the files that hold them (the controller-runtime
// split): controller.cpp the work queue and the reconcile of one Seed (a pure decision,
// decision.h, then the run it asks for); seed_slices.cpp the runs, a slice at a time (planting
// through plant/seed_run.h and the engine, uprooting); planted_checks.cpp what a planted Seed is
// looked at for (health with spec.wait, drift); status_writer.cpp the status and the Events.
// Private to src/operator.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <boost/json.hpp>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "daemon/time_format.h"
#include "fit/cluster_taints.h"
#include "kube/informer.h"
#include "model/object.h"
#include "operator/controller.h"
#include "operator/decision.h"
#include "operator/flux_artifact.h"
#include "operator/shards.h"
#include "operator/slice_pool.h"
#include "operator/work_queue.h"
#include "plant/diff.h"
#include "plant/engine.h"
#include "plant/existing_clusters.h"
#include "plant/gang_paths.h"
#include "plant/health_wait.h"
#include "plant/preflight.h"
#include "plant/seed_run.h"
#include "plant/served_kinds.h"
#include "plant/uproot.h"

namespace planter::op {

namespace json = boost::json;
namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;
using plant::UnitState;
using std::chrono::milliseconds;

namespace {

// How long planning a Seed retries reading the management cluster's cluster objects while it does
// not answer.
constexpr std::chrono::minutes kExistingClustersPatience{2};

// The pause before a Seed's next planting slice: the first, and the longest it doubles to while
// slices declare nothing new.
constexpr milliseconds kFirstPause{500};
constexpr milliseconds kLongestPause{30'000};
// A slice whose units have waited one to two of these, with nothing changing, for clusters not
// linked yet (being provisioned, or not answering) ends and gives its worker back (EngineOptions::
// yield_waiting_on_clusters); the Seed goes on after its pause.
constexpr milliseconds kClusterWaitQuiet{200};
// How long one look at a planted Seed's health may wait for it (spec.wait).
constexpr milliseconds kHealthLook{5'000};
// After a toleration of a chosen cluster's taint ends, the Seed is looked at this much later (the
// choice, judged at its own clock, then finds it ended).
constexpr milliseconds kAfterTolerationEnds{20};

[[maybe_unused]] std::string meta(const json::object& o, std::string_view key) {
  return string_field(o, {"metadata", key});
}

// A Seed's key in the queue and the maps: "namespace/name".
[[maybe_unused]] std::string key_of(const json::object& seed) {
  return meta(seed, "namespace") + "/" + meta(seed, "name");
}

// Why a Seed could not be planned: the condition's reason, and the message.
struct Failure {
  std::string reason;
  std::string message;
};

[[maybe_unused]] int64_t generation_of(const json::object& o) {
  auto* m = o.if_contains("metadata");
  if (!m || !m->is_object()) return 0;
  auto* g = m->as_object().if_contains("generation");
  return g && g->is_int64() ? g->as_int64() : 0;
}

[[maybe_unused]] std::vector<std::string> finalizers_of(const json::object& o) {
  std::vector<std::string> out;
  auto* m = o.if_contains("metadata");
  if (!m || !m->is_object()) return out;
  auto* f = m->as_object().if_contains("finalizers");
  if (f && f->is_array())
    for (const json::value& v : f->as_array())
      if (v.is_string()) out.emplace_back(v.as_string());
  return out;
}

[[maybe_unused]] const json::object* status_of(const json::object& o) {
  auto* s = o.if_contains("status");
  return s && s->is_object() ? &s->as_object() : nullptr;
}

// status.replant: the token the Seed was last planted with, if it ever was.
[[maybe_unused]] std::optional<std::string> replant_of(const json::object& seed) {
  const json::object* st = status_of(seed);
  auto* r = st ? st->if_contains("replant") : nullptr;
  if (!r || !r->is_string()) return std::nullopt;
  return std::string(r->as_string());
}

[[maybe_unused]] std::string truncate(std::string s, size_t n) {
  if (s.size() > n) s = s.substr(0, n - 3) + "...";
  return s;
}

[[maybe_unused]] std::string seconds(std::chrono::microseconds d) {
  return fmt::format("{:.1f}s", std::chrono::duration<double>(d).count());
}

}  // namespace

constexpr const char* kAdoptHint = "set spec.adopt: true on the Seed to take it over";

// One piece of work on one Seed: planting it, uprooting it, or only saying why it is not planted.
struct SeedRun {
  enum class Kind { kPlant, kUproot, kIdle };
  std::string key, ns, name, uid;
  int64_t generation = 0;
  std::string run_key;
  Kind kind = Kind::kIdle;
  std::stop_source stop;
  std::atomic<bool> cancel_fetch{false};  // set with `stop`: a fetch in flight gives up
  std::shared_ptr<SlicePool::Job> fetch;  // fetching its URL on the fetchers, before planting
  // The Seed's text when a fetcher read it; the first slice reads the source itself otherwise.
  std::optional<SeedText> text;
  std::atomic<bool> done{false};
  // Between slices (planting thread only): the pause before the next, and how many units were
  // declared when the last one ended.
  milliseconds pause{0};
  size_t declared_before = 0;

  std::mutex mu;  // guards what follows: the run thread writes, the status writer reads
  std::shared_ptr<SlicePool::Job> job;  // its slices on the planting workers
  std::string phase = "Pending";
  std::string reason, message;         // of the phase
  std::optional<std::string> replant;  // status.replant: the token last planted
  std::shared_ptr<const Plan> plan;
  // Over `plan` (kept with it, dropped with it): the clusters it reaches, its inventories, prune.
  std::shared_ptr<plant::SeedRun> seed_run;
  std::vector<plant::UnitRecord> records;  // on the run's clock (run_records.h)
  // The run's clock: when its first slice began, where the current slice began on it, where the
  // last one ended.
  std::chrono::steady_clock::time_point run_started;
  std::chrono::microseconds slice_offset{0}, elapsed{0};
  // With ControllerOptions::keep_last_plan: the plan of the last run once it ended (`plan` goes),
  // for the dashboard's page and timeline of the run.
  std::shared_ptr<const Plan> last_plan;
  // For the dashboard, kept as `records` changes: a count of its changes, and how many are
  // declared (so that neither is found by a scan or a copy).
  uint64_t records_version = 0;
  size_t declared = 0;
  bool failed = false;
  milliseconds backoff{0};
  Steady::time_point retry_at;
  size_t failure_events = 0;
  // With spec.driftCheckInterval, once planted: per cluster judged, how many objects differed
  // from the seed at the last check, and that in words (none before the first check).
  std::optional<std::map<std::string, int64_t>> drifted;
  std::string drift_message;
  // With spec.wait, once planted: whether every object was healthy at the last look, and why not.
  std::optional<bool> healthy;
  std::string health_message;
  // The clusters each cluster choice chose (status.clusterChoices): kept from slice to slice and
  // by later runs.
  // Until the plan is made (choices_planned), what the Seed's status said, so that a status
  // written meanwhile keeps them.
  std::optional<std::map<std::string, std::vector<std::string>>> choices;
  bool choices_planned = false;
  // Each choice's tolerations of cluster taints, from the plan (kept when the plan goes): what
  // failover judges the chosen clusters' taints against.
  std::map<std::string, std::vector<fit::ClusterToleration>> tolerations;
  // Clusters a choice moved off that the run could not reach to prune (unreachable): once one
  // answers again, the Seed is planted again and its close prunes there.
  std::set<std::string> left;
  // Planted again for a choice to move (Decision::failover): the Seed is as it was when the
  // server last judged it, so no preflight.
  bool failover = false;
  int64_t drifted_total() const {
    int64_t n = 0;
    for (const auto& [_, count] : *drifted) n += count;
    return n;
  }
};

struct Controller::Impl {
  kube::RestConfig config;
  ControllerOptions options;
  Metrics& metrics;
  const daemon::Log& log;
  std::unique_ptr<kube::Client> client;
  std::unique_ptr<kube::Informer> informer;

  // The Seeds to look at ("ns/name"), now or after a delay, and the worker that reconciles them.
  WorkQueue queue;
  std::thread worker;
  bool stopping = false;  // smu held

  std::mutex runs_mu;
  std::map<std::string, std::shared_ptr<SeedRun>> runs;
  std::unique_ptr<SlicePool> planters;  // runs plantings and uprootings, a slice at a time
  std::unique_ptr<SlicePool> fetchers;  // reads Seeds' URLs before their planting starts
  uint32_t shard = 0;                   // of options.shards: the one this replica plants

  // Failover (failover.cpp): the planter Clusters watched for their taints, the probes that set
  // planter.nephio.org/unreachable (shard 0 only), and under fleet_mu each cluster's taints by
  // name and which Seeds' choices hold which clusters (so that a taint looks again at those).
  std::unique_ptr<kube::Informer> cluster_informer;
  std::unique_ptr<ClusterHealth> health;
  std::mutex fleet_mu;
  std::map<std::string, std::vector<fit::ClusterTaint>> taints_by_cluster;
  std::map<std::string, std::set<std::string>> holders;  // cluster -> Seed keys
  std::map<std::string, std::set<std::string>> held;     // Seed key -> clusters
  // Seeds resting between slices while their units wait for clusters to be linked (being
  // provisioned), by cluster name, then Seed key: a change of that cluster's object (planter's,
  // Cluster API's or a ClusterProfile, watched_clusters) wakes them at once.
  std::map<std::string, std::map<std::string, std::weak_ptr<SlicePool::Job>>> waiting_on_cluster;
  // The candidates' links and fit watches, kept between runs: a Seed's choice retains its
  // candidates, so that planting again (a failover) finds them linked and listed.
  std::unique_ptr<plant::FleetCache> fleet_cache;
  // The management cluster's cluster objects, watched: what each plan reads of them.
  std::unique_ptr<plant::WatchedClusters> watched_clusters;

  // Status writes: the latest wish per Seed, written at most once per interval unless urgent.
  std::mutex smu;
  std::condition_variable scv;
  std::map<std::string, std::pair<std::weak_ptr<SeedRun>, bool>> dirty;
  std::map<std::string, Steady::time_point> last_write;
  std::thread writer;

  Impl(kube::RestConfig c, ControllerOptions o, Metrics& m, const daemon::Log& l)
      : config(std::move(c)),
        options(std::move(o)),
        metrics(m),
        log(l),
        queue({[&m](size_t depth) { m.queue_added(depth); }, [&m] { m.queue_retried(); },
               [&m](double waited, size_t depth) { m.queue_taken(waited, depth); }}) {}

  // ---- the queue ----

  // Whether this replica plants the Seed: always, unless Seeds are sharded (shards.h).
  bool owns(const std::string& key) const { return shard_of(key, options.shards) == shard; }

  void enqueue(const std::string& key);

  void enqueue_after(const std::string& key, milliseconds delay);

  void work();

  // ---- reconciling one Seed ----

  void reconcile(const std::string& key);

  // A run that does nothing but hold a phase for the status writer.
  std::shared_ptr<SeedRun> idle(const json::object& seed, const std::string& run_key);

  std::shared_ptr<SeedRun> make_run(const json::object& seed, std::string run_key,
                                    SeedRun::Kind kind);

  // Starts the run the decision asks for, in place of the Seed's current one.
  void start(const json::object& seed, const SeedSpec& spec, const Decision& d);

  Result<SeedText> read_source(SeedRun& run, const SeedSpec& spec);

  void stop_run(const std::string& key);

  // Adds or removes the uproot finalizer (optimistically: a conflict is tried again).
  bool set_finalizer(const json::object& seed, bool present);

  // ---- planting ----

  Expected<PlannedSeed, Failure> plan_of(SeedRun& run, const SeedSpec& spec,
                                         std::map<std::string, GangPath> gang_paths = {});

  // Whom the Seed's objects are written as; `plan` (the run's when not given) says which are
  // admin objects.
  plant::WriteIdentity identity_of(const SeedRun& run, const SeedSpec& spec,
                                   const Plan* plan = nullptr) const;

  void fail(const std::shared_ptr<SeedRun>& run, std::string reason, std::string message);
  // A run that ended leaves its plan and what it reached: the plan goes, or with
  // options.keep_last_plan is kept as the run's last (the dashboard's).
  void let_go(SeedRun& run);

  // The first slice's work before the engine: plan the Seed, say so, and for a hard replant uproot
  // it. False when the run is over (it failed, or was stopped).
  bool plan_first_slice(const std::shared_ptr<SeedRun>& run, const SeedSpec& spec, bool replant,
                        bool confirming);

  // The seed run (plant/seed_run.h) of a Seed's plan: the clusters it reaches now, reads and
  // deletes as the Seed's identity, warnings to the log.
  std::shared_ptr<plant::SeedRun> make_seed_run(const SeedRun& run, const SeedSpec& spec,
                                                const std::shared_ptr<const Plan>& plan);

  // One slice of planting a Seed. The first plans it (and, for a hard replant, uproots it first);
  // each runs the engine for at most options.slice. Returns the pause before the next slice, or
  // nullopt when the run is over (Planted, Failed, or stopped).
  std::optional<milliseconds> plant_slice(const std::shared_ptr<SeedRun>& run, const SeedSpec& spec,
                                          bool replant, bool confirming);

  // With spec.wait: whether every object of a planted Seed is healthy (plant/health_wait.h), on
  // every cluster it reaches, looked at for at most a slice: condition Healthy, an Event when it
  // becomes so. Returns the pause before the next look, or, once healthy, what follows (drift
  // checks, or nothing).
  std::optional<milliseconds> check_health(const std::shared_ptr<SeedRun>& run,
                                           const SeedSpec& spec);

  // Compares a planted Seed's objects with the seed, as `planter diff` does (a server-side dry
  // run of each against the live object), and says what drifted: condition Drifted, an Event when
  // it changes, planter_drifted_objects. Nothing is rewritten: spec.replant does that. Returns the
  // pause before the next check.
  std::optional<milliseconds> check_drift(const std::shared_ptr<SeedRun>& run,
                                          const SeedSpec& spec);

  // One slice of uprooting a Seed: the first plans it; each deletes for at most options.slice.
  // Returns the pause before the next slice, or nullopt when the run is over.
  std::optional<milliseconds> uproot_slice(const std::shared_ptr<SeedRun>& run,
                                           const SeedSpec& spec);

  // ---- failover ----

  // Starts watching the planter Clusters (and, on shard 0, probing them).
  void watch_clusters();
  // A Cluster came, changed or went: the Seeds whose choices hold it are looked at again.
  void cluster_seen(const json::object& cluster, bool gone);
  // The Seeds resting for `cluster` (waiting_on_cluster) have their next slice now.
  void wake_waiting_on(const std::string& cluster);
  // Records which clusters a Seed's run holds now, or left objects on; `hold(key, {})` forgets
  // the Seed.
  void hold(const SeedRun& run);
  void hold(const std::string& key, std::set<std::string> clusters);
  // For a planted Seed's run (its mu held): why it must be planted again now (empty: it need
  // not): a chosen cluster to give up, or one it left objects on that answers again; and when the
  // next chosen cluster must be given up, if a toleration holds one for a while.
  struct GiveUp {
    std::string why;
    std::optional<std::chrono::system_clock::time_point> next;
  };
  GiveUp gives_up(const SeedRun& run);
  void cluster_event(const json::object& cluster, std::string_view type, std::string_view reason,
                     const std::string& message);

  // ---- status ----

  void publish(const std::shared_ptr<SeedRun>& run, bool urgent);

  json::object status_for(SeedRun& run);

  // Keeps each condition's lastTransitionTime when its status did not change; true when the
  // status is what the Seed already says.
  bool settle(json::object& st, const json::object* current);

  void write_status(SeedRun& run);

  void write_statuses();

  // ---- events ----

  void event(const SeedRun& run, std::string_view type, std::string_view reason,
             const std::string& message);
  // An Event on any object: `involved` is its involvedObject (apiVersion, kind, name, namespace,
  // uid).
  void record_event(json::object involved, std::string_view type, std::string_view reason,
                    const std::string& message);
};

}  // namespace planter::op
