#include "plant/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>

#include "model/object.h"

namespace planter::plant {

namespace json = boost::json;

namespace {

double seconds(std::chrono::microseconds us) {
  return static_cast<double>(us.count()) / 1e6;
}

std::string escape_html(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  return out;
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
    text += fmt::format("\nplanted {} units on {} cluster{} in {:.2f}s\n", declared, used,
                        used == 1 ? "" : "s", seconds(out.elapsed));
  else
    text += fmt::format("\n{} of {} units declared in {:.2f}s{}\n", declared, to_declare,
                        seconds(out.elapsed),
                        out.timed_out ? " (timed out)"
                        : out.stopped ? " (interrupted)"
                                      : "");
  return text;
}

std::string render_report_json(const Plan& plan, const PlantOutcome& out,
                               const std::string& seed_name) {
  json::array units;
  units.reserve(plan.units.size());
  for (size_t i = 0; i < plan.units.size(); ++i) {
    const Unit& u = plan.units[i];
    const UnitRecord& r = out.units[i];
    const Object& o = plan.object_of(u);
    json::object ju{
        {"object", o.ref.id()}, {"cluster", u.cluster},        {"wave", u.wave},
        {"source", o.where()},  {"state", to_string(r.state)}, {"attempts", r.attempts}};
    if (r.ready) ju["readySeconds"] = seconds(*r.ready);
    if (r.declared) ju["declaredSeconds"] = seconds(*r.declared);
    if (r.failed) ju["failedSeconds"] = seconds(*r.failed);
    if (!r.held_by.empty()) ju["heldBy"] = r.held_by;
    if (!r.steered.empty()) ju["steered"] = r.steered;
    if (!r.waiting_for.empty()) ju["waitingFor"] = r.waiting_for;
    if (!r.error.empty()) ju["error"] = r.error;
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

std::string render_timeline_svg(const Plan& plan, const PlantOutcome& out,
                                const std::string& seed_name) {
  constexpr int kLabel = 420, kChart = 900, kRow = 16, kTop = 40;
  double total = std::max(seconds(out.elapsed), 0.001);
  auto x = [&](std::chrono::microseconds t) {
    return kLabel + static_cast<double>(kChart) * std::min(seconds(t) / total, 1.0);
  };
  std::string rows;
  int y = kTop;
  for (const auto& [c, members] : plan.units_by_cluster()) {
    rows += fmt::format("<text x=\"4\" y=\"{}\" class=\"cluster\">cluster {}</text>\n", y + 12,
                        escape_html(c));
    y += kRow + 4;
    for (size_t i : members) {
      const UnitRecord& r = out.units[i];
      const Object& o = plan.object_of(plan.units[i]);
      std::string label = o.ref.short_form();
      std::string end_state(to_string(r.state));
      std::chrono::microseconds end = r.declared ? *r.declared : r.failed ? *r.failed : out.elapsed;
      std::chrono::microseconds ready = r.ready ? *r.ready : end;
      std::string tip = fmt::format("{} on {} ({})\n{}", o.display(), c, o.where(), end_state);
      if (r.ready) tip += fmt::format("\nready to go at {:.3f}s", seconds(*r.ready));
      if (r.declared) tip += fmt::format("\ndeclared at {:.3f}s", seconds(*r.declared));
      if (!r.held_by.empty()) tip += "\nheld by: " + r.held_by;
      if (!r.waiting_for.empty()) tip += "\nwaiting for: " + r.waiting_for;
      if (!r.error.empty()) tip += "\n" + r.error;
      rows += fmt::format("<g><title>{}</title>\n", escape_html(tip));
      rows += fmt::format("<text x=\"12\" y=\"{}\">{}</text>\n", y + 11,
                          escape_html(label.size() > 60 ? label.substr(0, 57) + "..." : label));
      // The wait for requirements, then the declaration (or the failure).
      double wx = x(std::chrono::microseconds(0)), rx = x(ready), ex = x(end);
      if (rx - wx > 0.5)
        rows += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" class=\"wait\"/>\n", wx,
            y + 2, rx - wx, kRow - 4);
      rows +=
          fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" class=\"{}\"/>\n",
                      rx, y + 2, std::max(ex - rx, 2.0), kRow - 4, end_state);
      if (!r.held_by.empty() && rx - wx > 60)
        rows +=
            fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"held\">{}</text>\n", wx + 3, y + 11,
                        escape_html(r.held_by.substr(0, static_cast<size_t>((rx - wx) / 6))));
      rows += "</g>\n";
      y += kRow;
    }
  }
  std::string axis;
  for (int i = 0; i <= 10; ++i) {
    double t = total * i / 10;
    double px = kLabel + kChart * i / 10.0;
    axis += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" class=\"grid\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" class=\"tick\">{4:.2f}s</text>\n",
        px, kTop - 8, y, kTop - 12, t);
  }
  int height = y + 20, width = kLabel + kChart + 40;
  // Standalone: the styles travel inside the SVG, so the file renders the same on its own (in
  // docs, a pull request) as inside the HTML page.
  return fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}">
<title>planter timeline: {2}</title>
<style>
text {{ font-size: 11px; font-family: monospace; }}
.cluster {{ font-weight: bold; font-size: 12px; }}
.tick {{ fill: #666; text-anchor: middle; }}
.grid {{ stroke: #ddd; }}
.wait {{ fill: #f3d27a; }}
.declared {{ fill: #4a9b5e; }}
.declaring {{ fill: #8cc7a0; }}
.pending {{ fill: #bbb; }}
.failed {{ fill: #c0392b; }}
.blocked {{ fill: #e59866; }}
.held {{ fill: #5a4500; font-size: 10px; }}
</style>
<rect width="100%" height="100%" fill="white"/>
{3}{4}</svg>
)",
      width, height, escape_html(seed_name), axis, rows);
}

std::string render_timeline_html(const Plan& plan, const PlantOutcome& out,
                                 const std::string& seed_name) {
  return fmt::format(
      R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>planter timeline: {0}</title>
<style>body {{ font-family: sans-serif; margin: 16px; }}</style></head><body>
<h1>planter timeline: {0}</h1>
<p>{1} units, {2} declared, {3:.3f}s{4}. Yellow: waiting for requirements (the label names the
one that held it last); green: declared; red: failed; orange: blocked; grey: still pending.
Hover a row for details.</p>
{5}</body></html>
)",
      escape_html(seed_name), plan.units.size(), out.count(UnitState::kDeclared),
      seconds(out.elapsed), out.timed_out ? " (timed out)" : "",
      render_timeline_svg(plan, out, seed_name));
}

}  // namespace planter::plant
