// `planter sim`: the simulated fleet in the foreground.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace planter::cli {

struct SimFlags {
  std::string address = "127.0.0.1";
  int port = 6443;
  std::string kubeconfig_out;
  bool insecure_http = false;
  int crd_delay_ms = 200;
  int write_latency_ms = 0;
  int bookmark_interval_s = 60;
  int watch_history = 20000;
  std::string audit_log;
  std::string token;
};

CLI::App* add_sim_command(CLI::App& app, SimFlags& flags);
// Serves until SIGINT or SIGTERM. Returns the process exit code.
int run_sim(const SimFlags& flags);

}  // namespace planter::cli
