#include "operator/controller.h"

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
#include "kube/informer.h"
#include "model/object.h"
#include "operator/decision.h"
#include "operator/flux_artifact.h"
#include "operator/shards.h"
#include "operator/slice_pool.h"
#include "plant/diff.h"
#include "plant/engine.h"
#include "plant/existing_clusters.h"
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
// How long one look at a planted Seed's health may wait for it (spec.wait).
constexpr milliseconds kHealthLook{5'000};

std::string meta(const json::object& o, std::string_view key) {
  return string_field(o, {"metadata", key});
}

// A Seed's key in the queue and the maps: "namespace/name".
std::string key_of(const json::object& seed) {
  return meta(seed, "namespace") + "/" + meta(seed, "name");
}

// Why a Seed could not be planned: the condition's reason, and the message.
struct Failure {
  std::string reason;
  std::string message;
};

int64_t generation_of(const json::object& o) {
  auto* m = o.if_contains("metadata");
  if (!m || !m->is_object()) return 0;
  auto* g = m->as_object().if_contains("generation");
  return g && g->is_int64() ? g->as_int64() : 0;
}

std::vector<std::string> finalizers_of(const json::object& o) {
  std::vector<std::string> out;
  auto* m = o.if_contains("metadata");
  if (!m || !m->is_object()) return out;
  auto* f = m->as_object().if_contains("finalizers");
  if (f && f->is_array())
    for (const json::value& v : f->as_array())
      if (v.is_string()) out.emplace_back(v.as_string());
  return out;
}

const json::object* status_of(const json::object& o) {
  auto* s = o.if_contains("status");
  return s && s->is_object() ? &s->as_object() : nullptr;
}

// status.replant: the token the Seed was last planted with, if it ever was.
std::optional<std::string> replant_of(const json::object& seed) {
  const json::object* st = status_of(seed);
  auto* r = st ? st->if_contains("replant") : nullptr;
  if (!r || !r->is_string()) return std::nullopt;
  return std::string(r->as_string());
}

std::string truncate(std::string s, size_t n) {
  if (s.size() > n) s = s.substr(0, n - 3) + "...";
  return s;
}

std::string seconds(std::chrono::microseconds d) {
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
  std::vector<plant::UnitRecord> records;
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
  std::optional<std::map<std::string, std::vector<std::string>>> choices;
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

  // The queue of Seeds to look at ("ns/name"), and those to look at later.
  std::mutex qmu;
  std::condition_variable qcv;
  std::deque<std::string> queue;
  std::set<std::string> queued;
  std::multimap<Steady::time_point, std::string> later;
  std::map<std::string, Steady::time_point> queued_at;  // for workqueue_queue_duration_seconds
  std::string reconciling;  // the key the worker is on; empty between reconciles
  bool requeued = false;    // it was queued again with a delay while being reconciled
  bool stopping = false;
  std::thread worker;

  std::mutex runs_mu;
  std::map<std::string, std::shared_ptr<SeedRun>> runs;
  std::unique_ptr<SlicePool> planters;  // runs plantings and uprootings, a slice at a time
  std::unique_ptr<SlicePool> fetchers;  // reads Seeds' URLs before their planting starts
  uint32_t shard = 0;                   // of options.shards: the one this replica plants

  // Status writes: the latest wish per Seed, written at most once per interval unless urgent.
  std::mutex smu;
  std::condition_variable scv;
  std::map<std::string, std::pair<std::weak_ptr<SeedRun>, bool>> dirty;
  std::map<std::string, Steady::time_point> last_write;
  std::thread writer;

  Impl(kube::RestConfig c, ControllerOptions o, Metrics& m, const daemon::Log& l)
      : config(std::move(c)), options(std::move(o)), metrics(m), log(l) {}

  // ---- the queue ----

  // Whether this replica plants the Seed: always, unless Seeds are sharded (shards.h).
  bool owns(const std::string& key) const { return shard_of(key, options.shards) == shard; }

  void enqueue(const std::string& key) {
    if (!owns(key)) return;
    std::lock_guard lock(qmu);
    push(key);
    qcv.notify_one();
  }

  void enqueue_after(const std::string& key, milliseconds delay) {
    if (!owns(key)) return;
    std::lock_guard lock(qmu);
    later.emplace(Steady::now() + delay, key);
    if (key == reconciling) requeued = true;
    metrics.queue_retried();
    qcv.notify_one();
  }

  // qmu held: queues `key` unless it is queued already.
  void push(const std::string& key) {
    if (!queued.insert(key).second) return;
    queue.push_back(key);
    queued_at[key] = Steady::now();
    metrics.queue_added(queue.size());
  }

  void work() {
    std::unique_lock lock(qmu);
    while (!stopping) {
      auto now = Steady::now();
      while (!later.empty() && later.begin()->first <= now) {
        std::string key = later.begin()->second;
        later.erase(later.begin());
        push(key);
      }
      if (queue.empty()) {
        if (later.empty())
          qcv.wait(lock);
        else
          qcv.wait_until(lock, later.begin()->first);
        continue;
      }
      std::string key = std::move(queue.front());
      queue.pop_front();
      queued.erase(key);
      auto since = queued_at.extract(key);
      metrics.queue_taken(
          since ? std::chrono::duration<double>(Steady::now() - since.mapped()).count() : 0,
          queue.size());
      reconciling = key;
      requeued = false;
      lock.unlock();
      auto start = Steady::now();
      metrics.reconcile_started();
      reconcile(key);
      lock.lock();
      reconciling.clear();
      metrics.reconcile_finished(std::chrono::duration<double>(Steady::now() - start).count(),
                                 requeued ? "requeue_after" : "success");
    }
  }

  // ---- reconciling one Seed ----

  void reconcile(const std::string& key) {
    size_t slash = key.find('/');
    std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
    std::optional<json::object> seed = informer->get(ns, name);
    std::lock_guard lock(runs_mu);
    auto spec = seed ? parse_seed_spec(*seed) : Result<SeedSpec>(Error{"gone"});
    std::optional<SeedFacts> facts;
    if (seed) facts = seed_facts(*seed, spec);
    std::optional<RunState> current;
    if (auto it = runs.find(key); it != runs.end()) {
      SeedRun& r = *it->second;
      std::lock_guard rl(r.mu);
      current = RunState{r.run_key, r.done, r.failed, Steady::now() >= r.retry_at, r.backoff};
    }
    Decision d = decide(facts, current, options.retry_min, options.retry_max);
    using Action = Decision::Action;
    if (d.action == Action::kForget) {
      stop_run(key);
      std::lock_guard sl(smu);  // nothing more to write for it
      dirty.erase(key);
      last_write.erase(key);
      return;
    }
    if (d.finalizer != Decision::Finalizer::kKeep &&
        !set_finalizer(*seed, d.finalizer == Decision::Finalizer::kAdd))
      return enqueue_after(key, milliseconds(500));
    switch (d.action) {
      case Action::kForget:
      case Action::kNothing:
        return;
      case Action::kStop:
        return stop_run(key);
      case Action::kInvalid: {
        auto run = idle(*seed, d.run_key);
        {
          std::lock_guard rl(run->mu);
          run->phase = "Failed";
          run->reason = "InvalidSpec";
          run->message = spec.error().message;
        }
        log.warn("seed spec invalid", {{"seed", key}, {"error", spec.error().message}});
        event(*run, "Warning", "InvalidSpec", spec.error().message);
        publish(run, true);
        return;
      }
      case Action::kNotPlanted: {
        auto run = idle(*seed, d.run_key);
        {
          std::lock_guard rl(run->mu);
          run->phase = "Pending";
          run->reason = "NotPlanted";
          run->message = "spec.planted is false: set it to true to plant the seed";
          run->replant = replant_of(*seed);
        }
        log.info("seed not planted", {{"seed", key}});
        publish(run, true);
        return;
      }
      case Action::kPlant:
      case Action::kUproot:
        return start(*seed, *spec, d);
    }
  }

  // A run that does nothing but hold a phase for the status writer.
  std::shared_ptr<SeedRun> idle(const json::object& seed, const std::string& run_key) {
    std::string key = key_of(seed);
    stop_run(key);
    auto run = make_run(seed, run_key, SeedRun::Kind::kIdle);
    run->done = true;
    runs[key] = run;
    return run;
  }

  std::shared_ptr<SeedRun> make_run(const json::object& seed, std::string run_key,
                                    SeedRun::Kind kind) {
    auto run = std::make_shared<SeedRun>();
    run->ns = meta(seed, "namespace");
    run->name = meta(seed, "name");
    run->key = run->ns + "/" + run->name;
    run->uid = meta(seed, "uid");
    run->generation = generation_of(seed);
    run->run_key = std::move(run_key);
    run->kind = kind;
    return run;
  }

  // Starts the run the decision asks for, in place of the Seed's current one.
  void start(const json::object& seed, const SeedSpec& spec, const Decision& d) {
    std::string key = key_of(seed);
    stop_run(key);
    auto kind =
        d.action == Decision::Action::kUproot ? SeedRun::Kind::kUproot : SeedRun::Kind::kPlant;
    auto run = make_run(seed, d.run_key, kind);
    run->backoff = d.backoff;
    run->replant = replant_of(seed);
    runs[key] = run;
    auto slices = [this, run, spec, replant = d.replant,
                   confirming = d.confirming]() -> std::optional<milliseconds> {
      auto again = run->kind == SeedRun::Kind::kUproot
                       ? uproot_slice(run, spec)
                       : plant_slice(run, spec, replant, confirming);
      if (!again) run->done = true;
      return again;
    };
    if (spec.source != SeedSpec::Source::kUrl && spec.source != SeedSpec::Source::kFluxSource) {
      std::lock_guard lock(run->mu);
      run->job = planters->submit(run->ns, std::move(slices));
      return;
    }
    // A URL (or a Flux source's artifact) is read on a fetcher first: a server that answers
    // slowly holds no planting worker.
    run->fetch = fetchers->submit(
        run->ns,
        [this, run, spec, replant = d.replant,
         slices = std::move(slices)]() -> std::optional<milliseconds> {
          if (run->kind == SeedRun::Kind::kPlant) {
            {
              std::lock_guard lock(run->mu);
              run->phase = "Planting";
              run->reason = replant ? "Replanting" : "Planting";
              run->message =
                  "reading the seed from " + (spec.source == SeedSpec::Source::kUrl
                                                  ? spec.url
                                                  : spec.source_kind + " " + spec.source_name);
            }
            publish(run, true);
          }
          auto text = read_source(*run, spec);
          if (run->stop.stop_requested()) return std::nullopt;
          if (!text) {
            fail(run, "SourceUnavailable", "cannot read the seed: " + text.error().message);
            run->done = true;
            return std::nullopt;
          }
          std::lock_guard lock(run->mu);
          run->text = std::move(text.value());
          run->job = planters->submit(run->ns, slices);
          return std::nullopt;
        });
  }

  Result<SeedText> read_source(SeedRun& run, const SeedSpec& spec) {
    SourceLimits limits = options.sources;
    limits.timeout = options.slice;  // a fetch is bounded like a slice
    limits.cancel = &run.cancel_fetch;
    SourceReader read;
    read.config_map = [this](const std::string& ns,
                             const std::string& name) -> Result<json::object> {
      auto cm = client->get("v1", "ConfigMap", ns, name);
      if (!cm) return Error{fmt::format("configmap {}/{}: {}", ns, name, cm.error().str())};
      return std::move(cm.value());
    };
    read.config_maps = [this](const std::string& ns,
                              const LabelSelector& selector) -> Result<std::vector<json::object>> {
      kube::ResourceQuery q{"v1", "ConfigMap", ns, selector.str(), ""};
      auto listed = client->list(q);
      if (!listed)
        return Error{fmt::format("the ConfigMaps of {} labelled {}: {}", ns, selector.str(),
                                 listed.error().str())};
      return std::move(listed->items);
    };
    read.flux_source = [this](const std::string& kind, const std::string& ns,
                              const std::string& name) -> Result<json::object> {
      std::string tried;
      for (const std::string& version : flux_source_versions()) {
        auto source = client->get(version, kind, ns, name);
        if (source) return std::move(source.value());
        if (!source.error().kind_unknown())
          return Error{fmt::format("{} {}/{}: {}", kind, ns, name, source.error().str())};
        tried += (tried.empty() ? "" : ", ") + version;
      }
      return Error{
          fmt::format("{} {}/{}: the cluster serves no {} ({}): install Flux's "
                      "source-controller",
                      kind, ns, name, kind, tried)};
    };
    return fetch_seed_source(spec, run.ns, limits, read);
  }

  void stop_run(const std::string& key) {
    auto it = runs.find(key);
    if (it == runs.end()) return;
    std::shared_ptr<SeedRun> run = it->second;
    run->stop.request_stop();
    run->cancel_fetch = true;
    fetchers->cancel(run->fetch);  // after it, no planting job is submitted any more
    std::shared_ptr<SlicePool::Job> job;
    {
      std::lock_guard lock(run->mu);
      job = run->job;
    }
    planters->cancel(job);
    // The jobs' slices hold the run: dropped here, or run and jobs would keep each other.
    {
      std::lock_guard lock(run->mu);
      run->job.reset();
    }
    run->fetch.reset();
    runs.erase(it);
  }

  // Adds or removes the uproot finalizer (optimistically: a conflict is tried again).
  bool set_finalizer(const json::object& seed, bool present) {
    std::vector<std::string> f = finalizers_of(seed);
    f.erase(std::remove(f.begin(), f.end(), kUprootFinalizer), f.end());
    if (present) f.emplace_back(kUprootFinalizer);
    json::array list;
    for (auto& s : f) list.emplace_back(s);
    json::object patch{
        {"metadata",
         {{"finalizers", std::move(list)}, {"resourceVersion", meta(seed, "resourceVersion")}}}};
    auto r = client->merge_patch(std::string(kSeedApiVersion), "Seed", meta(seed, "namespace"),
                                 meta(seed, "name"), patch);
    std::string key = key_of(seed);
    if (!r) {
      if (!r.error().not_found())
        log.warn("cannot update the seed's finalizers",
                 {{"seed", key}, {"error", r.error().str()}});
      return false;
    }
    log.info(present ? "finalizer added" : "finalizer removed",
             {{"seed", key}, {"finalizer", std::string(kUprootFinalizer)}});
    return true;
  }

  // ---- planting ----

  Expected<PlannedSeed, Failure> plan_of(SeedRun& run, const SeedSpec& spec) {
    std::optional<SeedText> fetched;  // taken, not copied: the plan is all a run keeps of it
    {
      std::lock_guard lock(run.mu);
      fetched = std::move(run.text);
      run.text.reset();
    }
    auto text = fetched ? Result<SeedText>(std::move(*fetched)) : read_source(run, spec);
    if (!text) return Failure{"SourceUnavailable", "cannot read the seed: " + text.error().message};
    std::vector<std::string> plugins;
    for (const std::string& p : spec.plugins) {
      fs::path path = fs::path(options.plugin_dir) / p;
      std::error_code ec;
      if (options.plugin_dir.empty() || !fs::is_regular_file(path, ec) ||
          access(path.c_str(), X_OK) != 0)
        return Failure{
            "PluginNotFound",
            fmt::format("spec.plugins: \"{}\" is not a plugin of this operator{}: use one of the "
                        "executables in its --plugin-dir",
                        p, options.plugin_dir.empty() ? " (it runs without --plugin-dir)" : "")};
      plugins.push_back(path.string());
    }
    auto planned = plan_seed_text(*text, run.ns, plugins, [this] {
      plant::ExistingClustersOptions existing;
      existing.deadline = std::chrono::steady_clock::now() + kExistingClustersPatience;
      return plant::read_existing_clusters(*client, existing);
    });
    if (!planned) return Failure{"InvalidSeed", planned.error().message};
    return std::move(planned.value());
  }

  // Whom the Seed's objects are written as; `plan` (the run's when not given) says which are
  // admin objects.
  plant::WriteIdentity identity_of(const SeedRun& run, const SeedSpec& spec,
                                   const Plan* plan = nullptr) const {
    if (!plan) plan = run.plan.get();
    plant::WriteIdentity id;
    // Only the user: kube-apiserver adds a service account's groups (system:serviceaccounts and
    // system:serviceaccounts:<ns>) itself when none are sent, and a group sent would need a
    // grant of its own (deploy/rbac.yaml grants impersonating service accounts only).
    id.user = fmt::format("system:serviceaccount:{}:{}", run.ns, spec.service_account);
    id.on_workload_clusters = options.workload_impersonation;
    bool admin_namespace =
        std::find(options.admin_namespaces.begin(), options.admin_namespaces.end(), run.ns) !=
        options.admin_namespaces.end();
    if (admin_namespace) {
      id.as_self = [plan](const Unit& u) {
        return declared_user(plan->object_of(u)) == kAdminUser;
      };
    }
    return id;
  }

  void fail(const std::shared_ptr<SeedRun>& run, std::string reason, std::string message) {
    if (run->stop.stop_requested()) return;
    milliseconds backoff;
    {
      std::lock_guard lock(run->mu);
      run->phase = "Failed";
      run->reason = reason;
      run->message = message;
      run->failed = true;
      backoff = run->backoff;
      run->retry_at = Steady::now() + backoff;
    }
    log.warn("seed failed", {{"seed", run->key}, {"reason", reason}, {"message", message}});
    event(*run, "Warning", reason, message);
    publish(run, true);
    enqueue_after(run->key, backoff + milliseconds(10));
  }

  // The first slice's work before the engine: plan the Seed, say so, and for a hard replant uproot
  // it. False when the run is over (it failed, or was stopped).
  bool plan_first_slice(const std::shared_ptr<SeedRun>& run, const SeedSpec& spec, bool replant,
                        bool confirming) {
    std::stop_token stop = run->stop.get_token();
    if (!confirming) {
      {
        std::lock_guard lock(run->mu);
        run->phase = "Planting";
        run->reason = replant ? "Replanting" : "Planting";
        run->message = "reading the seed";
      }
      publish(run, true);
    }
    auto planned = plan_of(*run, spec);
    if (!planned) {
      fail(run, planned.error().reason, planned.error().message);
      return false;
    }
    auto plan = std::make_shared<const Plan>(std::move(planned->plan));
    // The clusters the Seed creates that exist now are judged, listed and pruned as the
    // management cluster is (plant/seed_run.h), reached as the Seed's identity.
    auto seed_run = make_seed_run(*run, spec, plan);
    // Planting (not uprooting: a Seed whose CRD went away must still be uprootable) refuses a
    // kind nothing will serve, before the first write.
    Diagnostics unserved =
        plant::unserved_kinds(*plan, seed_run->clusters(), options.client,
                              std::chrono::steady_clock::now() + kExistingClustersPatience);
    if (!unserved.empty()) {
      fail(run, "InvalidSeed", describe_problems(unserved));
      return false;
    }
    // The API server judges what it can before the first write, as the Seed's identity: a
    // refusal fails the Seed with nothing written. An operator confirming what it planted before
    // a restart does not ask again.
    if (!confirming && !(replant && spec.hard)) {
      plant::PreflightOptions po;
      po.seed_name = seed_label(run->ns, run->name);
      po.client = options.client;
      po.force_conflicts = replant;
      po.adopt = spec.adopt;
      po.adopt_hint = kAdoptHint;
      po.write_as = identity_of(*run, spec, plan.get());
      po.deadline = std::chrono::steady_clock::now() + kExistingClustersPatience;
      plant::PreflightOutcome checked = plant::preflight(*plan, seed_run->clusters(), po);
      if (!checked.refused.empty()) {
        fail(run, "PreflightRefused", describe_problems(checked.refused));
        return false;
      }
    }
    for (const std::string& w : planned->warnings)
      log.warn("seed warning", {{"seed", run->key}, {"warning", w}});
    {
      std::lock_guard lock(run->mu);
      run->plan = plan;
      run->seed_run = seed_run;
      run->records.assign(plan->units.size(), {});
      run->message =
          fmt::format("{} units on {} cluster(s)", plan->units.size(), plan->clusters.size());
    }
    std::string label = seed_label(run->ns, run->name);
    plant::WriteIdentity id = identity_of(*run, spec);
    if (!confirming) {
      log.info(replant ? "replanting seed" : "planting seed",
               {{"seed", run->key},
                {"units", std::to_string(plan->units.size())},
                {"as", id.user},
                {"mode", replant && spec.hard ? "hard" : "soft"}});
      event(*run, "Normal", replant ? "Replanting" : "Planting",
            fmt::format("{} {} units on {} cluster(s) as {}", replant ? "replanting" : "planting",
                        plan->units.size(), plan->clusters.size(), id.user));
    }
    if (replant && spec.hard) {
      plant::UprootOptions uo;
      uo.seed_name = label;
      uo.client = options.client;
      uo.write_as = id;
      uo.stop = stop;
      {
        std::lock_guard lock(run->mu);
        run->message = "uprooting before planting again (replantMode: hard)";
      }
      publish(run, true);
      plant::UprootOutcome out = plant::uproot(*plan, seed_run->clusters(), uo);
      if (out.stopped) return false;
      if (!out.complete()) {
        fail(run, "UprootFailed", truncate(plant::render_uproot_summary(*plan, out), 2000));
        return false;
      }
    }
    // Each cluster's inventory lists, before the first write, all this run may write.
    seed_run->open();
    return true;
  }

  // The seed run (plant/seed_run.h) of a Seed's plan: the clusters it reaches now, reads and
  // deletes as the Seed's identity, warnings to the log.
  std::shared_ptr<plant::SeedRun> make_seed_run(const SeedRun& run, const SeedSpec& spec,
                                                const std::shared_ptr<const Plan>& plan) {
    plant::SeedRunOptions o;
    o.seed_name = seed_label(run.ns, run.name);
    o.client = options.client;
    o.write_as = identity_of(run, spec, plan.get());
    o.stop = run.stop.get_token();
    o.warn = [this, key = run.key](const std::string& w) {
      log.warn("seed inventory", {{"seed", key}, {"warning", w}});
    };
    o.on_pruned = [this, key = run.key](const Plan& wave, size_t u, const plant::RemovalRecord& r) {
      if (r.state == plant::RemovalState::kDeleted || r.state == plant::RemovalState::kFailed)
        log.info(r.state == plant::RemovalState::kDeleted ? "pruned" : "prune failed",
                 {{"seed", key},
                  {"cluster", wave.units[u].cluster},
                  {"object", wave.object_of(wave.units[u]).display()},
                  {"note", r.note}});
    };
    auto seed_run = std::make_shared<plant::SeedRun>(
        *plan, std::map<std::string, kube::RestConfig>{{std::string(kSelf), config}}, std::move(o));
    seed_run->reach();
    return seed_run;
  }

  // One slice of planting a Seed. The first plans it (and, for a hard replant, uproots it first);
  // each runs the engine for at most options.slice. Returns the pause before the next slice, or
  // nullopt when the run is over (Planted, Failed, or stopped).
  std::optional<milliseconds> plant_slice(const std::shared_ptr<SeedRun>& run, const SeedSpec& spec,
                                          bool replant, bool confirming) {
    std::stop_token stop = run->stop.get_token();
    std::shared_ptr<const Plan> plan;
    {
      std::lock_guard lock(run->mu);
      plan = run->plan;
    }
    bool first = !plan;
    if (!first && (spec.drift_check_interval || spec.wait)) {
      bool planted, healthy;
      {
        std::lock_guard lock(run->mu);
        planted = run->phase == "Planted";
        healthy = run->healthy.value_or(false);
      }
      if (planted && spec.wait && !healthy) return check_health(run, spec);
      if (planted && spec.drift_check_interval) return check_drift(run, spec);
    }
    if (first && !plan_first_slice(run, spec, replant, confirming)) return std::nullopt;
    {
      std::lock_guard lock(run->mu);
      plan = run->plan;
    }
    std::string label = seed_label(run->ns, run->name);
    plant::WriteIdentity id = identity_of(*run, spec);
    std::map<std::string, kube::RestConfig> clusters{{std::string(kSelf), config}};
    plant::EngineOptions eo;
    eo.seed_name = label;
    eo.client = options.client;
    eo.force_conflicts = replant;  // a replant takes back what others changed
    eo.adopt = spec.adopt;         // but not what another seed planted, unless told
    eo.adopt_hint = kAdoptHint;
    eo.write_as = id;
    eo.stop = stop;
    eo.timeout = options.slice;
    {
      std::lock_guard lock(run->mu);
      if (!run->choices) {  // what the Seed's status says, for the choices the seed still makes
        run->choices.emplace();
        for (const ClusterChoice& c : plan->choices)
          if (auto it = spec.kept_choices.find(c.name); it != spec.kept_choices.end())
            run->choices->insert(*it);
      }
      eo.kept_choices = *run->choices;
    }
    eo.on_change = [this, run, plan, confirming, first](size_t u, const plant::UnitRecord& r) {
      UnitState before;
      {
        std::lock_guard lock(run->mu);
        before = run->records[u].state;
        // A later slice declares again what an earlier one declared: that is no news.
        if (!first && before == UnitState::kDeclared && r.state != UnitState::kDeclared) return;
        run->records[u] = r;
      }
      if (before == r.state) {
        if (!confirming) publish(run, false);
        return;
      }
      const Unit& unit = plan->units[u];
      std::string object = plan->object_of(unit).display();
      if (r.state == UnitState::kDeclared) {
        if (r.ready && r.declared)
          metrics.observe_declare(std::chrono::duration<double>(*r.declared - *r.ready).count());
        if (r.ready)
          metrics.observe_requirement_wait(std::chrono::duration<double>(*r.ready).count());
      }
      if (r.state != UnitState::kDeclaring)
        log.info("unit " + std::string(plant::to_string(r.state)),
                 {{"seed", run->key}, {"cluster", unit.cluster}, {"object", object}});
      if (r.state == UnitState::kFailed || r.state == UnitState::kBlocked) {
        size_t n;
        {
          std::lock_guard lock(run->mu);
          n = run->failure_events++;
        }
        if (n < 5 && r.state == UnitState::kFailed)
          event(*run, "Warning", "UnitFailed",
                fmt::format("{} on {}: {}", object, unit.cluster, r.error));
      }
      if (!confirming) publish(run, false);
    };
    plant::PlantOutcome out = plant::plant(*plan, clusters, eo);
    if (!out.choices.empty()) {
      std::lock_guard lock(run->mu);
      for (const plant::ChoiceRecord& c : out.choices) (*run->choices)[c.name] = c.result.chosen;
    }
    if (out.stopped || stop.stop_requested()) return std::nullopt;
    if (out.all_declared()) {
      // What the Seed no longer holds goes, on every cluster, as the Seed's identity; each
      // cluster's inventory then lists what it holds now.
      std::shared_ptr<plant::SeedRun> seed_run;
      plant::ChoiceRecords choices;
      {
        std::lock_guard lock(run->mu);
        seed_run = run->seed_run;
        if (run->choices) choices = *run->choices;
      }
      seed_run->set_deadline(std::chrono::steady_clock::now() + options.slice);
      plant::CloseOutcome closed = seed_run->close(true, true, choices, false);
      if (stop.stop_requested()) return std::nullopt;
      if (!closed.complete) {
        std::string why = closed.not_pruned;
        if (why.empty()) {
          size_t kept = 0;
          for (const auto& [_, items] : closed.pruned.kept) kept += items.size();
          why = fmt::format(
              "{} object(s) the Seed no longer holds could not be pruned; they stay "
              "listed in its inventory (the operator's log names them)",
              kept);
        }
        fail(run, "PruneFailed", why);
        return std::nullopt;
      }
      if (closed.pruned.deleted > 0)
        event(*run, "Normal", "Pruned",
              fmt::format("pruned {} object(s) the Seed no longer holds", closed.pruned.deleted));
      {
        std::lock_guard lock(run->mu);
        run->phase = "Planted";
        run->reason = replant ? "Replanted" : "Planted";
        run->message = fmt::format("all {} units declared", plan->units.size());
        run->replant = spec.replant;
        run->failed = false;
      }
      if (!confirming) {
        log.info("seed planted", {{"seed", run->key},
                                  {"units", std::to_string(plan->units.size())},
                                  {"elapsed", seconds(out.elapsed)}});
        event(*run, "Normal", replant ? "Replanted" : "Planted",
              fmt::format("all {} units declared in {}", plan->units.size(), seconds(out.elapsed)));
      }
      publish(run, true);
      if (spec.wait) return check_health(run, spec);
      if (spec.drift_check_interval) return check_drift(run, spec);
      // Planted, and nothing will read the plan again (the status counts the records; a later
      // run plans anew): it goes, so a planted Seed costs its records, not its plan.
      std::lock_guard lock(run->mu);
      run->seed_run.reset();
      run->plan.reset();
      return std::nullopt;
    }
    if (out.timed_out) {
      // Still waiting: yield the worker, and come back sooner when this slice made progress.
      size_t declared = out.count(UnitState::kDeclared);
      run->pause = declared > run->declared_before
                       ? kFirstPause
                       : std::clamp(run->pause * 2, kFirstPause, kLongestPause);
      run->declared_before = declared;
      return run->pause;
    }
    size_t failed = out.count(UnitState::kFailed), blocked = out.count(UnitState::kBlocked);
    std::string first_failure;
    for (size_t u = 0; u < out.units.size() && first_failure.empty(); ++u)
      if (out.units[u].state == UnitState::kFailed)
        first_failure = fmt::format("{} on {}: {}", plan->object_of(plan->units[u]).display(),
                                    plan->units[u].cluster, out.units[u].error);
    fail(run, "UnitsFailed",
         truncate(fmt::format("{} unit(s) failed, {} blocked by them; first: {}", failed, blocked,
                              first_failure),
                  2000));
    return std::nullopt;
  }

  // With spec.wait: whether every object of a planted Seed is healthy (plant/health_wait.h), on
  // every cluster it reaches, looked at for at most a slice: condition Healthy, an Event when it
  // becomes so. Returns the pause before the next look, or, once healthy, what follows (drift
  // checks, or nothing).
  std::optional<milliseconds> check_health(const std::shared_ptr<SeedRun>& run,
                                           const SeedSpec& spec) {
    std::shared_ptr<const Plan> plan;
    std::shared_ptr<plant::SeedRun> seed_run;
    {
      std::lock_guard lock(run->mu);
      plan = run->plan;
      seed_run = run->seed_run;
    }
    // A short look: what is not healthy yet is said soon, and the worker is not held meanwhile.
    auto deadline = Steady::now() + std::min<milliseconds>(options.slice, kHealthLook);
    seed_run->set_deadline(deadline);
    seed_run->reach();
    plant::HealthWaitOptions o;
    o.seed_name = seed_label(run->ns, run->name);
    o.client = options.client;
    o.deadline = deadline;
    o.stop = run->stop.get_token();
    plant::HealthOutcome h = plant::wait_healthy(*plan, seed_run->clusters(), o);
    if (h.stopped || run->stop.get_token().stop_requested()) return std::nullopt;
    std::string message;
    if (h.all_healthy()) {
      message = fmt::format("all {} objects are healthy", h.units.size());
    } else {
      message = fmt::format("{} of {} objects are healthy", h.healthy(), h.units.size());
      size_t shown = 0;
      for (size_t u = 0; u < h.units.size() && shown < 3; ++u) {
        if (h.units[u].holds) continue;
        message +=
            fmt::format("{} {} on {}: {}",
                        shown++ ? ";" : "; not yet:", plan->object_of(plan->units[u]).display(),
                        plan->units[u].cluster, h.units[u].why);
      }
    }
    bool became;
    {
      std::lock_guard lock(run->mu);
      became = h.all_healthy() && !run->healthy.value_or(false);
      run->healthy = h.all_healthy();
      run->health_message = truncate(message, 2000);
    }
    publish(run, true);
    if (!h.all_healthy()) {
      run->pause = std::clamp(run->pause * 2, kFirstPause, kLongestPause);
      return run->pause;
    }
    if (became) {
      log.info("seed healthy", {{"seed", run->key}});
      event(*run, "Normal", "Healthy", message);
    }
    if (spec.drift_check_interval) return check_drift(run, spec);
    std::lock_guard lock(run->mu);
    run->seed_run.reset();
    run->plan.reset();
    return std::nullopt;
  }

  // Compares a planted Seed's objects with the seed, as `planter diff` does (a server-side dry
  // run of each against the live object), and says what drifted: condition Drifted, an Event when
  // it changes, planter_drifted_objects. Nothing is rewritten: spec.replant does that. Returns the
  // pause before the next check.
  std::optional<milliseconds> check_drift(const std::shared_ptr<SeedRun>& run,
                                          const SeedSpec& spec) {
    std::shared_ptr<const Plan> plan;
    {
      std::lock_guard lock(run->mu);
      plan = run->plan;
    }
    plant::DiffOptions o;
    o.seed_name = seed_label(run->ns, run->name);
    o.client = options.client;
    o.deadline = Steady::now() + options.slice;
    std::shared_ptr<plant::SeedRun> seed_run;
    {
      std::lock_guard lock(run->mu);
      seed_run = run->seed_run;
    }
    // The clusters the Seed created since it was planned are judged too.
    seed_run->set_deadline(o.deadline);
    seed_run->reach();
    o.not_reached = seed_run->not_reached();
    std::vector<plant::ObjectDiff> diffs = plant::diff_seed(*plan, seed_run->clusters(), o);
    if (run->stop.get_token().stop_requested()) return std::nullopt;
    int64_t count = 0, judged = 0;
    std::map<std::string, int64_t> by_cluster{{std::string(kSelf), 0}};  // the clusters judged
    std::vector<std::string> first;
    for (const plant::ObjectDiff& d : diffs) {
      judged += d.state == plant::ObjectDiff::State::kSame ? 1 : 0;
      if (d.state != plant::ObjectDiff::State::kChanged &&
          d.state != plant::ObjectDiff::State::kCreated)
        continue;
      const Unit& unit = plan->units[d.unit];
      ++count;
      ++judged;
      ++by_cluster[unit.cluster];
      if (first.size() >= 3) continue;
      std::string what = plan->object_of(unit).display() + " on " + unit.cluster;
      if (d.state == plant::ObjectDiff::State::kCreated) {
        first.push_back(what + " (deleted)");
        continue;
      }
      std::vector<std::string> fields = plant::changed_fields(*d.live, *d.merged, 4);
      std::string list;
      for (const std::string& f : fields) list += (list.empty() ? "" : ", ") + f;
      first.push_back(what + " (" + list + ")");
    }
    std::string message;
    if (count == 0) {
      message = fmt::format("all {} objects checked are as the seed declares them", judged);
    } else {
      message = fmt::format("{} object(s) differ from the seed: ", count);
      for (size_t i = 0; i < first.size(); ++i) message += (i ? "; " : "") + first[i];
      if (static_cast<size_t>(count) > first.size())
        message += fmt::format("; and {} more", count - static_cast<int64_t>(first.size()));
      message += "; change spec.replant to declare them again";
    }
    std::optional<int64_t> before;
    {
      std::lock_guard lock(run->mu);
      if (run->drifted) before = run->drifted_total();
      run->drifted = std::move(by_cluster);
      run->drift_message = message;
    }
    if (before != count) {
      if (count > 0)
        event(*run, "Warning", "Drifted", message);
      else if (before)
        event(*run, "Normal", "DriftResolved", message);
      log.info("seed drift checked", {{"seed", run->key}, {"drifted", std::to_string(count)}});
      publish(run, true);
    }
    return std::chrono::duration_cast<milliseconds>(*spec.drift_check_interval);
  }

  // One slice of uprooting a Seed: the first plans it; each deletes for at most options.slice.
  // Returns the pause before the next slice, or nullopt when the run is over.
  std::optional<milliseconds> uproot_slice(const std::shared_ptr<SeedRun>& run,
                                           const SeedSpec& spec) {
    std::shared_ptr<const Plan> plan;
    {
      std::lock_guard lock(run->mu);
      plan = run->plan;
    }
    if (!plan) {
      {
        std::lock_guard lock(run->mu);
        run->phase = "Uprooting";
        run->reason = "Uprooting";
        run->message = "the Seed is being deleted and spec.uprootOnDelete is true";
      }
      publish(run, true);
      auto planned = plan_of(*run, spec);
      if (!planned) {
        fail(run, "UprootFailed",
             planned.error().message +
                 "; to delete the Seed without uprooting, remove its finalizer " +
                 std::string(kUprootFinalizer));
        return std::nullopt;
      }
      plan = std::make_shared<const Plan>(std::move(planned->plan));
      {
        std::lock_guard lock(run->mu);
        run->plan = plan;
      }
      log.info("uprooting seed",
               {{"seed", run->key}, {"units", std::to_string(plan->units.size())}});
      event(*run, "Normal", "Uprooting", fmt::format("uprooting {} units", plan->units.size()));
    }
    plant::UprootOptions uo;
    uo.seed_name = seed_label(run->ns, run->name);
    uo.client = options.client;
    uo.write_as = identity_of(*run, spec);
    uo.stop = run->stop.get_token();
    uo.timeout = options.slice;
    uo.on_change = [this, run, plan](size_t u, const plant::RemovalRecord& r) {
      if (r.state == plant::RemovalState::kDeleted || r.state == plant::RemovalState::kFailed)
        log.info("unit " + std::string(plant::to_string(r.state)),
                 {{"seed", run->key},
                  {"cluster", plan->units[u].cluster},
                  {"object", plan->object_of(plan->units[u]).display()}});
    };
    // What the inventories list beyond the Seed first, then the Seed, then the inventories, on
    // every cluster it reaches (plant/seed_run.h).
    auto seed_run = make_seed_run(*run, spec, plan);
    seed_run->set_deadline(std::chrono::steady_clock::now() + options.slice);
    plant::SeedUprootOutcome done = seed_run->uproot(uo);
    if (run->stop.stop_requested()) return std::nullopt;
    if (!done.started) {
      if (!done.beyond.complete && !done.beyond.stopped) {
        run->pause = std::clamp(run->pause * 2, kFirstPause, kLongestPause);
        return run->pause;
      }
      return std::nullopt;
    }
    const plant::UprootOutcome& out = done.seed;
    if (out.stopped) return std::nullopt;
    if (out.timed_out) {
      run->pause = std::clamp(run->pause * 2, kFirstPause, kLongestPause);
      return run->pause;
    }
    if (!out.complete()) {
      fail(run, "UprootFailed", truncate(plant::render_uproot_summary(*plan, out), 2000));
      return std::nullopt;
    }
    log.info("seed uprooted", {{"seed", run->key}, {"elapsed", seconds(out.elapsed)}});
    event(*run, "Normal", "Uprooted", fmt::format("uprooted in {}", seconds(out.elapsed)));
    if (auto seed = informer->get(run->ns, run->name)) set_finalizer(*seed, false);
    return std::nullopt;
  }

  // ---- status ----

  void publish(const std::shared_ptr<SeedRun>& run, bool urgent) {
    std::lock_guard lock(smu);
    auto& d = dirty[run->key];
    d.first = run;
    d.second = d.second || urgent;
    scv.notify_one();
  }

  json::object status_for(SeedRun& run) {
    std::lock_guard lock(run.mu);
    json::object st{{"observedGeneration", run.generation}, {"phase", run.phase}};
    if (run.replant) st["replant"] = *run.replant;
    std::map<UnitState, int64_t> n;
    json::array pending;
    std::string waiting;  // what the first pending unit waits for
    for (size_t u = 0; u < run.records.size(); ++u) {
      const plant::UnitRecord& r = run.records[u];
      ++n[r.state];
      if (waiting.empty() && r.state == UnitState::kPending) waiting = r.waiting_for;
      if (r.state == UnitState::kDeclared || r.state == UnitState::kNotChosen ||
          pending.size() >= options.status_units_max)
        continue;
      const Unit& unit = run.plan->units[u];
      json::object e{{"object", run.plan->object_of(unit).display()},
                     {"cluster", unit.cluster},
                     {"state", plant::to_string(r.state)}};
      if (!r.waiting_for.empty()) e["waitingFor"] = truncate(r.waiting_for, 300);
      if (!r.error.empty()) e["error"] = truncate(r.error, 300);
      pending.push_back(std::move(e));
    }
    int64_t total = static_cast<int64_t>(run.records.size());
    st["counts"] = {{"total", total},
                    {"pending", n[UnitState::kPending]},
                    {"declaring", n[UnitState::kDeclaring]},
                    {"declared", n[UnitState::kDeclared]},
                    {"failed", n[UnitState::kFailed]},
                    {"blocked", n[UnitState::kBlocked]},
                    {"notChosen", n[UnitState::kNotChosen]}};
    if (!pending.empty()) st["notDeclared"] = std::move(pending);
    if (run.choices && !run.choices->empty()) {
      json::array choices;
      for (const auto& [name, clusters] : *run.choices) {
        json::array names;
        for (const std::string& c : clusters) names.push_back(json::string(c));
        choices.push_back(json::object{{"name", name}, {"clusters", std::move(names)}});
      }
      st["clusterChoices"] = std::move(choices);
    }
    // The conditions, from the phase.
    std::string message = run.message;
    if (run.phase == "Planting") {
      message = fmt::format("{} of {} units declared{}", n[UnitState::kDeclared], total,
                            waiting.empty() ? "" : "; waiting for " + truncate(waiting, 300));
    }
    auto cond = [&](std::string_view type, bool status, std::string reason, std::string msg) {
      return json::object{{"type", type},
                          {"status", status ? "True" : "False"},
                          {"reason", std::move(reason)},
                          {"message", std::move(msg)},
                          {"observedGeneration", run.generation}};
    };
    bool planted = run.phase == "Planted";
    bool progressing = run.phase == "Planting" || run.phase == "Uprooting";
    bool failed = run.phase == "Failed" || n[UnitState::kFailed] > 0;
    int64_t blocked = n[UnitState::kBlocked];
    json::array conditions;
    // Ready, as Flux and kstatus read a resource: True once planted; else why not, in the words
    // of the phase. `kubectl get seeds` shows it in its READY and STATUS columns.
    conditions.push_back(cond("Ready", planted, run.reason.empty() ? run.phase : run.reason,
                              planted ? run.message : message));
    conditions.push_back(cond("Planted", planted, run.reason, planted ? run.message : message));
    conditions.push_back(cond("Progressing", progressing, progressing ? run.reason : run.phase,
                              progressing ? message : ""));
    conditions.push_back(
        cond("Blocked", blocked > 0, blocked > 0 ? "BlockedByFailure" : "NotBlocked",
             blocked > 0 ? fmt::format("{} unit(s) wait on a failed unit", blocked) : ""));
    conditions.push_back(
        cond("Failed", failed,
             failed ? (run.phase == "Failed" ? run.reason : "UnitFailed") : "NoFailure",
             failed ? (run.phase == "Failed" ? run.message : "a unit failed") : ""));
    // Drifted, once a drift check ran (spec.driftCheckInterval).
    if (run.drifted && planted) {
      bool drifted = run.drifted_total() > 0;
      conditions.push_back(
          cond("Drifted", drifted, drifted ? "Drifted" : "NoDrift", run.drift_message));
    }
    // Healthy, with spec.wait once planted: every object as kstatus reads it.
    if (planted && run.healthy)
      conditions.push_back(cond("Healthy", *run.healthy, *run.healthy ? "Healthy" : "NotHealthy",
                                run.health_message));
    st["conditions"] = std::move(conditions);
    return st;
  }

  // Keeps each condition's lastTransitionTime when its status did not change; true when the
  // status is what the Seed already says.
  bool settle(json::object& st, const json::object* current) {
    std::string now = daemon::rfc3339(std::chrono::system_clock::now(), false);
    std::map<std::string, std::pair<std::string, std::string>> before;  // type -> status, time
    if (current)
      if (auto* cs = current->if_contains("conditions"); cs && cs->is_array())
        for (const json::value& c : cs->as_array())
          if (c.is_object())
            before[string_field(c.as_object(), {"type"})] = {
                string_field(c.as_object(), {"status"}),
                string_field(c.as_object(), {"lastTransitionTime"})};
    for (json::value& c : st["conditions"].as_array()) {
      json::object& co = c.as_object();
      auto it = before.find(string_field(co, {"type"}));
      bool same = it != before.end() && it->second.first == string_field(co, {"status"}) &&
                  !it->second.second.empty();
      co["lastTransitionTime"] = same ? it->second.second : now;
    }
    return current && *current == st;
  }

  void write_status(SeedRun& run) {
    json::object st = status_for(run);
    std::optional<json::object> seed = informer->get(run.ns, run.name);
    if (!seed || meta(*seed, "uid") != run.uid) return;  // gone, or another Seed by that name
    if (settle(st, status_of(*seed))) return;
    json::object body{{"apiVersion", kSeedApiVersion},
                      {"kind", "Seed"},
                      {"metadata", {{"name", run.name}, {"namespace", run.ns}}},
                      {"status", std::move(st)}};
    kube::ApplyOptions ao;
    ao.field_manager = "planter-operator";
    ao.force = true;
    auto r = client->apply_status(body, ao);
    if (!r && !r.error().not_found())
      log.warn("cannot write the seed's status", {{"seed", run.key}, {"error", r.error().str()}});
  }

  void write_statuses() {
    std::unique_lock lock(smu);
    while (!stopping) {
      auto now = Steady::now();
      std::optional<Steady::time_point> next;
      std::vector<std::shared_ptr<SeedRun>> due;
      for (auto it = dirty.begin(); it != dirty.end();) {
        auto& [key, wish] = *it;
        auto last = last_write.find(key);
        Steady::time_point at =
            wish.second || last == last_write.end() ? now : last->second + options.status_interval;
        if (at <= now) {
          if (auto run = wish.first.lock()) due.push_back(run);
          last_write[key] = now;
          it = dirty.erase(it);
        } else {
          next = next ? std::min(*next, at) : at;
          ++it;
        }
      }
      if (!due.empty()) {
        lock.unlock();
        for (auto& run : due) write_status(*run);
        lock.lock();
        continue;
      }
      if (next)
        scv.wait_until(lock, *next);
      else
        scv.wait(lock);
    }
  }

  // ---- events ----

  void event(const SeedRun& run, std::string_view type, std::string_view reason,
             const std::string& message) {
    auto now = std::chrono::system_clock::now();
    auto nanos =
        std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
    json::object ev{
        {"apiVersion", "v1"},
        {"kind", "Event"},
        {"metadata", {{"name", fmt::format("{}.{:x}", run.name, nanos)}, {"namespace", run.ns}}},
        {"involvedObject",
         {{"apiVersion", kSeedApiVersion},
          {"kind", "Seed"},
          {"name", run.name},
          {"namespace", run.ns},
          {"uid", run.uid}}},
        {"reason", reason},
        {"message", truncate(message, 1024)},
        {"type", type},
        {"source", {{"component", "planter-operator"}}},
        {"firstTimestamp", daemon::rfc3339(now, false)},
        {"lastTimestamp", daemon::rfc3339(now, false)},
        {"count", 1},
        {"reportingComponent", "planter-operator"},
        {"reportingInstance", options.identity}};
    auto r = client->create(ev);
    if (!r) log.warn("cannot record an event", {{"seed", run.key}, {"error", r.error().str()}});
  }
};

Controller::Controller(kube::RestConfig config, ControllerOptions options, Metrics& metrics,
                       const daemon::Log& log)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(options), metrics, log)) {}

