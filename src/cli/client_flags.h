// The flags that pace planter's requests to each cluster, shared by plant, uproot, replant and
// operator: no client-side rate limit by default, requests in flight bounded, the server's 429s
// (API Priority and Fairness) honoured.
#pragma once

#include <CLI/CLI.hpp>

#include "kube/client.h"

namespace planter::cli {

struct ClientFlags {
  double qps = 0;
  int burst = 0;
  int max_in_flight = 64;
};

inline void add_client_flags(CLI::App* cmd, ClientFlags& f) {
  cmd->add_option("--qps", f.qps,
                  "Requests per second per cluster (client-side limit; 0: none, the server's "
                  "429s pace planter)")
      ->capture_default_str();
  cmd->add_option("--burst", f.burst, "Requests allowed in a burst above --qps")
      ->capture_default_str();
  cmd->add_option("--max-in-flight", f.max_in_flight, "Requests in flight per cluster")
      ->capture_default_str();
}

inline kube::ClientOptions client_options(const ClientFlags& f) {
  kube::ClientOptions o;
  o.transport.qps = f.qps;
  o.transport.burst = f.burst;
  o.transport.max_in_flight = f.max_in_flight;
  return o;
}

}  // namespace planter::cli
