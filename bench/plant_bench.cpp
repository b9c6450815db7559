// What planting costs, measured against planter sims started in this process. Numbers only;
// nothing passes or fails on time.
//
//   1. 5,000 objects in 50 namespaces on one cluster whose writes take 2 ms (--write-latency 2):
//      `planter plant` against `kubectl apply --server-side -f` of the same file, each on a fresh
//      sim. Both are the real commands, run as child processes.
//   2. A seed whose critical path is set by the sim's delays: a workload cluster that takes 2 s to
//      provision, then on it a CRD (200 ms to establish) and a webhook whose Deployment takes 1 s
//      to be ready, and a custom resource that needs both. Makespan minus the critical path
//      (2 s + 1 s) is planter's own overhead; run by the engine in this process, three times.
//   3. 200 workload clusters the seed creates, 50 objects on each: `planter plant` wall time and
//      peak resident memory. PLANT_BENCH_PER_CLUSTER=N puts N objects on each instead (its
//      Namespace and N - 1 ConfigMaps; at least 1), to tell what a cluster costs from what an
//      object does.
//   4. 5,000 ConfigMaps (and their 50 Namespaces), writes taking 2 ms: objects/s, to compare with
//      sim_bench's creates/s with the same latency (the share of the sim's write capacity).
//   5. kube-prometheus (../shared/corpus), planted once with 2 ms writes: `planter diff` of it
//      (a GET and a dry run per object), and `replant` with and without its preflight.
//
// Usage: plant_bench [OBJECTS] [CLUSTERS]   (defaults 5000 and 200; PLANT_BENCH=N runs only N)
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "child_run.h"
#include "kube/kubeconfig.h"
#include "plan/planner.h"
#include "plant/engine.h"
#include "sim/server.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace planter;

using Run = bench::ChildRun;

// Runs a command (no shell), its output thrown away; wall time and the child's peak RSS.
Run run(const std::vector<std::string>& argv) {
  return bench::run_child(argv, PLANTER_BINARY);
}

struct Sim {
  std::unique_ptr<sim::Server> server;
  fs::path kubeconfig;
};

Sim start_sim(sim::ServerOptions options, const fs::path& dir, const std::string& name) {
  Sim s;
  auto server = sim::Server::create(std::move(options));
  if (!server) {
    fmt::print(stderr, "plant_bench: {}\n", server.error().message);
    std::exit(1);
  }
  s.server = std::move(server.value());
  s.server->start();
  s.kubeconfig = dir / (name + ".kubeconfig");
  std::ofstream(s.kubeconfig) << s.server->kubeconfig();
  return s;
}

std::string kubectl_binary() {
  fs::path tools = fs::path(PLANTER_SOURCE_DIR) / "build/tools/kubectl";
  if (fs::exists(tools)) return tools.string();
  for (const char* p : {"/usr/bin/kubectl", "/usr/local/bin/kubectl"})
    if (fs::exists(p)) return p;
  return "";
}

// Namespaces first (so that kubectl, which applies in file order, can take the file too), then
// ConfigMaps, Services and Deployments spread over them.
std::string many_objects(size_t objects, size_t namespaces) {
  std::string out;
  for (size_t n = 0; n < namespaces; ++n)
    out += fmt::format("---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns{:02}\n", n);
  for (size_t i = namespaces; i < objects; ++i) {
    size_t n = i % namespaces;
    switch (i % 4) {
      case 0:
        out += fmt::format(
            "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: svc{}\n  namespace: ns{:02}\n"
            "spec:\n  selector:\n    app: a{}\n  ports:\n  - port: 80\n",
            i, n, i);
        break;
      case 1:
        out += fmt::format(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d{}\n  namespace: "
            "ns{:02}\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: a{}\n  "
            "template:\n    metadata:\n      labels:\n        app: a{}\n    spec:\n      "
            "containers:\n      - name: c\n        image: nginx:1.27\n",
            i, n, i, i);
        break;
      default:
        out += fmt::format(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{}\n  namespace: ns{:02}\n"
            "data:\n  key: value{}\n",
            i, n, i);
    }
  }
  return out;
}

