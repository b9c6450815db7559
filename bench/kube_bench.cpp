// Server-side applies per second through planter's Kubernetes client (src/kube) against
// `planter sim` over HTTPS, with 1, 8 and 64 requests in flight, over HTTP/1.1 and HTTP/2, the
// sim adding 2 ms to every write (--write-latency 2) as a real API server's etcd round trip
// would. The sim runs in this process on its own thread; the client on its transport thread.
// Each scenario applies new ConfigMaps back to back for a fixed time (argument 1, seconds,
// default 3). Prints applies/s, p50/p99 latency and the connections opened. Numbers only.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "kube/client.h"
#include "kube/kubeconfig.h"
#include "sim/server.h"

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

struct Run {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<double> latencies_ms;
  int outstanding = 0;
  size_t errors = 0;
  std::string first_error;
};

void issue(planter::kube::Client& client, Run& run, Clock::time_point until, int& counter,
           int lane) {
  std::string name = "bench-" + std::to_string(lane) + "-" + std::to_string(counter++);
  json::object cm{{"apiVersion", "v1"},
                  {"kind", "ConfigMap"},
                  {"metadata", {{"name", name}, {"namespace", "bench"}}},
                  {"data", {{"key", "value"}}}};
  auto start = Clock::now();
  client.apply_async(std::move(cm), {}, [&client, &run, until, &counter, lane, start](auto r) {
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    bool again;
    {
      std::lock_guard lock(run.mu);
      run.latencies_ms.push_back(ms);
      if (!r.ok()) {
        if (run.errors++ == 0) run.first_error = r.error().str();
      }
      again = Clock::now() < until;
      if (!again) --run.outstanding;
    }
    if (again) return issue(client, run, until, counter, lane);
    run.cv.notify_all();
  });
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  planter::sim::ServerOptions options;
  options.fleet.cluster.faults.write_latency = std::chrono::milliseconds(2);
  auto server = planter::sim::Server::create(options);
  if (!server) {
    std::fprintf(stderr, "kube_bench: %s\n", server.error().message.c_str());
    return 1;
  }
  (*server)->start();
  auto kubeconfig = planter::kube::Kubeconfig::parse((*server)->kubeconfig(), "sim", "/");
  auto rest = kubeconfig->rest_config();
  if (!rest) {
    std::fprintf(stderr, "kube_bench: %s\n", rest.error().message.c_str());
    return 1;
  }

  std::printf(
      "kube_bench: server-side applies of new ConfigMaps for %.1f s per scenario, "
      "sim --write-latency 2, HTTPS + bearer token\n\n",
      seconds);
  std::printf("| protocol | in flight | applies/s | p50 | p99 | connections |\n");
  std::printf("|---|---|---|---|---|---|\n");
  int scenario = 0;
  for (bool http2 : {false, true}) {
    for (int in_flight : {1, 8, 64}) {
      planter::kube::ClientOptions co;
      co.transport.http2 = http2;
      co.transport.max_in_flight = in_flight;
      co.transport.qps = 0;  // measure the transport, not the limiter
      auto client = planter::kube::Client::create(rest.value(), co);
      if (!client) return 1;
      auto& c = **client;
      (void)c.apply(
          {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "bench"}}}});
      Run run;
      int counter = 0;
      ++scenario;
      auto begin = Clock::now();
      auto until = begin + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(seconds));
      run.outstanding = in_flight;
      for (int lane = 0; lane < in_flight; ++lane)
        issue(c, run, until, counter, scenario * 1000 + lane);
      std::unique_lock lock(run.mu);
      run.cv.wait(lock, [&] { return run.outstanding == 0; });
      double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
      auto& l = run.latencies_ms;
      std::sort(l.begin(), l.end());
      auto pct = [&](double p) {
        return l.empty() ? 0.0 : l[std::min(l.size() - 1, static_cast<size_t>(p * l.size()))];
      };
      std::printf("| %s | %d | %.0f | %.2f ms | %.2f ms | %llu |\n", http2 ? "HTTP/2" : "HTTP/1.1",
                  in_flight, static_cast<double>(l.size() - run.errors) / elapsed, pct(0.5),
                  pct(0.99), static_cast<unsigned long long>(c.transport().stats().connections));
      if (run.errors)
        std::printf("  (%zu errors; the first: %s)\n", run.errors, run.first_error.c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
