#include "plant/trace.h"

#include <boost/json.hpp>
#include <map>

namespace planter::plant {

namespace {

namespace json = boost::json;

json::object event(std::string_view ph, std::string name, int64_t pid, int64_t tid, int64_t ts) {
  return json::object{
      {"name", std::move(name)}, {"ph", ph}, {"pid", pid}, {"tid", tid}, {"ts", ts}};
}

}  // namespace

std::string render_trace_json(const Plan& plan, const PlantOutcome& outcome,
                              const std::string& seed_name) {
  json::array events;
  std::map<std::string, int64_t> pid_of;
  for (const Unit& unit : plan.units)
    if (pid_of.emplace(unit.cluster, static_cast<int64_t>(pid_of.size()) + 1).second) {
      json::object name = event("M", "process_name", pid_of[unit.cluster], 0, 0);
      name["args"] = json::object{{"name", "cluster " + unit.cluster}};
      events.push_back(std::move(name));
    }
  int64_t end = outcome.elapsed.count();
  // When each unit's "declaring" slice begins and ends (microseconds), -1 when it never began.
  std::vector<int64_t> begins(plan.units.size(), -1), ends(plan.units.size(), -1);
  for (size_t u = 0; u < plan.units.size() && u < outcome.units.size(); ++u) {
    const Unit& unit = plan.units[u];
    const UnitRecord& r = outcome.units[u];
    int64_t pid = pid_of[unit.cluster], tid = static_cast<int64_t>(u) + 1;
    json::object thread = event("M", "thread_name", pid, tid, 0);
    thread["args"] = json::object{{"name", plan.object_of(unit).display()}};
    events.push_back(std::move(thread));
    int64_t ready = r.ready ? r.ready->count() : -1;
    int64_t done = r.declared ? r.declared->count() : r.failed ? r.failed->count() : -1;
    int64_t stop = done >= 0 ? done : end;
    // Waiting: a slice per stretch, named for the requirement it waited for.
    for (const WaitSpan& w : r.waits) {
      int64_t dur = (w.until >= 0 ? w.until : stop) - w.since;
      if (dur <= 0) continue;  // a requirement that held as soon as it was looked at
      json::object waiting =
          event("X", "waiting for " + describe(plan, unit, w), pid, tid, w.since);
      waiting["cat"] = "wait";
      waiting["dur"] = dur;
      events.push_back(std::move(waiting));
    }
    if (ready < 0) continue;
    int64_t sent = r.sent ? r.sent->count() : ready;
    int64_t until = done >= 0 ? done : end;
    json::object declaring = event(
        "X", r.state == UnitState::kFailed ? "declaring (failed)" : "declaring", pid, tid, sent);
    declaring["cat"] = "declare";
    declaring["dur"] = std::max<int64_t>(until - sent, 2);
    json::object details;
    if (r.declared) details["onWireMs"] = static_cast<double>(r.on_wire.count()) / 1e3;
    details["attempts"] = r.attempts;
    if (!r.error.empty()) details["error"] = r.error;
    declaring["args"] = std::move(details);
    events.push_back(std::move(declaring));
    begins[u] = sent;
    ends[u] = sent + std::max<int64_t>(until - sent, 2);
  }
  // Flow arrows: a provider's declaration to the units it let go.
  int64_t flow = 0;
  for (size_t u = 0; u < plan.units.size(); ++u) {
    if (begins[u] < 0) continue;
    for (const Requirement& req : plan.units[u].requirements) {
      if (!req.unit || *req.unit >= plan.units.size() || ends[*req.unit] < 0) continue;
      size_t from = *req.unit;
      ++flow;
      json::object start = event("s", "requires", pid_of[plan.units[from].cluster],
                                 static_cast<int64_t>(from) + 1, ends[from] - 1);
      start["cat"] = "requirement";
      start["id"] = flow;
      json::object finish = event("f", "requires", pid_of[plan.units[u].cluster],
                                  static_cast<int64_t>(u) + 1, begins[u] + 1);
      finish["cat"] = "requirement";
      finish["id"] = flow;
      finish["bp"] = "e";
      events.push_back(std::move(start));
      events.push_back(std::move(finish));
    }
  }
  json::object doc{{"traceEvents", std::move(events)},
                   {"displayTimeUnit", "ms"},
                   {"otherData", json::object{{"seed", seed_name}, {"tool", "planter"}}}};
  return json::serialize(doc) + "\n";
}

}  // namespace planter::plant
