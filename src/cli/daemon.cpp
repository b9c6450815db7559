#include "cli/daemon.h"

#include <pthread.h>

#include <condition_variable>
#include <csignal>
#include <mutex>

#include "cli/stop_signals.h"

namespace planter::cli {

Daemon::Daemon(op::Log& log) : log_(log) {
  waiter_ = std::thread([this] {
    int sig = wait_for_stop_signal();
    log_.info("stopping", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
    stop_.request_stop();
  });
}

Daemon::~Daemon() {
  endpoints_.clear();
  if (waiter_.joinable()) {
    if (!stop_.stop_requested()) pthread_kill(waiter_.native_handle(), SIGTERM);
    waiter_.join();
  }
}

bool Daemon::serve(const std::string& address, op::HttpEndpoint::Handler handler,
                   std::string_view what) {
  if (address.empty() || address == "0") return true;
  auto ep = op::HttpEndpoint::start(address, std::move(handler));
  if (!ep) {
    log_.error("cannot serve " + std::string(what), {{"error", ep.error().message}});
    return false;
  }
  log_.info("serving " + std::string(what),
            {{"address", address}, {"port", std::to_string((*ep)->port())}});
  endpoints_.push_back(std::move(ep.value()));
  return true;
}

void Daemon::wait_for_stop() {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait(lock, stop_.get_token(), [] { return false; });
}

}  // namespace planter::cli
