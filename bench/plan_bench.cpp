// Plan throughput on generated seeds of 1k, 10k and 100k objects (Google Benchmark).
//
//   LibfyamlEvents/N - libfyaml's event stream only (the floor: nothing is built)
//   ParseOnly/N  - YAML text to Objects (what any tool must pay to read the seed)
//   Plan/N       - the whole pure pipeline: parse, validate, place, derive, order
//   PlanOnly/N   - Plan without the parse (validate, place, derive, order, and freeing the plan)
//   PlanJson/N   - Plan and the JSON of `planter plan -o json` (json_MiB: its size)
//   NodeConsumers/N/P - Plan of N Deployments that need huge pages, SR-IOV devices or GPUs of
//                  their nodes, with (P=1) or without (P=0) their providers in the seed
//                  (PerformanceProfile, SriovNetworkNodePolicy and SriovNetwork, ClusterPolicy):
//                  the node-capability rule's cost (target: P=1 within 10% of P=0)
//   ManyFiles/N  - load_seed of a folder of N files of one ConfigMap each (a seed kept as one
//                  file per object): grows with N, where room made per file grew with N^2
//
// Counters: objects/s, and peak_rss_MiB (the process's high-water mark so far; sizes run in
// increasing order, so it is the peak of the largest size run). Compare Plan/N with ParseOnly/N:
// the target is Plan <= 1.5 x ParseOnly and Plan/100000 < 1 s.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <libfyaml.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string_view>

#include "plan/planner.h"
#include "plan/render.h"
#include "seed/seed.h"
#include "seed_generator.h"

namespace {

using namespace planter;

const std::string& seed_text(size_t n) {
  static std::map<size_t, std::string> cache;
  auto it = cache.find(n);
  if (it == cache.end()) it = cache.emplace(n, bench::generate_seed(n)).first;
  return it->second;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

void report(benchmark::State& state, size_t objects) {
  state.counters["objects/s"] = benchmark::Counter(
      static_cast<double>(objects) * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
  state.counters["objects"] = static_cast<double>(objects);
}

Seed parse(const std::string& text) {
  Seed seed;
  Diagnostics d;
  parse_seed_text(text, "bench.yaml", seed, d);
  return seed;
}

// libfyaml's event stream alone, building nothing: the floor under ParseOnly.
void LibfyamlEvents(benchmark::State& state) {
  const std::string& text = seed_text(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    fy_parse_cfg cfg{};
    cfg.flags = static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 |
                                                FYPCF_SLOPPY_FLOW_INDENTATION | FYPCF_JSON_NONE);
    fy_parser* p = fy_parser_create(&cfg);
    fy_parser_set_string(p, text.data(), text.size());
    size_t events = 0;
    while (fy_event* e = fy_parser_parse(p)) {
      ++events;
      fy_parser_event_free(p, e);
    }
    fy_parser_destroy(p);
    benchmark::DoNotOptimize(events);
  }
  report(state, static_cast<size_t>(state.range(0)));
}

void ParseOnly(benchmark::State& state) {
  const std::string& text = seed_text(static_cast<size_t>(state.range(0)));
  size_t objects = 0;
  for (auto _ : state) {
    Seed seed = parse(text);
    objects = seed.objects.size();
    benchmark::DoNotOptimize(seed);
  }
  report(state, objects);
}

// Plan/N times the parse too; PlanOnly/N leaves it out.
void plan(benchmark::State& state, bool time_the_parse) {
  const std::string& text = seed_text(static_cast<size_t>(state.range(0)));
  size_t objects = 0;
  for (auto _ : state) {
    if (!time_the_parse) state.PauseTiming();
    Seed seed = parse(text);
    objects = seed.objects.size();
    if (!time_the_parse) state.ResumeTiming();
    PlanOutcome out = plan_seed(std::move(seed), {});
    if (!out.ok()) state.SkipWithError(out.diags.str().c_str());
    benchmark::DoNotOptimize(out);
  }
  report(state, objects);
}

void Plan(benchmark::State& state) {
  plan(state, true);
}
void PlanOnly(benchmark::State& state) {
  plan(state, false);
}

// What `planter plan -o json` does but reading the file: parse, plan, and write the JSON.
void PlanJson(benchmark::State& state) {
  const std::string& text = seed_text(static_cast<size_t>(state.range(0)));
  size_t objects = 0, bytes = 0;
  for (auto _ : state) {
    Seed seed = parse(text);
    objects = seed.objects.size();
    PlanOutcome out = plan_seed(std::move(seed), {});
    if (!out.ok()) state.SkipWithError(out.diags.str().c_str());
    std::string json = render_json(out.plan);
    bytes = json.size();
    benchmark::DoNotOptimize(json);
  }
  report(state, objects);
  state.counters["json_MiB"] = static_cast<double>(bytes) / (1 << 20);
}

// N consumers of node configuration, a third each of huge pages, SR-IOV devices and GPUs; with
// `providers`, the seed also holds what configures the nodes.
std::string consumers_seed(size_t n, bool providers) {
  std::string out;
  if (providers)
    out += R"(apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata: {name: cnf-perf}
spec:
  cpu: {isolated: "2-15", reserved: "0-1"}
  hugepages: {defaultHugepagesSize: 1G, pages: [{size: 1G, count: 4}]}
  nodeSelector: {node-role.kubernetes.io/cnf: ""}
---
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata: {name: intel, namespace: sriov}
spec: {resourceName: intelnics, numVfs: 8, nodeSelector: {node-role.kubernetes.io/cnf: ""}}
---
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetwork
metadata: {name: data, namespace: sriov}
spec: {resourceName: intelnics, networkNamespace: cnf}
---
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata: {name: gpu-cluster-policy}
spec: {driver: {enabled: true}}
---
)";
  for (size_t i = 0; i < n; ++i) {
    const char* need = i % 3 == 0   ? "resources: {limits: {hugepages-1Gi: 2Gi, memory: 1Gi}}"
                       : i % 3 == 1 ? "resources: {limits: {openshift.io/intelnics: '1'}}"
                                    : "resources: {limits: {nvidia.com/gpu: '1'}}";
    out += fmt::format(R"(apiVersion: apps/v1
kind: Deployment
metadata: {{name: cnf-{0}, namespace: cnf}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: cnf-{0}}}}}
  template:
    metadata:
      labels: {{app: cnf-{0}}}
      annotations: {{k8s.v1.cni.cncf.io/networks: {1}}}
    spec:
      nodeSelector: {{node-role.kubernetes.io/cnf: ""}}
      containers: [{{name: main, image: cnf:1, {2}}}]
---
)",
                       i, i % 3 == 1 ? "data" : "''", need);
  }
  return out;
}

