#include "operator/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <chrono>
#include <mutex>
#include <optional>
#include <sstream>

#include "daemon/process_metrics.h"
#include "kube/informer.h"

namespace planter::op {

namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;
using Clock = std::chrono::steady_clock;
constexpr const char* kController = "seed";

// Kubernetes' verbs for the HTTP methods (client-go's rest_client_requests_total uses methods;
// the verb is what a user reads in audit logs and RBAC).
std::string verb_of(std::string_view method) {
  if (method == "GET") return "get";
  if (method == "WATCH") return "watch";
  if (method == "POST") return "create";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return std::string(method);
}

// controller-runtime's reconcile_time_seconds buckets, and client-go workqueue's (10 ns to 10 s).
prometheus::Histogram::BucketBoundaries reconcile_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
          0.7,   0.8,  0.9,   1.0,  1.25, 1.5,  1.75, 2.0,  2.5, 3.0,  3.5, 4.0,  4.5, 5,
          6,     7,    8,     9,    10,   15,   20,   25,   30,  40,   50,  60};
}
prometheus::Histogram::BucketBoundaries queue_buckets() {
  prometheus::Histogram::BucketBoundaries b;
  for (double v = 1e-8; v <= 10.0 * 1.0001; v *= 10) b.push_back(v);
  return b;
}

}  // namespace

struct Metrics::Impl {
  prometheus::Registry registry;
  mutable std::mutex mu;
  std::function<Gauges()> gauges;
  std::string lease;
  std::optional<Clock::time_point> reconciling_since;

