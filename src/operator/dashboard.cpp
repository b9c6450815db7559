#include "operator/dashboard.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <map>
#include <memory>

#include "model/names.h"
#include "operator/plant_view.h"
#include "plant/timeline.h"

namespace planter::op {

namespace json = boost::json;

namespace {

std::string seeds_json(const std::vector<Controller::SeedView>& seeds) {
  json::array out;
  for (const Controller::SeedView& s : seeds)
    out.push_back(json::object{{"key", s.key},
                               {"phase", s.phase},
                               {"reason", s.reason},
                               {"message", s.message},
                               {"units", s.units},
                               {"declared", s.declared}});
  return json::serialize(out);
}

// How a Seed's run ended, for the page's header; empty while it plants.
std::string ended_of(const Controller::SeedView& s) {
  if (s.phase == "Planting" || s.phase == "Pending" || s.phase.empty()) return {};
  return s.message.empty() ? s.phase : s.phase + ": " + s.message;
}

// The units of a Seed's records whose (state, why) differ from `sent` (all of them when `sent`
// is for another plan); `sent` becomes what they say.
json::object changed_units(const std::vector<plant::UnitRecord>& records,
                           std::vector<std::pair<std::string, std::string>>& sent) {
  json::object units;
  bool all = sent.size() != records.size();
  if (all) sent.assign(records.size(), {});
  for (size_t i = 0; i < records.size(); ++i) {
    std::pair<std::string, std::string> now = view_unit(records[i]);
    if (!all && now == sent[i]) continue;
    units[std::to_string(i)] = json::object{{"state", now.first}, {"why", now.second}};
    sent[i] = std::move(now);
  }
  return units;
}

constexpr const char* kIndex = R"page(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>planter: Seeds</title>
<style>
body { font: 14px/1.35 "DejaVu Sans", sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
header { padding: 10px 16px; background: #1d2330; color: #fff; }
header h1 { font-size: 17px; margin: 0; }
table { border-collapse: collapse; margin: 16px; background: #fff; }
th, td { border: 1px solid #c9ced8; padding: 5px 9px; text-align: left; vertical-align: top; }
tr[data-phase=Planted] td.phase { background: #e7f7ee; }
tr[data-phase=Planting] td.phase, tr[data-phase=Pending] td.phase { background: #fff8dc; }
tr[data-phase=Failed] td.phase { background: #fde8e8; }
td.message { max-width: 640px; word-break: break-word; color: #4a5262; }
</style></head>
<body><header><h1>planter: Seeds</h1></header>
<table><thead><tr><th>Seed</th><th>phase</th><th>units declared</th><th>message</th></tr></thead>
<tbody id="seeds"></tbody></table>
<script>
"use strict";
let SEEDS = @SEEDS@;
function render(seeds) {
  const body = document.getElementById("seeds");
  body.innerHTML = "";
  for (const s of seeds) {
    const tr = document.createElement("tr");
    tr.dataset.seed = s.key;
    tr.dataset.phase = s.phase;
    const cells = [s.key, s.phase, s.declared + " / " + s.units, s.message];
    ["seed", "phase", "units", "message"].forEach((name, i) => {
      const td = document.createElement("td");
      td.className = name;
      if (i === 0) {
        const a = document.createElement("a");
        a.href = "seeds/" + s.key + "/";
        a.textContent = s.key;
        td.appendChild(a);
      } else {
        td.textContent = cells[i];
      }
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
}
render(SEEDS);
if (window.EventSource) new EventSource("events").onmessage = e => render(JSON.parse(e.data));
</script></body></html>
)page";

}  // namespace

daemon::HttpAnswer Dashboard::answer(const std::string& path) const {
  if (path == "/") return index();
  if (path == "/seeds") return {200, "application/json", seeds_json(controller_.seeds()), {}};
  if (path == "/events") {
    auto last = std::make_shared<std::string>(seeds_json(controller_.seeds()));
    const Controller& c = controller_;
    return {200, "text/event-stream", fmt::format("data: {}\n\n", *last),
            [&c, last]() -> std::optional<std::string> {
              std::string seeds = seeds_json(c.seeds());
              if (seeds == *last) return std::nullopt;
              *last = seeds;
              return fmt::format("data: {}\n\n", seeds);
            }};
  }
  // /seeds/NS/NAME/[plan|state|events]
  if (path.starts_with("/seeds/")) {
    std::string rest = path.substr(7);
    size_t slash = rest.find('/');
    size_t end = slash == std::string::npos ? std::string::npos : rest.find('/', slash + 1);
    std::string ns = rest.substr(0, slash);
    std::string name = slash == std::string::npos ? "" : rest.substr(slash + 1, end - slash - 1);
    if (is_dns_label(ns) && is_dns_subdomain(name))
      return seed(ns + "/" + name, end == std::string::npos ? "" : rest.substr(end + 1));
  }
  return {404,
          "text/plain; charset=utf-8",
          "not found: the dashboard serves /, /seeds, /events and /seeds/NAMESPACE/NAME/\n",
          {}};
}

daemon::HttpAnswer Dashboard::index() const {
  std::string page = kIndex;
  page.replace(page.find("@SEEDS@"), 7, script_safe(seeds_json(controller_.seeds())));
  return {200, "text/html; charset=utf-8", std::move(page), {}};
}

daemon::HttpAnswer Dashboard::timeline(const std::string& key,
                                       const Controller::SeedRunView& v) const {
  if (!v.plan || v.records.size() != v.plan->units.size())
    return {404, "text/plain; charset=utf-8", "no run of Seed " + key + " to draw yet\n", {}};
  plant::PlantOutcome run;
  run.units = v.records;
  // A run that goes on is drawn as far as it got, its waits open until now.
  run.elapsed = ended_of(v.seed).empty() ? std::chrono::duration_cast<std::chrono::microseconds>(
                                               std::chrono::steady_clock::now() - v.started)
                                         : v.elapsed;
  return {200, "text/html; charset=utf-8", plant::render_timeline_html(*v.plan, run, key), {}};
}

daemon::HttpAnswer Dashboard::seed(const std::string& key, const std::string& rest) const {
  std::optional<Controller::SeedRunView> v = controller_.seed(key);
  if (!v) return {404, "text/plain; charset=utf-8", "no Seed " + key + " here\n", {}};
  static const Plan kNoPlan;
  auto plan = [&] { return view_plan_json(v->plan ? *v->plan : kNoPlan, key); };
  std::vector<std::pair<std::string, std::string>> sent;
  auto state = [&] {
    return view_state_json(1, ended_of(v->seed), changed_units(v->records, sent));
  };
  if (rest.empty())
    return {200,
            "text/html; charset=utf-8",
            plant_view_page(key, script_safe(plan()), script_safe(state())),
            {}};
  if (rest == "plan") return {200, "application/json", plan(), {}};
  if (rest == "state") return {200, "application/json", state(), {}};
  if (rest == "timeline") return timeline(key, *v);
  if (rest != "events") return {404, "text/plain; charset=utf-8", "not found\n", {}};
  // The state, then what changed; a new plan (another run) asks the page to load again. The
  // records are copied only when they changed since the last look (their version).
  struct Stream {
    std::shared_ptr<const Plan> plan;
    uint64_t seen = 0;  // the records' version last looked at
    std::vector<std::pair<std::string, std::string>> sent;
    std::string ended;
    uint64_t version = 1;
  };
  auto s = std::make_shared<Stream>();
  s->plan = v->plan;
  s->seen = v->seed.version;
  s->ended = ended_of(v->seed);
  std::string first = fmt::format(
      "data: {}\n\n", view_state_json(s->version, s->ended, changed_units(v->records, s->sent)));
  const Controller& c = controller_;
  return {200, "text/event-stream", std::move(first), [&c, key, s]() -> std::optional<std::string> {
            std::optional<Controller::SeedRunView> now = c.seed(key, s->seen);
            if (!now) return std::nullopt;
            if (now->plan != s->plan) {
              s->plan = now->plan;
              return std::string("data: {\"reload\":true}\n\n");
            }
            std::string ended = ended_of(now->seed);
            json::object units;
            if (now->seed.version != s->seen) units = changed_units(now->records, s->sent);
            s->seen = now->seed.version;
            if (units.empty() && ended == s->ended) return std::nullopt;
            s->ended = ended;
            return fmt::format("data: {}\n\n",
                               view_state_json(++s->version, ended, std::move(units)));
          }};
}

}  // namespace planter::op
