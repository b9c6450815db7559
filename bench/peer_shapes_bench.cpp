// The shapes the systems planter is compared with publish their scale on (issue 53), planted on
// the sim: wall time and peak resident memory of `planter plant` (a child process, measured by
// wait4), the sim's resident memory (this process), KiB per managed object for each, and the
// audit log's word on correctness (every object of the seed created once, on its cluster).
// Numbers only; nothing passes or fails on time.
//
//   rhacm [CLUSTERS]   Red Hat ACM's telco hub: 3,500 single-node clusters by default, created
//                      by the seed, each with what a hub's policies put there (20 objects: the
//                      Node Tuning Operator's PerformanceProfile with its CRDs and pool, a
//                      Namespace, RBAC, a NetworkPolicy, ConfigMaps, a Secret).
//   karmada [CLUSTERS] [NODES] [COUNT]
//                      Karmada's test report's fan-out: one Deployment to COUNT (100) of CLUSTERS
//                      (1,000) existing clusters of NODES (500) nodes each (every one a candidate:
//                      they are labelled sim.planter.io/index), chosen by room: the choice reads
//                      every candidate's nodes.
//
// PLANT_BENCH_WRAP (words split at spaces) goes before planter's command, as in plant_bench.
#include <fmt/format.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "child_run.h"
#include "rss.h"
#include "sim/server.h"

namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace planter;

using Run = bench::ChildRun;

Run run_planter(std::vector<std::string> args) {
  args.insert(args.begin(), PLANTER_BINARY);
  return bench::run_child(args, PLANTER_BINARY);
}

// The objects of the seed the audit log has created, by "cluster object" (the log's own words:
// `v1|ConfigMap|du|policy-1`), with how many times each was.
std::map<std::string, int> creations(const fs::path& audit) {
  std::map<std::string, int> created;
  std::ifstream in(audit);
  for (std::string line; std::getline(in, line);) {
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (ec || !v.is_object()) continue;
    const json::object& e = v.as_object();
    const json::value* verb = e.if_contains("verb");
    const json::value* code = e.if_contains("code");
    if (!verb || !code || !verb->is_string() || !code->is_int64() || code->as_int64() != 201)
      continue;
    if (verb->as_string() != "create" && verb->as_string() != "apply") continue;
    const json::value* user = e.if_contains("user");
    if (!user || !user->is_string() || user->as_string() != "admin") continue;  // planter's
    std::string object = json::value_to<std::string>(e.at("object"));
    if (object.find("|planter-inventory-") != std::string::npos) continue;  // its own record
    created[fmt::format("{} {}", json::value_to<std::string>(e.at("cluster")), object)]++;
  }
  return created;
}

// `per` names what `objects` counts: the seed's objects, or the nodes a choice reads.
void report(const char* what, const Run& r, double sim_mib, size_t objects, const char* per,
            const std::map<std::string, int>& created, size_t expected) {
  size_t twice = 0;
  for (const auto& [_, n] : created) twice += n > 1;
  fmt::print("{}\n", what);
  fmt::print("   planter plant      {:8.2f} s  (exit {}), peak RSS {:.0f} MiB: {:.2f} KiB per {}\n",
             r.seconds, r.code, r.peak_rss_mib,
             r.peak_rss_mib * 1024 / static_cast<double>(objects), per);
  fmt::print("   the sim            {:8.0f} MiB resident: {:.2f} KiB per {}\n", sim_mib,
             sim_mib * 1024 / static_cast<double>(objects), per);
  fmt::print("   audit log          {} of {} objects created, {} more than once\n", created.size(),
             expected, twice);
}

sim::Server& start(std::unique_ptr<sim::Server>& holder, sim::ServerOptions options) {
  auto server = sim::Server::create(std::move(options));
  if (!server) {
    fmt::print(stderr, "peer_shapes_bench: {}\n", server.error().message);
    std::exit(1);
  }
  holder = std::move(server.value());
  holder->start();
  return *holder;
}

