#include "plant/progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <map>

namespace planter::plant {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kRedraw = std::chrono::milliseconds(100);

std::pair<int, int> terminal_size(std::FILE* out) {
  winsize ws{};
  if (::ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0)
    return {ws.ws_col, ws.ws_row};
  return {80, 24};
}

bool continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

size_t display_width(std::string_view text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !continuation(c); }));
}

std::string fit_width(std::string_view text, size_t columns) {
  if (display_width(text) <= columns) return std::string(text);
  size_t keep = columns > 3 ? columns - 3 : 0, seen = 0, at = 0;
  for (; at < text.size(); ++at) {
    if (!continuation(text[at]) && seen++ == keep) break;
  }
  return std::string(text.substr(0, at)) +
         std::string("...").substr(0, std::min<size_t>(3, columns));
}

Progress::Progress(const Plan& plan, std::FILE* out, ProgressOptions options)
    : plan_(plan),
      out_(out),
      options_(std::move(options)),
      cluster_of_(plan.units.size()),
      waits_(plan.units.size()),
      was_declared_(plan.units.size(), false),
      start_(Clock::now()),
      last_still_waiting_(start_) {
  if (!options_.size) options_.size = [out] { return terminal_size(out); };
  std::map<std::string, int> index;
  for (size_t i = 0; i < plan.units.size(); ++i) {
    auto [it, added] = index.emplace(plan.units[i].cluster, static_cast<int>(clusters_.size()));
    if (added) {
      clusters_.push_back(it->first);
      total_.push_back(0);
      declared_.push_back(0);
      unreachable_.push_back(false);
      pending_.emplace_back();
    }
    cluster_of_[i] = it->second;
    ++total_[cluster_of_[i]];
    pending_[cluster_of_[i]].insert(i);
  }
  ticker_ = std::jthread([this](std::stop_token stop) { tick(stop); });
}

Progress::~Progress() {
  ticker_.request_stop();
  wake_.notify_all();
}

double Progress::elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void Progress::tick(std::stop_token stop) {
  std::unique_lock lock(mu_);
  while (!stop.stop_requested()) {
    wake_.wait_for(lock, stop, kRedraw, [] { return false; });
    if (stop.stop_requested() || finished_) break;
    auto now = Clock::now();
    if (options_.terminal) {
      // What changed, and the clock once a second.
      if (dirty_ || now - last_draw_ >= std::chrono::seconds(1)) draw();
    } else if (now - last_still_waiting_ >= options_.still_waiting_every) {
      print_still_waiting();
    }
  }
}

void Progress::on_change(size_t unit, const UnitRecord& r) {
  std::lock_guard lock(mu_);
  // What a unit waits for is read only while it is pending: a declared unit's is let go (250,000
  // units kept 30 MiB of them to the end).
  if (r.state == UnitState::kPending) {
    pending_[cluster_of_[unit]].insert(unit);
    waits_[unit] = r.waiting_for;
  } else {
    pending_[cluster_of_[unit]].erase(unit);
    std::string().swap(waits_[unit]);
  }
  // A declared unit planter declares again (an anchor placed again, a server that disagreed with
  // the cache) is counted once, and said once, even when not verbose.
  bool again = was_declared_[unit] && r.state == UnitState::kPending;
  if (r.state == UnitState::kDeclared && !was_declared_[unit]) ++declared_[cluster_of_[unit]];
  if (r.state == UnitState::kDeclared) was_declared_[unit] = true;
  if (again) {
    was_declared_[unit] = false;
    --declared_[cluster_of_[unit]];
  }
  if (options_.terminal) {
    dirty_ = true;  // the ticker draws it
    return;
  }
  const Unit& u = plan_.units[unit];
  double t = elapsed();
  // An outage is told once when it starts and once when it ends, not once per unit it holds.
  int c = cluster_of_[unit];
  bool outage = r.state == UnitState::kPending && r.cluster_unreachable;
  if (outage && !unreachable_[c] && !options_.verbose) {
    unreachable_[c] = true;
    fmt::print(out_, "{:7.3f}s  {}  {}\n", t, u.cluster, r.waiting_for);
  } else if (r.state == UnitState::kDeclared && unreachable_[c]) {
    unreachable_[c] = false;
    fmt::print(out_, "{:7.3f}s  {}  reachable again\n", t, u.cluster);
  }
  std::string what;
  switch (r.state) {
    case UnitState::kDeclared:
      what = r.applied == Applied::kNotYet ? "declared" : std::string(to_string(r.applied));
      // Which requirement held it last varies from run to run when several hold at once: say
      // it was the last of how many.
      if (!r.held_by.empty())
        what += u.requirements.size() > 1
                    ? fmt::format(" (waited for {}, the last of its {} requirements)", r.held_by,
                                  u.requirements.size())
                    : " (waited for " + r.held_by + ")";
      if (!r.steered.empty()) what += ", its pods steered to " + r.steered;
      break;
    case UnitState::kFailed:
      what = "failed: " + r.error;
      break;
    case UnitState::kBlocked:
      what = "blocked " + r.error;
      break;
    case UnitState::kNotChosen:
      if (!options_.verbose) return;
      what = "not declared: its cluster was not chosen (" + r.waiting_for + ")";
      break;
    case UnitState::kDeclaring:
      if (!options_.verbose) return;
      what = "declaring";
      break;
    case UnitState::kPending:
      if (!options_.verbose && !again) return;
      what = again ? "to be declared again: " + r.waiting_for : "waiting for " + r.waiting_for;
      break;
  }
  fmt::print(out_, "{:7.3f}s  {}  {}: {}\n", t, u.cluster, plan_.object_of(u).display(), what);
  std::fflush(out_);
}