void against_kubectl(const fs::path& dir, size_t objects) {
  fs::path seed = dir / "many.yaml";
  std::ofstream(seed) << many_objects(objects, 50);
  auto options = [] {
    sim::ServerOptions o;
    o.fleet.cluster.faults.write_latency = std::chrono::milliseconds(2);
    return o;
  };
  fmt::print("1. {} objects in 50 namespaces, one cluster, --write-latency 2\n", objects);
  // The preflight's dry run costs a request per object it can judge: none on the first plant
  // (their 50 Namespaces are in the seed), all of them on a replant of the same seed. (The plain
  // plant runs first: a child's peak RSS counts this process's memory at the spawn, and the sims
  // live in this process.)
  Sim a = start_sim(options(), dir, "a");
  Run planter =
      run({PLANTER_BINARY, "plant", "--kubeconfig", a.kubeconfig.string(), seed.string()});
  fmt::print("   planter plant                     {:8.2f} s  (exit {}, peak RSS {:.0f} MiB)\n",
             planter.seconds, planter.code, planter.peak_rss_mib);
  Run again =
      run({PLANTER_BINARY, "replant", "--kubeconfig", a.kubeconfig.string(), seed.string()});
  Run again_bare = run({PLANTER_BINARY, "replant", "--preflight=false", "--kubeconfig",
                        a.kubeconfig.string(), seed.string()});
  fmt::print(
      "   planter replant (every object dry-run first)  {:8.2f} s  (exit {}); "
      "--preflight=false {:8.2f} s; preflight {:.0f} objects/s\n",
      again.seconds, again.code, again_bare.seconds,
      static_cast<double>(objects) / std::max(again.seconds - again_bare.seconds, 1e-3));
  a.server->stop();
  Sim none = start_sim(options(), dir, "none");
  Run bare = run({PLANTER_BINARY, "plant", "--preflight=false", "--kubeconfig",
                  none.kubeconfig.string(), seed.string()});
  fmt::print("   planter plant --preflight=false   {:8.2f} s  (exit {})\n", bare.seconds,
             bare.code);
  none.server->stop();
  std::string kubectl = kubectl_binary();
  if (kubectl.empty()) {
    fmt::print("   kubectl apply --server-side -f    (no kubectl: run `make clients`)\n");
    return;
  }
  Sim b = start_sim(options(), dir, "b");
  Run k = run({kubectl, "--kubeconfig", b.kubeconfig.string(), "--cache-dir",
               (dir / "kubectl-cache").string(), "apply", "--server-side", "-f", seed.string()});
  fmt::print("   kubectl apply --server-side -f    {:8.2f} s  (exit {})\n", k.seconds, k.code);
  b.server->stop();
  fmt::print("   planter is {:.1f}x faster ({:.1f}x without the preflight)\n",
             k.seconds / planter.seconds, k.seconds / bare.seconds);
}

constexpr const char* kCriticalPathSeed = R"(apiVersion: v1
kind: Namespace
metadata: {name: fleet}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: edge1, namespace: fleet}
---
apiVersion: v1
kind: Namespace
metadata:
  name: hooks
  annotations: {planter.nephio.org/cluster: edge1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: webhook, namespace: hooks}
spec:
  replicas: 1
  selector: {matchLabels: {app: webhook}}
  template:
    metadata: {labels: {app: webhook}}
    spec: {containers: [{name: webhook, image: example.org/webhook:1}]}
---
apiVersion: v1
kind: Service
metadata: {name: webhook, namespace: hooks}
spec:
  selector: {app: webhook}
  ports: [{port: 443, targetPort: 8443}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: widgets
  annotations: {planter.nephio.org/cluster: edge1}
webhooks:
- name: widgets.example.org
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    service: {name: webhook, namespace: hooks, path: /validate}
  rules:
  - apiGroups: [example.org]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [widgets]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.org
  annotations: {planter.nephio.org/cluster: edge1}
spec:
  group: example.org
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: v1
kind: Namespace
metadata:
  name: app
  annotations: {planter.nephio.org/cluster: edge1}
---
apiVersion: example.org/v1
kind: Widget
metadata: {name: w1, namespace: app}
spec: {size: 3}
)";

