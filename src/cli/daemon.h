// What the commands that serve until stopped (`planter operator`, `planter scheduler`) share: their
// HTTP endpoints (/metrics, /healthz, /readyz), and a stop requested by SIGINT or SIGTERM (which
// must be blocked, block_stop_signals(), before any thread starts) that ends within kStopGrace
// whatever the API servers do.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "daemon/http_endpoint.h"
#include "daemon/leader.h"
#include "daemon/log.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "model/result.h"

namespace planter::cli {

// A flag given in seconds (--lease-duration 15, --retry-period 0.5) as milliseconds; a negative
// or NaN flag reads as 0 and one past a hundred years as a hundred years, never an overflow.
inline std::chrono::milliseconds milliseconds_of(double seconds) {
  constexpr double kMax = 100.0 * 365 * 24 * 3600;
  if (!(seconds > 0)) return std::chrono::milliseconds(0);
  return std::chrono::milliseconds(static_cast<int64_t>(std::min(seconds, kMax) * 1000));
}

// The cluster a serving command works on: the in-cluster config inside a pod when neither
// --kubeconfig nor --context is given, else the kubeconfig ($KUBECONFIG, ~/.kube/config).
Result<kube::RestConfig> serving_config(const std::string& kubeconfig, const std::string& context);

// Gives up the Lease `elector` holds through a client of its own whose every request waits at most
// a second (the process's other requests were abandoned when its stop began), so that a standby
// takes over at once; a server that does not answer just leaves the Lease to expire.
void release_lease(daemon::LeaderElector& elector, const kube::RestConfig& config,
                   kube::ClientOptions options);

class Daemon {
 public:
  // How long a stop may take: a pod's grace period is 30 s by default, and the promise 5 s.
  static constexpr std::chrono::milliseconds kStopGrace{4'000};

  // Starts waiting for SIGINT/SIGTERM. On one: a stop is requested, every request to an API server
  // is abandoned (kube::abandon_requests: nothing waits on a server that does not answer), and if
  // the process is still stopping kStopGrace later, it says so and exits (1) at once.
  explicit Daemon(daemon::Log& log);
  // Stops the endpoints and the signal waiter.
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // Serves `handler` on `address` ("[HOST]:PORT"; empty or "0": not at all), saying where in the
  // log; false (logged) when it cannot.
  bool serve(const std::string& address, daemon::HttpEndpoint::Handler handler,
             std::string_view what);
  // /metrics with the Prometheus text `render` gives.
  bool serve_metrics(const std::string& address, std::function<std::string()> render);
  // /healthz and /livez (always ok) and /readyz: ok unless `not_ready` says why not.
  bool serve_health(const std::string& address, std::function<std::string()> not_ready);
  std::stop_token stop_token() const { return stop_.get_token(); }
  // Blocks until a stop is requested.
  void wait_for_stop();
  // Stops serving the endpoints (before the work they report on goes away).
  void close_endpoints() { endpoints_.clear(); }

 private:
  daemon::Log& log_;
  std::stop_source stop_;
  std::mutex mu_;
  std::condition_variable done_cv_;
  bool done_ = false;  // the destructor has begun: the stop ended in time
  std::vector<std::unique_ptr<daemon::HttpEndpoint>> endpoints_;
  std::thread waiter_;
};

}  // namespace planter::cli