std::string Progress::oldest_wait(size_t c) const {
  if (pending_[c].empty()) return "";
  size_t i = *pending_[c].begin();
  return plan_.object_of(plan_.units[i]).ref.short_form() + " waits" +
         (waits_[i].empty() ? std::string() : " for " + waits_[i]);
}

void Progress::print_still_waiting() {
  last_still_waiting_ = Clock::now();
  double t = elapsed();
  size_t said = 0, waiting = 0;
  for (size_t c = 0; c < clusters_.size(); ++c) {
    if (pending_[c].empty()) continue;
    ++waiting;
    if (said == 10) continue;  // a line per cluster, up to ten
    ++said;
    fmt::print(out_, "{:7.3f}s  {}  still waiting: {} of {} unit(s) pending; {}\n", t, clusters_[c],
               pending_[c].size(), total_[c], oldest_wait(c));
  }
  if (waiting > said)
    fmt::print(out_, "{:7.3f}s  still waiting on {} more cluster(s)\n", t, waiting - said);
  std::fflush(out_);
}

void Progress::draw() {
  last_draw_ = Clock::now();
  dirty_ = false;
  auto [columns, rows] = options_.size();
  size_t width = static_cast<size_t>(std::max(columns - 1, 10));  // the last column would wrap
  std::string text;
  if (drawn_lines_ > 0) text += fmt::format("\x1b[{}A", drawn_lines_);
  if (columns != drawn_width_ && drawn_lines_ > 0) text += "\x1b[J";  // resized: clear below
  drawn_width_ = columns;

  size_t declared = 0, total = 0;
  for (size_t c = 0; c < clusters_.size(); ++c) {
    declared += declared_[c];
    total += total_[c];
  }
  std::vector<std::string> lines;
  lines.push_back(fmt::format("planting {}  {}/{} declared  {:.0f}s{}",
                              options_.seed_name.empty() ? "seed" : options_.seed_name, declared,
                              total, elapsed(), finished_ ? "" : " ..."));
  // As many clusters as the terminal holds (a line kept for the cursor), those waiting first.
  std::vector<size_t> order(clusters_.size());
  for (size_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_partition(order.begin(), order.end(), [&](size_t c) { return !pending_[c].empty(); });
  size_t room = static_cast<size_t>(std::max(rows - 2, 2)) - 1;  // less the header
  size_t shown = order.size() <= room ? order.size() : room - 1;
  size_t name_width = 0;
  for (size_t k = 0; k < shown; ++k) name_width = std::max(name_width, clusters_[order[k]].size());
  for (size_t k = 0; k < shown; ++k) {
    size_t c = order[k];
    lines.push_back(fmt::format("{:<{}}  {:>5}/{:<5}  {}", clusters_[c], name_width, declared_[c],
                                total_[c], oldest_wait(c)));
  }
  if (shown < order.size()) {
    size_t rest_waiting = 0;
    for (size_t k = shown; k < order.size(); ++k) rest_waiting += !pending_[order[k]].empty();
    lines.push_back(fmt::format("... {} more cluster(s), {} of them waiting", order.size() - shown,
                                rest_waiting));
  }
  for (const std::string& line : lines) text += "\x1b[2K" + fit_width(line, width) + "\n";
  drawn_lines_ = lines.size();
  std::fputs(text.c_str(), out_);
  std::fflush(out_);
}

void Progress::finish() {
  ticker_.request_stop();
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  std::lock_guard lock(mu_);
  finished_ = true;
  if (options_.terminal) draw();
}

}  // namespace planter::plant