Controller::~Controller() {
  stop();
}

Result<bool> Controller::start(uint32_t shard) {
  Impl& m = *impl_;
  m.shard = shard;
  auto client = kube::Client::create(m.config, m.options.client);
  if (!client) return client.error();
  m.client = std::move(client.value());
  kube::InformerHandlers h;
  auto key_of = [](const json::object& o) { return meta(o, "namespace") + "/" + meta(o, "name"); };
  h.added = [&m, key_of](const json::object& o) { m.enqueue(key_of(o)); };
  h.updated = [&m, key_of](const json::object& before, const json::object& now) {
    // Status writes (ours) change neither the spec (generation) nor the metadata that matters.
    if (generation_of(before) == generation_of(now) &&
        meta(before, "deletionTimestamp") == meta(now, "deletionTimestamp") &&
        finalizers_of(before) == finalizers_of(now))
      return;
    m.enqueue(key_of(now));
  };
  h.deleted = [&m, key_of](const json::object& o) { m.enqueue(key_of(o)); };
  h.failed = [&m](const kube::ApiError& e) {
    m.log.error("cannot watch Seeds", {{"error", e.str()}});
  };
  m.informer = std::make_unique<kube::Informer>(
      *m.client,
      kube::ResourceQuery{std::string(kSeedApiVersion), "Seed", m.options.watch_namespace, "", ""},
      std::move(h));
  m.informer->start();
  m.planters = std::make_unique<SlicePool>(m.options.workers);
  m.fetchers = std::make_unique<SlicePool>(m.options.fetchers);
  m.worker = std::thread([&m] { m.work(); });
  m.writer = std::thread([&m] { m.write_statuses(); });
  return true;
}

