// `planter sim`: the simulated fleet in the foreground.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/result.h"
#include "sim/server.h"

namespace planter::cli {

struct SimFlags {
  std::string address = "127.0.0.1";
  int port = 6443;
  std::string kubeconfig_out;
  bool insecure_http = false;
  int crd_delay_ms = 200;
  int provision_delay_ms = 2000;
  int workload_delay_ms = 1000;
  int configure_delay_ms = 2000;
  std::string api_level = "1.37";
  int reboot_ms = 500;
  int64_t max_pods_per_workload = 10000;
  int nodes = 3;
  std::string node_cpu = "8";
  std::string node_memory = "32Gi";
  int node_pods = 110;
  std::vector<std::string> node_resources;  // NAME=QUANTITY, extended resources of every node
  int zones = 0;
  uint64_t scheduler_seed = 1;
  std::optional<uint64_t> fault_seed;
  int volume_delay_ms = 0;
  int clusters = 0;
  int bookmark_interval_s = 60;
  int idle_timeout_s = 90;
  int watch_history = 20000;
  std::string audit_log;
  std::string token;
  std::string token_auth_file;
  std::string basic_auth_file;
  std::string state_dir;
  std::string authorization = "AlwaysAllow";  // or RBAC
  // Faults, each "[CLUSTER=]VALUE", repeatable: without a cluster for every cluster.
  std::vector<std::string> latency, write_latency, error_rate, watch_drop;
};

CLI::App* add_sim_command(CLI::App& app, SimFlags& flags);
// The server's options as the flags say; an error for a malformed fault setting.
Result<sim::ServerOptions> sim_server_options(const SimFlags& flags);
// Serves until SIGINT or SIGTERM. Returns the process exit code.
int run_sim(const SimFlags& flags);

}  // namespace planter::cli
