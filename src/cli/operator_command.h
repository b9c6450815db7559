// `planter operator`: the Seed controller (src/operator) with leader election, metrics and
// health endpoints; and `planter install`: the operator's manifests (deploy/), printed or applied.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/client_flags.h"
#include "cli/daemon_flags.h"

namespace planter::cli {

struct OperatorFlags {
  std::string kubeconfig;  // empty: in-cluster config, else $KUBECONFIG / ~/.kube/config
  std::string context;
  std::string watch_namespace;
  bool all_namespaces = false;
  std::string plugin_dir;
  std::vector<std::string> admin_namespaces;
  std::string workload_identity = "service-account";
  bool allow_file_urls = false;
  size_t max_seed_bytes = 64u << 20;
  std::string seed_ca_file;
  std::string dashboard_addr;  // empty: no dashboard
  // The Lease's namespace empty: the pod's namespace, else planter-system.
  DaemonFlags daemon{.metrics_addr = ":8080",
                     .health_addr = ":8081",
                     .leader_elect = false,
                     .lease_name = "planter-operator"};
  double retry_failed_s = 30;
  size_t concurrent_seeds = 16;
  size_t concurrent_fetches = 8;
  uint32_t shards = 1;
  double planting_slice_s = 30;
  double cluster_probe_interval_s = 10;
  double cluster_unreachable_after_s = 50;
  ClientFlags client;
};

struct InstallFlags {
  bool apply = false;
  std::string kubeconfig;
  std::string context;
  std::string image;
  bool scheduler = false;  // also planter's second scheduler (deploy/scheduler/)
  double timeout_s = 300;
};

CLI::App* add_operator_command(CLI::App& app, OperatorFlags& flags);
CLI::App* add_install_command(CLI::App& app, InstallFlags& flags);
int run_operator(const OperatorFlags& flags);
int run_install(const InstallFlags& flags);

// The operator's manifests (deploy/: Namespace, CRDs, RBAC, Deployment, Service) as one
// multi-document stream; `image` replaces the Deployment's image when not empty.
std::string install_manifests(const std::string& image, bool scheduler = false);

}  // namespace planter::cli
