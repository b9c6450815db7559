#include "operator/controller_impl.h"

namespace planter::op {

std::optional<milliseconds> Controller::Impl::check_health(const std::shared_ptr<SeedRun>& run,
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
  let_go(*run);
  return std::nullopt;
}

std::optional<milliseconds> Controller::Impl::check_drift(const std::shared_ptr<SeedRun>& run,
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
        d.state != plant::ObjectDiff::State::kCreated &&
        d.state != plant::ObjectDiff::State::kReplaced)
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
    if (d.state == plant::ObjectDiff::State::kReplaced) {
      first.push_back(what + " (" + d.note + ", to be made again)");
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

}  // namespace planter::op