void NodeConsumers(benchmark::State& state) {
  size_t n = static_cast<size_t>(state.range(0));
  std::string text = consumers_seed(n, state.range(1) != 0);
  size_t objects = 0;
  for (auto _ : state) {
    Seed seed = parse(text);
    objects = seed.objects.size();
    PlanOutcome out = plan_seed(std::move(seed), {});
    if (!out.ok()) state.SkipWithError(out.diags.str().c_str());
    benchmark::DoNotOptimize(out);
  }
  report(state, objects);
}
BENCHMARK(NodeConsumers)
    ->Args({10'000, 0})
    ->Args({10'000, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// A folder of N files of one ConfigMap each, written once per N (Google Benchmark runs a
// benchmark's function again while it settles the iteration count) and removed at exit.
const std::filesystem::path& files_folder(size_t n) {
  namespace fs = std::filesystem;
  struct Folders {
    std::map<size_t, fs::path> made;
    ~Folders() {
      for (const auto& [_, dir] : made) fs::remove_all(dir);
    }
  };
  static Folders folders;
  if (auto it = folders.made.find(n); it != folders.made.end()) return it->second;
  fs::path dir = fs::temp_directory_path() / fmt::format("plan-bench-files-{}-{}", ::getpid(), n);
  fs::create_directories(dir);
  for (size_t i = 0; i < n; ++i)
    std::ofstream(dir / fmt::format("cm{:06}.yaml", i)) << fmt::format(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm{}\n  namespace: "
        "default\ndata: {{k: v}}\n",
        i);
  return folders.made.emplace(n, std::move(dir)).first->second;
}

void ManyFiles(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const std::string dir = files_folder(n).string();
  size_t objects = 0;
  for (auto _ : state) {
    Diagnostics d;
    Seed seed = load_seed({dir}, d);
    objects = seed.objects.size();
    if (!d.empty() || objects != n) state.SkipWithError("the folder's objects were not all read");
    benchmark::DoNotOptimize(seed);
  }
  report(state, objects);
}
BENCHMARK(ManyFiles)->Arg(5'000)->Arg(20'000)->Unit(benchmark::kMillisecond)->UseRealTime();

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(1'000)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond)->UseRealTime();
}
BENCHMARK(LibfyamlEvents)->Apply(sizes);
BENCHMARK(ParseOnly)->Apply(sizes);
BENCHMARK(Plan)->Apply(sizes);
BENCHMARK(PlanOnly)->Apply(sizes);
BENCHMARK(PlanJson)->Apply(sizes);

}  // namespace

// `plan_bench --write-seed N` prints the generated seed of N objects instead, for timing the
// `planter` binary on it: plan_bench --write-seed 100000 > /tmp/100k.yaml &&
// /usr/bin/time -v planter plan -o json /tmp/100k.yaml > /dev/null
int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "--write-seed") {
    std::fputs(bench::generate_seed(std::stoul(argv[2])).c_str(), stdout);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
