// `planter scheduler`: the second scheduler (src/scheduler/scheduler.h) as a process, with leader
// election on a Lease, /metrics, /healthz and /readyz, and a clean stop on SIGINT/SIGTERM.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/client_flags.h"

namespace planter::cli {

struct SchedulerFlags {
  std::string kubeconfig;  // empty: in-cluster config, else $KUBECONFIG / ~/.kube/config
  std::string context;
  std::string scheduler_name = "planter";
  std::string metrics_addr = ":10261";
  std::string health_addr = ":10262";
  bool leader_elect = true;
  double lease_duration_s = 15, renew_deadline_s = 10, retry_period_s = 2;
  std::string lease_name = "planter-scheduler";
  std::string lease_namespace = "kube-system";
  std::string identity;
  std::string log_format = "text";
  double bind_interval_s = 0;
  ClientFlags client;
};

CLI::App* add_scheduler_command(CLI::App& app, SchedulerFlags& f);
int run_scheduler(const SchedulerFlags& f);

}  // namespace planter::cli
