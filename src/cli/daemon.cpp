#include "cli/daemon.h"

#include <fmt/format.h>
#include <pthread.h>

#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <mutex>

#include "cli/stop_signals.h"
#include "kube/credentials.h"
#include "kube/transport.h"

namespace planter::cli {

Result<kube::RestConfig> serving_config(const std::string& kubeconfig, const std::string& context) {
  if (kubeconfig.empty() && context.empty() && std::getenv("KUBERNETES_SERVICE_HOST"))
    return kube::in_cluster_config(kube::InClusterSources::from_environment());
  auto config = kube::Kubeconfig::load(kube::KubeconfigSources::from_environment(kubeconfig));
  if (!config) return config.error();
  return config->rest_config(context);
}

void release_lease(daemon::LeaderElector& elector, const kube::RestConfig& config,
                   kube::ClientOptions options) {
  options.transport.timeout = std::chrono::seconds(1);
  options.transport.connect_timeout = std::chrono::seconds(1);
  options.transport.max_attempts = 1;
  auto client = kube::Client::create(config, options);
  if (client) elector.release(**client);
}

Daemon::Daemon(daemon::Log& log) : log_(log) {
  waiter_ = std::thread([this] {
    int sig = wait_for_stop_signal();
    {
      std::lock_guard lock(mu_);
      if (done_) return;  // the destructor's wake-up: no signal came
    }
    log_.info("stopping", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
    stop_.request_stop();
    kube::abandon_requests();
    std::unique_lock lock(mu_);
    if (done_cv_.wait_for(lock, kStopGrace, [this] { return done_; })) return;
    log_.error("still stopping: exiting without waiting further",
               {{"after", fmt::format("{}s", kStopGrace.count() / 1000.0)}});
    std::_Exit(1);
  });
}

Daemon::~Daemon() {
  endpoints_.clear();
  bool signalled = stop_.stop_requested();
  {
    std::lock_guard lock(mu_);
    done_ = true;
  }
  done_cv_.notify_all();
  if (waiter_.joinable()) {
    if (!signalled) pthread_kill(waiter_.native_handle(), SIGTERM);
    waiter_.join();
  }
}

bool Daemon::serve(const std::string& address, daemon::HttpEndpoint::Handler handler,
                   std::string_view what) {
  if (address.empty() || address == "0") return true;
  auto ep = daemon::HttpEndpoint::start(address, std::move(handler));
  if (!ep) {
    log_.error("cannot serve " + std::string(what), {{"error", ep.error().message}});
    return false;
  }
  log_.info("serving " + std::string(what),
            {{"address", address}, {"port", std::to_string((*ep)->port())}});
  endpoints_.push_back(std::move(ep.value()));
  return true;
}

bool Daemon::serve_metrics(const std::string& address, std::function<std::string()> render) {
  return serve(
      address,
      [render = std::move(render)](const std::string& path) {
        if (path != "/metrics") return daemon::HttpAnswer{404, "text/plain", "not found\n"};
        return daemon::HttpAnswer{200, "text/plain; version=0.0.4; charset=utf-8", render()};
      },
      "metrics");
}

bool Daemon::serve_health(const std::string& address, std::function<std::string()> not_ready) {
  return serve(
      address,
      [not_ready = std::move(not_ready)](const std::string& path) {
        if (path == "/healthz" || path == "/livez")
          return daemon::HttpAnswer{200, "text/plain", "ok\n"};
        if (path != "/readyz") return daemon::HttpAnswer{404, "text/plain", "not found\n"};
        std::string why = not_ready();
        return why.empty() ? daemon::HttpAnswer{200, "text/plain", "ok\n"}
                           : daemon::HttpAnswer{503, "text/plain", why + "\n"};
      },
      "health probes");
}

void Daemon::wait_for_stop() {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait(lock, stop_.get_token(), [] { return false; });
}

}  // namespace planter::cli
