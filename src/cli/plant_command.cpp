#include "cli/plant_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>

#include "cli/embedded_scheduler.h"
#include "cli/interrupts.h"
#include "cli/sim_command.h"
#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "model/files.h"
#include "model/process.h"
#include "model/yaml.h"
#include "plant/diff.h"
#include "plant/engine.h"
#include "plant/existing_clusters.h"
#include "plant/preflight.h"
#include "plant/progress.h"
#include "plant/report.h"
#include "plant/seed_inventory.h"
#include "plant/served_kinds.h"
#include "plant/timeline.h"
#include "plant/trace.h"
#include "plant/uproot.h"
#include "sim/server.h"

namespace planter::cli {

namespace fs = std::filesystem;

std::string default_seed_name(const std::vector<std::string>& sources) {
  std::string name = "seed";
  if (!sources.empty()) {
    const std::string& s = sources.front();
    if (s == "-") {
      name = "stdin";
    } else {
      std::string path = s;
      if (auto scheme = s.find("://"); scheme != std::string::npos) {
        path = s.substr(scheme + 3);
        path = path.substr(0, path.find_first_of("?#"));
      }
      fs::path p = fs::path(path).lexically_normal();
      if (p.filename().empty()) p = p.parent_path();
      std::error_code ec;  // a source that cannot be looked at is named as a file
      // The same file gives the same name however it was typed (`seed.yaml` inside shop/, or
      // `shop/seed.yaml` outside): uproot must find what plant labelled.
      if (s.find("://") == std::string::npos)
        if (fs::path absolute = fs::weakly_canonical(p, ec); !ec) p = absolute;
      bool folder = fs::is_directory(p, ec);
      name = folder ? p.filename().string() : p.stem().string();
      if (!folder && name == "seed" && !p.parent_path().filename().empty())
        name = p.parent_path().filename().string();
    }
  }
  // A label value: at most 63 characters of [A-Za-z0-9._-], alphanumeric at both ends.
  std::string out;
  for (char c : name)
    out +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '-';
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.front()))) out.erase(0, 1);
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out.empty() ? "seed" : out;
}

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
                "With --sim: keep the fleet serving after planting, until Ctrl-C");
  cmd->add_option("--timeline", f.timeline,
                  "Write a Gantt chart of the planting to this file: self-contained HTML, or SVG "
                  "when it ends in .svg");
  cmd->add_option("--report", f.report, "Write every unit's timestamps and outcome (JSON)");
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
  cmd->add_flag("--preflight", f.preflight,
                "Before the first write, send every object a cluster can judge now through a "
                "server-side dry run; a refusal is bad input (default; --preflight=false skips "
                "it)");
}

// Where planting goes: the clusters' RestConfigs, and the simulated fleet when --sim.
struct Targets {
  std::unique_ptr<sim::Server> sim;
  std::map<std::string, kube::RestConfig> clusters;
  std::string kubeconfig_path;  // with --sim, where its kubeconfig was written
  std::optional<kube::Kubeconfig> kubeconfig;
};

// The management cluster: the simulated fleet started here (--sim), or the kubeconfig's context.
// Workload clusters given with --cluster are added by add_cluster_contexts once the plan is made.
Result<Targets> connect_management(const PlantFlags& f) {
  Targets t;
  Result<kube::Kubeconfig> config = Error{""};
  if (f.sim) {
    SimFlags sf;
    sf.port = 0;
    sf.audit_log = f.sim_audit_log;
    auto options = sim_server_options(sf);
    if (!options) return options.error();
    auto server = sim::Server::create(std::move(options.value()));
    if (!server) return Error{"cannot start the simulated fleet: " + server.error().message};
    t.sim = std::move(server.value());
    t.sim->start();
    config = kube::Kubeconfig::parse(t.sim->kubeconfig(), "the simulated fleet", "");
    if (!f.sim_kubeconfig_out.empty() || f.keep) {
      t.kubeconfig_path = f.sim_kubeconfig_out;
      if (t.kubeconfig_path.empty()) {
        auto made = make_private_temp_file("planter-sim-kubeconfig-");
        if (!made) return made.error();
        t.kubeconfig_path = made.value();
      }
      if (auto err = write_private_file(t.kubeconfig_path, t.sim->kubeconfig()))
        return Error{"cannot write the kubeconfig: " + err->message};
    }
  } else {
    config = kube::Kubeconfig::load(kube::KubeconfigSources::from_environment(f.kubeconfig));
  }
  if (!config) return config.error();
  auto self = config->rest_config(f.context);
  if (!self) return self.error();
  t.clusters[std::string(kSelf)] = std::move(self.value());
  t.kubeconfig = std::move(config.value());
  return t;
}

