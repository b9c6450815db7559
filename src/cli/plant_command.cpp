#include "cli/plant_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <stop_token>

#include "cli/seed_target.h"
#include "plant/approval_hold.h"
#include "plant/engine.h"
#include "plant/preflight.h"
#include "plant/progress.h"
#include "plant/report.h"
#include "plant/served_kinds.h"
#include "plant/timeline.h"
#include "plant/trace.h"

namespace planter::cli {

namespace {

void add_target_flags(CLI::App* cmd, PlantFlags& f) {
  add_seed_flags(cmd, f.seed);
  cmd->add_option("--kubeconfig", f.kubeconfig,
                  "Kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)");
  cmd->add_option("--context", f.context,
                  "Kubeconfig context of the management cluster (default: the current one)");
  cmd->add_flag("--sim", f.sim,
                "Start the simulated fleet (planter sim) in this process and work on it");
  cmd->add_option("--sim-kubeconfig-out", f.sim_kubeconfig_out,
                  "With --sim: write the fleet's kubeconfig here");
  cmd->add_option("--sim-audit-log", f.sim_audit_log,
                  "With --sim: the fleet's audit log (JSON lines)");
  cmd->add_option("--sim-clusters", f.sim_clusters,
                  "With --sim: workload clusters edge1..edgeN that exist before planting (each "
                  "with a Cluster in the default namespace), as planter sim --clusters N")
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--seed-name", f.seed_name,
                  "The seed's name in the planter.nephio.org/seed label (default: from the first "
                  "source: its file name, or its folder's for seed.yaml)");
  cmd->add_option("--timeout", f.timeout_s,
                  "Seconds to wait before giving up and listing what is still pending "
                  "(default: no limit)");
  cmd->add_flag("-v,--verbose", f.verbose, "Log every state change");
  add_client_flags(cmd, f.client);
}

void add_plant_flags(CLI::App* cmd, PlantFlags& f) {
  cmd->add_flag("--keep", f.keep,
                "With --sim or --ui: keep the fleet and the live view serving after planting, "
                "until Ctrl-C");
  cmd->add_option("--timeline", f.timeline,
                  "Write a Gantt chart of the planting to this file: self-contained HTML, or SVG "
                  "when it ends in .svg");
  cmd->add_option("--report", f.report, "Write every unit's timestamps and outcome (JSON)");
  cmd->add_option("--ui", f.ui,
                  "Serve a live view of the run at [HOST]:PORT (e.g. 127.0.0.1:8090; port 0 picks "
                  "one): the clusters, each unit coloured by its state with why it waits, kept "
                  "live as planting goes on; with --keep it stays until Ctrl-C");
  cmd->add_option("--trace", f.trace,
                  "Write the run as a Chrome trace (JSON trace events: open it in Perfetto's UI or "
                  "chrome://tracing), with an arrow per requirement");
  cmd->add_flag("--force-conflicts", f.force_conflicts,
                "Take over fields that another field manager owns (server-side apply force); "
                "objects another seed planted still need --adopt");
  cmd->add_flag("--adopt", f.adopt,
                "Take over objects that another seed planted (each records it in the "
                "planter.nephio.org/adopted-from annotation)");
  cmd->add_flag("--prune", f.prune,
                "After planting every unit, delete what the seed's inventory lists and the seed "
                "no longer holds (default; --prune=false keeps them, still listed)");
  cmd->add_flag("--wait", f.wait,
                "After every unit is declared (and the prune), wait until every object is healthy "
                "as kstatus reads it (rolled out, complete, bound, Ready), or its ready-when "
                "holds; exit 1 naming what is not at --timeout (default with --wait: 300s)");
  cmd->add_flag("--preflight", f.preflight,
                "Before the first write, send every object a cluster can judge now through a "
                "server-side dry run; a refusal is bad input (default; --preflight=false skips "
                "it)");
  cmd->add_flag("--no-wait-approval", f.no_wait_approval,
                "End, exit 0, once nothing is left but what a roll-out's approval holds back "
                "(planter.nephio.org/rollout approval), naming the approvals to give with "
                "planter approve; plant again after it to go on");
}

// The kinds of the seed that no cluster will serve, asked before the first write: exit 2 when
// there are any (served_kinds.h).
bool refuse_unserved_kinds(const PlantFlags& f, const Prepared& p) {
  p.interrupts->doing("asking the clusters which kinds they serve");
  auto deadline = asking_deadline(f, std::chrono::seconds(30));
  Diagnostics unserved =
      plant::unserved_kinds(p.plan, p.run->clusters(), client_options(f.client), deadline);
  if (unserved.empty()) return false;
  fmt::print(stderr, "{}nothing was declared\n", unserved.str());
  return true;
}

// --ui: the live view, served before the first write; a bad address is bad input.
bool serve_view(const PlantFlags& f, Prepared& p) {
  if (f.ui.empty() || p.view) return true;
  p.view = std::make_shared<op::PlantView>(p.plan, p.seed_name);
  auto endpoint = daemon::HttpEndpoint::start(
      f.ui, [view = p.view](const std::string& path) { return view->answer(path); });
  if (!endpoint) {
    fmt::print(stderr,
               "--ui {}: {}; give [HOST]:PORT, such as 127.0.0.1:8090\nnothing was "
               "declared\n",
               f.ui, endpoint.error().message);
    p.view.reset();
    return false;
  }
  p.view_endpoint = std::move(endpoint.value());
  std::string host = f.ui.substr(0, f.ui.rfind(':'));
  if (host.empty() || host == "0.0.0.0" || host == "[::]") host = "localhost";
  p.view_url = fmt::format("http://{}:{}/", host, p.view_endpoint->port());
  fmt::print("live view: {}\n", p.view_url);
  return true;
}

int plant_prepared(const PlantFlags& f, Prepared& p) {
  if (!serve_view(f, p)) return kExitBadInput;
  bool terminal = isatty(STDOUT_FILENO) != 0;
  plant::ProgressOptions po;
  po.terminal = terminal;
  po.verbose = f.verbose;
  po.seed_name = p.seed_name;
  plant::Progress progress(p.plan, stdout, po);
  plant::EngineOptions options;
  options.seed_name = p.seed_name;
  options.client = client_options(f.client);
  options.force_conflicts = f.force_conflicts;
  options.adopt = f.adopt;
  options.adopt_hint = adopt_hint(f, p.seed_name);
  options.timeout = p.run->remaining();
  // --no-wait-approval: a stop of its own once only approvals hold what is left; a signal stops
  // it too.
  std::optional<plant::ApprovalHold> hold;
  if (f.no_wait_approval) hold.emplace(p.plan);
  std::stop_source ended;
  std::stop_callback forward(p.interrupts->stop_token(), [&] { ended.request_stop(); });
  bool at_approval = false;
  options.on_change = [&](size_t u, const plant::UnitRecord& r) {
    progress.on_change(u, r);
    if (p.view) p.view->on_change(u, r);
    if (!hold || !hold->any()) return;
    hold->on_change(u, r);
    if (!at_approval && hold->only_approvals_left()) {
      at_approval = true;
      ended.request_stop();
    }
  };
  options.stop = ended.get_token();
  if (!terminal)
    fmt::print("planting seed {}: {} units (an object on one cluster each) on {} cluster(s)\n",
               p.seed_name, p.plan.units.size(), p.plan.units_by_cluster().size());
  for (const SetAside& a : p.plan.set_aside)
    fmt::print("not declared: {} ({}): {}\n", a.ref.short_form(), a.source.str(), a.why);
  // The inventory lists, before the first write, all this run may write (seed_run.h).
  p.interrupts->doing("reading and writing the seed's inventories");
  plant::ChoiceRecords choices = p.run->open();
  options.kept_choices = choices;
  options.live_versions = std::move(p.live_versions);
  options.first_writes = p.run->first_writes();
  p.interrupts->doing("planting");
  p.interrupts->running(true);
  plant::PlantOutcome out = plant::plant(p.plan, p.targets.clusters, options);
  bool chose_anew = false;
  for (const plant::ChoiceRecord& c : out.choices) {
    chose_anew = chose_anew || choices[c.name] != c.result.chosen;
    choices[c.name] = c.result.chosen;
  }
  progress.finish();
  if (at_approval && p.interrupts->signal() == 0) out.stopped = false;  // it ended as asked
  for (const std::string& w : out.warnings) fmt::print(stderr, "warning: {}\n", w);
  if (out.timed_out)
    fmt::print("\ntimed out after {}s with {} unit(s) not declared\n", f.timeout_s,
               out.units.size() - out.count(plant::UnitState::kDeclared));
  fmt::print("\n{}", plant::render_summary(p.plan, out));
  // How the run ended, in a line: what the view's header says at the end, too.
  std::string how;
  if (at_approval) {
    std::vector<std::string> approvals = hold->waited_for();
    how = fmt::format(
        "the roll-out waits for approval {}: planter approve {}, then plant again to go on",
        fmt::join(approvals, ", "), fmt::join(approvals, " "));
    fmt::print("{}\n", how);
  } else if (out.all_declared()) {
    how = fmt::format("every unit declared in {:.2f}s",
                      std::chrono::duration<double>(out.elapsed).count());
  } else {
    how = fmt::format("{} of {} units declared{}", out.count(plant::UnitState::kDeclared),
                      out.units.size(), out.timed_out ? " (timed out)" : "");
  }
  // The timeline's page, drawn once for the view and --timeline F.html alike.
  bool timeline_svg = f.timeline.ends_with(".svg");
  std::string timeline_html = p.view || (!f.timeline.empty() && !timeline_svg)
                                  ? plant::render_timeline_html(p.plan, out, p.seed_name)
                                  : std::string();
  if (p.view) p.view->ended(how, timeline_html);
  bool wrote = true;
  if (!f.report.empty())
    wrote &= write_text(f.report, plant::render_report_json(p.plan, out, p.seed_name));
  if (!f.trace.empty()) {
    wrote &= write_text(f.trace, plant::render_trace_json(p.plan, out, p.seed_name));
    if (wrote) fmt::print("trace: {}\n", f.trace);
  }
  if (!f.timeline.empty()) {
    wrote &=
        write_text(f.timeline, timeline_svg ? plant::render_timeline_svg(p.plan, out, p.seed_name)
                                            : timeline_html);
    if (wrote) fmt::print("timeline: {}\n", f.timeline);
  }
  // Once every unit is declared: what the seed no longer holds goes (or, --prune=false, stays
  // listed), and each cluster's inventory lists what the seed holds there now.
  plant::CloseOutcome closed = p.run->close(out.all_declared(), f.prune, choices, chose_anew);
  if (closed.pruned.deleted > 0)
    fmt::print("pruned {} object(s) the seed no longer holds\n", closed.pruned.deleted);
  if (!closed.not_pruned.empty()) fmt::print("{}\n", closed.not_pruned);
  bool pruned = closed.complete;
  bool healthy = true;
  if (f.wait && out.all_declared() && p.interrupts->signal() == 0) healthy = wait_healthy(f, p);
  std::fflush(stdout);
  bool done = out.all_declared() ||
              (at_approval && p.interrupts->signal() == 0 &&
               out.count(plant::UnitState::kFailed) + out.count(plant::UnitState::kBlocked) == 0);
  return interrupted(p, done && wrote && pruned && healthy ? kExitOk : kExitFailure);
}

int uproot_prepared(const PlantFlags& f, Prepared& p) {
  plant::UprootOptions options;
  options.seed_name = p.seed_name;
  options.conventions = p.plan.conventions;
  options.client = client_options(f.client);
  options.timeout = p.run->remaining();
  options.stop = p.interrupts->stop_token();
  auto start = std::chrono::steady_clock::now();
  options.on_change = [&](size_t u, const plant::RemovalRecord& r) {
    if (r.state == plant::RemovalState::kWaiting) return;
    if (!f.verbose && r.state != plant::RemovalState::kDeleted &&
        r.state != plant::RemovalState::kFailed)
      return;
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const Unit& unit = p.plan.units[u];
    fmt::print("{:7.3f}s  {}  {}: {}{}\n", t, unit.cluster, p.plan.object_of(unit).display(),
               plant::to_string(r.state), r.note.empty() ? "" : " (" + r.note + ")");
    std::fflush(stdout);
  };
  fmt::print("uprooting seed {}: {} units\n", p.seed_name, p.plan.units.size());
  p.interrupts->doing("uprooting");
  p.interrupts->running(true);
  // What the inventories list beyond the seed goes first (seed_run.h).
  plant::SeedUprootOutcome done = p.run->uproot(options);
  if (!done.started) {
    fmt::print(
        "\nnot uprooting the seed's own objects: what its inventory lists is not all gone\n");
    std::fflush(stdout);
    return interrupted(p, kExitFailure);
  }
  const plant::UprootOutcome& out = done.seed;
  fmt::print("\n{}", plant::render_uproot_summary(p.plan, out));
  size_t kept = std::count_if(out.units.begin(), out.units.end(),
                              [](const plant::RemovalRecord& r) { return r.kept; });
  if (out.complete() &&
      out.count(plant::RemovalState::kDeleted) + done.beyond.deleted + kept == 0) {
    fmt::print(
        "nothing labelled planter.nephio.org/seed={} was found: was it planted under another "
        "--seed-name?\n",
        p.seed_name);
    std::fflush(stdout);
    return kExitFailure;
  }
  std::fflush(stdout);
  return interrupted(p, out.complete() ? kExitOk : kExitFailure);
}

}  // namespace

