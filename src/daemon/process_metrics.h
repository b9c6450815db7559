// The families every planter daemon exposes beside its own: Prometheus' process collector
// (process_cpu_seconds_total, process_resident_memory_bytes, process_virtual_memory_bytes,
// process_open_fds, process_max_fds, process_start_time_seconds, read from /proc as that collector
// reads them) and planter_build_info{version}. Registered in a daemon's prometheus-cpp registry.
//
// Threads: update() may be called from any thread (each scrape).
#pragma once

#include <memory>
#include <string>

namespace prometheus {
class Counter;
class Registry;
}  // namespace prometheus

namespace planter::daemon {

// Brings a counter up to a total kept elsewhere (an atomic the process counts in, /proc).
void catch_up(prometheus::Counter& counter, double total);

class ProcessMetrics {
 public:
  ProcessMetrics(prometheus::Registry& registry, const std::string& version);
  ~ProcessMetrics();
  ProcessMetrics(const ProcessMetrics&) = delete;
  ProcessMetrics& operator=(const ProcessMetrics&) = delete;

  // Reads /proc/self again: before each scrape.
  void update();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::daemon
