#include "plant/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <unordered_set>

#include "model/object.h"
#include "plant/timeline.h"

namespace planter::plant {

namespace json = boost::json;

namespace {

double seconds(std::chrono::microseconds us) {
  return static_cast<double>(us.count()) / 1e6;
}

std::string what_now(const UnitRecord& r) {
  switch (r.state) {
    case UnitState::kPending:
      return "waiting for " + r.waiting_for;
    case UnitState::kDeclaring:
      return "declaring";
    case UnitState::kFailed:
      return r.error;
    case UnitState::kBlocked:
      return "blocked " + r.error;
    case UnitState::kDeclared:
    case UnitState::kNotChosen:
      return "";
  }
  return "";
}

}  // namespace

namespace {

// ": 3 created, 1 configured, 5 unchanged", as kapp's summary counts its operations.
std::string applied_counts(const PlantOutcome& out) {
  std::map<Applied, size_t> n;
  for (const UnitRecord& r : out.units)
    if (r.state == UnitState::kDeclared) ++n[r.applied];
  std::string text;
  for (Applied a : {Applied::kCreated, Applied::kReplaced, Applied::kConfigured,
                    Applied::kUnchanged, Applied::kApplied})
    if (n[a] > 0) text += fmt::format("{}{} {}", text.empty() ? ": " : ", ", n[a], to_string(a));
  return text;
}

}  // namespace

std::string render_summary(const Plan& plan, const PlantOutcome& out) {
  std::string text;
  auto clusters = plan.units_by_cluster();
  size_t width = 7;
  for (const auto& [c, _] : clusters) width = std::max(width, c.size());
  text += fmt::format("{:<{}}  {:>9}  {:>6}  {:>7}  {:>7}\n", "CLUSTER", width, "DECLARED",
                      "FAILED", "BLOCKED", "PENDING");
  size_t used = 0;
  for (const auto& [c, units] : clusters) {
    size_t total = 0, counts[6] = {0, 0, 0, 0, 0, 0};
    for (size_t i : units)
      if (out.units[i].state != UnitState::kNotChosen) {
        ++total;
        ++counts[static_cast<int>(out.units[i].state)];
      }
    if (total == 0) continue;
    ++used;
    text += fmt::format("{:<{}}  {:>9}  {:>6}  {:>7}  {:>7}\n", c, width,
                        fmt::format("{}/{}", counts[2], total), counts[3], counts[4],
                        counts[0] + counts[1]);
  }
  bool header = false;
  for (size_t i = 0; i < plan.units.size(); ++i) {
    const UnitRecord& r = out.units[i];
    if (r.state == UnitState::kDeclared || r.state == UnitState::kNotChosen) continue;
    if (!header) {
      text += "\nNot declared:\n";
      header = true;
    }
    const Unit& u = plan.units[i];
    const Object& o = plan.object_of(u);
    text += fmt::format("  {} {} on {} ({}): {}\n", to_string(r.state), o.display(), u.cluster,
                        o.where(), what_now(r));
  }
  if (!out.choices.empty()) text += "\nClusters chosen:\n";
  for (const ChoiceRecord& c : out.choices)
    text += fmt::format("  {}: {}\n", c.name, fit::chosen_text(c.result));
  size_t declared = out.count(UnitState::kDeclared);
  size_t to_declare = out.units.size() - out.count(UnitState::kNotChosen);
  if (declared == to_declare)
    text += fmt::format("\nplanted {} units on {} cluster{} in {:.2f}s{}\n", declared, used,
                        used == 1 ? "" : "s", seconds(out.elapsed), applied_counts(out));
  else
    text += fmt::format("\n{} of {} units declared in {:.2f}s{}{}\n", declared, to_declare,
                        seconds(out.elapsed), applied_counts(out),
                        out.timed_out ? " (timed out)"
                        : out.stopped ? " (interrupted)"
                                      : "");
  return text;
}

std::string render_report_json(const Plan& plan, const PlantOutcome& out,
                               const std::string& seed_name) {
  json::array units;
  units.reserve(plan.units.size());
  std::vector<size_t> path = critical_path(plan, out);
  std::unordered_set<size_t> on_path(path.begin(), path.end());
  for (size_t i = 0; i < plan.units.size(); ++i) {
    const Unit& u = plan.units[i];
    const UnitRecord& r = out.units[i];
    const Object& o = plan.object_of(u);
    json::object ju{
        {"object", o.ref.id()}, {"cluster", u.cluster},        {"wave", u.wave},
        {"source", o.where()},  {"state", to_string(r.state)}, {"attempts", r.attempts}};
    if (r.applied != Applied::kNotYet) ju["applied"] = to_string(r.applied);
    if (r.ready) ju["readySeconds"] = seconds(*r.ready);
    if (r.sent) ju["sentSeconds"] = seconds(*r.sent);
    if (r.declared) ju["declaredSeconds"] = seconds(*r.declared);
    if (r.declared && r.sent) ju["onWireSeconds"] = seconds(r.on_wire);
    if (r.failed) ju["failedSeconds"] = seconds(*r.failed);
    if (!r.held_by.empty()) ju["heldBy"] = r.held_by;
    if (!r.steered.empty()) ju["steered"] = r.steered;
    if (!r.waiting_for.empty()) ju["waitingFor"] = r.waiting_for;
    if (!r.error.empty()) ju["error"] = r.error;
    if (on_path.contains(i)) ju["criticalPath"] = true;
    if (!r.waits.empty()) {
      json::array waits;
      for (const WaitSpan& w : r.waits) {
        json::object jw{{"for", describe(plan, u, w)},
                        {"kind", to_string(wait_kind(u, w))},
                        {"fromSeconds", seconds(std::chrono::microseconds(w.since))}};
        if (w.until >= 0) jw["toSeconds"] = seconds(std::chrono::microseconds(w.until));
        waits.push_back(std::move(jw));
      }
      ju["waits"] = std::move(waits);
    }
    units.push_back(std::move(ju));
  }
  json::object counts;
  for (auto s : {UnitState::kPending, UnitState::kDeclaring, UnitState::kDeclared,
                 UnitState::kFailed, UnitState::kBlocked, UnitState::kNotChosen})
    counts[to_string(s)] = out.count(s);
  json::array choices;
  for (const ChoiceRecord& c : out.choices) {
    json::array candidates;
    for (const fit::ScoredCandidate& s : c.result.ranked) {
      json::object jc{{"cluster", s.name}, {"fits", s.fits}, {"chosen", s.chosen}};
      if (s.fits) jc["score"] = s.score;
      if (s.kept) jc["kept"] = true;
      if (!s.why.empty()) jc["why"] = s.why;
      candidates.push_back(std::move(jc));
    }
    json::array chosen;
    for (const std::string& name : c.result.chosen) chosen.push_back(json::string(name));
    choices.push_back(json::object{
        {"name", c.name}, {"chosen", std::move(chosen)}, {"candidates", std::move(candidates)}});
  }
  auto started =
      std::chrono::duration_cast<std::chrono::milliseconds>(out.started.time_since_epoch());
  std::time_t secs = static_cast<std::time_t>(started.count() / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  json::object root{
      {"seed", seed_name},
      {"started",
       fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                   tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, started.count() % 1000)},
      {"elapsedSeconds", seconds(out.elapsed)},
      {"timedOut", out.timed_out},
      {"counts", std::move(counts)},
      {"choices", std::move(choices)},
      {"units", std::move(units)}};
  return json::serialize(root) + "\n";
}

}  // namespace planter::plant