  prometheus::Family<prometheus::Gauge>& seeds =
      BuildGauge().Name("planter_seeds").Help("Seeds by phase.").Register(registry);
  prometheus::Family<prometheus::Gauge>& units =
      BuildGauge()
          .Name("planter_units")
          .Help("Units of the seeds being planted, by state.")
          .Register(registry);
  prometheus::Family<prometheus::Histogram>& rest_latency =
      BuildHistogram()
          .Name("rest_client_request_duration_seconds")
          .Help(
              "Request latency in seconds, by host (cluster) and verb (for a watch: until its "
              "response began).")
          .Register(registry);
  prometheus::Family<prometheus::Gauge>& drifted =
      BuildGauge()
          .Name("planter_drifted_objects")
          .Help(
              "Objects of a planted Seed that differ from the seed at its last drift check, by "
              "Seed (namespace/name) and cluster.")
          .Register(registry);
  std::map<std::pair<std::string, std::string>, prometheus::Gauge*> drifted_shown;  // under mu
  prometheus::Gauge& leader = BuildGauge()
                                  .Name("planter_leader")
                                  .Help("1 when this replica is the leader (or runs alone).")
                                  .Register(registry)
                                  .Add({});
  prometheus::Histogram& declare =
      BuildHistogram()
          .Name("planter_declare_duration_seconds")
          .Help("From a unit's requirements holding to its server-side apply succeeding.")
          .Register(registry)
          .Add({}, prometheus::Histogram::BucketBoundaries{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                           1, 2.5, 5, 10});
  prometheus::Histogram& wait =
      BuildHistogram()
          .Name("planter_requirement_wait_duration_seconds")
          .Help("From planting starting to a unit's requirements holding.")
          .Register(registry)
          .Add({}, prometheus::Histogram::BucketBoundaries{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
                                                           300, 600, 1800});
  prometheus::Family<prometheus::Counter>& api_requests =
      BuildCounter()
          .Name("planter_api_requests_total")
          .Help(
              "Requests to Kubernetes API servers by cluster, verb and HTTP code (0: no "
              "response).")
          .Register(registry);
  prometheus::Counter& watch_restarts =
      BuildCounter()
          .Name("planter_watch_restarts_total")
          .Help(
              "Watch streams opened again after one ended (timeout, dropped connection, 410 "
              "Gone).")
          .Register(registry)
          .Add({});
  prometheus::Family<prometheus::Counter>& rest_requests =
      BuildCounter()
          .Name("rest_client_requests_total")
          .Help("Number of HTTP requests, partitioned by status code, method, and host.")
          .Register(registry);
  prometheus::Family<prometheus::Counter>& reconciles =
      BuildCounter()
          .Name("controller_runtime_reconcile_total")
          .Help("Total number of reconciliations per controller")
          .Register(registry);
  prometheus::Counter& reconcile_errors =
      BuildCounter()
          .Name("controller_runtime_reconcile_errors_total")
          .Help("Total number of reconciliation errors per controller")
          .Register(registry)
          .Add({{"controller", kController}});
  prometheus::Histogram& reconcile_time =
      BuildHistogram()
          .Name("controller_runtime_reconcile_time_seconds")
          .Help("Length of time per reconciliation per controller")
          .Register(registry)
          .Add({{"controller", kController}}, reconcile_buckets());
  prometheus::Gauge& active_workers = BuildGauge()
                                          .Name("controller_runtime_active_workers")
                                          .Help("Number of currently used workers per controller")
                                          .Register(registry)
                                          .Add({{"controller", kController}});
  prometheus::Gauge& max_reconciles =
      BuildGauge()
          .Name("controller_runtime_max_concurrent_reconciles")
          .Help("Maximum number of concurrent reconciles per controller")
          .Register(registry)
          .Add({{"controller", kController}});
  prometheus::Gauge& depth = BuildGauge()
                                 .Name("workqueue_depth")
                                 .Help("Current depth of workqueue")
                                 .Register(registry)
                                 .Add({{"name", kController}});
  prometheus::Counter& adds = BuildCounter()
                                  .Name("workqueue_adds_total")
                                  .Help("Total number of adds handled by workqueue")
                                  .Register(registry)
                                  .Add({{"name", kController}});
  prometheus::Counter& retries = BuildCounter()
                                     .Name("workqueue_retries_total")
                                     .Help("Total number of retries handled by workqueue")
                                     .Register(registry)
                                     .Add({{"name", kController}});
  prometheus::Histogram& queue_duration =
      BuildHistogram()
          .Name("workqueue_queue_duration_seconds")
          .Help("How long in seconds an item stays in workqueue before being requested")
          .Register(registry)
          .Add({{"name", kController}}, queue_buckets());
  prometheus::Histogram& work_duration =
      BuildHistogram()
          .Name("workqueue_work_duration_seconds")
          .Help("How long in seconds processing an item from workqueue takes.")
          .Register(registry)
          .Add({{"name", kController}}, queue_buckets());
  prometheus::Gauge& longest_running =
      BuildGauge()
          .Name("workqueue_longest_running_processor_seconds")
          .Help("How many seconds has the longest running processor for workqueue been running.")
          .Register(registry)
          .Add({{"name", kController}});
  prometheus::Gauge& unfinished = BuildGauge()
                                      .Name("workqueue_unfinished_work_seconds")
                                      .Help(
                                          "How many seconds of work has been done that is in "
                                          "progress and hasn't been observed by "
                                          "work_duration.")
                                      .Register(registry)
                                      .Add({{"name", kController}});
  prometheus::Family<prometheus::Gauge>& leader_status =
      BuildGauge()
          .Name("leader_election_master_status")
          .Help(
              "Gauge of if the reporting system is master of the relevant lease, 0 indicates "
              "backup, 1 indicates master. 'name' is the string used to identify the lease.")
          .Register(registry);
  daemon::ProcessMetrics process{registry, PLANTER_VERSION};

  Impl() {
    max_reconciles.Set(1);  // one worker takes Seeds off the queue (plantings run beside it)
    for (const char* phase : {"Pending", "Planting", "Planted", "Failed", "Uprooting"})
      seeds.Add({{"phase", phase}});
    for (const char* state : {"pending", "declaring", "declared", "failed", "blocked"})
      units.Add({{"state", state}});
    for (const char* result : {"success", "error", "requeue", "requeue_after"})
      reconciles.Add({{"controller", kController}, {"result", result}});
  }
};

Metrics::Metrics() : impl_(std::make_unique<Impl>()) {}
Metrics::~Metrics() = default;

void Metrics::set_gauges(std::function<Gauges()> gauges) {
  std::lock_guard lock(impl_->mu);
  impl_->gauges = std::move(gauges);
}

void Metrics::set_lease(std::string name) {
  std::lock_guard lock(impl_->mu);
  impl_->lease = std::move(name);
}

