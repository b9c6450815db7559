#include "cli/scheduler_command.h"

#include <fmt/format.h>
#include <pthread.h>

#include <condition_variable>
#include <csignal>
#include <mutex>
#include <stop_token>
#include <thread>

#include "cli/daemon.h"
#include "cli/seed_flags.h"
#include "cli/stop_signals.h"
#include "daemon/http_endpoint.h"
#include "daemon/leader.h"
#include "daemon/log.h"
#include "kube/credentials.h"
#include "kube/kubeconfig.h"
#include "scheduler/metrics.h"
#include "scheduler/scheduler.h"

namespace planter::cli {

CLI::App* add_scheduler_command(CLI::App& app, SchedulerFlags& f) {
  CLI::App* cmd = app.add_subcommand(
      "scheduler",
      "Run planter's second scheduler: pods whose spec.schedulerName is its name, gangs of "
      "scheduling.x-k8s.io PodGroups (all or nothing) and same-node groups");
  cmd->add_option("--kubeconfig", f.kubeconfig,
                  "Kubeconfig file (default: the in-cluster config in a pod, else $KUBECONFIG, "
                  "then ~/.kube/config)");
  cmd->add_option("--context", f.context, "Kubeconfig context of the cluster to schedule");
  cmd->add_option("--scheduler-name", f.scheduler_name,
                  "The spec.schedulerName of the pods it schedules")
      ->capture_default_str();
  add_daemon_flags(
      cmd, f.daemon,
      {.leader_elect = "Schedule only while holding the Lease (default; --leader-elect=false: at "
                       "once); planter's plant waits for it to be held",
       .lease_namespace = "",
       .identity = "in the Lease (default: hostname_pid)"});
  cmd->add_option("--bind-interval", f.bind_interval_s,
                  "Seconds between two bindings of one group (fault injection for tests; 0)")
      ->capture_default_str();
  add_client_flags(cmd, f.client);
  cmd->footer(
      "Examples:\n"
      "  planter scheduler                                   # in a pod: in-cluster config\n"
      "  planter scheduler --kubeconfig sim.kubeconfig --metrics-addr 127.0.0.1:0 \\\n"
      "      --health-addr 127.0.0.1:0");
  return cmd;
}

int run_scheduler(const SchedulerFlags& f) {
  daemon::Log log(log_format(f.daemon));
  block_stop_signals();
  auto config = serving_config(f.kubeconfig, f.context);
  if (!config) {
    log.error("cannot find the cluster", {{"error", config.error().message}});
    return kExitBadInput;
  }
  auto client = kube::Client::create(*config, client_options(f.client));
  if (!client) {
    log.error("cannot make a client", {{"error", client.error().message}});
    return kExitBadInput;
  }
  daemon::LeaseOptions lo = lease_options(f.daemon);
  daemon::LeaderElector elector(**client, lo, [&log, &lo](const std::string& what) {
    log.info(what, {{"lease", lo.ns + "/" + lo.name}});
  });

  scheduler::SchedulerOptions so;
  so.name = f.scheduler_name;
  so.bind_interval = milliseconds_of(f.bind_interval_s);
  so.log = [&log](const std::string& m) { log.info(m, {}); };
  scheduler::Scheduler scheduler(**client, so);
  std::atomic<bool> working{false};

  Daemon daemon(log);
  scheduler::Metrics metrics(f.scheduler_name, PLANTER_VERSION);
  bool ok = daemon.serve_metrics(f.daemon.metrics_addr,
                                 [&] { return metrics.render(scheduler.stats()); });
  // A standby is ready (it waits for the Lease); a worker once it has listed pods and nodes.
  ok = ok && daemon.serve_health(f.daemon.health_addr, [&]() -> std::string {
    return !working || scheduler.synced() ? "" : "pods not listed yet";
  });
  if (!ok) return kExitBadInput;

  std::jthread worker;
  bool leading = false;
  // The work stops first, then the Lease is given up (no standby binds while this one may).
  auto finish = [&](int rc) {
    if (worker.joinable()) {
      worker.request_stop();
      worker.join();
    }
    daemon.close_endpoints();
    if (leading) release_lease(elector, *config, client_options(f.client));
    return rc;
  };
  log.info("planter scheduler starting", {{"identity", elector.identity()},
                                          {"scheduler-name", f.scheduler_name},
                                          {"server", config->server}});
  if (f.daemon.leader_elect) {
    if (std::string why = elector.blocker(); !why.empty()) {
      log.error("cannot elect a leader", {{"error", why}});
      return finish(kExitBadInput);
    }
    if (!elector.acquire(daemon.stop_token())) return finish(kExitOk);
    leading = true;
    log.info("leading", {{"lease", lo.ns + "/" + lo.name}, {"identity", elector.identity()}});
  }
  working = true;
  worker = std::jthread([&](std::stop_token t) { scheduler.run(t); });
  if (f.daemon.leader_elect) {
    if (!elector.hold(daemon.stop_token())) {
      leading = false;
      log.error("lost the Lease: exiting", {{"lease", lo.ns + "/" + lo.name}});
      return finish(kExitFailure);
    }
    return finish(kExitOk);
  }
  daemon.wait_for_stop();
  return finish(kExitOk);
}

}  // namespace planter::cli
