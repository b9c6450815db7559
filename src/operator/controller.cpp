#include "operator/controller_impl.h"

namespace planter::op {

void Controller::Impl::enqueue(const std::string& key) {
  if (owns(key)) queue.add(key);
}

void Controller::Impl::enqueue_after(const std::string& key, milliseconds delay) {
  if (owns(key)) queue.add_after(key, delay);
}

void Controller::Impl::work() {
  while (std::optional<std::string> key = queue.get()) {
    auto start = Steady::now();
    metrics.reconcile_started();
    reconcile(*key);
    bool requeued = queue.done(*key);
    metrics.reconcile_finished(std::chrono::duration<double>(Steady::now() - start).count(),
                               requeued ? "requeue_after" : "success");
  }
}

void Controller::Impl::reconcile(const std::string& key) {
  size_t slash = key.find('/');
  std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  std::optional<json::object> seed = informer->get(ns, name);
  std::lock_guard lock(runs_mu);
  auto spec = seed ? parse_seed_spec(*seed) : Result<SeedSpec>(Error{"gone"});
  std::optional<SeedFacts> facts;
  if (seed) facts = seed_facts(*seed, spec);
  std::optional<RunState> current;
  std::string given_up;  // why a planted run's choice must move now
  if (auto it = runs.find(key); it != runs.end()) {
    SeedRun& r = *it->second;
    std::lock_guard rl(r.mu);
    current = RunState{r.run_key, r.done, r.failed, Steady::now() >= r.retry_at, r.backoff};
    if (r.kind == SeedRun::Kind::kPlant && r.phase == "Planted") {
      GiveUp g = gives_up(r);
      given_up = std::move(g.why);
      current->moved = !given_up.empty();
      if (g.next) {  // a toleration holds a chosen cluster until then: look again at its end
        auto wait =
            std::chrono::duration_cast<milliseconds>(*g.next - std::chrono::system_clock::now());
        enqueue_after(key, std::max(wait, milliseconds(0)) + kAfterTolerationEnds);
      }
    }
  }
  Decision d = decide(facts, current, options.retry_min, options.retry_max);
  using Action = Decision::Action;
  if (d.failover) {
    log.info("failover", {{"seed", key}, {"why", given_up}});
    event(*runs.at(key), "Normal", "Failover",
          given_up + "; planting again for the choice to take another cluster");
  }
  if (d.action == Action::kForget) {
    hold(key, {});
    fleet_cache->retain(key, {});
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

std::shared_ptr<SeedRun> Controller::Impl::idle(const json::object& seed,
                                                const std::string& run_key) {
  std::string key = key_of(seed);
  stop_run(key);
  auto run = make_run(seed, run_key, SeedRun::Kind::kIdle);
  run->done = true;
  runs[key] = run;
  return run;
}

std::shared_ptr<SeedRun> Controller::Impl::make_run(const json::object& seed, std::string run_key,
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

void Controller::Impl::start(const json::object& seed, const SeedSpec& spec, const Decision& d) {
  std::string key = key_of(seed);
  std::set<std::string> left;  // where the run it replaces left objects to prune
  if (auto it = runs.find(key); it != runs.end()) {
    std::lock_guard lock(it->second->mu);
    left = it->second->left;
  }
  stop_run(key);
  auto kind =
      d.action == Decision::Action::kUproot ? SeedRun::Kind::kUproot : SeedRun::Kind::kPlant;
  auto run = make_run(seed, d.run_key, kind);
  run->backoff = d.backoff;
  run->replant = replant_of(seed);
  if (!spec.kept_choices.empty()) run->choices = spec.kept_choices;
  run->left = std::move(left);
  run->failover = d.failover;
  runs[key] = run;
  auto slices = [this, run, spec, replant = d.replant,
                 confirming = d.confirming]() -> std::optional<milliseconds> {
    auto again = run->kind == SeedRun::Kind::kUproot ? uproot_slice(run, spec)
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

Result<SeedText> Controller::Impl::read_source(SeedRun& run, const SeedSpec& spec) {
  SourceLimits limits = options.sources;
  limits.timeout = options.slice;  // a fetch is bounded like a slice
  limits.cancel = &run.cancel_fetch;
  SourceReader read;
  read.config_map = [this](const std::string& ns, const std::string& name) -> Result<json::object> {
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

void Controller::Impl::stop_run(const std::string& key) {
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

bool Controller::Impl::set_finalizer(const json::object& seed, bool present) {
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
      log.warn("cannot update the seed's finalizers", {{"seed", key}, {"error", r.error().str()}});
    return false;
  }
  log.info(present ? "finalizer added" : "finalizer removed",
           {{"seed", key}, {"finalizer", std::string(kUprootFinalizer)}});
  return true;
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
  // A replica keeps of another shard's Seeds only who they are: it never plants them, and each
  // holds its whole seed inline (4 shards of 50,000 Seeds kept 50,000 seeds each).
  if (m.options.shards > 1)
    h.transform = [&m, key_of](json::object& seed) {
      if (m.owns(key_of(seed))) return;
      json::object who;
      for (std::string_view f : {"name", "namespace", "uid", "resourceVersion"})
        who[f] = meta(seed, f);
      seed = json::object{
          {"apiVersion", seed["apiVersion"]}, {"kind", seed["kind"]}, {"metadata", std::move(who)}};
    };
  m.informer = std::make_unique<kube::Informer>(
      *m.client,
      kube::ResourceQuery{std::string(kSeedApiVersion), "Seed", m.options.watch_namespace, "", ""},
      std::move(h));
  m.informer->start();
  m.watch_clusters();
  m.fleet_cache = std::make_unique<plant::FleetCache>(m.options.client);
  m.planters = std::make_unique<SlicePool>(m.options.workers);
  m.fetchers = std::make_unique<SlicePool>(m.options.fetchers);
  // A cluster object's change (planter's, Cluster API's, a ClusterProfile: provisioned, perhaps)
  // wakes the Seeds resting until it is linked.
  m.watched_clusters = std::make_unique<plant::WatchedClusters>(
      *m.client, [&m](const std::string& cluster) { m.wake_waiting_on(cluster); });
  m.worker = std::thread([&m] { m.work(); });
  m.writer = std::thread([&m] { m.write_statuses(); });
  return true;
}

void Controller::stop() {
  Impl& m = *impl_;
  {
    std::lock_guard lock(m.smu);
    if (m.stopping) return;
    m.stopping = true;
  }
  if (m.health) m.health->stop();
  m.queue.shut_down();
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
  {
    // No wake reaches the pool once it is stopped, nor a pool started again (a new term).
    std::lock_guard lock(m.fleet_mu);
    m.waiting_on_cluster.clear();
  }
  m.fleet_cache.reset();  // its watches end (no run reads them any more)
  m.watched_clusters.reset();
  if (m.informer) m.informer->stop();
  if (m.cluster_informer) m.cluster_informer->stop();
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
