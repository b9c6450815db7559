#include "plant/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace planter::plant {

Progress::Progress(const Plan& plan, std::FILE* out, bool terminal, bool verbose)
    : plan_(plan),
      out_(out),
      terminal_(terminal),
      verbose_(verbose),
      cluster_of_(plan.units.size()),
      waits_(plan.units.size()),
      was_declared_(plan.units.size(), false),
      start_(std::chrono::steady_clock::now()) {
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
}

void Progress::on_change(size_t unit, const UnitRecord& r) {
  if (r.state == UnitState::kPending)
    pending_[cluster_of_[unit]].insert(unit);
  else
    pending_[cluster_of_[unit]].erase(unit);
  waits_[unit] = r.waiting_for;
  // A declared unit planter declares again (an anchor placed again, a server that disagreed with
  // the cache) is counted once, and said once, even when not verbose.
  bool again = was_declared_[unit] && r.state == UnitState::kPending;
  if (r.state == UnitState::kDeclared && !was_declared_[unit]) ++declared_[cluster_of_[unit]];
  if (r.state == UnitState::kDeclared) was_declared_[unit] = true;
  if (again) {
    was_declared_[unit] = false;
    --declared_[cluster_of_[unit]];
  }
  if (terminal_) {
    auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ >= std::chrono::milliseconds(100)) draw();
    return;
  }
  const Unit& u = plan_.units[unit];
  double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  // An outage is told once when it starts and once when it ends, not once per unit it holds.
  int c = cluster_of_[unit];
  bool outage = r.state == UnitState::kPending && r.cluster_unreachable;
  if (outage && !unreachable_[c] && !verbose_) {
    unreachable_[c] = true;
    fmt::print(out_, "{:7.3f}s  {}  {}\n", t, u.cluster, r.waiting_for);
  } else if (r.state == UnitState::kDeclared && unreachable_[c]) {
    unreachable_[c] = false;
    fmt::print(out_, "{:7.3f}s  {}  reachable again\n", t, u.cluster);
  }
  std::string what;
  switch (r.state) {
    case UnitState::kDeclared:
      what = r.held_by.empty() ? "declared" : "declared (waited for " + r.held_by + ")";
      if (!r.steered.empty()) what += ", its pods steered to " + r.steered;
      break;
    case UnitState::kFailed:
      what = "failed: " + r.error;
      break;
    case UnitState::kBlocked:
      what = "blocked " + r.error;
      break;
    case UnitState::kDeclaring:
      if (!verbose_) return;
      what = "declaring";
      break;
    case UnitState::kPending:
      if (!verbose_ && !again) return;
      what = again ? "to be declared again: " + r.waiting_for : "waiting for " + r.waiting_for;
      break;
  }
  fmt::print(out_, "{:7.3f}s  {}  {}: {}\n", t, u.cluster, plan_.object_of(u).display(), what);
  std::fflush(out_);
}

void Progress::draw() {
  last_draw_ = std::chrono::steady_clock::now();
  std::string text;
  if (drawn_lines_ > 0) text += fmt::format("\x1b[{}A", drawn_lines_);
  size_t width = 0;
  for (const auto& c : clusters_) width = std::max(width, c.size());
  for (size_t c = 0; c < clusters_.size(); ++c) {
    std::string oldest;
    if (!pending_[c].empty()) {
      size_t i = *pending_[c].begin();
      oldest = plan_.object_of(plan_.units[i]).ref.short_form() + " waits" +
               (waits_[i].empty() ? std::string() : " for " + waits_[i]);
    }
    std::string line = fmt::format("{:<{}}  {:>5}/{:<5}  {}", clusters_[c], width, declared_[c],
                                   total_[c], oldest);
    if (line.size() > 150) line = line.substr(0, 147) + "...";
    text += "\x1b[2K" + line + "\n";
  }
  drawn_lines_ = clusters_.size();
  std::fputs(text.c_str(), out_);
  std::fflush(out_);
}

void Progress::finish() {
  if (terminal_) draw();
}

}  // namespace planter::plant