std::optional<Error> add_cluster_contexts(const Plan& plan, Targets& t) {
  for (const ClusterInfo& c : plan.clusters) {
    if (c.context.empty()) continue;
    auto rc = t.kubeconfig->rest_config(c.context);
    if (!rc)
      return Error{fmt::format("--cluster {}={}: {}", c.name, c.context, rc.error().message)};
    t.clusters[c.name] = std::move(rc.value());
  }
  return std::nullopt;
}

std::optional<std::chrono::milliseconds> timeout_of(const PlantFlags& f) {
  if (f.timeout_s <= 0) return std::nullopt;
  return std::chrono::milliseconds(static_cast<int64_t>(f.timeout_s * 1000));
}

bool write_text(const std::string& path, const std::string& text) {
  if (auto parent = fs::path(path).parent_path(); !parent.empty()) {
    std::error_code ec;
    fs::create_directories(parent, ec);
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    fmt::print(stderr, "error: cannot write {}\n", path);
    return false;
  }
  return true;
}

// Plans the seed (exit code 2 and every problem when it is bad), then resolves the targets.
struct Prepared {
  Plan plan;
  Targets targets;
  std::string seed_name;
  Interrupts* interrupts = nullptr;
};

// What a run says and returns when a signal stopped it (rc otherwise).
int interrupted(const Prepared& p, int rc) {
  int sig = p.interrupts->signal();
  if (sig == 0) return rc;
  fmt::print("\ninterrupted ({}): stopped planting\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  std::fflush(stdout);
  return 128 + sig;
}

// When a question asked before the first write stops waiting: `cap` from now, or --timeout's
// end when that is sooner.
std::chrono::steady_clock::time_point asking_deadline(const PlantFlags& f,
                                                      std::chrono::milliseconds cap) {
  return std::chrono::steady_clock::now() + std::min(timeout_of(f).value_or(cap), cap);
}

Expected<Prepared, int> prepare(const PlantFlags& f) {
  // The management cluster is reached before planning only when the seed names clusters that
  // only its cluster objects define; otherwise a bad seed is refused without a connection.
  std::optional<Result<Targets>> targets;
  auto connect = [&]() -> Result<Targets>& {
    if (!targets) targets = connect_management(f);
    return *targets;
  };
  auto existing = [&]() -> Result<std::vector<ClusterInfo>> {
    Result<Targets>& t = connect();
    if (!t) return t.error();
    plant::ExistingClustersOptions options;
    options.deadline = std::chrono::steady_clock::now() +
                       timeout_of(f).value_or(std::chrono::milliseconds(plant::kTransientGiveUp));
    options.on_unreachable = [](const std::string& why) {
      fmt::print(stderr, "the management cluster does not answer, retrying: {}\n", why);
    };
    return plant::read_existing_clusters(t->clusters[std::string(kSelf)], client_options(f.client),
                                         options);
  };
  // A seed planning refuses is also shown to the servers that can be asked at once, so a bad name
  // and a kind nothing serves are reported together, not one run after the other.
  auto also = [&](const Plan& plan) -> Diagnostics {
    Result<Targets>& t = connect();
    if (!t) return {};
    return plant::unserved_kinds(plan, t->clusters, client_options(f.client),
                                 asking_deadline(f, std::chrono::seconds(10)));
  };
  auto planned = plan_from_flags(f.seed, existing, also);
  if (!planned) {
    fmt::print(stderr, "nothing was declared: fix the seed and run again\n");
    return planned.error();
  }
  Result<Targets>& t = connect();
  std::optional<Error> bad = t ? add_cluster_contexts(planned.value(), t.value()) : t.error();
  if (bad) {
    fmt::print(stderr, "error: {}\nnothing was declared\n", bad->message);
    return kExitBadInput;
  }
  std::string name = f.seed_name.empty() ? default_seed_name(all_sources(f.seed)) : f.seed_name;
  return Prepared{std::move(planned.value()), std::move(t.value()), std::move(name)};
}

// The kinds of the seed that no cluster will serve, asked before the first write: exit 2 when
// there are any (served_kinds.h).
bool refuse_unserved_kinds(const PlantFlags& f, const Prepared& p) {
  auto deadline = asking_deadline(f, std::chrono::seconds(30));
  Diagnostics unserved =
      plant::unserved_kinds(p.plan, p.targets.clusters, client_options(f.client), deadline);
  if (unserved.empty()) return false;
  fmt::print(stderr, "{}", unserved.str());
  return true;
}

plant::InventoryOptions inventory_options(const PlantFlags& f, const Prepared& p) {
  plant::InventoryOptions o;
  o.seed_name = p.seed_name;
  o.client = client_options(f.client);
  return o;
}

void warn_all(const std::vector<std::string>& errors) {
  for (const std::string& e : errors) fmt::print(stderr, "warning: {}\n", e);
}

// Uproots what the inventories list and the plan does not hold, a wave at a time, deepest first,
// saying what happened to each. What is not gone (failed, blocked, left unfinished) stays listed.
struct Pruned {
  size_t deleted = 0;
  bool complete = true;
  std::map<std::string, std::vector<plant::InventoryItem>> kept;
};
Pruned prune(const PlantFlags& f, const Prepared& p, const plant::Inventories& inventories) {
  Pruned out;
  for (const Plan& wave : plant::stale_plans(p.plan, inventories)) {
    plant::UprootOptions options;
    options.seed_name = p.seed_name;
    options.removal = plant::Removal::kPrune;
    options.conventions = p.plan.conventions;
    options.client = client_options(f.client);
    options.timeout = timeout_of(f);
    options.stop = p.interrupts->stop_token();
    plant::UprootOutcome r = plant::uproot(wave, p.targets.clusters, options);
    for (size_t u = 0; u < wave.units.size(); ++u) {
      const Unit& unit = wave.units[u];
      const plant::RemovalRecord& rec = r.units[u];
      bool gone =
          rec.state == plant::RemovalState::kDeleted || rec.state == plant::RemovalState::kAbsent;
      if (rec.state == plant::RemovalState::kDeleted) ++out.deleted;
      if (!gone && rec.state != plant::RemovalState::kLeft) {
        out.complete = false;
        out.kept[unit.cluster].push_back({wave.object_of(unit).ref, unit.wave});
      }
      if (rec.state != plant::RemovalState::kAbsent || f.verbose)
        fmt::print("pruned: {} on {}: {}{}\n", wave.object_of(unit).display(), unit.cluster,
                   plant::to_string(rec.state), rec.note.empty() ? "" : " (" + rec.note + ")");
    }
    if (!r.complete() || p.interrupts->signal() != 0) {
      out.complete = false;
      break;
    }
  }
  return out;
}

int plant_prepared(const PlantFlags& f, Prepared& p) {
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
  options.timeout = timeout_of(f);
  options.on_change = [&](size_t u, const plant::UnitRecord& r) { progress.on_change(u, r); };
  options.stop = p.interrupts->stop_token();
  if (!terminal)
    fmt::print("planting seed {}: {} units on {} cluster(s)\n", p.seed_name, p.plan.units.size(),
               p.plan.clusters.size());
  for (const SetAside& a : p.plan.set_aside)
    fmt::print("not declared: {} ({}): {}\n", a.ref.short_form(), a.source.str(), a.why);
  // The inventory lists, before the first write, all this run may write (seed_inventory.h).
  plant::InventoryOptions io = inventory_options(f, p);
  plant::Inventories inventories = plant::read_inventories(p.targets.clusters, io);
  warn_all(inventories.errors);
  // The clusters earlier runs chose stay chosen; the choices this seed no longer makes are dropped.
  plant::ChoiceRecords choices;
  for (const ClusterChoice& c : p.plan.choices)
    if (auto it = inventories.choices.find(c.name); it != inventories.choices.end())
      choices.insert(*it);
  options.kept_choices = choices;
  warn_all(plant::write_inventories(p.plan, p.targets.clusters, inventories.by_cluster, io, choices,
                                    inventories.unreadable));
  plant::PlantOutcome out = plant::plant(p.plan, p.targets.clusters, options);
  bool chose_anew = false;
  for (const plant::ChoiceRecord& c : out.choices) {
    chose_anew = chose_anew || choices[c.name] != c.result.chosen;
    choices[c.name] = c.result.chosen;
  }
  progress.finish();
  if (out.timed_out)
    fmt::print("\ntimed out after {}s with {} unit(s) not declared\n", f.timeout_s,
               out.units.size() - out.count(plant::UnitState::kDeclared));
  fmt::print("\n{}", plant::render_summary(p.plan, out));
  bool wrote = true;
  if (!f.report.empty())
    wrote &= write_text(f.report, plant::render_report_json(p.plan, out, p.seed_name));
  if (!f.trace.empty()) {
    wrote &= write_text(f.trace, plant::render_trace_json(p.plan, out, p.seed_name));
    if (wrote) fmt::print("trace: {}\n", f.trace);
  }
  if (!f.timeline.empty()) {
    bool svg = f.timeline.ends_with(".svg");
    wrote &= write_text(f.timeline, svg ? plant::render_timeline_svg(p.plan, out, p.seed_name)
                                        : plant::render_timeline_html(p.plan, out, p.seed_name));
    if (wrote) fmt::print("timeline: {}\n", f.timeline);
  }
  // Once every unit is declared: what the seed no longer holds goes (or, --prune=false, stays
  // listed), and the inventory lists what the seed holds now.
  bool pruned = true;
  bool finished = out.all_declared() && p.interrupts->signal() == 0;
  if (finished && inventories.errors.empty()) {
    Pruned r;
    if (f.prune) {
      r = prune(f, p, inventories);
      pruned = r.complete;
      if (r.deleted > 0) fmt::print("pruned {} object(s) the seed no longer holds\n", r.deleted);
    } else {
      r.kept = inventories.by_cluster;
    }
    if (p.interrupts->signal() == 0)
      warn_all(plant::write_inventories(p.plan, p.targets.clusters, r.kept, io, choices));
  } else if (finished && f.prune) {
    // An inventory that cannot be read hides what the seed planted before: nothing is pruned,
    // anywhere, and the run says so and fails instead of passing for a prune.
    std::vector<std::string> unread(inventories.unreadable.begin(), inventories.unreadable.end());
    fmt::print(
        "not pruned: the inventory of cluster(s) {} could not be read (see the warnings above), "
        "so nothing the seed no longer holds was deleted on any cluster; fix access to ConfigMap "
        "{}/{} there and run again\n",
        fmt::join(unread, ", "), plant::kInventoryNamespace, plant::inventory_name(p.seed_name));
    pruned = false;
  } else if (chose_anew && inventories.errors.empty()) {
    // Not complete, but what was chosen is kept for the next run.
    warn_all(
        plant::write_inventories(p.plan, p.targets.clusters, inventories.by_cluster, io, choices));
  }
  std::fflush(stdout);
  return interrupted(p, out.all_declared() && wrote && pruned ? kExitOk : kExitFailure);
}

int uproot_prepared(const PlantFlags& f, Prepared& p) {
  plant::UprootOptions options;
  options.seed_name = p.seed_name;
  options.conventions = p.plan.conventions;
  options.client = client_options(f.client);
  options.timeout = timeout_of(f);
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
  // What the inventories list beyond the seed goes first (seed_inventory.h).
  plant::InventoryOptions io = inventory_options(f, p);
  plant::Inventories inventories = plant::read_inventories(p.targets.clusters, io);
  warn_all(inventories.errors);
  Pruned beyond = prune(f, p, inventories);
  if (!beyond.complete) {
    fmt::print(
        "\nnot uprooting the seed's own objects: what its inventory lists is not all gone\n");
    std::fflush(stdout);
    return interrupted(p, kExitFailure);
  }
  plant::UprootOutcome out = plant::uproot(p.plan, p.targets.clusters, options);
  fmt::print("\n{}", plant::render_uproot_summary(p.plan, out));
  if (out.complete() && inventories.errors.empty())
    warn_all(plant::delete_inventories(p.targets.clusters, io));
  size_t kept = std::count_if(out.units.begin(), out.units.end(),
                              [](const plant::RemovalRecord& r) { return r.kept; });
  if (out.complete() && out.count(plant::RemovalState::kDeleted) + beyond.deleted + kept == 0) {
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

// With --sim --keep: serve until Ctrl-C. Without --keep: say how the next run keeps the fleet to
// look at, and with which context each cluster is reached.
void keep_serving(const PlantFlags& f, const Targets& t, const Plan& plan, Interrupts& interrupts) {
  if (!t.sim) return;
  // The context of a workload cluster the seed created: the kubeconfig gets it now.
  std::string context = "management";
  for (const ClusterInfo& c : plan.clusters)
    if (c.name != kSelf) {
      context = c.name;
      break;
    }
  if (!t.kubeconfig_path.empty()) {
    if (auto err = write_private_file(t.kubeconfig_path, t.sim->kubeconfig()))
      fmt::print(stderr, "warning: cannot write the kubeconfig again: {}\n", err->message);
    fmt::print("the simulated fleet's kubeconfig (a context per cluster): {}\n", t.kubeconfig_path);
  }
  if (!f.keep) {
    // The first run ends with the fleet gone: say how the second run keeps it to look at.
    std::string seed = fmt::format("{}", fmt::join(all_sources(f.seed), " "));
    fmt::print(
        "the simulated fleet stops with this command; to keep it serving and look around:\n"
        "  planter plant --sim --keep --sim-kubeconfig-out sim.kubeconfig {}\n"
        "  kubectl --kubeconfig sim.kubeconfig --context {} get pods -A -o wide    (in another "
        "terminal)\n",
        seed.empty() ? "SEED" : seed, context);
    return;
  }
  fmt::print(
      "the simulated fleet keeps serving at {} (try: kubectl --kubeconfig {} --context {} get "
      "pods -A -o wide); Ctrl-C stops it\n",
      t.sim->url(), t.kubeconfig_path, context);
  std::fflush(stdout);
  interrupts.wait();
}

// kubectl diff's way: the live objects under LIVE-*, what planting would make of them under
// MERGED-*, one file per object (<cluster>/<apiVersion>.<Kind>.<ns>.<name>, YAML), and `diff -u
// -N -r` between them; then what cannot be diffed yet. Exit 0: no differences, 1: some, 2: an
// error (a refusal, no answer, no diff program).
int diff_prepared(const PlantFlags& f, Prepared& p) {
  plant::DiffOptions o;
  o.seed_name = p.seed_name;
  o.client = client_options(f.client);
  o.deadline = std::chrono::steady_clock::now() +
               timeout_of(f).value_or(std::chrono::milliseconds(std::chrono::seconds(60)));
  std::vector<plant::ObjectDiff> diffs = plant::diff_seed(p.plan, p.targets.clusters, o);
  std::error_code ec;
  fs::path base = fs::temp_directory_path() / fmt::format("planter-diff-{}", ::getpid());
  fs::path live = base / "LIVE", merged = base / "MERGED";
  fs::create_directories(live, ec);
  fs::create_directories(merged, ec);
  bool differs = false, failed = false;
  std::string later;
  for (const plant::ObjectDiff& d : diffs) {
    const Unit& unit = p.plan.units[d.unit];
    const Object& object = p.plan.object_of(unit);
    fs::path file = fs::path(unit.cluster) / plant::diff_file_name(object.ref);
    auto write = [&](const fs::path& root, const boost::json::object& o) {
      fs::create_directories((root / file).parent_path(), ec);
      std::ofstream(root / file) << to_yaml(o);
    };
    switch (d.state) {
      case plant::ObjectDiff::State::kSame:
        break;
      case plant::ObjectDiff::State::kChanged:
        write(live, *d.live);
        [[fallthrough]];
      case plant::ObjectDiff::State::kCreated:
        write(merged, *d.merged);
        differs = true;
        break;
      case plant::ObjectDiff::State::kLater:
        later += fmt::format("  {} on {}: {}\n", object.display(), unit.cluster, d.note);
        differs = true;
        break;
      case plant::ObjectDiff::State::kError:
        fmt::print(stderr, "error: {}: {} on {}: {}\n", object.where(), object.display(),
                   unit.cluster, d.note);
        failed = true;
        break;
    }
  }
  ProcessSpec spec;
  spec.path = "diff";
  spec.args = {"-u", "-N", "-r", live.string(), merged.string()};
  auto run = run_process(spec);
  fs::remove_all(base, ec);
  if (!run || run->exit_code > 1 || run->signal != 0) {
    fmt::print(stderr, "error: cannot compare with diff (diffutils): {}\n",
               run ? tail_lines(run->err, 5) : run.error().message);
    return kExitBadInput;
  }
  std::fwrite(run->out.data(), 1, run->out.size(), stdout);
  if (!later.empty()) fmt::print("\nto be created, not diffed now:\n{}", later);
  // What the seed's inventory lists and the seed no longer holds: planting prunes it.
  plant::Inventories inventories =
      plant::read_inventories(p.targets.clusters, inventory_options(f, p));
  for (const std::string& e : inventories.errors) {
    fmt::print(stderr, "error: {}\n", e);
    failed = true;
  }
  std::string pruned;
  for (const Plan& wave : plant::stale_plans(p.plan, inventories))
    for (const Unit& unit : wave.units)
      pruned += fmt::format("  {} on {}\n", wave.object_of(unit).display(), unit.cluster);
  if (!pruned.empty()) {
    fmt::print("\nto be pruned (the seed no longer holds them):\n{}", pruned);
    differs = true;
  }
  std::fflush(stdout);
  if (failed) return kExitBadInput;
  return differs ? kExitFailure : kExitOk;
}

// Plans the seed, finds the clusters, does `work`, then (--sim --keep) serves on until Ctrl-C.
int run_prepared(const PlantFlags& f, const std::function<int(Prepared&)>& work) {
  // Each line reaches a pipe as it is written, so a job killed later keeps what was said.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  Interrupts interrupts;  // before any thread starts
  auto p = prepare(f);
  if (!p) return p.error();
  p->interrupts = &interrupts;
  // The simulated fleet's planter scheduler, for stacks co-scheduled with mode: scheduler.
  std::unique_ptr<EmbeddedScheduler> scheduler;
  if (p->targets.sim) {
    sim::Server* server = p->targets.sim.get();
    scheduler = EmbeddedScheduler::start_if_needed(
        p->plan, [server](const std::string& cluster) -> std::optional<kube::RestConfig> {
          // The fleet's kubeconfig has a context per cluster once it serves it.
          auto config = kube::Kubeconfig::parse(server->kubeconfig(), "the simulated fleet", "");
          if (!config) return std::nullopt;
          auto rc = config->rest_config(cluster == kSelf ? "management" : cluster);
          if (!rc) return std::nullopt;
          return std::move(rc.value());
        });
  }
  interrupts.running(true);
  int rc = work(p.value());
  if (rc != kExitBadInput && interrupts.signal() == 0)
    keep_serving(f, p->targets, p->plan, interrupts);
  scheduler.reset();
  if (p->targets.sim) p->targets.sim->stop();
  return rc;
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
bool refused_by_preflight(const PlantFlags& f, const Prepared& p) {
  if (!f.preflight) return false;
  plant::PreflightOptions po;
  po.seed_name = p.seed_name;
  po.client = client_options(f.client);
  po.force_conflicts = f.force_conflicts;
  po.adopt = f.adopt;
  po.deadline = asking_deadline(f, std::chrono::seconds(60));
  plant::PreflightOutcome out = plant::preflight(p.plan, p.targets.clusters, po);
  if (!out.refused.empty()) {
    fmt::print(stderr, "{}", out.refused.str());
    return true;
  }
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

int run_diff(const PlantFlags& f) {
  return run_prepared(f, [&](Prepared& p) { return diff_prepared(f, p); });
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
