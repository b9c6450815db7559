// The sim's scheduler under kube-scheduler's own performance shapes (Kubernetes'
// test/integration/scheduler_perf): nodes of 4 cpu, 32Gi and 110 pods; pods of one container
// asking (and limited to) 100m cpu and 500Mi. Per shape, a `planter sim` runs in a child process
// of its own (so its memory figure is its own) with the nodes; the initial pods are created
// through the API and bound, then the measured pods are created through the API by 16 clients;
// throughput runs from the first measured create to the moment no measured pod is left unbound.
// Then: resident memory of the sim with 5000 nodes and 20,000 pods, and the time from create to
// bind of one pod at a time in an otherwise idle sim (p50/p99). Numbers only; nothing passes or
// fails on time.
//
// SchedulingWithResourceClaimTemplate adds DRA: 10 devices per node, a claim per pod from a
// template (the sim's ResourceClaim controller makes it, its scheduler allocates it).
//
// The sim's nodes run no kubelets, as scheduler_perf's nodes are fake: a bound pod stays as bound,
// and the sim's loop goes to the API server and the scheduler (kubelets writing each bound pod's
// status took 44 % of it in SchedulingBasic). With `kubelets` as the third argument they run.
//
// Usage: scheduler_bench [SCALE [SHAPE [kubelets]]]   (SCALE default 1: the full shapes, 0.1 a
// tenth of everything; SHAPE: run only the shapes whose name contains it ("" for all), and no
// latency figure)
#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "model/huge_page_heap.h"
#include "rss.h"
#include "sim_child.h"

using Clock = std::chrono::steady_clock;

namespace {

using planter::bench::Connection;
using planter::bench::rss_mib;
using Verb = Connection::Verb;

bool kubelets = false;

planter::bench::SimChild start_sim(int nodes, int zones) {
  return planter::bench::start_sim(nodes, zones, "4", "32Gi", false, "", kubelets);
}
using planter::bench::stop_sim;

struct Shape {
  const char* name;
  int nodes, initial, measured;
  const char* affinity;  // JSON members added to the pod spec
  const char* labels;
  double threshold;  // kube-scheduler's own threshold, pods/s
  // SchedulingWithResourceClaimTemplate: each node publishes 10 devices of a test driver, and
  // each pod gets a claim for one from a ResourceClaimTemplate (scheduler_perf's dra/ shapes).
  bool dra = false;
};

constexpr int kDevicesPerNode = 10;  // scheduler_perf's maxClaimsPerNode for 500 nodes

constexpr const char* kClaimFromTemplate =
    R"(,"resourceClaims":[{"name":"resource","resourceClaimTemplateName":"test-claim-template"}])";

// The DeviceClass, the template and one ResourceSlice per node, as scheduler_perf's DRA test
// driver publishes them.
void create_dra_objects(Connection& conn) {
  conn.send(
      Verb::kPost, "/apis/resource.k8s.io/v1/deviceclasses",
      R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"test-class"},)"
      R"("spec":{"selectors":[{"cel":{"expression":"device.driver == 'test-driver.cdi.k8s.io'"}}]}})");
  conn.send(Verb::kPost, "/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates",
            R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",)"
            R"("metadata":{"name":"test-claim-template"},"spec":{"spec":{"devices":{"requests":)"
            R"([{"name":"req-0","exactly":{"deviceClassName":"test-class"}}]}}}})");
  std::string nodes;
  conn.send(Verb::kGet, "/api/v1/nodes", "", &nodes);
  boost::json::value list = boost::json::parse(nodes);
  for (const boost::json::value& n : list.at("items").as_array()) {
    std::string name(n.at("metadata").at("name").as_string());
    std::string devices;
    for (int d = 0; d < kDevicesPerNode; ++d)
      devices += (d ? "," : "") + std::string(R"({"name":"device-)") + std::to_string(d) + R"("})";
    conn.send(Verb::kPost, "/apis/resource.k8s.io/v1/resourceslices",
              R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":")" +
                  name +
                  R"(-test-driver"},"spec":{"driver":"test-driver.cdi.k8s.io","nodeName":")" +
                  name + R"(","pool":{"name":")" + name +
                  R"(","generation":1,"resourceSliceCount":1},"devices":[)" + devices + "]}}");
  }
}

