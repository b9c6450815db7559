// What the commands that serve until stopped (`planter operator`, `planter scheduler`) share: their
// HTTP endpoints (/metrics, /healthz, /readyz), and a stop requested by SIGINT or SIGTERM (which
// must be blocked, block_stop_signals(), before any thread starts).
#pragma once

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "daemon/http_endpoint.h"
#include "daemon/log.h"
#include "kube/kubeconfig.h"
#include "model/result.h"

namespace planter::cli {

// The cluster a serving command works on: the in-cluster config inside a pod when neither
// --kubeconfig nor --context is given, else the kubeconfig ($KUBECONFIG, ~/.kube/config).
Result<kube::RestConfig> serving_config(const std::string& kubeconfig, const std::string& context);

class Daemon {
 public:
  // Starts waiting for SIGINT/SIGTERM.
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
  std::vector<std::unique_ptr<daemon::HttpEndpoint>> endpoints_;
  std::thread waiter_;
};

}  // namespace planter::cli
