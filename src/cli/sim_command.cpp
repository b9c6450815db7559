#include "cli/sim_command.h"

#include <fmt/format.h>
#include <signal.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>

#include "cli/stop_signals.h"
#include "model/huge_page_heap.h"
#include "sim/server.h"

namespace planter::cli {

CLI::App* add_sim_command(CLI::App& app, SimFlags& f) {
  auto* cmd = app.add_subcommand(
      "sim",
      "Serve a simulated fleet: a Kubernetes-API-compatible management cluster (and workload "
      "clusters under /clusters/<name>) that kubectl, helm and planter can talk to");
  cmd->add_option("--address", f.address, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", f.port, "Port to listen on (0: any free port)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--kubeconfig-out", f.kubeconfig_out,
                  "Write a kubeconfig with a context per cluster (management first) here");
  cmd->add_flag("--insecure-http", f.insecure_http, "Serve plain HTTP instead of HTTPS");
  cmd->add_option("--crd-delay", f.crd_delay_ms,
                  "Milliseconds before a new CRD is Established (its kinds are served)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--provision-delay", f.provision_delay_ms,
                  "Milliseconds before a new Cluster (planter or Cluster API) is a workload "
                  "cluster")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option(
         "--workload-delay", f.workload_delay_ms,
         "Milliseconds a bound pod waits in ContainerCreating before it runs (or, when it does not "
         "restart, succeeds)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--configure-delay", f.configure_delay_ms,
                  "Milliseconds before node configuration (a planter Cluster node pool's "
                  "kernelConfig, memoryConfig) starts on a node")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--api-level", f.api_level,
                  "The Kubernetes version whose API the sim serves: 1.37 (the gang API as "
                  "scheduling.k8s.io/v1beta1, DRA with DeviceTaintRule), 1.36 (the gang API as "
                  "v1alpha2, no DeviceTaintRule) or 1.33 (neither DRA nor the gang API)")
      ->check(CLI::IsMember({"1.37", "1.36", "1.33"}))
      ->capture_default_str();
  cmd->add_option("--reboot-time", f.reboot_ms,
                  "Milliseconds a node is NotReady while it reboots into its configuration")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--max-pods-per-workload", f.max_pods_per_workload,
                  "The most pods one ReplicaSet, StatefulSet, Job or simulated operator keeps "
                  "(replicas above it are accepted, as kube-apiserver does, and not made)")
      ->check(CLI::Range(int64_t{0}, int64_t{2147483647}))
      ->capture_default_str();
  cmd->add_option("--nodes", f.nodes,
                  "Nodes per cluster (a planter Cluster's spec.nodes counts win)")
      ->check(CLI::Range(1, 5000))
      ->capture_default_str();
  cmd->add_option("--node-cpu", f.node_cpu, "Allocatable cpu of each node")->capture_default_str();
  cmd->add_option("--node-memory", f.node_memory, "Allocatable memory of each node")
      ->capture_default_str();
  cmd->add_option("--node-pods", f.node_pods, "How many pods each node may run")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--node-resource", f.node_resources,
                  "An extended resource every node has, NAME=QUANTITY (nvidia.com/gpu=4, "
                  "hugepages-2Mi=1Gi); repeatable");
  cmd->add_option("--zones", f.zones,
                  "Label the nodes topology.kubernetes.io/zone=zone-<i>, round robin over this "
                  "many zones (0: no zone labels)")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--scheduler-seed", f.scheduler_seed,
                  "Seed of the scheduler's draw between equally good nodes, so runs repeat")
      ->capture_default_str();
  cmd->add_option("--clusters", f.clusters,
                  "Workload clusters edge1..edgeN to provision at start (each with a Cluster in "
                  "the management cluster's default namespace)")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  const char* per_cluster =
      " Repeatable; CLUSTER=VALUE sets it for one cluster (management included). A workload "
      "cluster's Cluster annotation sim.planter.io/<flag name> changes it while the sim runs.";
  cmd->add_option("--latency", f.latency,
                  std::string("Milliseconds added to every request, MS[,JITTER]: the delay "
                              "varies by up to JITTER either way.") +
                      per_cluster);
  cmd->add_option(
      "--write-latency", f.write_latency,
      std::string("Milliseconds added to every create, update, patch and delete.") + per_cluster);
  cmd->add_option("--error-rate", f.error_rate,
                  std::string("Share of requests (0..1) answered 500, 503 or 429 with "
                              "Retry-After; only requests that would have succeeded, and they "
                              "change nothing.") +
                      per_cluster);
  cmd->add_option("--volume-delay", f.volume_delay_ms,
                  "Milliseconds before a claim that can be provisioned is (a slow storage "
                  "backend); it stays Pending until then")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--fault-seed", f.fault_seed,
                  "Seed of the faults' and controllers' random choices, to tell a run again "
                  "(default: a random one)");
  cmd->add_option("--watch-drop", f.watch_drop,
                  std::string("Seconds after which every watch stream is cut.") + per_cluster);
  cmd->add_option("--state-dir", f.state_dir,
                  "Keep every cluster's objects here (snapshot and journal), so a restarted sim "
                  "has its objects, resourceVersions and workload clusters");
  cmd->add_option("--idle-timeout", f.idle_timeout_s,
                  "Seconds an HTTP/1.1 connection may stay without sending a whole request")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--bookmark-interval", f.bookmark_interval_s,
                  "Seconds between BOOKMARK events on watches that allow them")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--watch-history", f.watch_history,
                  "Changes kept per cluster for watches to resume from; older resourceVersions "
                  "get 410 Gone")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--audit-log", f.audit_log,
                  "Append one JSON line per successful write and per readiness transition");
  cmd->add_option("--authorization", f.authorization,
                  "How requests are authorized: AlwaysAllow (every authenticated user may do "
                  "everything) or RBAC (Roles, ClusterRoles and their bindings; the sim's own "
                  "token is in system:masters)")
      ->check(CLI::IsMember({"AlwaysAllow", "RBAC"}, CLI::ignore_case))
      ->capture_default_str();
  cmd->add_option("--token", f.token, "Bearer token clients must send (default: a random one)");
  cmd->add_option("--token-auth-file", f.token_auth_file,
                  "More bearer tokens, as kube-apiserver reads them: CSV lines "
                  "token,user,uid,\"group1,group2\"")
      ->check(CLI::ExistingFile);
  cmd->add_option("--basic-auth-file", f.basic_auth_file,
                  "Accept HTTP basic auth: CSV lines password,user,uid,\"group1,group2\"")
      ->check(CLI::ExistingFile);
  cmd->footer(
      "Examples:\n"
      "  planter sim --kubeconfig-out /tmp/sim.kubeconfig\n"
      "  kubectl --kubeconfig /tmp/sim.kubeconfig get namespaces\n"
      "  planter sim --port 0 --insecure-http --audit-log audit.jsonl --crd-delay 1000\n"
      "  planter sim --clusters 3 --error-rate 0.1 --latency edge2=200,50 --state-dir /tmp/fleet");
  return cmd;
}

