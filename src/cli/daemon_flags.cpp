#include "cli/daemon_flags.h"

#include "cli/daemon.h"

namespace planter::cli {

void add_daemon_flags(CLI::App* cmd, DaemonFlags& f, const DaemonFlagHelp& help) {
  cmd->add_option("--metrics-addr", f.metrics_addr,
                  "Where /metrics is served ([HOST]:PORT; 0 turns it off)")
      ->capture_default_str();
  cmd->add_option("--health-addr", f.health_addr,
                  "Where /healthz and /readyz are served ([HOST]:PORT; 0 turns it off)")
      ->capture_default_str();
  cmd->add_flag("--leader-elect", f.leader_elect, help.leader_elect);
  cmd->add_option("--leader-elect-lease-duration", f.lease_duration_s,
                  "Seconds a standby waits after the leader's last renewal before taking over")
      ->capture_default_str();
  cmd->add_option("--leader-elect-renew-deadline", f.renew_deadline_s,
                  "Seconds the leader keeps trying to renew before giving up")
      ->capture_default_str();
  cmd->add_option("--leader-elect-retry-period", f.retry_period_s,
                  "Seconds between attempts to take or renew the Lease")
      ->capture_default_str();
  cmd->add_option("--leader-elect-resource-name", f.lease_name, "The Lease's name")
      ->capture_default_str();
  auto* ns = cmd->add_option("--leader-elect-resource-namespace", f.lease_namespace,
                             "The Lease's namespace" + help.lease_namespace);
  if (!f.lease_namespace.empty()) ns->capture_default_str();
  cmd->add_option("--identity", f.identity, "This replica's name " + help.identity);
  cmd->add_option("--log-format", f.log_format, "text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
}

daemon::LeaseOptions lease_options(const DaemonFlags& f) {
  daemon::LeaseOptions lo;
  lo.ns = f.lease_namespace;
  lo.name = f.lease_name;
  lo.identity = f.identity;
  lo.lease_duration = milliseconds_of(f.lease_duration_s);
  lo.renew_deadline = milliseconds_of(f.renew_deadline_s);
  lo.retry_period = milliseconds_of(f.retry_period_s);
  return lo;
}

daemon::Log::Format log_format(const DaemonFlags& f) {
  return f.log_format == "json" ? daemon::Log::Format::kJson : daemon::Log::Format::kText;
}

}  // namespace planter::cli
