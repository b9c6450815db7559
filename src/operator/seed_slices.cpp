#include <fmt/ranges.h>

#include "operator/controller_impl.h"
#include "operator/run_records.h"

namespace planter::op {

Expected<PlannedSeed, Failure> Controller::Impl::plan_of(
    SeedRun& run, const SeedSpec& spec, std::map<std::string, GangPath> gang_paths) {
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
  auto listed = [this]() -> Result<std::vector<ClusterInfo>> {
    plant::ExistingClustersOptions existing;
    existing.deadline = std::chrono::steady_clock::now() + kExistingClustersPatience;
    return plant::read_existing_clusters(*client, existing);
  };
  // The clusters as the operator's watch has them (listed until it has listed); a plan that
  // fails on them is made again from a fresh list (the watch may not have seen a cluster object
  // created just before the Seed).
  bool from_watch = false;
  auto watched = [&]() -> Result<std::vector<ClusterInfo>> {
    auto seen = watched_clusters ? watched_clusters->read() : std::nullopt;
    if (!seen) return listed();
    from_watch = true;
    return std::move(*seen);
  };
  auto planned = plan_seed_text(*text, run.ns, plugins, watched, gang_paths);
  if (!planned && from_watch)
    planned = plan_seed_text(*text, run.ns, plugins, listed, std::move(gang_paths));
  if (!planned) return Failure{"InvalidSeed", planned.error().message};
  return std::move(planned.value());
}

plant::WriteIdentity Controller::Impl::identity_of(const SeedRun& run, const SeedSpec& spec,
                                                   const Plan* plan) const {
  if (!plan) plan = run.plan.get();
  plant::WriteIdentity id;
  // Only the user: kube-apiserver adds a service account's groups (system:serviceaccounts and
  // system:serviceaccounts:<ns>) itself when none are sent, and a group sent would need a
  // grant of its own (deploy/rbac.yaml grants impersonating service accounts only).
  id.user = fmt::format("system:serviceaccount:{}:{}", run.ns, spec.service_account);
  id.on_workload_clusters = options.workload_impersonation;
  bool admin_namespace = std::find(options.admin_namespaces.begin(), options.admin_namespaces.end(),
                                   run.ns) != options.admin_namespaces.end();
  if (admin_namespace) {
    id.as_self = [plan](const Unit& u) { return declared_user(plan->object_of(u)) == kAdminUser; };
  }
  return id;
}

void Controller::Impl::fail(const std::shared_ptr<SeedRun>& run, std::string reason,
                            std::string message) {
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

void Controller::Impl::let_go(SeedRun& run) {
  std::lock_guard lock(run.mu);
  run.seed_run.reset();
  if (options.keep_last_plan) run.last_plan = std::move(run.plan);
  run.plan.reset();
}

bool Controller::Impl::plan_first_slice(const std::shared_ptr<SeedRun>& run, const SeedSpec& spec,
                                        bool replant, bool confirming) {
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
  // A mode-gang stack whose cluster lacks Kubernetes' gang API (v1beta1) is planned again with
  // the gang that cluster offers, as `planter plant` plans it (plant/gang_paths.h).
  std::map<std::string, GangPath> paths =
      plant::choose_gang_paths(*plan, seed_run->clusters(), options.client,
                               std::chrono::steady_clock::now() + kExistingClustersPatience);
  if (!paths.empty()) {
    for (const auto& [stack, path] : paths)
      log.info("gang path",
               {{"seed", run->key}, {"stack", stack}, {"gang", std::string(to_string(path))}});
    auto again = plan_of(*run, spec, paths);
    if (!again) {
      fail(run, again.error().reason, again.error().message);
      return false;
    }
    plan = std::make_shared<const Plan>(std::move(again->plan));
    seed_run = make_seed_run(*run, spec, plan);
  }
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
  // a restart, or planting it again for a choice to move, does not ask again.
  if (!confirming && !run->failover && !(replant && spec.hard)) {
    plant::PreflightOptions po;
    po.seed_name = seed_label(run->ns, run->name);
    po.client = options.client;
    po.force_conflicts = replant;
    po.adopt = spec.adopt;
    po.adopt_hint = kAdoptHint;
    po.write_as = identity_of(*run, spec, plan.get());
    po.deadline = std::chrono::steady_clock::now() + kExistingClustersPatience;
    // The names a Seed's clusters would take, from the operator's watch (a list of the whole
    // fleet per Seed otherwise).
    po.clusters_on = [this](const std::string& host) -> std::optional<std::vector<ClusterInfo>> {
      if (host != kSelf || !watched_clusters) return std::nullopt;
      return watched_clusters->read();
    };
    plant::PreflightOutcome checked = plant::preflight(*plan, seed_run->clusters(), po);
    if (!checked.refused.empty()) {
      fail(run, "PreflightRefused", describe_problems(checked.refused));
      return false;
    }
  }
  for (const std::string& w : planned->warnings)
    log.warn("seed warning", {{"seed", run->key}, {"warning", w}});
  std::set<std::string> candidates;
  for (const ClusterChoice& choice : plan->choices)
    for (uint32_t c : choice.candidates) {
      candidates.insert(plan->clusters[c].name);
      // Where its cluster object is: the cluster objects and kubeconfigs kept watched there.
      if (plan->clusters[c].object || plan->clusters[c].existing)
        candidates.insert(plant::host_of(*plan, plan->clusters[c]));
    }
  fleet_cache->retain(run->key, std::move(candidates));
  {
    std::lock_guard lock(run->mu);
    run->plan = plan;
    run->seed_run = seed_run;
    run->records.assign(plan->units.size(), {});
    run->run_started = std::chrono::steady_clock::now();
    run->elapsed = std::chrono::microseconds(0);
    run->last_plan.reset();
    run->declared = 0;
    ++run->records_version;
    run->message = fmt::format("{} units on {} cluster(s)", plan->units.size(),
                               plan->units_by_cluster().size());
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
                      plan->units.size(), plan->units_by_cluster().size(), id.user));
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

std::shared_ptr<plant::SeedRun> Controller::Impl::make_seed_run(
    const SeedRun& run, const SeedSpec& spec, const std::shared_ptr<const Plan>& plan) {
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

std::optional<milliseconds> Controller::Impl::plant_slice(const std::shared_ptr<SeedRun>& run,
                                                          const SeedSpec& spec, bool replant,
                                                          bool confirming) {
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
  eo.yield_waiting_on_clusters = kClusterWaitQuiet;
  eo.fleet_cache = fleet_cache.get();
  {
    std::lock_guard lock(run->mu);
    if (!run->choices_planned) {  // what the Seed's status says, for the choices it still makes
      run->choices_planned = true;
      run->choices.emplace();
      for (const ClusterChoice& c : plan->choices) {
        run->tolerations[c.name] = c.tolerations;
        if (auto it = spec.kept_choices.find(c.name); it != spec.kept_choices.end())
          run->choices->insert(*it);
      }
      hold(*run);
    }
    eo.kept_choices = *run->choices;
    if (run->seed_run) eo.first_writes = run->seed_run->first_writes();
  }
  eo.on_change = [this, run, plan, confirming, first](size_t u, const plant::UnitRecord& r) {
    UnitState before;
    {
      std::lock_guard lock(run->mu);
      before = run->records[u].state;
      // A later slice declares again what an earlier one declared: that is no news, and the
      // record keeps the story of the slice that declared it.
      if (!first && before == UnitState::kDeclared) return;
      run->records[u] = on_run_clock(r, run->slice_offset, run->records[u]);
      if ((before == UnitState::kDeclared) != (r.state == UnitState::kDeclared))
        r.state == UnitState::kDeclared ? ++run->declared : --run->declared;
      ++run->records_version;
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
  {
    std::lock_guard lock(run->mu);
    run->slice_offset = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - run->run_started);
    close_open_waits(run->records, run->elapsed);
  }
  plant::PlantOutcome out = plant::plant(*plan, clusters, eo);
  {
    std::lock_guard lock(run->mu);
    run->elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - run->run_started);
  }
  for (const std::string& w : out.warnings)
    log.warn("seed warning", {{"seed", run->key}, {"warning", w}});
  if (!out.first_written.empty()) {
    std::lock_guard lock(run->mu);
    if (run->seed_run) run->seed_run->written_first(out.first_written);
  }
  if (!out.choices.empty()) {
    std::vector<std::string> moved;  // a choice that holds other clusters than it did
    {
      std::lock_guard lock(run->mu);
      for (const plant::ChoiceRecord& c : out.choices) {
        std::vector<std::string>& had = (*run->choices)[c.name];
        if (had != c.result.chosen && !had.empty())
          moved.push_back(fmt::format("choice {} chose {} (it held {})", c.name,
                                      fmt::join(c.result.chosen, ", "), fmt::join(had, ", ")));
        for (const std::string& cluster : had)
          if (std::find(c.result.chosen.begin(), c.result.chosen.end(), cluster) ==
              c.result.chosen.end())
            run->left.insert(cluster);
        had = c.result.chosen;
      }
      hold(*run);
    }
    for (const std::string& m : moved) event(*run, "Normal", "ClustersChosen", m);
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
      // What was left on a cluster the close reached is pruned now.
      std::lock_guard lock(run->mu);
      std::erase_if(run->left,
                    [&](const std::string& c) { return seed_run->clusters().contains(c); });
      hold(*run);
    }
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
    let_go(*run);
    return std::nullopt;
  }
  if (out.timed_out) {
    // Still waiting: yield the worker, and come back sooner when this slice made progress, or
    // as soon as a cluster its units wait for changes (is provisioned).
    std::set<std::string> waited_on;
    for (size_t u = 0; u < out.units.size(); ++u)
      if (out.units[u].state == UnitState::kPending) waited_on.insert(plan->units[u].cluster);
    waited_on.erase(std::string(kSelf));
    std::weak_ptr<SlicePool::Job> job;
    {
      std::lock_guard lock(run->mu);
      job = run->job;
    }
    {
      std::lock_guard lock(fleet_mu);
      for (const std::string& cluster : waited_on) waiting_on_cluster[cluster][run->key] = job;
    }
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

std::optional<milliseconds> Controller::Impl::uproot_slice(const std::shared_ptr<SeedRun>& run,
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
    log.info("uprooting seed", {{"seed", run->key}, {"units", std::to_string(plan->units.size())}});
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

}  // namespace planter::op
