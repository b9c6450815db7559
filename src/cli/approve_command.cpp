#include "cli/approve_command.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdlib>

#include "cli/daemon.h"
#include "cli/seed_flags.h"
#include "daemon/time_format.h"
#include "kube/client.h"
#include "model/names.h"
#include "plan/rules.h"

namespace planter::cli {

namespace json = boost::json;

CLI::App* add_approve_command(CLI::App& app, ApproveFlags& f) {
  CLI::App* cmd = app.add_subcommand(
      "approve",
      "Approve a roll-out's next stage: the batches after the canaries of every object whose "
      "planter.nephio.org/rollout says approval: NAME go on");
  cmd->add_option("NAME", f.name, "The approval the roll-out names")->required();
  cmd->add_option(
      "--kubeconfig", f.kubeconfig,
      "Kubeconfig file (default: the in-cluster config in a pod, else $KUBECONFIG, then "
      "~/.kube/config)");
  cmd->add_option("--context", f.context, "The management cluster's context (default: current)");
  f.ns = std::string(kApprovalNamespace);
  cmd->add_option("-n,--namespace", f.ns,
                  "Where the approval goes: kube-system (default) for roll-outs `planter plant` "
                  "plants, the Seed's namespace for an operator's Seed")
      ->capture_default_str();
  cmd->add_option("--by", f.by, "Who approves, recorded in the approval (default: $USER)");
  cmd->footer(
      "Examples:\n"
      "  planter approve web-canary\n"
      "  planter approve web-canary -n team-a                # the operator's Seed in team-a\n"
      "  kubectl planter approve web-canary --context mgmt   # planter on PATH as kubectl-planter");
  return cmd;
}

int run_approve(const ApproveFlags& f) {
  std::string name = std::string(kApprovalPrefix) + f.name;
  if (f.name.empty() || name.size() > 253 || !is_dns_subdomain(name)) {
    fmt::print(stderr,
               "error: \"{}\" is not an approval name: lowercase letters, digits, '-' and '.' "
               "(as the roll-out's approval field says it)\n",
               f.name);
    return kExitBadInput;
  }
  if (!is_dns_label(f.ns)) {
    fmt::print(stderr,
               "error: -n {}: not a namespace name: lowercase letters, digits and '-', at most 63 "
               "characters\n",
               f.ns);
    return kExitBadInput;
  }
  // As kubectl finds its cluster: the kubeconfig, or the pod's own in a pod (a CI job approving).
  auto self = serving_config(f.kubeconfig, f.context);
  if (!self) {
    fmt::print(stderr, "error: {}\n", self.error().message);
    return kExitBadInput;
  }
  auto client = kube::Client::create(*self);
  if (!client) {
    fmt::print(stderr, "error: {}\n", client.error().message);
    return kExitBadInput;
  }
  std::string by = f.by;
  if (by.empty())
    if (const char* user = std::getenv("USER")) by = user;
  json::object approval{
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata",
       {{"name", name},
        {"namespace", f.ns},
        {"labels", {{"app.kubernetes.io/managed-by", "planter"}}}}},
      {"data",
       {{"approval", f.name},
        {"approvedBy", by},
        {"approvedAt", daemon::rfc3339(std::chrono::system_clock::now(), false)}}}};
  kube::ApplyOptions ao;
  ao.field_manager = "planter-approve";
  ao.force = true;
  auto r = (*client)->apply(approval, ao);
  if (!r) {
    fmt::print(stderr, "error: writing ConfigMap {}/{}: {}\n", f.ns, name, r.error().str());
    return kExitFailure;
  }
  fmt::print("approved {} (ConfigMap {}/{})\n", f.name, f.ns, name);
  return kExitOk;
}

}  // namespace planter::cli