PlantCommands add_plant_commands(CLI::App& app, PlantFlags& plant, PlantFlags& uproot,
                                 PlantFlags& replant, PlantFlags& diff) {
  PlantCommands c;
  c.plant = app.add_subcommand(
      "plant",
      "Declare every object of a seed on its cluster as soon as its requirements hold "
      "(server-side apply), then exit");
  add_target_flags(c.plant, plant);
  add_plant_flags(c.plant, plant);
  c.plant->footer(
      "Exit codes: 0 every unit declared, 1 some failed or timed out, 2 bad input (nothing "
      "declared), 130/143 stopped by SIGINT/SIGTERM (the summary of what waits is printed).\n"
      "Examples:\n"
      "  planter plant --sim examples/hello-world/seed.yaml --timeline build/hello-world.html\n"
      "  planter plant seed/ --context mgmt --cluster edge1=kind-edge1 --timeout 600\n"
      "  planter plant cnf.yaml --plugin ./plugins/10-network.py --report report.json");

  c.uproot = app.add_subcommand(
      "uproot",
      "Delete every object a seed planted, in reverse order, waiting for each deletion to "
      "finish before what it depended on goes");
  add_target_flags(c.uproot, uproot);
  c.uproot->footer(
      "Only objects labelled planter.nephio.org/seed=<seed name> are deleted.\n"
      "Examples:\n"
      "  planter uproot examples/hello-world/seed.yaml --kubeconfig sim.kubeconfig");

  c.diff = app.add_subcommand(
      "diff",
      "Show what planting the seed now would change, as kubectl diff does: a server-side dry run "
      "of every object against the live one (read only)");
  add_target_flags(c.diff, diff);
  c.diff->footer(
      "Exit codes: 0 no differences, 1 differences, 2 an error (as kubectl diff: above 1).\n"
      "Examples:\n"
      "  planter diff examples/hello-world/seed.yaml --kubeconfig sim.kubeconfig\n"
      "  planter diff seed/ --context mgmt --cluster edge1=kind-edge1");

  c.replant = app.add_subcommand(
      "replant", "Declare everything of a seed again, in order; --hard: uproot it first");
  add_target_flags(c.replant, replant);
  add_plant_flags(c.replant, replant);
  c.replant->add_flag("--hard", replant.hard, "Uproot the seed, then plant it");
  return c;
}

