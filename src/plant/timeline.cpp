#include "plant/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_set>

#include "model/html.h"
#include "model/object.h"
#include "plan/predicate_traits.h"

namespace planter::plant {

namespace {

// What a stretch of a row shows; the order is the legend's. The first six are WaitKind's.
enum class Part {
  kCluster,
  kApi,
  kNamespace,
  kReady,
  kRoom,
  kRetry,
  kQueued,    // the apply queued in planter (rate limit, connection room)
  kOnWire,    // the apply on the wire
  kInFlight,  // an earlier attempt, or one the run ended during
  kFailed,
  kBlocked,
  kReadying,  // declared, and made ready by others: provisioned, configured, rolled out
};
constexpr size_t kParts = static_cast<size_t>(Part::kReadying) + 1;
static_assert(static_cast<int>(Part::kRetry) == static_cast<int>(WaitKind::kRetry));

struct PartStyle {
  const char* cls;
  const char* fill;
  const char* legend;
};
constexpr PartStyle kStyle[kParts] = {
    {"w-cluster", "#b39ddb", "waiting for a cluster"},
    {"w-api", "#81b4e0", "waiting for a kind to be served"},
    {"w-namespace", "#8fd0c9", "waiting for a Namespace"},
    {"w-ready", "#f3d27a", "waiting for an object to be ready"},
    {"w-room", "#f0a6a0", "waiting for nodes (room, configuration, a scheduler)"},
    {"w-retry", "#c9c9c9", "retry after the server's answer"},
    {"queued", "#cfe8d2", "apply queued in planter"},
    {"onwire", "#3f8f54", "apply on the wire"},
    {"inflight", "#8cc7a0", "an earlier or unfinished apply"},
    {"failed", "#c0392b", "failed"},
    {"blocked", "#e59866", "blocked by a failure"},
    {"readying", "#c8b07a", "declared, becoming ready (provisioning, configuring, rolling out)"},
};
const PartStyle& style(Part p) {
  return kStyle[static_cast<size_t>(p)];
}

// The kinds of wait come first, in WaitKind's order.
Part part_of(const Unit& unit, const WaitSpan& span) {
  return static_cast<Part>(static_cast<int>(wait_kind(unit, span)));
}

std::string cut(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  return n < 3 ? s.substr(0, n) : s.substr(0, n - 3) + "...";
}

double seconds(int64_t micros) {
  return static_cast<double>(micros) / 1e6;
}

struct Bar {
  int64_t from = 0, to = 0;
  Part part = Part::kReady;
  std::string what;  // the requirement, for a wait
};

// When each unit's object was first seen ready by a unit that waited for it to be more than
// declared (a cluster provisioned, nodes configured, a Deployment available): the end of the
// earliest stretch of a wait on it; -1 when none waited so.
// With it, the requirement that wait was for (its words: "cluster edge1 ready").
struct ReadyAt {
  int64_t at = -1;
  const Requirement* by = nullptr;
};
std::vector<ReadyAt> ready_times(const Plan& plan, const PlantOutcome& out) {
  std::vector<ReadyAt> at(plan.units.size());
  for (size_t w = 0; w < out.units.size() && w < plan.units.size(); ++w)
    for (const WaitSpan& s : out.units[w].waits) {
      if (s.requirement < 0 || s.until < 0) continue;
      const Requirement& r = plan.units[w].requirements[static_cast<size_t>(s.requirement)];
      if (!r.unit || traits_of(r.when.type).declared_is_enough) continue;
      ReadyAt& t = at[*r.unit];
      if (t.at < 0 || s.until < t.at) t = {s.until, &r};
    }
  return at;
}

// The stretches of one unit's row, in time order, ending at `end` for what was still going on;
// after its declaration, until `seen_ready` (when it is later), others making it ready.
std::vector<Bar> bars_of(const Plan& plan, size_t u, const UnitRecord& r, int64_t end,
                         const ReadyAt& seen_ready) {
  const Unit& unit = plan.units[u];
  std::vector<Bar> bars;
  int64_t stop = r.declared ? r.declared->count() : r.failed ? r.failed->count() : end;
  int64_t ready = r.ready ? r.ready->count() : -1;
  int64_t last_until = -1;
  for (const WaitSpan& w : r.waits) {
    // The time between two waits after the unit was first ready: an earlier attempt's apply.
    if (ready >= 0 && last_until >= ready && w.since > last_until)
      bars.push_back({last_until, w.since, Part::kInFlight, ""});
    int64_t until = w.until >= 0 ? w.until : stop;
    bars.push_back({w.since, std::max(until, w.since), part_of(unit, w), describe(plan, unit, w)});
    last_until = until;
  }
  if (r.sent) {
    int64_t sent = r.sent->count();
    if (ready >= 0 && last_until >= ready && sent > last_until)
      bars.push_back({last_until, sent, Part::kInFlight, ""});
    if (r.state == UnitState::kDeclared && r.declared) {
      int64_t declared = r.declared->count();
      int64_t wire_from = std::clamp(declared - r.on_wire.count(), sent, declared);
      if (wire_from > sent) bars.push_back({sent, wire_from, Part::kQueued, ""});
      bars.push_back({wire_from, declared, Part::kOnWire, ""});
    } else if (r.state == UnitState::kFailed && r.failed && r.failed->count() >= sent) {
      bars.push_back({sent, r.failed->count(), Part::kFailed, ""});
    } else if (r.state == UnitState::kDeclaring) {
      bars.push_back({sent, end, Part::kInFlight, ""});
    }
  }
  if (r.declared && seen_ready.at > r.declared->count())
    bars.push_back(
        {r.declared->count(), seen_ready.at, Part::kReadying, plan.describe(*seen_ready.by)});
  if (r.state == UnitState::kBlocked || (r.state == UnitState::kFailed && !r.sent))
    bars.push_back(
        {stop, stop, r.state == UnitState::kBlocked ? Part::kBlocked : Part::kFailed, ""});
  return bars;
}

// Even ticks: a step of 1, 2 or 5 times a power of ten, about ten of them over the run.
struct Ticks {
  double step = 1;
  int decimals = 0;
};
Ticks ticks_for(double total) {
  double raw = std::max(total, 1e-6) / 10;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw * 0.999) {
      step = m * mag;
      break;
    }
  int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  return {step, decimals};
}

struct Row {
  std::vector<size_t> units;
  std::vector<Bar> bars;
  std::optional<int64_t> declared;
  UnitState state = UnitState::kPending;
  bool critical = false;
};

// A row's look at the chart's resolution: rows that look the same are drawn once.
std::string look_of(const Row& row, const std::function<long(int64_t)>& px) {
  std::string key = fmt::format("{}|{}|{}", static_cast<int>(row.state), row.critical,
                                row.declared ? px(*row.declared) : -1);
  for (const Bar& b : row.bars)
    key += fmt::format("|{},{},{},{}", px(b.from), px(b.to), static_cast<int>(b.part), b.what);
  return key;
}

std::string row_label(const Plan& plan, const std::vector<size_t>& units) {
  if (units.size() == 1) return plan.object_of(plan.units[units[0]]).ref.short_form();
  std::map<std::string, size_t> kinds;
  for (size_t u : units) ++kinds[plan.object_of(plan.units[u]).ref.kind];
  if (kinds.size() == 1) return fmt::format("{} x {}", units.size(), kinds.begin()->first);
  std::string parts;
  for (const auto& [kind, n] : kinds)
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", n, kind);
  return fmt::format("{} objects ({})", units.size(), parts);
}

}  // namespace

