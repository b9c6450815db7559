// Live progress while planting.
//
// On a terminal: a header (seed, declared/total, elapsed time) and one line per cluster with
// declared/total and what its oldest pending unit waits for, redrawn in place by a ticker: within
// 100 ms of any change and every second for the clock, each line cut to the terminal's width as it
// is at each draw, and no more clusters than its height holds (those still waiting first).
//
// Otherwise (a pipe, a CI log): one line per unit that is declared, fails or is blocked (verbose:
// also per unit that starts to be declared or waits), an outage once when it starts and once when
// it ends, and every `still_waiting_every` a "still waiting" line per cluster that waits, so a log
// that has gone quiet says why.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "plan/plan.h"
#include "plant/engine.h"

namespace planter::plant {

struct ProgressOptions {
  bool terminal = false;
  bool verbose = false;
  std::string seed_name;
  std::chrono::milliseconds still_waiting_every{30'000};  // not on a terminal
  // The terminal's size (columns, rows), asked at each draw; when empty, the size of `out`'s
  // terminal (80x24 when it cannot be had).
  std::function<std::pair<int, int>()> size;
};

class Progress {
 public:
  Progress(const Plan& plan, std::FILE* out, ProgressOptions options);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // EngineOptions::on_change (any thread).
  void on_change(size_t unit, const UnitRecord& record);
  // Stops the ticker and draws the final state (terminal) so the summary follows it.
  void finish();

 private:
  void tick(std::stop_token stop);
  void draw();                 // mu_ held
  void print_still_waiting();  // mu_ held
  std::string oldest_wait(size_t cluster) const;
  double elapsed() const;

  const Plan& plan_;
  std::FILE* out_;
  ProgressOptions options_;
  std::vector<std::string> clusters_;
  std::vector<size_t> total_, declared_;
  std::vector<bool> unreachable_;          // per cluster: an outage was reported and has not ended
  std::vector<int> cluster_of_;            // per unit, index into clusters_
  std::vector<std::set<size_t>> pending_;  // per cluster: its pending units, oldest first
  std::vector<std::string> waits_;         // per pending unit: what it waits for, as last told
  std::vector<bool> was_declared_;         // per unit: counted in declared_
  std::chrono::steady_clock::time_point start_, last_draw_{}, last_still_waiting_;
  size_t drawn_lines_ = 0;
  int drawn_width_ = 0;
  bool dirty_ = true, finished_ = false;
  std::mutex mu_;
  std::condition_variable_any wake_;
  std::jthread ticker_;  // last: it stops (and joins) before the rest goes
};

// The number of columns `text` takes (UTF-8: a character per code point), and `text` cut to at most
// `columns` of them, "..." ending what was cut.
size_t display_width(std::string_view text);
std::string fit_width(std::string_view text, size_t columns);

}  // namespace planter::plant
