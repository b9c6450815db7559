#include "cli/sim_command.h"

#include <fmt/format.h>
#include <signal.h>

#include <cstdio>
#include <fstream>

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
  cmd->add_option("--write-latency", f.write_latency_ms,
                  "Milliseconds added to every create, update, patch and delete")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
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
  cmd->add_option("--token", f.token, "Bearer token clients must send (default: a random one)");
  cmd->footer(
      "Examples:\n"
      "  planter sim --kubeconfig-out /tmp/sim.kubeconfig\n"
      "  kubectl --kubeconfig /tmp/sim.kubeconfig get namespaces\n"
      "  planter sim --port 0 --insecure-http --audit-log audit.jsonl --crd-delay 1000");
  return cmd;
}

int run_sim(const SimFlags& f) {
  // Block the stop signals before the server thread starts so only sigwait below sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  sim::ServerOptions options;
  options.address = f.address;
  options.port = static_cast<uint16_t>(f.port);
  options.insecure_http = f.insecure_http;
  options.token = f.token;
  options.write_latency = std::chrono::milliseconds(f.write_latency_ms);
  options.audit_log = f.audit_log;
  options.cluster.crd_delay = std::chrono::milliseconds(f.crd_delay_ms);
  options.cluster.bookmark_interval = std::chrono::seconds(f.bookmark_interval_s);
  options.cluster.history_limit = static_cast<size_t>(f.watch_history);
  auto server = sim::Server::create(options);
  if (!server) {
    fmt::print(stderr, "error: {}\n", server.error().message);
    return 1;
  }
  sim::Server& s = **server;
  if (!f.kubeconfig_out.empty()) {
    std::ofstream out(f.kubeconfig_out, std::ios::trunc);
    out << s.kubeconfig();
    if (!out) {
      fmt::print(stderr, "error: cannot write the kubeconfig to {}\n", f.kubeconfig_out);
      return 1;
    }
  }
  s.start();
  fmt::print("planter sim: serving the management cluster at {}\n", s.url());
  if (!f.kubeconfig_out.empty())
    fmt::print("planter sim: kubeconfig in {} (try: kubectl --kubeconfig {} get namespaces)\n",
               f.kubeconfig_out, f.kubeconfig_out);
  else
    fmt::print("planter sim: no --kubeconfig-out given; bearer token {}\n", s.token());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&signals, &sig);
  fmt::print("planter sim: stopping ({})\n", sig == SIGINT ? "interrupt" : "terminated");
  s.stop();
  return 0;
}

}  // namespace planter::cli
