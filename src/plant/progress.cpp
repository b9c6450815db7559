#include "plant/progress.h"

#include <fmt/format.h>

#include <algorithm>

namespace planter::plant {

Progress::Progress(const Plan& plan, std::FILE* out, bool terminal, bool verbose)
    : plan_(plan),
      out_(out),
      terminal_(terminal),
      verbose_(verbose),
      cluster_of_(plan.units.size()),
      states_(plan.units.size(), UnitState::kPending),
      waits_(plan.units.size()),
      start_(std::chrono::steady_clock::now()) {
  for (size_t i = 0; i < plan.units.size(); ++i) {
    const std::string& c = plan.units[i].cluster;
    auto it = std::find(clusters_.begin(), clusters_.end(), c);
    if (it == clusters_.end()) {
      clusters_.push_back(c);
      total_.push_back(0);
      declared_.push_back(0);
      it = clusters_.end() - 1;
    }
    cluster_of_[i] = static_cast<int>(it - clusters_.begin());
    ++total_[cluster_of_[i]];
  }
}

void Progress::on_change(size_t unit, const UnitRecord& r) {
  states_[unit] = r.state;
  waits_[unit] = r.waiting_for;
  if (r.state == UnitState::kDeclared) ++declared_[cluster_of_[unit]];
  if (terminal_) {
    auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ >= std::chrono::milliseconds(100)) draw();
    return;
  }
  const Unit& u = plan_.units[unit];
  double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string what;
  switch (r.state) {
    case UnitState::kDeclared:
      what = r.held_by.empty() ? "declared" : "declared (waited for " + r.held_by + ")";
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
      if (!verbose_) return;
      what = "waiting for " + r.waiting_for;
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
    for (size_t i = 0; i < plan_.units.size(); ++i) {
      if (cluster_of_[i] != static_cast<int>(c)) continue;
      if (states_[i] != UnitState::kPending) continue;
      oldest = plan_.object_of(plan_.units[i]).ref.short_form() + " waits" +
               (waits_[i].empty() ? std::string() : " for " + waits_[i]);
      break;
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