std::vector<size_t> critical_path(const Plan& plan, const PlantOutcome& outcome) {
  std::vector<size_t> path;
  std::optional<size_t> last;
  int64_t latest = -1;
  for (size_t u = 0; u < outcome.units.size() && u < plan.units.size(); ++u) {
    const UnitRecord& r = outcome.units[u];
    int64_t end = r.declared ? r.declared->count() : r.failed ? r.failed->count() : -1;
    if (end > latest) {
      latest = end;
      last = u;
    }
  }
  std::unordered_set<size_t> seen;
  for (std::optional<size_t> at = last; at && seen.insert(*at).second;) {
    path.push_back(*at);
    const std::vector<WaitSpan>& waits = outcome.units[*at].waits;
    // The requirement that held it last: its last wait for something of the seed.
    std::optional<size_t> next;
    for (auto w = waits.rbegin(); w != waits.rend() && !next; ++w) {
      if (w->requirement < 0) continue;
      const Requirement& req = plan.units[*at].requirements[static_cast<size_t>(w->requirement)];
      if (req.unit && *req.unit < outcome.units.size()) next = *req.unit;
      break;
    }
    at = next;
  }
  return path;
}

namespace {

// The chart, for the critical path already found (the HTML page lists it too).
std::string svg_with_path(const Plan& plan, const PlantOutcome& out, const std::string& seed_name,
                          const std::vector<size_t>& path) {
  constexpr int kLabel = 420, kChart = 900, kRow = 16, kRight = 40;
  int64_t end = std::max<int64_t>(out.elapsed.count(), 1);
  auto x = [&](int64_t t) {
    return kLabel +
           static_cast<double>(kChart) * std::clamp(static_cast<double>(t) / end, 0.0, 1.0);
  };
  std::function<long(int64_t)> px = [&](int64_t t) { return std::lround(x(t)); };
  std::unordered_set<size_t> on_path(path.begin(), path.end());
  std::vector<ReadyAt> ready_at = ready_times(plan, out);

  // Rows per cluster, identical ones merged; the parts that appear, for the legend.
  std::vector<std::pair<std::string, std::vector<Row>>> clusters;
  bool used[kParts] = {};
  for (const auto& [c, members] : plan.units_by_cluster()) {
    std::vector<Row> rows;
    std::map<std::string, size_t> by_look;
    for (size_t u : members) {
      if (u >= out.units.size()) continue;
      const UnitRecord& r = out.units[u];
      if (r.state == UnitState::kNotChosen) continue;
      Row row{{u},
              bars_of(plan, u, r, end, ready_at[u]),
              r.declared ? std::optional(r.declared->count()) : std::nullopt,
              r.state,
              on_path.contains(u)};
      for (const Bar& b : row.bars) used[static_cast<size_t>(b.part)] = true;
      auto [it, fresh] = by_look.try_emplace(look_of(row, px), rows.size());
      if (fresh)
        rows.push_back(std::move(row));
      else
        rows[it->second].units.push_back(u);
    }
    if (!rows.empty()) clusters.emplace_back(c, std::move(rows));
  }

  // The legend, wrapped to the chart's width.
  std::string legend;
  int lx = 4, ly = 6;
  auto swatch = [&](const std::string& cls, const std::string& text) {
    int w = 18 + static_cast<int>(text.size()) * 7;
    if (lx + w > kLabel + kChart) {
      lx = 4;
      ly += 16;
    }
    legend += fmt::format(
        "<g class=\"legend-item\"><rect x=\"{}\" y=\"{}\" width=\"12\" height=\"11\" class=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text></g>\n",
        lx, ly, cls, lx + 16, ly + 10, escape_html(text));
    lx += w + 10;
  };
  for (size_t p = 0; p < kParts; ++p)
    if (used[p]) swatch(kStyle[p].cls, kStyle[p].legend);
  swatch("mark", "declared");
  if (!path.empty()) swatch("critical", "critical path");
  int top = ly + 16 + 26;  // the legend, then the ticks' labels

  std::string rows;
  int y = top;
  for (const auto& [c, cluster_rows] : clusters) {
    rows += fmt::format("<text x=\"4\" y=\"{}\" class=\"cluster\">cluster {}</text>\n", y + 12,
                        escape_html(c));
    y += kRow + 4;
    for (const Row& row : cluster_rows) {
      size_t u = row.units.front();
      const UnitRecord& r = out.units[u];
      const Object& o = plan.object_of(plan.units[u]);
      std::string tip;
      if (row.units.size() == 1) {
        tip = fmt::format("{} on {} ({})\n{}", o.display(), c, o.where(), to_string(r.state));
      } else {
        tip = fmt::format("{} units on {} that went alike, {}:", row.units.size(), c,
                          to_string(r.state));
        for (size_t i = 0; i < row.units.size() && i < 12; ++i)
          tip += "\n  " + plan.object_of(plan.units[row.units[i]]).display();
        if (row.units.size() > 12) tip += fmt::format("\n  and {} more", row.units.size() - 12);
      }
      for (const Bar& b : row.bars)
        if (!b.what.empty())
          tip += fmt::format("\nwaited {:.3f}s for {}", seconds(b.to - b.from), b.what);
      if (r.sent && r.declared)
        tip += fmt::format("\napply: {:.3f}s queued, {:.3f}s on the wire; declared at {:.3f}s",
                           seconds(std::max<int64_t>(
                               r.declared->count() - r.sent->count() - r.on_wire.count(), 0)),
                           seconds(r.on_wire.count()), seconds(r.declared->count()));
      if (!r.waiting_for.empty()) tip += "\nwaiting for: " + r.waiting_for;
      if (!r.error.empty()) tip += "\n" + r.error;
      if (row.critical) tip += "\non the critical path";
      rows += fmt::format("<g class=\"row{}\"><title>{}</title>\n", row.critical ? " on-path" : "",
                          escape_html(tip));
      if (row.critical)
        rows += fmt::format(
            "<rect x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"critical-row\"/>\n", y,
            kLabel + kChart + kRight, kRow);
      rows += fmt::format("<text x=\"12\" y=\"{}\" class=\"label{}\">{}</text>\n", y + 11,
                          row.critical ? " critical-label" : "",
                          escape_html(cut(row_label(plan, row.units), 60)));
      for (const Bar& b : row.bars) {
        double bx = x(b.from), bw = std::max(x(b.to) - bx, 2.0);
        rows += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" class=\"bar {}\"/>\n", bx,
            y + 2, bw, kRow - 4, style(b.part).cls);
        if (!b.what.empty() && bw > 48)
          rows += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"in-bar\">{}</text>\n", bx + 3,
                              y + 11, escape_html(cut(b.what, static_cast<size_t>((bw - 6) / 6))));
      }
      if (row.declared)
        // On whole pixels, a pixel short of the next row's: crisp, and one per row.
        rows += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"2\" height=\"{}\" class=\"mark\"/>\n",
                            px(*row.declared) - 1, y + 1, kRow - 2);
      rows += "</g>\n";
      y += kRow;
    }
  }

  std::string axis;
  Ticks t = ticks_for(seconds(end));
  for (int i = 0;; ++i) {
    double at = t.step * i;
    if (at > seconds(end) * 1.0001) break;
    double ax = x(static_cast<int64_t>(std::llround(at * 1e6)));
    axis += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" class=\"grid\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" class=\"tick\">{4:.{5}f}s</text>\n",
        ax, top - 8, y, top - 12, at, t.decimals);
  }
  std::string styles;
  for (const PartStyle& s : kStyle) styles += fmt::format(".{} {{ fill: {}; }}\n", s.cls, s.fill);
  int height = y + 20, width = kLabel + kChart + kRight;
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
.in-bar {{ fill: #333; font-size: 10px; }}
.mark {{ fill: #17391f; }}
.critical {{ fill: #fbe3e0; stroke: #c0392b; }}
.critical-row {{ fill: #fbe3e0; }}
.critical-label {{ font-weight: bold; fill: #8e2318; }}
{3}</style>
<rect width="100%" height="100%" fill="white"/>
{4}{5}{6}</svg>
)",
      width, height, escape_html(seed_name), styles, legend, axis, rows);
}

}  // namespace

std::string render_timeline_svg(const Plan& plan, const PlantOutcome& out,
                                const std::string& seed_name) {
  return svg_with_path(plan, out, seed_name, critical_path(plan, out));
}

std::string render_timeline_html(const Plan& plan, const PlantOutcome& out,
                                 const std::string& seed_name) {
  std::vector<size_t> path = critical_path(plan, out);
  std::string chain;
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    const UnitRecord& r = out.units[*it];
    const Unit& unit = plan.units[*it];
    int64_t at = r.declared ? r.declared->count() : r.failed ? r.failed->count() : 0;
    chain += fmt::format("<li>{} on {}, {} at {:.3f}s</li>\n",
                         escape_html(plan.object_of(unit).display()), escape_html(unit.cluster),
                         to_string(r.state), seconds(at));
  }
  return fmt::format(
      R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>planter timeline: {0}</title>
<style>body {{ font-family: sans-serif; margin: 16px; }}</style></head><body>
<h1>planter timeline: {0}</h1>
<p>{1} units, {2} declared, {3:.3f}s{4}. Each row is a unit (rows that went alike are drawn once,
with their count): the stretches of its wait, coloured by what it waited for and named inside
when there is room, then its apply, queued in planter and on the wire, and a dark mark where it
was declared. Hover a row for the details.</p>
<p>Critical path, what held the last unit back, link by link:</p>
<ol class="critical-path">
{5}</ol>
{6}</body></html>
)",
      escape_html(seed_name), plan.units.size(), out.count(UnitState::kDeclared),
      seconds(out.elapsed.count()), out.timed_out ? " (timed out)" : "", chain,
      svg_with_path(plan, out, seed_name, path));
}

}  // namespace planter::plant
