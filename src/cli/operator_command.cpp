#include "cli/operator_command.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <stop_token>
#include <thread>

#include "cli/daemon.h"
#include "cli/seed_flags.h"
#include "cli/stop_signals.h"
#include "daemon/http_endpoint.h"
#include "daemon/leader.h"
#include "daemon/log.h"
#include "kube/kubeconfig.h"
#include "operator/controller.h"
#include "operator/dashboard.h"
#include "operator/metrics.h"
#include "operator/shards.h"

namespace planter::cli {

namespace {

// In a pod, the namespace it runs in; else planter-system.
std::string pod_namespace() {
  std::ifstream in("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
  std::string ns;
  if (in && std::getline(in, ns) && !ns.empty()) return ns;
  return "planter-system";
}

}  // namespace

CLI::App* add_operator_command(CLI::App& app, OperatorFlags& f) {
  CLI::App* cmd = app.add_subcommand(
      "operator",
      "Run the Seed controller: plant every Seed object of the management cluster "
      "(fire-and-forget), with leader election, metrics and health endpoints");
  cmd->add_option("--kubeconfig", f.kubeconfig,
                  "Kubeconfig file (default: the in-cluster config in a pod, else $KUBECONFIG, "
                  "then ~/.kube/config)");
  cmd->add_option("--context", f.context, "Kubeconfig context of the management cluster");
  auto* ns = cmd->add_option("-n,--namespace", f.watch_namespace,
                             "Plant the Seeds of this namespace only");
  auto* all = cmd->add_flag("-A,--all-namespaces", f.all_namespaces,
                            "Plant the Seeds of every namespace (the default)");
  ns->excludes(all);
  cmd->add_option("--plugin-dir", f.plugin_dir,
                  "Folder of the plugins that Seeds may name in spec.plugins");
  cmd->add_option("--admin-namespaces", f.admin_namespaces,
                  "Namespaces whose Seeds' admin objects (planter.nephio.org/user: admin: "
                  "Namespaces, CRDs, RBAC, ...) are declared as the operator itself; elsewhere "
                  "everything is declared as the Seed's service account")
      ->delimiter(',');
  cmd->add_option("--workload-identity", f.workload_identity,
                  "Whom a Seed's objects on workload clusters are written as: service-account "
                  "(the Seed's service account, impersonated with the cluster's kubeconfig; "
                  "grant it there what the Seed may do) or kubeconfig (the kubeconfig's own "
                  "identity)")
      ->check(CLI::IsMember({"service-account", "kubeconfig"}))
      ->capture_default_str();
  cmd->add_flag("--allow-file-urls", f.allow_file_urls,
                "Accept file:// seed URLs (development only; https otherwise)");
  cmd->add_option("--seed-ca-file", f.seed_ca_file,
                  "A PEM bundle of the certificate authorities that Seed URLs' https servers are "
                  "verified against, instead of the system's (a private Git or artifact server)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--max-seed-bytes", f.max_seed_bytes, "Largest seed source accepted")
      ->capture_default_str();
  add_daemon_flags(cmd, f.daemon,
                   {.leader_elect = "Work only while holding the Lease (run several replicas, one "
                                    "works)",
                    .lease_namespace = " (default: the pod's, else planter-system)",
                    .identity = "in the Lease and in Events (default: hostname_pid)"});
  cmd->add_option("--retry-failed", f.retry_failed_s,
                  "Seconds before a failed Seed is planted again (doubling up to 10x)")
      ->capture_default_str();
  cmd->add_option("--shards", f.shards,
                  "Split the Seeds into this many shards by a stable hash of namespace/name; each "
                  "replica plants the shard whose Lease (<lease name>-shard-<i>) it holds (needs "
                  "--leader-elect)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--concurrent-seeds", f.concurrent_seeds,
                  "Seeds planted or uprooted at once (the planting workers)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--concurrent-fetches", f.concurrent_fetches,
                  "Seeds whose URL is read at once, on workers of their own (a slow server holds "
                  "no planting worker); each read is bounded by --planting-slice")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--planting-slice", f.planting_slice_s,
                  "Seconds a Seed may hold a planting worker while it waits; then it yields the "
                  "worker and goes on after a pause")
      ->check(CLI::Range(1.0, 3600.0))
      ->capture_default_str();
  cmd->add_option("--cluster-probe-interval", f.cluster_probe_interval_s,
                  "Seconds between two probes (GET /readyz) of each provisioned planter Cluster's "
                  "API server")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  cmd->add_option("--cluster-unreachable-after", f.cluster_unreachable_after_s,
                  "Seconds a cluster's API server may not answer before the cluster is tainted "
                  "planter.nephio.org/unreachable:NoSelect (choices of clusters then move its "
                  "share, after their tolerationSeconds); 0: never taint")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--dashboard-addr", f.dashboard_addr,
                  "Serve the read-only dashboard at [HOST]:PORT: the Seeds this replica plants "
                  "with their phase, and each Seed's plan with its units' states, live (default: "
                  "off)");
  add_client_flags(cmd, f.client);
  cmd->footer(
      "Examples:\n"
      "  planter operator                                   # in a pod: in-cluster config\n"
      "  planter operator --kubeconfig sim.kubeconfig --metrics-addr 127.0.0.1:0 \\\n"
      "      --health-addr 127.0.0.1:0 --allow-file-urls\n"
      "  planter operator --leader-elect --admin-namespaces planter-system");
  return cmd;
}