namespace {

// Applies the fault flags: values without a cluster to `defaults`, the others per cluster on top
// of the defaults. Returns an error message for a bad value.
std::optional<std::string> apply_faults(const SimFlags& f, sim::Faults& defaults,
                                        std::map<std::string, sim::Faults>& per_cluster) {
  const std::pair<const char*, const std::vector<std::string>*> flags[] = {
      {"latency", &f.latency},
      {"write-latency", &f.write_latency},
      {"error-rate", &f.error_rate},
      {"watch-drop", &f.watch_drop}};
  // Two passes: every default first, so a cluster's setting starts from all of them.
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& [name, values] : flags)
      for (const auto& v : *values) {
        size_t eq = v.find('=');
        if ((eq == std::string::npos) != (pass == 0)) continue;
        std::string value = eq == std::string::npos ? v : v.substr(eq + 1);
        sim::Faults* target = &defaults;
        if (eq != std::string::npos) {
          std::string cluster = v.substr(0, eq);
          target = &per_cluster.try_emplace(cluster, defaults).first->second;
        }
        if (auto err = sim::parse_fault(name, value, *target)) return "--" + err->message;
      }
  return std::nullopt;
}

}  // namespace

Result<sim::ServerOptions> sim_server_options(const SimFlags& f) {
  sim::ServerOptions options;
  options.address = f.address;
  options.port = static_cast<uint16_t>(f.port);
  options.insecure_http = f.insecure_http;
  options.idle_timeout = std::chrono::seconds(f.idle_timeout_s);
  options.token = f.token;
  options.token_auth_file = f.token_auth_file;
  options.basic_auth_file = f.basic_auth_file;
  options.audit_log = f.audit_log;
  options.kubeconfig_out = f.kubeconfig_out;
  options.fault_seed = f.fault_seed;
  sim::ClusterOptions& c = options.fleet.cluster;
  c.crd_delay = std::chrono::milliseconds(f.crd_delay_ms);
  c.bookmark_interval = std::chrono::seconds(f.bookmark_interval_s);
  c.history_limit = static_cast<size_t>(f.watch_history);
  c.workload_delay = std::chrono::milliseconds(f.workload_delay_ms);
  c.volume_delay = std::chrono::milliseconds(f.volume_delay_ms);
  c.configure_delay = std::chrono::milliseconds(f.configure_delay_ms);
  c.reboot_time = std::chrono::milliseconds(f.reboot_ms);
  c.max_pods_per_workload = f.max_pods_per_workload;
  c.nodes = {sim::NodePool{f.nodes, {}}};
  c.node_cpu = f.node_cpu;
  c.node_memory = f.node_memory;
  c.node_pods = f.node_pods;
  c.zones = f.zones;
  c.api_minor = std::stoi(f.api_level.substr(2));
  c.scheduler_seed = f.scheduler_seed;
  for (const auto& r : f.node_resources) {
    size_t eq = r.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == r.size())
      return Error{"--node-resource " + r + ": expected NAME=QUANTITY, as nvidia.com/gpu=4"};
    c.node_resources[r.substr(0, eq)] = r.substr(eq + 1);
  }
  if (auto err = apply_faults(f, c.faults, options.fleet.cluster_faults)) return Error{*err};
  options.fleet.provision_delay = std::chrono::milliseconds(f.provision_delay_ms);
  options.fleet.clusters = f.clusters;
  options.fleet.state_dir = f.state_dir;
  std::string authz = f.authorization;
  for (char& ch : authz) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  options.fleet.cluster.rbac = authz == "rbac";
  return options;
}

