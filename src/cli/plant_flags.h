// The flags of `planter plant`, `uproot`, `replant` and `diff`, read by the commands
// (plant_command.cpp) and by the seed target they open (seed_target.h).
#pragma once

#include <string>

#include "cli/client_flags.h"
#include "cli/seed_flags.h"

namespace planter::cli {

struct PlantFlags {
  SeedFlags seed;
  std::string kubeconfig;  // --kubeconfig; else $KUBECONFIG, ~/.kube/config
  std::string context;     // --context; else the current one
  bool sim = false;        // plant into a simulated fleet started in this process
  bool keep = false;       // with --sim: keep serving afterwards, until Ctrl-C
  std::string sim_kubeconfig_out;
  std::string sim_audit_log;
  int sim_clusters = 0;  // with --sim: existing workload clusters edge1..edgeN
  std::string timeline;  // FILE.html, or FILE.svg for the chart alone
  std::string ui;        // [HOST]:PORT: serve the live view of the run there
  std::string report;    // FILE.json
  std::string trace;     // FILE.json: Chrome trace events (Perfetto)
  bool verbose = false;
  double timeout_s = 0;  // 0: none
  std::string seed_name;
  bool force_conflicts = false;
  bool adopt = false;     // take over objects another seed planted (plant/ownership.h)
  bool preflight = true;  // a server-side dry run of what can be judged before the first write
  ClientFlags client;
  bool hard = false;  // replant: uproot, then plant
  bool prune = true;  // delete what the seed's inventory lists and the seed no longer holds
  bool wait = false;  // after declaring, wait until every object is healthy (kstatus)
  bool no_wait_approval = false;  // end when only a roll-out's approvals hold what is left
};

}  // namespace planter::cli
