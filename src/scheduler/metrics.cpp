#include "scheduler/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <mutex>
#include <sstream>
#include <vector>

#include "daemon/process_metrics.h"

namespace planter::scheduler {

namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

prometheus::Histogram::BucketBoundaries e2e_buckets() {
  return {std::begin(SchedulerStats::kBuckets), std::end(SchedulerStats::kBuckets)};
}

}  // namespace

struct Metrics::Impl {
  std::mutex mu;  // render() at a time: the histogram takes what came since the last one
  prometheus::Registry registry;
  std::string profile;
  prometheus::Family<prometheus::Counter>& attempts =
      BuildCounter()
          .Name("planter_scheduler_schedule_attempts_total")
          .Help("Scheduling attempts of pods by result.")
          .Register(registry);
  prometheus::Family<prometheus::Counter>& kube_attempts =
      BuildCounter()
          .Name("scheduler_schedule_attempts_total")
          .Help("Number of attempts to schedule pods, by the result (kube-scheduler's family).")
          .Register(registry);
  prometheus::Gauge& pending = BuildGauge()
                                   .Name("planter_scheduler_pending_pods")
                                   .Help("Pods of this scheduler waiting for a node.")
                                   .Register(registry)
                                   .Add({});
  prometheus::Counter& gangs_released =
      BuildCounter()
          .Name("planter_scheduler_gangs_released_total")
          .Help("Partly bound gangs whose bound pods were deleted at their timeout.")
          .Register(registry)
          .Add({});
  prometheus::Histogram& e2e = BuildHistogram()
                                   .Name("planter_scheduler_e2e_scheduling_duration_seconds")
                                   .Help("From a pod first seen pending to its binding.")
                                   .Register(registry)
                                   .Add({}, e2e_buckets());
  daemon::ProcessMetrics process;
  // What the histogram was given so far, per bucket, and its sum in microseconds.
  std::vector<uint64_t> counted = std::vector<uint64_t>(std::size(SchedulerStats::kBuckets) + 1);
  uint64_t counted_micros = 0;

  Impl(std::string p, const std::string& version)
      : profile(std::move(p)), process(registry, version) {}
};

Metrics::Metrics(std::string profile, const std::string& version)
    : impl_(std::make_unique<Impl>(std::move(profile), version)) {}
Metrics::~Metrics() = default;

std::string Metrics::render(const SchedulerStats& s) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mu);
  for (auto [result, total] : {std::pair<const char*, uint64_t>{"scheduled", s.scheduled.load()},
                               {"unschedulable", s.unschedulable.load()},
                               {"error", s.errors.load()}}) {
    daemon::catch_up(m.attempts.Add({{"result", result}}), static_cast<double>(total));
    daemon::catch_up(m.kube_attempts.Add({{"profile", m.profile}, {"result", result}}),
                     static_cast<double>(total));
  }
  m.pending.Set(static_cast<double>(s.pending.load()));
  daemon::catch_up(m.gangs_released, static_cast<double>(s.gangs_released.load()));
  std::vector<double> increments(m.counted.size());
  bool any = false;
  for (size_t b = 0; b < m.counted.size(); ++b) {
    uint64_t now = s.bucket_counts[b].load();
    increments[b] = static_cast<double>(now - m.counted[b]);
    any = any || now != m.counted[b];
    m.counted[b] = now;
  }
  uint64_t micros = s.e2e_micros_sum.load();
  if (any) m.e2e.ObserveMultiple(increments, static_cast<double>(micros - m.counted_micros) / 1e6);
  m.counted_micros = micros;
  m.process.update();
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, m.registry.Collect());
  return out.str();
}

}  // namespace planter::scheduler
