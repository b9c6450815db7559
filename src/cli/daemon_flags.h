// The flags of the commands that serve until stopped (`planter operator`, `planter scheduler`),
// declared once: where /metrics and /healthz are served, leader election on a Lease (the
// `--leader-elect*` names kube-scheduler and controller-runtime's managers use), the replica's
// identity and the log format. Each command gives its defaults (in its DaemonFlags) and the words
// that differ.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "daemon/leader.h"
#include "daemon/log.h"

namespace planter::cli {

struct DaemonFlags {
  std::string metrics_addr;
  std::string health_addr;
  bool leader_elect = false;  // --leader-elect, or --leader-elect=false
  double lease_duration_s = 15, renew_deadline_s = 10, retry_period_s = 2;
  std::string lease_name;
  std::string lease_namespace;
  std::string identity;  // empty: hostname_pid
  std::string log_format = "text";
};

// The help that differs between the commands.
struct DaemonFlagHelp {
  std::string leader_elect;     // what the process does with the Lease
  std::string lease_namespace;  // where the Lease is when the flag is not given
  std::string identity;         // where the identity shows
};

void add_daemon_flags(CLI::App* cmd, DaemonFlags& f, const DaemonFlagHelp& help);

// The Lease the flags describe (its namespace as given: the caller fills in an empty one).
daemon::LeaseOptions lease_options(const DaemonFlags& f);

daemon::Log::Format log_format(const DaemonFlags& f);

}  // namespace planter::cli
