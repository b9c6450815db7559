// `planter approve NAME`: a person's approval of a roll-out's next stage (the `approval` of
// planter.nephio.org/rollout, docs/annotations.md): the ConfigMap
// planter-approval-NAME on the management cluster (in kube-system, or with -n in the namespace of
// the operator's Seed), which the batch after the canaries waits for. `kubectl planter approve
// NAME` when planter is on PATH as kubectl-planter.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace planter::cli {

struct ApproveFlags {
  std::string name;
  // Where the approval is written: kube-system (what `planter plant` waits for), or the
  // namespace of the operator's Seed whose roll-out it approves.
  std::string ns;          // add_approve_command's default: kApprovalNamespace
  std::string kubeconfig;  // none (and no --context) in a pod: the in-cluster config
  std::string context;
  std::string by;  // who approves, recorded; default: the local user
};

CLI::App* add_approve_command(CLI::App& app, ApproveFlags& flags);
int run_approve(const ApproveFlags& flags);

}  // namespace planter::cli