void Controller::stop() {
  Impl& m = *impl_;
  {
    std::lock_guard l1(m.qmu);
    std::lock_guard l2(m.smu);
    if (m.stopping) return;
    m.stopping = true;
  }
  m.qcv.notify_all();
  m.scv.notify_all();
  if (m.worker.joinable()) m.worker.join();
  if (m.writer.joinable()) m.writer.join();
  {
    std::lock_guard lock(m.runs_mu);
    std::vector<std::string> keys;
    for (auto& [k, _] : m.runs) keys.push_back(k);
    for (auto& k : keys) m.stop_run(k);
  }
  if (m.fetchers) m.fetchers->stop();
  if (m.planters) m.planters->stop();
  if (m.informer) m.informer->stop();
}

bool Controller::synced() const {
  return impl_->informer && impl_->informer->synced();
}

Metrics::Gauges Controller::gauges() const {
  Metrics::Gauges g;
  std::lock_guard lock(impl_->runs_mu);
  for (auto& [key, run] : impl_->runs) {
    std::lock_guard rl(run->mu);
    ++g.seeds_by_phase[run->phase];
    for (const plant::UnitRecord& r : run->records)
      ++g.units_by_state[std::string(plant::to_string(r.state))];
    if (run->drifted)
      for (const auto& [cluster, n] : *run->drifted) g.drifted[{key, cluster}] = n;
  }
  return g;
}

}  // namespace planter::op