constexpr const char* kAntiAffinity =
    R"(,"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"color":"green"}},"topologyKey":"kubernetes.io/hostname"}]}})";
constexpr const char* kAffinity =
    R"(,"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"color":"blue"}},"topologyKey":"topology.kubernetes.io/zone"}]}})";
constexpr const char* kNodeAffinity =
    R"(,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":["zone-0"]}]}]}}})";

std::string pod(const Shape& s, const std::string& name) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","labels":{"color":")" + s.labels +
         R"("}},"spec":{"containers":[{"name":"pause","image":"registry.k8s.io/pause:3.10",)"
         R"("resources":{"requests":{"cpu":"100m","memory":"500Mi"},)"
         R"("limits":{"cpu":"100m","memory":"500Mi"})" +
         (s.dra ? R"(,"claims":[{"name":"resource"}])" : "") + "}}]" + s.affinity +
         (s.dra ? kClaimFromTemplate : "") + "}}";
}

// Creates pods [from, to) with `clients` connections; returns failures.
int create_pods(const std::string& port, const std::string& token, const Shape& s, int from, int to,
                int clients) {
  std::atomic<int> next{from}, failures{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&] {
      Connection conn(port, token);
      for (int i = next++; i < to; i = next++) {
        if (conn.send(Verb::kPost, "/api/v1/namespaces/default/pods",
                      pod(s, "p-" + std::to_string(i))) != 201)
          ++failures;
      }
    });
  for (auto& t : threads) t.join();
  return failures;
}

// Waits until no pod of the namespace is unbound; returns false after `limit`.
bool wait_all_bound(Connection& conn, std::chrono::seconds limit) {
  auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    std::string body;
    conn.send(Verb::kGet, "/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3D&limit=1",
              "", &body);
    if (body.find("\"items\":[]") != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

int scaled(int n, double scale) {
  return std::max(1, static_cast<int>(n * scale));
}

// Gangs: scheduling.k8s.io/v1beta1 PodGroups of 8 pods (gang minCount 8) on 1000 nodes, the
// groups made first, then their pods by 16 clients; from the first pod's create until every pod
// is bound, in groups per second (planter_scheduler_bench's Gangs beside it, for `planter
// scheduler` with scheduler-plugins' PodGroups).
void gangs(double scale) {
  constexpr int kGroupSize = 8;
  int nodes = scaled(1000, scale), groups = scaled(500, scale);
  planter::bench::SimChild sim = start_sim(nodes, 1);
  Connection conn(sim.port, sim.token);
  int failed = 0;
  for (int g = 0; g < groups; ++g)
    if (conn.send(Verb::kPost, "/apis/scheduling.k8s.io/v1beta1/namespaces/default/podgroups",
                  R"({"apiVersion":"scheduling.k8s.io/v1beta1","kind":"PodGroup","metadata":)"
                  R"({"name":"g-)" +
                      std::to_string(g) +
                      R"("},"spec":{"schedulingPolicy":{"gang":{"minCount":8}}}})") != 201)
      ++failed;
  auto start = Clock::now();
  std::atomic<int> next{0}, failures{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < 16; ++c)
    threads.emplace_back([&] {
      Connection client(sim.port, sim.token);
      for (int i = next++; i < groups * kGroupSize; i = next++) {
        std::string body =
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-)" + std::to_string(i) +
            R"("},"spec":{"schedulingGroup":{"podGroupName":"g-)" + std::to_string(i / kGroupSize) +
            R"("},"containers":[{"name":"pause","image":"registry.k8s.io/pause:3.10",)"
            R"("resources":{"requests":{"cpu":"100m","memory":"500Mi"}}}]}})";
        if (client.send(Verb::kPost, "/api/v1/namespaces/default/pods", body) != 201) ++failures;
      }
    });
  for (auto& t : threads) t.join();
  bool bound = wait_all_bound(conn, std::chrono::seconds(600));
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf(
      "gangs of %d (PodGroup v1beta1, minCount %d) on %d nodes: %d groups in %.2f s, "
      "%.0f groups/s%s\n",
      kGroupSize, kGroupSize, nodes, groups, secs, groups / secs,
      failed || failures || !bound ? "  (creates failed or pods left unbound)" : "");
  std::fflush(stdout);
  stop_sim(sim);
}

}  // namespace