void critical_path(const fs::path& dir) {
  fs::path seed = dir / "critical.yaml";
  std::ofstream(seed) << kCriticalPathSeed;
  constexpr double kCriticalMs = 2000 + 1000;  // provisioning, then the webhook's Deployment
  fmt::print(
      "2. critical path set by the sim: cluster 2 s, CRD 200 ms, webhook 1 s (sum {:.0f} ms)\n",
      kCriticalMs);
  PlanRequest req;
  req.sources = {seed.string()};
  PlanOutcome planned = build_plan(req);
  if (!planned.ok()) {
    fmt::print(stderr, "{}", planned.diags.str());
    std::exit(1);
  }
  for (int i = 0; i < 3; ++i) {
    sim::ServerOptions o;
    o.fleet.provision_delay = std::chrono::milliseconds(2000);
    o.fleet.cluster.crd_delay = std::chrono::milliseconds(200);
    o.fleet.cluster.workload_delay = std::chrono::milliseconds(1000);
    Sim s = start_sim(o, dir, "critical");
    auto config = kube::Kubeconfig::parse(s.server->kubeconfig(), "sim", "");
    std::map<std::string, kube::RestConfig> clusters{
        {"SELF", config->rest_config("management").value()}};
    plant::EngineOptions options;
    options.seed_name = "critical";
    plant::PlantOutcome out = plant::plant(planned.plan, clusters, options);
    double makespan = static_cast<double>(out.elapsed.count()) / 1000.0;
    fmt::print(
        "   run {}: makespan {:7.1f} ms, minus the critical path {:5.1f} ms ({} of {} "
        "declared)\n",
        i + 1, makespan, makespan - kCriticalMs, out.count(plant::UnitState::kDeclared),
        out.units.size());
    // When the overhead is large, show where the time went.
    if (makespan - kCriticalMs > 50)
      for (size_t u = 0; u < out.units.size(); ++u) {
        const plant::UnitRecord& r = out.units[u];
        fmt::print("      {:<60} ready {:7.1f} ms  declared {:7.1f} ms  held by {}\n",
                   planned.plan.object_of(planned.plan.units[u]).display(),
                   r.ready ? static_cast<double>(r.ready->count()) / 1000.0 : -1.0,
                   r.declared ? static_cast<double>(r.declared->count()) / 1000.0 : -1.0,
                   r.held_by);
      }
    s.server->stop();
  }
}

// Writes only, as sim_bench measures the sim's capacity: ConfigMaps in 50 namespaces with 2 ms
// writes. objects/s over the whole command and over its planting (from the summary line), to
// compare with sim_bench's creates/s at --write-latency 2.
void write_share(const fs::path& dir, size_t objects) {
  fs::path seed = dir / "configmaps.yaml";
  {
    std::ofstream out(seed);
    for (size_t n = 0; n < 50; ++n)
      out << fmt::format("---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns{:02}\n", n);
    for (size_t i = 50; i < objects; ++i)
      out << fmt::format(
          "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{}\n  namespace: ns{:02}\n"
          "data:\n  key: value{}\n",
          i, i % 50, i);
  }
  sim::ServerOptions o;
  o.fleet.cluster.faults.write_latency = std::chrono::milliseconds(2);
  Sim s = start_sim(o, dir, "share");
  fmt::print("4. {} objects (50 Namespaces, ConfigMaps), one cluster, --write-latency 2\n",
             objects);
  fs::path report = dir / "share-report.json";
  Run r = run({PLANTER_BINARY, "plant", "--kubeconfig", s.kubeconfig.string(), "--report",
               report.string(), seed.string()});
  double planting = 0;  // the last declaration, from the report
  std::ifstream in(report);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t at = text.find("\"declaredSeconds\":"); at != std::string::npos;
       at = text.find("\"declaredSeconds\":", at + 1))
    planting = std::max(planting, std::strtod(text.c_str() + at + 18, nullptr));
  fmt::print(
      "   planter plant                     {:8.2f} s  (exit {}): {:.0f} objects/s; "
      "{:.0f} objects/s while planting ({:.2f} s). Compare sim_bench's creates/s.\n",
      r.seconds, r.code, static_cast<double>(objects) / r.seconds,
      planting > 0 ? static_cast<double>(objects) / planting : 0.0, planting);
  s.server->stop();
}

