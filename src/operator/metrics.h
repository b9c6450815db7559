// The operator's metrics, served at /metrics in the Prometheus text format through prometheus-cpp:
//  - planter's own: seeds by phase, units by state, objects drifted per Seed and cluster,
//    leadership, how long declaring takes and how
//    long units wait for their requirements, API requests by cluster, verb and code, watch
//    restarts, and planter_build_info;
//  - the families controller-runtime's and client-go's dashboards and alerts read, with their
//    names and labels: controller_runtime_reconcile_total{controller,result},
//    controller_runtime_reconcile_errors_total, controller_runtime_reconcile_time_seconds,
//    controller_runtime_active_workers, controller_runtime_max_concurrent_reconciles,
//    workqueue_depth / adds_total / retries_total / queue_duration_seconds /
//    work_duration_seconds / longest_running_processor_seconds / unfinished_work_seconds{name},
//    rest_client_requests_total{code,host,method}, rest_client_request_duration_seconds{host,verb},
//    leader_election_master_status{name}, and
//    the process_* collector's (cpu, memory, descriptors, start time).
//
// Threads: every method may be called from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace planter::op {

class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // What the gauges show, asked for at each scrape.
  struct Gauges {
    std::map<std::string, int> seeds_by_phase;
    std::map<std::string, int> units_by_state;
    bool leader = false;
    // planter_drifted_objects{seed,cluster}: of Seeds whose drift is checked, by their
    // "<namespace>/<name>" and cluster.
    std::map<std::pair<std::string, std::string>, int64_t> drifted;
  };
  void set_gauges(std::function<Gauges()> gauges);
  // The Lease leader_election_master_status names (empty: no leader election).
  void set_lease(std::string name);

  // An API request's answer (code 0: none came) and how long it took.
  void observe_request(std::string_view cluster, std::string_view method, int code, double seconds);
  void observe_declare(double seconds);           // requirements held -> declared
  void observe_requirement_wait(double seconds);  // planting started -> requirements held

  // The Seed work queue and its reconciles, as controller-runtime counts them.
  void queue_added(size_t depth);                 // a key queued (depth after)
  void queue_retried();                           // a key queued again after a delay
  void queue_taken(double waited, size_t depth);  // a worker took a key that waited `waited`
  void reconcile_started();
  // result: "success", "error", "requeue" or "requeue_after".
  void reconcile_finished(double seconds, std::string_view result);

  std::string render() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::op
