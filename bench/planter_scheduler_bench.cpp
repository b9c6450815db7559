// `planter scheduler` (src/scheduler/scheduler.h) against the sim, on the shapes of Kubernetes'
// test/integration/scheduler_perf (as scheduler_bench measures the sim's own scheduler): nodes
// of 4 cpu, 32Gi and 110 pods; pods of 100m cpu and 500Mi whose schedulerName is planter. The
// sim runs in a child process; the scheduler in this one, with its informers and bindings over
// HTTP. Per shape: the initial pods are created and bound, then the measured pods are created by
// 16 clients; throughput runs from the first measured create until the scheduler has bound the
// last (its own count of successful bindings). SchedulingWithExtendedResource's nodes each have 4
// of example.com/foo and its pods ask for one each (kube-scheduler's threshold for the shape: 180).
// Then gangs: PodGroups of 10 pods (minMember 10) on 1000 nodes, groups per second; and the
// scheduler's resident memory with 5000 nodes and 20,000 pods. Numbers only.
//
// The sim's nodes run no kubelets, as scheduler_perf's nodes are fake: a bound pod stays as bound,
// and the sim's CPU (on the same machine) goes to the API server. With `kubelets` as the third
// argument they run, and every bound pod gets the kubelet's status write on top.
//
// Usage: planter_scheduler_bench [SCALE [SHAPE|Memory|Gangs [kubelets]]]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "kube/client.h"
#include "rss.h"
#include "scheduler/scheduler.h"
#include "sim_child.h"

using Clock = std::chrono::steady_clock;

namespace {

using planter::bench::SimChild;

struct Shape {
  const char* name;
  int nodes, initial, measured;
  const char* affinity;
  const char* labels;
  double threshold;           // kube-scheduler's threshold, pods/s
  const char* extended = "";  // NAME=QUANTITY every node has; each pod requests one
};

constexpr const char* kAntiAffinity =
    R"(,"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"color":"green"}},"topologyKey":"kubernetes.io/hostname"}]}})";
constexpr const char* kAffinity =
    R"(,"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"color":"blue"}},"topologyKey":"topology.kubernetes.io/zone"}]}})";
constexpr const char* kNodeAffinity =
    R"(,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":["zone-0"]}]}]}}})";

boost::json::object pod(const std::string& name, const std::string& labels,
                        const std::string& extra, const std::string& extended = "") {
  std::string device =
      extended.empty() ? "" : R"(,")" + extended.substr(0, extended.find('=')) + R"(":"1")";
  return boost::json::parse(
             R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
             R"(","namespace":"default","labels":{)" + labels +
             R"(}},"spec":{"schedulerName":"planter","containers":[{"name":"pause",)"
             R"("image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":"100m",)"
             R"("memory":"500Mi")" +
             device + R"(},"limits":{"cpu":"100m","memory":"500Mi")" + device + "}}}]" + extra +
             "}}")
      .as_object();
}

std::unique_ptr<planter::kube::Client> client_for(const SimChild& sim) {
  planter::kube::RestConfig rc;
  rc.server = "https://127.0.0.1:" + sim.port;
  rc.insecure_skip_tls_verify = true;
  rc.auth.token = sim.token;
  planter::kube::ClientOptions options;
  options.transport.qps = 0;  // as `planter scheduler` runs by default: the server paces it
  return std::move(planter::kube::Client::create(rc, options).value());
}

// Creates the objects made by `make(i)` for i in [from, to) with 16 clients; returns failures.
int create(const SimChild& sim, int from, int to,
           const std::function<boost::json::object(int)>& make) {
  std::atomic<int> next{from}, failures{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < 16; ++c)
    threads.emplace_back([&] {
      auto client = client_for(sim);
      for (int i = next++; i < to; i = next++)
        if (!client->create(make(i))) ++failures;
    });
  for (auto& t : threads) t.join();
  return failures;
}

