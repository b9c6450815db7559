#include "operator/controller_impl.h"

namespace planter::op {

void Controller::Impl::publish(const std::shared_ptr<SeedRun>& run, bool urgent) {
  std::lock_guard lock(smu);
  auto& d = dirty[run->key];
  d.first = run;
  d.second = d.second || urgent;
  scv.notify_one();
}

json::object Controller::Impl::status_for(SeedRun& run) {
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
  conditions.push_back(cond(
      "Failed", failed, failed ? (run.phase == "Failed" ? run.reason : "UnitFailed") : "NoFailure",
      failed ? (run.phase == "Failed" ? run.message : "a unit failed") : ""));
  // Drifted, once a drift check ran (spec.driftCheckInterval).
  if (run.drifted && planted) {
    bool drifted = run.drifted_total() > 0;
    conditions.push_back(
        cond("Drifted", drifted, drifted ? "Drifted" : "NoDrift", run.drift_message));
  }
  // Healthy, with spec.wait once planted: every object as kstatus reads it.
  if (planted && run.healthy)
    conditions.push_back(
        cond("Healthy", *run.healthy, *run.healthy ? "Healthy" : "NotHealthy", run.health_message));
  st["conditions"] = std::move(conditions);
  return st;
}

bool Controller::Impl::settle(json::object& st, const json::object* current) {
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

void Controller::Impl::write_status(SeedRun& run) {
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

void Controller::Impl::write_statuses() {
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

void Controller::Impl::event(const SeedRun& run, std::string_view type, std::string_view reason,
                             const std::string& message) {
  record_event(json::object{{"apiVersion", kSeedApiVersion},
                            {"kind", "Seed"},
                            {"name", run.name},
                            {"namespace", run.ns},
                            {"uid", run.uid}},
               type, reason, message);
}

void Controller::Impl::record_event(json::object involved, std::string_view type,
                                    std::string_view reason, const std::string& message) {
  auto now = std::chrono::system_clock::now();
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  std::string name = string_field(involved, {"name"}), ns = string_field(involved, {"namespace"});
  json::object ev{{"apiVersion", "v1"},
                  {"kind", "Event"},
                  {"metadata", {{"name", fmt::format("{}.{:x}", name, nanos)}, {"namespace", ns}}},
                  {"involvedObject", std::move(involved)},
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
  if (!r)
    log.warn("cannot record an event", {{"object", ns + "/" + name}, {"error", r.error().str()}});
}

}  // namespace planter::op