int main(int argc, char** argv) {
  // The forked sim's heap as `planter sim` has it (model/huge_page_heap.h).
  planter::run_on_huge_page_heap();
  double scale = argc > 1 ? std::strtod(argv[1], nullptr) : 1.0;
  std::string only = argc > 2 ? argv[2] : "";
  kubelets = argc > 3 && std::string(argv[3]) == "kubelets";
  const Shape shapes[] = {
      {"SchedulingBasic", 5000, 1000, 10000, "", "green", 680},
      {"SchedulingPodAntiAffinity", 5000, 1000, 2000, kAntiAffinity, "green", 60},
      {"SchedulingPodAffinity", 5000, 5000, 5000, kAffinity, "blue", 35},
      {"SchedulingNodeAffinity", 5000, 5000, 10000, kNodeAffinity, "green", 220},
      // scheduler_perf dra/performance-config.yaml, 5000pods_500nodes (without queueing hints).
      {"SchedulingWithResourceClaimTemplate", 500, 2500, 2500, "", "green", 40, true},
  };
  std::printf("%-27s %6s %8s %9s %12s %10s %12s\n", "shape", "nodes", "initial", "measured",
              "seconds", "pods/s", "kube's bar");
  for (const Shape& s : shapes) {
    if (!only.empty() && std::string(s.name).find(only) == std::string::npos) continue;
    int nodes = scaled(s.nodes, scale), initial = scaled(s.initial, scale),
        measured = scaled(s.measured, scale);
    planter::bench::SimChild sim = start_sim(nodes, 1);
    Connection probe(sim.port, sim.token);
    if (s.dra) create_dra_objects(probe);
    int failed = create_pods(sim.port, sim.token, s, 0, initial, 16);
    if (!wait_all_bound(probe, std::chrono::seconds(600))) failed = -1;
    auto start = Clock::now();
    failed += create_pods(sim.port, sim.token, s, initial, initial + measured, 16);
    bool bound = wait_all_bound(probe, std::chrono::seconds(1200));
    double secs = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("%-27s %6d %8d %9d %12.2f %10.0f %12.0f%s\n", s.name, nodes, initial, measured,
                secs, measured / secs, s.threshold,
                failed || !bound ? "  (creates failed or pods left unbound)" : "");
    std::fflush(stdout);
    if (&s == &shapes[0] && only.empty()) {
      // Memory: the same sim grown to 20,000 pods.
      int total = scaled(20000, scale);
      create_pods(sim.port, sim.token, s, initial + measured, total, 16);
      wait_all_bound(probe, std::chrono::seconds(600));
      std::printf("resident memory of the sim with %d nodes and %d pods: %.0f MiB\n", nodes, total,
                  rss_mib(sim.pid));
    }
    stop_sim(sim);
  }

  if (only.empty() || std::string("Gangs").find(only) != std::string::npos) gangs(scale);
  if (!only.empty()) return 0;
  // Latency of one pod at a time in an idle sim.
  planter::bench::SimChild sim = start_sim(scaled(5000, scale), 1);
  Connection conn(sim.port, sim.token);
  Shape one{"latency", 0, 0, 0, "", "green", 0};
  std::vector<double> ms;
  for (int i = 0; i < 200; ++i) {
    std::string name = "lat-" + std::to_string(i);
    auto start = Clock::now();
    conn.send(Verb::kPost, "/api/v1/namespaces/default/pods", pod(one, name));
    std::string body;
    while (body.find("\"nodeName\"") == std::string::npos)
      conn.send(Verb::kGet, "/api/v1/namespaces/default/pods/" + name, "", &body);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::sort(ms.begin(), ms.end());
  std::printf("one pod in an idle sim of %d nodes, create to bind: p50 %.2f ms, p99 %.2f ms\n",
              scaled(5000, scale), ms[ms.size() / 2], ms[ms.size() * 99 / 100]);
  stop_sim(sim);
  return 0;
}