void many_clusters(const fs::path& dir, size_t clusters) {
  size_t per_cluster = 50;
  if (const char* n = std::getenv("PLANT_BENCH_PER_CLUSTER"))
    per_cluster = std::max<size_t>(1, std::strtoul(n, nullptr, 10));
  fs::path seed = dir / "fleet.yaml";
  {
    std::ofstream out(seed);
    out << "apiVersion: v1\nkind: Namespace\nmetadata: {name: fleet}\n";
    for (size_t c = 0; c < clusters; ++c) {
      out << fmt::format(
          "---\napiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata: {{name: "
          "edge{:03}, namespace: fleet}}\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  "
          "name: app\n  annotations: {{planter.nephio.org/cluster: edge{:03}}}\n",
          c, c);
      for (size_t i = 0; i + 1 < per_cluster; ++i)
        out << fmt::format(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{}\n  namespace: app\n  "
            "annotations: {{planter.nephio.org/cluster: edge{:03}}}\ndata: {{k: v}}\n",
            i, c);
    }
  }
  sim::ServerOptions o;
  o.fleet.provision_delay = std::chrono::milliseconds(1000);
  Sim s = start_sim(o, dir, "fleet");
  fmt::print(
      "3. {} workload clusters created by the seed (provisioned after 1 s), {} objects "
      "each\n",
      clusters, per_cluster);
  Run r = run({PLANTER_BINARY, "plant", "--kubeconfig", s.kubeconfig.string(), seed.string()});
  fmt::print("   planter plant                     {:8.2f} s  (exit {}, peak RSS {:.0f} MiB)\n",
             r.seconds, r.code, r.peak_rss_mib);
  s.server->stop();
}

void kube_prometheus(const fs::path& dir) {
  fs::path seed =
      fs::path(PLANTER_SOURCE_DIR) / ".." / "shared" / "corpus" / "kube-prometheus" / "seed.yaml";
  if (!fs::exists(seed)) {
    fmt::print("5. kube-prometheus: {} is missing\n", seed.string());
    return;
  }
  sim::ServerOptions o;
  o.fleet.cluster.faults.write_latency = std::chrono::milliseconds(2);
  Sim s = start_sim(o, dir, "kube-prometheus");
  std::string kc = s.kubeconfig.string();
  fmt::print("5. kube-prometheus ({}), writes taking 2 ms\n", seed.string());
  Run plant = run({PLANTER_BINARY, "plant", "--kubeconfig", kc, seed.string()});
  fmt::print("   planter plant                     {:8.2f} s  (exit {})\n", plant.seconds,
             plant.code);
  Run diff = run({PLANTER_BINARY, "diff", "--kubeconfig", kc, seed.string()});
  fmt::print("   planter diff (no change)          {:8.2f} s  (exit {}: 0 is no differences)\n",
             diff.seconds, diff.code);
  Run again = run({PLANTER_BINARY, "replant", "--kubeconfig", kc, seed.string()});
  Run bare =
      run({PLANTER_BINARY, "replant", "--preflight=false", "--kubeconfig", kc, seed.string()});
  fmt::print(
      "   planter replant                   {:8.2f} s  (exit {}); --preflight=false "
      "{:.2f} s: the preflight costs {:.2f} s\n",
      again.seconds, again.code, bare.seconds, again.seconds - bare.seconds);
  s.server->stop();
}

}  // namespace

int main(int argc, char** argv) {
  size_t objects = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 5000;
  size_t clusters = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 200;
  fs::path dir = fs::temp_directory_path() / fmt::format("plant-bench-{}", getpid());
  fs::create_directories(dir);
  // PLANT_BENCH=2 runs only the second measurement, and so on.
  const char* only = std::getenv("PLANT_BENCH");
  auto wanted = [&](const char* n) { return !only || std::string(only) == n; };
  if (wanted("1")) against_kubectl(dir, objects);
  if (wanted("2")) critical_path(dir);
  if (wanted("4")) write_share(dir, objects);
  if (wanted("3")) many_clusters(dir, clusters);
  if (wanted("5")) kube_prometheus(dir);
  fs::remove_all(dir);
  return 0;
}