// A stand-in for an operator's CRD: its group, kind, scope and status; the schema left open.
std::string crd(std::string_view group, std::string_view kind, std::string_view version,
                std::string_view on) {
  std::string plural = fmt::format("{}s", kind), singular(kind);
  for (std::string* s : {&plural, &singular})
    for (char& c : *s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return fmt::format(
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: "
      "{}.{}\n{}spec:\n  group: {}\n  scope: Cluster\n  names: {{kind: {}, listKind: {}List, "
      "plural: {}, singular: {}}}\n  versions:\n  - name: {}\n    served: true\n    storage: "
      "true\n    subresources: {{status: {{}}}}\n    schema: {{openAPIV3Schema: {{type: object, "
      "x-kubernetes-preserve-unknown-fields: true}}}}\n",
      plural, group, on, group, kind, kind, plural, singular, version);
}

void rhacm(const fs::path& dir, size_t clusters) {
  fs::path seed = dir / "hub.yaml";
  size_t per_cluster = 0;
  {
    std::ofstream out(seed);
    out << "apiVersion: v1\nkind: Namespace\nmetadata: {name: fleet}\n";
    for (size_t c = 0; c < clusters; ++c) {
      std::string on = fmt::format("  annotations: {{planter.nephio.org/cluster: sno{:04}}}\n", c);
      std::vector<std::string> objects = {
          crd("performance.openshift.io", "PerformanceProfile", "v2", on),
          crd("machineconfiguration.openshift.io", "MachineConfigPool", "v1", on),
          fmt::format("apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\n"
                      "metadata:\n  name: master\n  labels: {{machineconfiguration.openshift.io/"
                      "role: master}}\n{}spec:\n  nodeSelector: {{matchLabels: "
                      "{{node-role.kubernetes.io/master: \"\"}}}}\n",
                      on),
          fmt::format("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\n"
                      "metadata:\n  name: du-perf\n{}spec:\n  cpu: {{isolated: \"2-7\", reserved: "
                      "\"0-1\"}}\n  hugepages: {{defaultHugepagesSize: 1G, pages: [{{size: 1G, "
                      "count: 4}}]}}\n  realTimeKernel: {{enabled: true}}\n  "
                      "machineConfigPoolSelector: {{machineconfiguration.openshift.io/role: "
                      "master}}\n  nodeSelector: {{node-role.kubernetes.io/master: \"\"}}\n",
                      on),
          fmt::format("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: du\n{}", on),
          fmt::format("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: du-operator\n  "
                      "namespace: du\n{}",
                      on),
          fmt::format("apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: "
                      "du-operator\n  namespace: du\n{}rules:\n- apiGroups: [\"\"]\n  resources: "
                      "[configmaps]\n  verbs: [get, list, watch]\n",
                      on),
          fmt::format("apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  "
                      "name: du-operator\n  namespace: du\n{}roleRef: {{apiGroup: "
                      "rbac.authorization.k8s.io, kind: Role, name: du-operator}}\nsubjects:\n- "
                      "{{kind: ServiceAccount, name: du-operator, namespace: du}}\n",
                      on),
          fmt::format("apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: "
                      "default-deny\n  namespace: du\n{}spec:\n  podSelector: {{}}\n  "
                      "policyTypes: [Ingress]\n",
                      on),
          fmt::format("apiVersion: v1\nkind: Secret\nmetadata:\n  name: pull-secret\n  "
                      "namespace: du\n{}stringData: {{token: not-a-secret}}\n",
                      on)};
      for (int i = 0; i < 10; ++i)
        objects.push_back(
            fmt::format("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "
                        "policy-{}\n  namespace: du\n{}data: {{ptp: \"profile {}\", "
                        "sriov: \"pf{}\"}}\n",
                        i, on, i, i));
      per_cluster = objects.size();
      out << fmt::format(
          "---\napiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata: {{name: "
          "sno{:04}, namespace: fleet}}\nspec:\n  nodes:\n  - name: sno\n    count: 1\n    "
          "labels: {{node-role.kubernetes.io/master: \"\"}}\n",
          c);
      for (const std::string& o : objects) out << "---\n" << o;
    }
  }
  sim::ServerOptions o;
  o.audit_log = (dir / "hub-audit.jsonl").string();
  o.fleet.provision_delay = std::chrono::milliseconds(1000);
  std::unique_ptr<sim::Server> holder;
  sim::Server& s = start(holder, o);
  fs::path kubeconfig = dir / "hub.kubeconfig";
  std::ofstream(kubeconfig) << s.kubeconfig();
  Run r = run_planter({"plant", "--kubeconfig", kubeconfig.string(), seed.string()});
  double sim_mib = bench::rss_mib();
  s.stop();
  size_t objects = clusters * per_cluster;
  std::map<std::string, int> created;
  for (const auto& [key, n] : creations(o.audit_log))
    if (key.starts_with("sno")) created.emplace(key, n);
  report(fmt::format("rhacm: {} single-node clusters the seed creates, {} objects each ({} "
                     "objects)",
                     clusters, per_cluster, objects)
             .c_str(),
         r, sim_mib, objects, "object", created, objects);
}

void karmada(const fs::path& dir, size_t clusters, int nodes, size_t count) {
  fs::path seed = dir / "fanout.yaml";
  std::ofstream(seed) << fmt::format(
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\n  "
      "annotations:\n    planter.nephio.org/cluster-selector: sim.planter.io/index\n    "
      "planter.nephio.org/cluster-count: \"{}\"\nspec:\n  replicas: 2\n  selector: {{matchLabels: "
      "{{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      "
      "containers:\n      - name: web\n        image: nginx\n        resources: {{requests: {{cpu: "
      "500m, memory: 256Mi}}}}\n",
      count);
  sim::ServerOptions o;
  o.audit_log = (dir / "fanout-audit.jsonl").string();
  o.fleet.clusters = static_cast<int>(clusters);
  o.fleet.cluster.nodes.front().count = nodes;
  auto begin = Clock::now();
  std::unique_ptr<sim::Server> holder;
  sim::Server& s = start(holder, o);
  double up = std::chrono::duration<double>(Clock::now() - begin).count();
  fs::path kubeconfig = dir / "fanout.kubeconfig";
  std::ofstream(kubeconfig) << s.kubeconfig();
  Run r = run_planter({"plant", "--kubeconfig", kubeconfig.string(), seed.string()});
  double sim_mib = bench::rss_mib();
  s.stop();
  std::map<std::string, int> created;
  for (const auto& [key, n] : creations(o.audit_log))
    if (key.find("|Deployment|default|web") != std::string::npos) created.emplace(key, n);
  fmt::print("   (the sim served {} clusters of {} nodes after {:.1f} s)\n", clusters, nodes, up);
  report(fmt::format("karmada: one Deployment to {} of {} existing clusters of {} nodes each",
                     count, clusters, nodes)
             .c_str(),
         r, sim_mib, static_cast<size_t>(nodes) * clusters, "node", created, count);
}

}  // namespace

int main(int argc, char** argv) {
  std::string shape = argc > 1 ? argv[1] : "rhacm";
  auto arg = [&](int i, size_t fallback) {
    return argc > i ? std::strtoul(argv[i], nullptr, 10) : fallback;
  };
  fs::path dir = fs::temp_directory_path() / fmt::format("peer-shapes-{}", getpid());
  fs::create_directories(dir);
  if (shape == "rhacm") {
    rhacm(dir, arg(2, 3500));
  } else if (shape == "karmada") {
    karmada(dir, arg(2, 1000), static_cast<int>(arg(3, 500)), arg(4, 100));
  } else {
    fmt::print(stderr,
               "usage: peer_shapes_bench rhacm [CLUSTERS] | karmada [CLUSTERS] [NODES] [COUNT]\n");
    return 2;
  }
  fs::remove_all(dir);
  return 0;
}
