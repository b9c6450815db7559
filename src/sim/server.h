// `planter sim`'s HTTP(S) front: one listener serving a fleet of simulated clusters, the
// management cluster at `/` and workload clusters under `/clusters/<name>` (the way Rancher
// proxies clusters). Authentication as kube-apiserver's: bearer tokens, client certificates
// signed by the sim's CA (CN = user), basic auth from a file; Impersonate-User is honoured.
//
// Threads: everything (HTTP sessions, clusters, timers) runs on one event-loop thread, so the
// clusters need no locks. Public methods are safe to call from any thread; they hand work to
// the loop and wait for it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/result.h"
#include "sim/cluster.h"
#include "sim/fleet.h"

namespace planter::sim {

struct ServerOptions {
  std::string address = "127.0.0.1";
  uint16_t port = 0;  // 0: any free port
  bool insecure_http = false;
  std::string token;  // empty: a random one; its user is "admin"
  // More users, in kube-apiserver's CSV formats (token,user,uid,"groups" and
  // password,user,uid,"groups"); empty: none.
  std::string token_auth_file;
  std::string basic_auth_file;
  std::string audit_log;  // empty: none
  // Rewritten (atomically) whenever a workload cluster comes or goes; empty: none.
  std::string kubeconfig_out;
  // An HTTP/1.1 connection that sends no whole request for this long is closed.
  std::chrono::seconds idle_timeout{90};
  // Seeds the generator behind the faults (--error-rate, latency jitter) and the controllers'
  // random choices, so that a run can be told again; none: a random seed. Never the token's.
  std::optional<uint64_t> fault_seed;
  FleetOptions fleet;
};

class Server {
 public:
  // Binds the listener and starts the fleet (the management cluster, restored state, the
  // --clusters workload clusters); does not serve yet.
  static Result<std::unique_ptr<Server>> create(ServerOptions options);
  ~Server();

  // Serves on the calling thread until stop().
  void run();
  // Serves on a thread of its own.
  void start();
  // Stops serving (from any thread, or a signal handler's helper thread) and joins.
  void stop();

  uint16_t port() const;
  // "https://127.0.0.1:PORT" (or http://): the management cluster's server URL.
  std::string url() const;
  const std::string& token() const;
  const std::string& ca_pem() const;  // empty with insecure_http
  // A client certificate (and key, PEM) for `user` in `groups`, signed by the sim's CA.
  Result<std::pair<std::string, std::string>> client_certificate(
      const std::string& user, const std::vector<std::string>& groups = {}) const;

  // A kubeconfig with a context per cluster, `management` first and current.
  std::string kubeconfig() const;
  std::vector<std::string> cluster_names() const;

  struct Impl;  // opaque: the event loop, the listener and the clusters (server.cpp)

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::sim