int run_sim(const SimFlags& f) {
  // Started again on a heap of huge pages, before any thread or signal mask.
  run_on_huge_page_heap();
  // Block the stop signals before the server thread starts so only sigwait below sees them.
  block_stop_signals();

  auto made = sim_server_options(f);
  if (!made) {
    fmt::print(stderr, "error: {}\n", made.error().message);
    return 2;
  }
  sim::ServerOptions options = std::move(made.value());
  auto server = sim::Server::create(options);
  if (!server) {
    fmt::print(stderr, "error: {}\n", server.error().message);
    return 1;
  }
  sim::Server& s = **server;
  if (!f.kubeconfig_out.empty() && !std::ifstream(f.kubeconfig_out)) {
    fmt::print(stderr, "error: cannot write the kubeconfig to {}\n", f.kubeconfig_out);
    return 1;
  }
  s.start();
  fmt::print("planter sim: serving the management cluster at {}\n", s.url());
  if (auto names = s.cluster_names(); names.size() > 1)
    fmt::print("planter sim: {} workload cluster{} ({}{}) under {}/clusters/<name>\n",
               names.size() - 1, names.size() == 2 ? "" : "s", names[1],
               names.size() > 2 ? ".." + names.back() : "", s.url());
  if (!f.kubeconfig_out.empty())
    fmt::print("planter sim: kubeconfig in {} (try: kubectl --kubeconfig {} get namespaces)\n",
               f.kubeconfig_out, f.kubeconfig_out);
  else
    fmt::print("planter sim: no --kubeconfig-out given; bearer token {}\n", s.token());
  std::fflush(stdout);
  pid_t sender = 0;
  int sig = wait_for_stop_signal(&sender);
  fmt::print("planter sim: stopping ({}{})\n", sig == SIGINT ? "interrupt" : "terminated",
             sender > 0 ? fmt::format(", signal sent by pid {}", sender) : "");
  s.stop();
  return 0;
}

}  // namespace planter::cli
