#include "cli/seed_target.h"

#include <fmt/format.h>
#include <signal.h>

#include <boost/json.hpp>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/embedded_scheduler.h"
#include "cli/sim_command.h"
#include "model/files.h"
#include "model/names.h"
#include "plant/engine.h"
#include "plant/existing_clusters.h"
#include "plant/gang_paths.h"
#include "plant/health_wait.h"
#include "plant/served_kinds.h"

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

std::string adopt_hint(const PlantFlags& f, const std::string& seed_name) {
  std::string origin = "given with --seed-name";
  if (f.seed_name.empty()) {
    std::vector<std::string> sources = all_sources(f.seed);
    origin = sources.empty()
                 ? "the default"
                 : fmt::format("derived from {} (--seed-name sets it)", sources.front());
  }
  return fmt::format(
      "this run is seed \"{}\" ({}): if that object is this seed's, planted under another name, "
      "run with --seed-name set to that name; to take it over, use --adopt",
      seed_name, origin);
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
namespace {
// The end of the whole command (--timeout from its start): every step's own patience stops there.
std::optional<std::chrono::steady_clock::time_point> run_deadline;
}  // namespace

std::chrono::steady_clock::time_point asking_deadline(const PlantFlags& f,
                                                      std::chrono::milliseconds cap) {
  auto own = std::chrono::steady_clock::now() + std::min(timeout_of(f).value_or(cap), cap);
  return run_deadline ? std::min(own, *run_deadline) : own;
}

namespace {

// "SELF at https://10.0.0.1:6443, edge1 at ...": the clusters a step talks to, for an early
// signal or the deadline to name (three at most).
std::string describe_clusters(const std::map<std::string, kube::RestConfig>& clusters) {
  std::string out;
  size_t n = 0;
  for (const auto& [name, config] : clusters) {
    if (n++ == 3) {
      out += fmt::format(" and {} more", clusters.size() - 3);
      break;
    }
    out += fmt::format("{}cluster {} at {}", out.empty() ? "" : ", ", name, config.server);
  }
  return out;
}

// The management cluster: the simulated fleet started here (--sim), or the kubeconfig's context.
// Workload clusters given with --cluster are added by add_cluster_contexts once the plan is made.
Result<Targets> connect_management(const PlantFlags& f) {
  Targets t;
  Result<kube::Kubeconfig> config = Error{""};
  if (f.sim) {
    SimFlags sf;
    sf.port = 0;
    sf.audit_log = f.sim_audit_log;
    sf.clusters = f.sim_clusters;
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

Expected<Prepared, int> prepare(const PlantFlags& f, Interrupts& interrupts,
                                std::string_view nothing_done) {
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
    interrupts.talking_to(describe_clusters(t->clusters));
    interrupts.doing("reading the management cluster's cluster objects");
    plant::ExistingClustersOptions options;
    options.deadline = asking_deadline(f, std::chrono::milliseconds(plant::kTransientGiveUp));
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
    interrupts.talking_to(describe_clusters(t->clusters));
    interrupts.doing("asking the clusters which kinds they serve");
    return plant::unserved_kinds(plan, t->clusters, client_options(f.client),
                                 asking_deadline(f, std::chrono::seconds(10)));
  };
  auto planned = plan_from_flags(f.seed, existing, also);
  if (!planned) {
    fmt::print(stderr, "{}: fix the seed and run again\n", nothing_done);
    return planned.error();
  }
  Result<Targets>& t = connect();
  std::optional<Error> bad = t ? add_cluster_contexts(planned.value(), t.value()) : t.error();
  if (bad) {
    fmt::print(stderr, "error: {}\n{}\n", bad->message, nothing_done);
    return kExitBadInput;
  }
  // A mode-gang stack whose cluster lacks Kubernetes' gang API (v1beta1) is planned again with
  // the gang that cluster offers.
  interrupts.doing("asking the clusters how they gang pods");
  std::map<std::string, GangPath> paths =
      plant::choose_gang_paths(planned.value(), t->clusters, client_options(f.client),
                               asking_deadline(f, std::chrono::seconds(10)));
  if (!paths.empty()) {
    for (const auto& [stack, path] : paths)
      fmt::print("stack {}: its cluster gangs it with {}\n", stack, to_string(path));
    planned = plan_from_flags(f.seed, existing, also, paths);
    if (!planned) {
      fmt::print(stderr, "{}: fix the seed and run again\n", nothing_done);
      return planned.error();
    }
  }
  // It becomes a label value, a field manager and the inventory's name: refused before any
  // request when it cannot be one.
  if (std::string why = label_value_problem(f.seed_name); !f.seed_name.empty() && !why.empty()) {
    fmt::print(stderr,
               "error: --seed-name {}: {}; it becomes the planter.nephio.org/seed label's "
               "value\n{}\n",
               boost::json::serialize(boost::json::value(f.seed_name)), why, nothing_done);
    return kExitBadInput;
  }
  std::string name = f.seed_name.empty() ? default_seed_name(all_sources(f.seed)) : f.seed_name;
  return Prepared{std::move(planned.value()), std::move(t.value()), std::move(name)};
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
    if (f.seed.default_cluster != kSelf) seed += " --default-cluster " + f.seed.default_cluster;
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

}  // namespace

// --wait: every object healthy (health_wait.h), by --timeout's end or 300 s when there is none.
bool wait_healthy(const PlantFlags& f, Prepared& p) {
  plant::HealthWaitOptions o;
  o.seed_name = p.seed_name;
  o.client = client_options(f.client);
  o.deadline = p.run->deadline(std::chrono::seconds(300));
  o.stop = p.interrupts->stop_token();
  auto start = std::chrono::steady_clock::now();
  o.on_change = [&](size_t u, const plant::Readiness& r) {
    if (!r.holds && !f.verbose) return;
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const Unit& unit = p.plan.units[u];
    fmt::print("{:7.3f}s  {}  {}: {}\n", t, unit.cluster, p.plan.object_of(unit).display(),
               r.holds ? "healthy" : r.why);
  };
  fmt::print("\nwaiting for {} objects to be healthy\n", p.plan.units.size());
  plant::HealthOutcome h = plant::wait_healthy(p.plan, p.run->clusters(), o);
  if (h.timed_out) fmt::print("timed out waiting for health\n");
  fmt::print("{}", plant::render_health_summary(p.plan, h));
  return h.all_healthy();
}

// Plans the seed, finds the clusters, does `work`, then (--sim --keep) serves on until Ctrl-C.
int run_prepared(const PlantFlags& f, const std::function<int(Prepared&)>& work,
                 std::string_view nothing_done) {
  // Each line reaches a pipe as it is written, so a job killed later keeps what was said.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  auto start = std::chrono::steady_clock::now();
  Interrupts interrupts;  // before any thread starts
  if (auto timeout = timeout_of(f)) {
    run_deadline = start + *timeout;
    interrupts.set_deadline(*run_deadline, f.timeout_s);
  }
  interrupts.doing("planning the seed");
  interrupts.nothing_done(std::string(nothing_done));
  auto p = prepare(f, interrupts, nothing_done);
  if (!p) return p.error();
  p->interrupts = &interrupts;
  interrupts.talking_to(describe_clusters(p->targets.clusters));
  interrupts.doing("reaching the clusters the seed creates");
  plant::SeedRunOptions so;
  so.seed_name = p->seed_name;
  so.client = client_options(f.client);
  so.stop = interrupts.stop_token();
  so.deadline = run_deadline;
  so.warn = [](const std::string& w) { fmt::print(stderr, "warning: {}\n", w); };
  so.on_pruned = [verbose = f.verbose](const Plan& wave, size_t u, const plant::RemovalRecord& r) {
    if (r.state == plant::RemovalState::kAbsent && !verbose) return;
    const Unit& unit = wave.units[u];
    fmt::print("pruned: {} on {}: {}{}\n", wave.object_of(unit).display(), unit.cluster,
               plant::to_string(r.state), r.note.empty() ? "" : " (" + r.note + ")");
  };
  p->run = std::make_unique<plant::SeedRun>(p->plan, p->targets.clusters, std::move(so));
  p->run->reach();
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
  interrupts.talking_to(describe_clusters(p->run->clusters()));
  int rc = work(p.value());
  interrupts.disarm();
  if (rc != kExitBadInput && interrupts.signal() == 0) {
    keep_serving(f, p->targets, p->plan, interrupts);
    if (!p->targets.sim && p->view && f.keep) {
      fmt::print("the live view keeps serving at {}; Ctrl-C stops it\n", p->view_url);
      std::fflush(stdout);
      interrupts.wait();
    }
  }
  scheduler.reset();
  if (p->targets.sim) p->targets.sim->stop();
  return rc;
}

}  // namespace planter::cli
