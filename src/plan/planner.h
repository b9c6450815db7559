// The pure half of planter's pipeline: load -> plugins -> validate -> place -> derive -> plan.
// No network (besides fetching a seed URL), deterministic: the same input gives the same plan.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/diagnostics.h"
#include "model/kinds.h"
#include "plan/conventions.h"
#include "plan/inventory.h"
#include "plan/plan.h"
#include "plan/stacks/mutate.h"
#include "plugins/runner.h"
#include "seed/seed.h"

namespace planter {

struct PlanOptions {
  std::string default_namespace = "default";  // for namespaced objects that name none
  std::string default_cluster = std::string(kSelf);
  std::vector<ClusterInfo> clusters;  // --cluster / --cluster-labels
  // Reads the cluster objects already on the management cluster (ClusterInfo::from "management").
  // Called at most once, and only when the seed names a cluster that neither it nor `clusters`
  // defines, or selects clusters by label. Without it the plan is made offline: such a name is an
  // "unresolved" cluster and a warning says so.
  std::function<Result<std::vector<ClusterInfo>>()> existing_clusters;
  bool create_namespace = false;  // add default_namespace to the seed when it lacks it
  StackOptions stacks;
  Conventions conventions;  // other tools' annotations honoured (--ignore-annotations)
  // Where a roll-out's approvals are ConfigMaps planter-approval-NAME: kube-system for the CLI,
  // the Seed's own namespace for the operator (a tenant approves its own roll-outs, never
  // another's of the same name). Read while planning only: the plan keeps a copy.
  std::string_view approval_namespace = kApprovalNamespace;
};

struct PlanRequest {
  std::vector<std::string> sources;  // files, folders, "-", URLs
  LoadOptions load;
  std::vector<std::string> plugins;  // executables, in the order they run
  PluginLimits plugin_limits;
  PlanOptions options;
};

struct PlanOutcome {
  Plan plan;
  Diagnostics diags;  // empty when the seed is good
  bool ok() const { return diags.empty(); }
};

// Plans a seed that has been loaded, run through plugins, and validated; `stacks` are its Stacks
// as apply_stacks() wrote them into their members (they become plan.stacks). Every problem goes
// to `diags`; the returned plan is only meaningful when none was added.
Plan make_plan(std::vector<Object> objects, const KindTable& kinds, const PlanOptions& options,
               Diagnostics& diags, std::vector<StackNeeds> stacks = {});

// The whole pipeline. Stops after loading if the seed cannot be read, after a failing plugin,
// and otherwise reports every problem of the seed at once.
PlanOutcome build_plan(const PlanRequest& request);

// The pipeline after loading, for callers that load seeds themselves (the operator reads a Seed's
// text): `diags` holds the loading problems; then plugins and plan_seed, as build_plan does.
PlanOutcome plan_loaded(Seed seed, Diagnostics diags, const std::vector<std::string>& plugins,
                        const PluginLimits& limits, const PlanOptions& options);

// After plugins: validation, then make_plan. Exposed for callers that load seeds themselves.
PlanOutcome plan_seed(Seed seed, const PlanOptions& options);

}  // namespace planter
