// The operator's metrics, in the Prometheus text exposition format (version 0.0.4): seeds by
// phase, units by state, how long declaring takes and how long units wait for their
// requirements, API requests by cluster, verb and code, and watch restarts.
//
// Threads: every method may be called from any thread.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace planter::op {

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double v);
  // The series of `name` with cumulative buckets, _sum and _count.
  void render(std::string& out, std::string_view name) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bound, not cumulative; one more for +Inf
  double sum_ = 0;
  uint64_t count_ = 0;
};

class Metrics {
 public:
  Metrics();

  // What the gauges show, asked for at each scrape.
  struct Gauges {
    std::map<std::string, int> seeds_by_phase;
    std::map<std::string, int> units_by_state;
    bool leader = false;
  };
  void set_gauges(std::function<Gauges()> gauges);

  void observe_request(std::string_view cluster, std::string_view method, int code);
  void observe_declare(double seconds);           // requirements held -> declared
  void observe_requirement_wait(double seconds);  // planting started -> requirements held

  std::string render() const;

 private:
  mutable std::mutex mu_;
  std::function<Gauges()> gauges_;
  std::map<std::tuple<std::string, std::string, int>, uint64_t> requests_;
  Histogram declare_, wait_;
};

}  // namespace planter::op
