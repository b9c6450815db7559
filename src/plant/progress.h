// Live progress while planting. On a terminal: one line per cluster, redrawn in place (at most
// ten times a second), with declared/total and what the oldest pending unit waits for. Otherwise:
// one plain log line per unit that is declared, fails or is blocked (and, verbose, per unit that
// starts to be declared).
#pragma once

#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "plant/engine.h"

namespace planter::plant {

class Progress {
 public:
  Progress(const Plan& plan, std::FILE* out, bool terminal, bool verbose);

  // EngineOptions::on_change.
  void on_change(size_t unit, const UnitRecord& record);
  // Draws the final state (terminal) so the summary follows it.
  void finish();

 private:
  void draw();

  const Plan& plan_;
  std::FILE* out_;
  bool terminal_, verbose_;
  std::vector<std::string> clusters_;
  std::vector<size_t> total_, declared_;
  std::vector<bool> unreachable_;          // per cluster: an outage was reported and has not ended
  std::vector<int> cluster_of_;            // per unit, index into clusters_
  std::vector<std::set<size_t>> pending_;  // per cluster: its pending units, oldest first
  std::vector<std::string> waits_;         // per unit: what it waits for, as last reported
  std::vector<bool> was_declared_;         // per unit: counted in declared_
  std::chrono::steady_clock::time_point start_, last_draw_{};
  size_t drawn_lines_ = 0;
};

}  // namespace planter::plant
