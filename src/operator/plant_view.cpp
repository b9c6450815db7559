#include "operator/plant_view.h"

#include <fmt/format.h>

#include <boost/json.hpp>

namespace planter::op {

namespace json = boost::json;

namespace {

// What a unit's box says under its object.
std::string why_of(const plant::UnitRecord& r) {
  switch (r.state) {
    case plant::UnitState::kPending:
      return r.waiting_for.empty() ? "waiting" : "waits for " + r.waiting_for;
    case plant::UnitState::kDeclaring:
      return "being declared";
    case plant::UnitState::kDeclared: {
      std::string said(plant::to_string(r.applied));
      if (!r.held_by.empty()) said += (said.empty() ? "" : "; ") + ("waited for " + r.held_by);
      return said;
    }
    case plant::UnitState::kFailed:
    case plant::UnitState::kBlocked:
      return r.error;
    case plant::UnitState::kNotChosen:
      return "its cluster was not chosen";
  }
  return {};
}

}  // namespace

std::pair<std::string, std::string> view_unit(const plant::UnitRecord& record) {
  return {std::string(plant::to_string(record.state)), why_of(record)};
}

// JSON inside a <script> element: "</" would end it.
std::string script_safe(std::string text) {
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");
  return text;
}

PlantView::PlantView(const Plan& plan, const std::string& seed_name)
    : seed_name_(seed_name),
      plan_json_(view_plan_json(plan, seed_name)),
      units_(plan.units.size()) {}

std::string view_plan_json(const Plan& plan, const std::string& seed_name) {
  json::object out;
  out["seed"] = seed_name;
  json::array clusters;
  for (const ClusterInfo& c : plan.clusters) clusters.emplace_back(c.name);
  out["clusters"] = std::move(clusters);
  json::array units;
  units.reserve(plan.units.size());
  for (const Unit& u : plan.units) {
    json::object unit;
    unit["object"] = plan.object_of(u).display();
    unit["cluster"] = u.cluster;
    json::array needs, external;
    for (const Requirement& r : u.requirements) {
      if (r.unit)
        needs.emplace_back(*r.unit);
      else
        external.emplace_back(plan.describe(r));
    }
    unit["requires"] = std::move(needs);
    unit["external"] = std::move(external);
    units.emplace_back(std::move(unit));
  }
  out["units"] = std::move(units);
  return json::serialize(out);
}

void PlantView::on_change(size_t u, const plant::UnitRecord& record) {
  std::pair<std::string, std::string> seen = view_unit(record);
  std::string& state = seen.first;
  std::string& why = seen.second;
  std::lock_guard lock(mu_);
  if (u >= units_.size()) return;
  UnitView& v = units_[u];
  if (v.state == state && v.why == why) return;
  v.state = std::move(state);
  v.why = std::move(why);
  v.version = ++version_;
}

void PlantView::ended(const std::string& summary, std::string timeline) {
  std::lock_guard lock(mu_);
  ended_ = summary;
  timeline_ = std::move(timeline);
  ++version_;
}

std::string view_state_json(uint64_t version, const std::string& ended, json::object units) {
  json::object out{{"version", version}, {"ended", ended}};
  out["units"] = std::move(units);
  return json::serialize(out);
}

std::string PlantView::state_json(uint64_t since) const {
  json::object units;
  for (size_t i = 0; i < units_.size(); ++i) {
    if (units_[i].version <= since && since != 0) continue;
    units[std::to_string(i)] = json::object{{"state", units_[i].state}, {"why", units_[i].why}};
  }
  return view_state_json(version_, ended_, std::move(units));
}

daemon::HttpAnswer PlantView::answer(const std::string& path) {
  if (path == "/plan") return {200, "application/json", plan_json_, {}};
  std::unique_lock lock(mu_);
  if (path == "/state") return {200, "application/json", state_json(0), {}};
  if (path == "/") {
    std::string state = state_json(0);
    lock.unlock();
    return {200,
            "text/html; charset=utf-8",
            plant_view_page(seed_name_, script_safe(plan_json_), script_safe(state)),
            {}};
  }
  if (path == "/events") {
    // Once the run has ended nothing changes: 204 tells a browser's EventSource not to come
    // back (the page it has shows the end already).
    if (!ended_.empty()) return {204, "text/plain", "", {}};
    // The whole state first, then what changed since the last event, until the run ends.
    uint64_t sent = version_;
    std::string first = fmt::format("data: {}\n\n", state_json(0));
    return {200, "text/event-stream", std::move(first), [this, sent]() mutable {
              std::lock_guard l(mu_);
              if (version_ == sent)
                return ended_.empty() ? std::optional<std::string>() : std::string();
              std::string event = fmt::format("data: {}\n\n", state_json(sent));
              sent = version_;
              return std::optional<std::string>(std::move(event));
            }};
  }
  if (path == "/timeline") {
    if (ended_.empty())
      return {404,
              "text/plain; charset=utf-8",
              "not yet: the run's timeline is drawn when the run ends\n",
              {}};
    return {200, "text/html; charset=utf-8", timeline_, {}};
  }
  return {404,
          "text/plain; charset=utf-8",
          "not found: the view serves /, /plan, /state, /events and /timeline\n",
          {}};
}

}  // namespace planter::op