// Waits until the scheduler has bound `count` pods in all (its own counter: polling the sim
// would take the sim's CPU from it).
bool wait_bound(const planter::scheduler::Scheduler& scheduler, uint64_t count,
                std::chrono::seconds limit) {
  auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (scheduler.stats().scheduled.load() >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

// planter's scheduler for the sim, in this process, until destroyed.
class InProcess {
 public:
  explicit InProcess(const SimChild& sim) {
    client_ = client_for(sim);
    planter::scheduler::SchedulerOptions options;
    options.log = [](const std::string& m) { std::fprintf(stderr, "scheduler: %s\n", m.c_str()); };
    scheduler_ = std::make_unique<planter::scheduler::Scheduler>(*client_, options);
    thread_ = std::jthread([this](std::stop_token t) { scheduler_->run(t); });
  }
  const planter::scheduler::Scheduler& scheduler() const { return *scheduler_; }
  ~InProcess() {
    thread_.request_stop();
    thread_.join();
  }

 private:
  std::unique_ptr<planter::kube::Client> client_;
  std::unique_ptr<planter::scheduler::Scheduler> scheduler_;
  std::jthread thread_;
};

int scaled(int n, double scale) {
  return std::max(1, static_cast<int>(n * scale));
}

constexpr const char* kPodGroupCrd =
    R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
    R"("metadata":{"name":"podgroups.scheduling.x-k8s.io"},"spec":{"group":"scheduling.x-k8s.io",)"
    R"("scope":"Namespaced","names":{"kind":"PodGroup","plural":"podgroups","singular":"podgroup"},)"
    R"("versions":[{"name":"v1alpha1","served":true,"storage":true,"subresources":{"status":{}},)"
    R"("schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";

}  // namespace

int main(int argc, char** argv) {
  double scale = argc > 1 ? std::strtod(argv[1], nullptr) : 1.0;
  std::string only = argc > 2 ? argv[2] : "";
  bool kubelets = argc > 3 && std::string(argv[3]) == "kubelets";
  // "Memory": SchedulingBasic, then the memory figure; without a shape, every one of both.
  bool memory = only.empty() || only == "Memory";
  if (only == "Memory") only = "SchedulingBasic";
  const Shape shapes[] = {
      {"SchedulingBasic", 5000, 1000, 10000, "", "green", 680},
      {"SchedulingPodAntiAffinity", 5000, 1000, 2000, kAntiAffinity, "green", 60},
      {"SchedulingPodAffinity", 5000, 5000, 5000, kAffinity, "blue", 35},
      {"SchedulingNodeAffinity", 5000, 5000, 10000, kNodeAffinity, "green", 220},
      // Every node advertises 4 of an extended resource, every pod asks for one of it.
      {"SchedulingWithExtendedResource", 5000, 1000, 10000, "", "green", 180, "example.com/foo=4"},
  };
  std::printf("%-27s %6s %8s %9s %10s %10s %12s\n", "shape", "nodes", "initial", "measured",
              "seconds", "pods/s", "kube's bar");
  for (const Shape& s : shapes) {
    if (!only.empty() && std::string(s.name).find(only) == std::string::npos) continue;
    int nodes = scaled(s.nodes, scale), initial = scaled(s.initial, scale),
        measured = scaled(s.measured, scale);
    SimChild sim = planter::bench::start_sim(nodes, 10, "4", "32Gi", true, s.extended, kubelets);
    std::string labels = std::string(R"("color":")") + s.labels + "\"";
    {
      InProcess scheduler(sim);
      auto make = [&](int i) {
        return pod("p-" + std::to_string(i), labels, s.affinity, s.extended);
      };
      int failed = create(sim, 0, initial, make);
      if (!wait_bound(scheduler.scheduler(), initial, std::chrono::seconds(600))) failed = -1;
      auto start = Clock::now();
      failed += create(sim, initial, initial + measured, make);
      bool bound =
          wait_bound(scheduler.scheduler(), initial + measured, std::chrono::seconds(1200));
      double secs = std::chrono::duration<double>(Clock::now() - start).count();
      std::printf("%-27s %6d %8d %9d %10.2f %10.0f %12.0f%s\n", s.name, nodes, initial, measured,
                  secs, measured / secs, s.threshold,
                  failed || !bound ? "  (creates failed or pods left unbound)" : "");
      std::fflush(stdout);
      if (&s == &shapes[0] && memory) {
        int total = scaled(20000, scale);
        create(sim, initial + measured, total, make);
        wait_bound(scheduler.scheduler(), total, std::chrono::seconds(600));
        std::printf("resident memory of planter scheduler with %d nodes and %d pods: %.0f MiB\n",
                    nodes, total, planter::bench::rss_mib(getpid()));
      }
    }
    planter::bench::stop_sim(sim);
  }
  if (!only.empty() && std::string("Gangs").find(only) == std::string::npos) return 0;
  // Gangs of 10 on 1000 nodes.
  int nodes = scaled(1000, scale), groups = scaled(500, scale);
  SimChild sim = planter::bench::start_sim(nodes, 10, "4", "32Gi", true, "", kubelets);
  auto client = client_for(sim);
  (void)client->create(boost::json::parse(kPodGroupCrd).as_object());
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  create(sim, 0, groups, [](int g) {
    return boost::json::object{
        {"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
        {"kind", "PodGroup"},
        {"metadata", {{"name", "g-" + std::to_string(g)}, {"namespace", "default"}}},
        {"spec", {{"minMember", 10}}}};
  });
  {
    InProcess scheduler(sim);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    auto start = Clock::now();
    int failed = create(sim, 0, groups * 10, [](int i) {
      return pod("gp-" + std::to_string(i),
                 R"("scheduling.x-k8s.io/pod-group":"g-)" + std::to_string(i / 10) + "\"", "");
    });
    bool bound = wait_bound(scheduler.scheduler(), groups * 10, std::chrono::seconds(600));
    double secs = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("gangs of 10 on %d nodes: %d groups in %.2f s, %.0f groups/s%s\n", nodes, groups,
                secs, groups / secs, failed || !bound ? "  (creates failed or pods unbound)" : "");
  }
  planter::bench::stop_sim(sim);
  return 0;
}