void Metrics::observe_request(std::string_view cluster, std::string_view method, int code,
                              double seconds) {
  std::string shown_code = code == 0 ? "<error>" : std::to_string(code);
  impl_->api_requests
      .Add({{"cluster", std::string(cluster)},
            {"verb", verb_of(method)},
            {"code", std::to_string(code)}})
      .Increment();
  impl_->rest_requests
      .Add({{"code", shown_code},
            {"host", std::string(cluster)},
            {"method", std::string(method == "WATCH" ? "GET" : method)}})
      .Increment();
  if (code != 0)
    impl_->rest_latency
        .Add({{"host", std::string(cluster)},
              {"verb", std::string(method == "WATCH" ? "GET" : method)}},
             prometheus::Histogram::BucketBoundaries{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15,
                                                     30, 60})
        .Observe(seconds);
}

void Metrics::observe_declare(double seconds) {
  impl_->declare.Observe(seconds);
}

void Metrics::observe_requirement_wait(double seconds) {
  impl_->wait.Observe(seconds);
}

void Metrics::queue_added(size_t depth) {
  impl_->adds.Increment();
  impl_->depth.Set(static_cast<double>(depth));
}

void Metrics::queue_retried() {
  impl_->retries.Increment();
}

void Metrics::queue_taken(double waited, size_t depth) {
  impl_->queue_duration.Observe(waited);
  impl_->depth.Set(static_cast<double>(depth));
}

void Metrics::reconcile_started() {
  std::lock_guard lock(impl_->mu);
  impl_->reconciling_since = Clock::now();
  impl_->active_workers.Set(1);
}

void Metrics::reconcile_finished(double seconds, std::string_view result) {
  {
    std::lock_guard lock(impl_->mu);
    impl_->reconciling_since.reset();
    impl_->active_workers.Set(0);
  }
  impl_->reconcile_time.Observe(seconds);
  impl_->work_duration.Observe(seconds);
  impl_->reconciles.Add({{"controller", kController}, {"result", std::string(result)}}).Increment();
  if (result == "error") impl_->reconcile_errors.Increment();
}

std::string Metrics::render() const {
  Impl& m = *impl_;
  std::function<Gauges()> gauges_fn;
  std::string lease;
  double running = 0;
  {
    std::lock_guard lock(m.mu);
    gauges_fn = m.gauges;
    lease = m.lease;
    if (m.reconciling_since)
      running = std::chrono::duration<double>(Clock::now() - *m.reconciling_since).count();
  }
  Gauges g = gauges_fn ? gauges_fn() : Gauges{};
  for (const char* phase : {"Pending", "Planting", "Planted", "Failed", "Uprooting"})
    m.seeds.Add({{"phase", phase}})
        .Set(g.seeds_by_phase.contains(phase) ? g.seeds_by_phase.at(phase) : 0);
  for (const char* state : {"pending", "declaring", "declared", "failed", "blocked"})
    m.units.Add({{"state", state}})
        .Set(g.units_by_state.contains(state) ? g.units_by_state.at(state) : 0);
  {
    // A Seed gone (or no longer checked) leaves the exposition.
    std::lock_guard lock(m.mu);
    for (auto it = m.drifted_shown.begin(); it != m.drifted_shown.end();) {
      if (g.drifted.contains(it->first)) {
        ++it;
        continue;
      }
      m.drifted.Remove(it->second);
      it = m.drifted_shown.erase(it);
    }
    for (const auto& [key, n] : g.drifted) {
      prometheus::Gauge*& gauge = m.drifted_shown[key];
      if (!gauge) gauge = &m.drifted.Add({{"seed", key.first}, {"cluster", key.second}});
      gauge->Set(static_cast<double>(n));
    }
  }
  m.leader.Set(g.leader ? 1 : 0);
  if (!lease.empty()) m.leader_status.Add({{"name", lease}}).Set(g.leader ? 1 : 0);
  m.longest_running.Set(running);
  m.unfinished.Set(running);
  daemon::catch_up(m.watch_restarts, static_cast<double>(kube::watch_restarts()));
  m.process.update();
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, m.registry.Collect());
  return out.str();
}

}  // namespace planter::op