// The server-side dry run of what the clusters can judge now (preflight.h): exit 2 with every
// refusal when there is one.
bool refused_by_preflight(const PlantFlags& f, Prepared& p) {
  if (!f.preflight) return false;
  p.interrupts->doing("the preflight (a server-side dry run of the seed)");
  plant::PreflightOptions po;
  po.seed_name = p.seed_name;
  po.client = client_options(f.client);
  po.force_conflicts = f.force_conflicts;
  po.adopt = f.adopt;
  po.adopt_hint = adopt_hint(f, p.seed_name);
  po.deadline = asking_deadline(f, std::chrono::seconds(60));
  plant::PreflightOutcome out = plant::preflight(p.plan, p.run->clusters(), po);
  if (!out.refused.empty()) {
    fmt::print(stderr, "{}nothing was declared\n", out.refused.str());
    return true;
  }
  p.live_versions = std::move(out.live_versions);
  for (const auto& [u, fields] : out.replaced)
    fmt::print("preflight: {} on {} is deleted and created again: {} cannot change\n",
               p.plan.object_of(p.plan.units[u]).display(), p.plan.units[u].cluster, fields);
  fmt::print("preflight: {} object(s) accepted by a server-side dry run{}\n", out.checked,
             out.later == 0 ? std::string() : fmt::format("; {} checked when planted", out.later));
  return false;
}

int run_plant(const PlantFlags& f) {
  return run_prepared(f, [&](Prepared& p) {
    return refuse_unserved_kinds(f, p) || refused_by_preflight(f, p) ? kExitBadInput
                                                                     : plant_prepared(f, p);
  });
}

int run_uproot(const PlantFlags& f) {
  return run_prepared(f, [&](Prepared& p) { return uproot_prepared(f, p); });
}

int run_replant(const PlantFlags& f) {
  return run_prepared(f, [&](Prepared& p) {
    if (refuse_unserved_kinds(f, p)) return kExitBadInput;
    // A hard replant uproots first: what is there now would judge the apply wrongly.
    if (!f.hard && refused_by_preflight(f, p)) return kExitBadInput;
    int rc = f.hard ? uproot_prepared(f, p) : kExitOk;
    if (p.interrupts->signal() != 0) return rc;
    return rc == kExitOk ? plant_prepared(f, p) : rc;
  });
}

}  // namespace planter::cli
