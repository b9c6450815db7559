// `planter scheduler`: the second scheduler (src/scheduler/scheduler.h) as a process, with leader
// election on a Lease, /metrics, /healthz and /readyz, and a clean stop on SIGINT/SIGTERM.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/client_flags.h"
#include "cli/daemon_flags.h"

namespace planter::cli {

struct SchedulerFlags {
  std::string kubeconfig;  // empty: in-cluster config, else $KUBECONFIG / ~/.kube/config
  std::string context;
  std::string scheduler_name = "planter";
  DaemonFlags daemon{.metrics_addr = ":10261",
                     .health_addr = ":10262",
                     .leader_elect = true,
                     .lease_name = "planter-scheduler",
                     .lease_namespace = "kube-system"};
  double bind_interval_s = 0;
  ClientFlags client;
};

CLI::App* add_scheduler_command(CLI::App& app, SchedulerFlags& f);
int run_scheduler(const SchedulerFlags& f);

}  // namespace planter::cli