int run_operator(const OperatorFlags& f) {
  daemon::Log log(log_format(f.daemon));
  // SIGINT and SIGTERM end the operator cleanly within Daemon::kStopGrace (the Lease is released);
  // blocked before any thread starts so that only the Daemon's waiting thread sees them.
  block_stop_signals();

  auto config = serving_config(f.kubeconfig, f.context);
  if (!config) {
    log.error("cannot find the management cluster", {{"error", config.error().message}});
    return kExitBadInput;
  }
  op::ControllerOptions co;
  co.watch_namespace = f.all_namespaces ? "" : f.watch_namespace;
  co.plugin_dir = f.plugin_dir;
  co.admin_namespaces = f.admin_namespaces;
  co.workload_impersonation = f.workload_identity == "service-account";
  co.sources.allow_file_urls = f.allow_file_urls;
  co.sources.max_bytes = f.max_seed_bytes;
  co.sources.ca_file = f.seed_ca_file;
  co.retry_min = milliseconds_of(f.retry_failed_s);
  co.retry_max = milliseconds_of(f.retry_failed_s * 10);
  co.workers = f.concurrent_seeds;
  co.fetchers = f.concurrent_fetches;
  co.shards = f.shards;
  if (f.shards > 1 && !f.daemon.leader_elect) {
    log.error(
        "--shards needs --leader-elect: each shard is planted by the replica holding its "
        "Lease",
        {});
    return kExitBadInput;
  }
  co.slice = milliseconds_of(f.planting_slice_s);
  co.client = client_options(f.client);
  // The operator makes clients per Seed and per step, of the same clusters: they share what
  // discovery found (a kind not in it is still asked for at once).
  co.client.discovery_cache = std::make_shared<kube::DiscoveryCache>(std::chrono::minutes(5));
  co.cluster_health.probe_interval = milliseconds_of(f.cluster_probe_interval_s);
  co.cluster_health.unreachable_after = milliseconds_of(f.cluster_unreachable_after_s);
  op::Metrics metrics;
  co.cluster_health.client = co.client;
  co.client.transport.observe = [&metrics](std::string_view cluster, std::string_view method,
                                           int code, double seconds) {
    metrics.observe_request(cluster.empty() ? std::string_view("SELF") : cluster, method, code,
                            seconds);
  };

  daemon::LeaseOptions lo = lease_options(f.daemon);
  if (lo.ns.empty()) lo.ns = pod_namespace();
  auto lease_client = kube::Client::create(*config, co.client);
  if (!lease_client) {
    log.error("cannot make a client", {{"error", lease_client.error().message}});
    return kExitBadInput;
  }
  // One Lease, or one per shard (shards.h).
  std::vector<std::unique_ptr<daemon::LeaderElector>> electors;
  for (uint32_t i = 0; i < f.shards; ++i) {
    daemon::LeaseOptions shard_lease = lo;
    if (f.shards > 1) shard_lease.name = op::shard_lease_name(lo.name, i);
    electors.push_back(std::make_unique<daemon::LeaderElector>(
        **lease_client, shard_lease,
        [&log, lease = lo.ns + "/" + shard_lease.name](const std::string& what) {
          log.info(what, {{"lease", lease}});
        }));
  }
  daemon::LeaderElector* elector = electors.front().get();
  if (f.daemon.leader_elect) metrics.set_lease(lo.name);
  co.identity = elector->identity();

  co.keep_last_plan = !f.dashboard_addr.empty();  // the dashboard shows each Seed's last run
  op::Controller controller(*config, co, metrics, log);
  std::atomic<bool> leading{!f.daemon.leader_elect};
  std::atomic<bool> working{false};
  metrics.set_gauges([&] {
    op::Metrics::Gauges g = controller.gauges();
    g.leader = leading;
    return g;
  });

  op::Dashboard dashboard(controller);  // outlives the daemon's endpoints, which use it
  Daemon daemon(log);
  bool ok = daemon.serve_metrics(f.daemon.metrics_addr, [&] { return metrics.render(); });
  ok = ok && daemon.serve(
                 f.dashboard_addr,
                 [&dashboard](const std::string& path) { return dashboard.answer(path); },
                 "the dashboard");
  // A standby is ready (it waits for the Lease); a worker once it has listed the Seeds.
  ok = ok && daemon.serve_health(f.daemon.health_addr, [&]() -> std::string {
    return !working || controller.synced() ? "" : "seeds not listed yet";
  });
  if (!ok) return kExitBadInput;

  // The work stops first, then the Lease is given up (while this replica may still write, no
  // standby may take over).
  auto finish = [&](int rc) {
    controller.stop();
    daemon.close_endpoints();
    if (f.daemon.leader_elect && leading) release_lease(*elector, *config, co.client);
    return rc;
  };

  log.info("planter operator starting",
           {{"identity", elector->identity()},
            {"namespace", co.watch_namespace.empty() ? "(all)" : co.watch_namespace},
            {"server", config->server},
            {"leader-elect", f.daemon.leader_elect ? "true" : "false"}});
  uint32_t shard = 0;
  if (f.daemon.leader_elect) {
    if (std::string why = elector->blocker(); !why.empty()) {
      log.error("cannot elect a leader", {{"error", why}});
      return finish(kExitBadInput);
    }
    if (f.shards > 1) {
      log.info("waiting for a shard's Lease",
               {{"leases", lo.ns + "/" + op::shard_lease_name(lo.name, 0) + ".." +
                               std::to_string(f.shards - 1)}});
      auto held =
          op::acquire_shard(electors, elector->identity(), lo.retry_period, daemon.stop_token());
      if (!held) return finish(kExitOk);
      shard = *held;
      elector = electors[shard].get();
    } else {
      log.info("waiting for the Lease", {{"lease", lo.ns + "/" + lo.name}});
      if (!elector->acquire(daemon.stop_token())) return finish(kExitOk);
    }
    leading = true;
    std::string lease =
        lo.ns + "/" + (f.shards > 1 ? op::shard_lease_name(lo.name, shard) : lo.name);
    log.info("leading", {{"lease", lease},
                         {"identity", elector->identity()},
                         {"shard", fmt::format("{} of {}", shard, f.shards)}});
  }
  if (auto started = controller.start(shard); !started) {
    log.error("cannot start the controller", {{"error", started.error().message}});
    return finish(kExitFailure);
  }
  working = true;
  if (f.daemon.leader_elect) {
    if (!elector->hold(daemon.stop_token())) {
      // Another replica may be working already: stop writing at once, and let the kubelet
      // restart this one as a standby.
      log.error("lost the Lease: exiting", {{"shard", std::to_string(shard)}});
      leading = false;
      return finish(kExitFailure);
    }
    return finish(kExitOk);
  }
  daemon.wait_for_stop();
  return finish(kExitOk);
}

}  // namespace planter::cli
