// The cost of one stack-fits decision (src/fit, every filter on), as the engine pays it on every
// burst of node and pod changes of a cluster with atomic stacks waiting (Google Benchmark).
//
//   View/N      - building the Snapshot from N nodes and 4N pods (JSON as the API serves it)
//   OneNode/N   - a co-located stack of 12 pods onto one of N nodes
//   Packed/N    - a stack of 200 pods packed across N nodes
//   Zone/N      - a stack of 30 pods co-located in one of 10 zones
//   Members/N   - a stack of 10,000 one-replica members (each with its own app label) packed
//                 across N nodes
//   Spread/N    - a stack of 12 pods with required anti-affinity on the hostname
//   Choice/M    - choosing 2 of M clusters of 50 nodes each for a stack of 30 pods (issue 36's
//                 figure: 200 clusters, at most 1 s): a fit per candidate from the JSON the
//                 fleet's watches hold, as the cluster-choice gate does it, then the ranking
//   ChoiceSpread/M - the same choosing 20 spread over 5 regions (maxSkew 1; issue 51's figure:
//                 200 clusters with spread, at most 1 s)
//   SpreadOnly/M - the spread's choice alone: M/2 of M candidates over 10 regions, one full
//   Devices/N   - `plan --fit`'s work once the cluster is read (issue 49's figure: 1,000 nodes
//                 of 8 devices, 100 claims, at most 50 ms): the view of N nodes, 4N pods, a
//                 ResourceSlice of 8 GPUs per node and a DeviceClass with a CEL selector, then a
//                 stack of 100 pods each claiming one GPU of at least 40Gi from a template
//
// Counters: decisions/s; nodes per second for View.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <boost/json.hpp>

#include "fit/cluster_choice.h"
#include "fit/group.h"
#include "fit/snapshot.h"

namespace {

using namespace planter;
namespace json = boost::json;

struct Fleet {
  std::vector<json::object> nodes, pods;
};

// N nodes of 16 cpu, 64Gi in 10 zones, a tenth tainted; 4 pods per node of 1-3 cpu.
const Fleet& fleet(size_t n) {
  static std::map<size_t, Fleet> cache;
  auto [it, fresh] = cache.try_emplace(n);
  if (!fresh) return it->second;
  Fleet& f = it->second;
  for (size_t i = 0; i < n; ++i) {
    std::string name = fmt::format("node-{}", i);
    json::object node{
        {"metadata",
         {{"name", name},
          {"labels",
           {{"kubernetes.io/hostname", name},
            {"topology.kubernetes.io/zone", fmt::format("zone-{}", i % 10)}}}}},
        {"spec", json::object{}},
        {"status", {{"allocatable", {{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}}}}}};
    if (i % 10 == 9)
      node["spec"].as_object()["taints"] =
          json::array{json::object{{"key", "tenant"}, {"value", "gold"}, {"effect", "NoSchedule"}}};
    f.nodes.push_back(std::move(node));
    for (size_t p = 0; p < 4; ++p)
      f.pods.push_back(json::object{
          {"metadata", {{"name", fmt::format("pod-{}-{}", i, p)}, {"labels", json::object{}}}},
          {"spec",
           {{"nodeName", name},
            {"containers", json::array{json::object{{"name", "c"},
                                                    {"resources",
                                                     {{"requests",
                                                       {{"cpu", fmt::format("{}", 1 + (i + p) % 3)},
                                                        {"memory", "4Gi"}}}}}}}}}},
          {"status", {{"phase", "Running"}}}});
  }
  return f;
}

fit::Snapshot view_of(const Fleet& f) {
  fit::Snapshot v;
  for (const auto& n : f.nodes) v.add_node(n);
  for (const auto& p : f.pods) v.add_pod(p, {"fitted"});
  return v;
}

// `members` kinds of `pods` pods each of `cpu` cores and 512Mi; `anti`: required anti-affinity
// of the stack's pods to each other on the hostname.
fit::Group stack(int64_t pods, double cpu, std::string colocated_on, int64_t members = 1,
                 bool anti = false) {
  fit::Group g;
  g.name = "fitted";
  g.colocated_on = std::move(colocated_on);
  json::object spec{
      {"containers",
       json::array{json::object{
           {"name", "c"},
           {"resources",
            {{"requests", {{"cpu", fmt::format("{}", cpu)}, {"memory", "512Mi"}}}}}}}}};
  if (anti)
    spec["affinity"] =
        json::parse(R"({"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
        {"topologyKey":"kubernetes.io/hostname","labelSelector":{"matchLabels":{"planter.nephio.org/stack":"fitted"}}}]}})");
  for (int64_t m = 0; m < members; ++m) {
    json::object pod{
        {"metadata",
         {{"name", fmt::format("member-{}", m)},
          {"namespace", "default"},
          {"labels",
           {{"planter.nephio.org/stack", "fitted"}, {"app", fmt::format("member-{}", m)}}}}},
        {"spec", spec}};
    g.kinds.push_back({fit::PodInfo::from(pod), pods, false});
  }
  return g;
}

void View(benchmark::State& state) {
  const Fleet& f = fleet(static_cast<size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(view_of(f));
  state.counters["nodes/s"] = benchmark::Counter(
      static_cast<double>(f.nodes.size()) * state.iterations(), benchmark::Counter::kIsRate);
}

void Decide(benchmark::State& state, const fit::Group& s) {
  fit::Snapshot v = view_of(fleet(static_cast<size_t>(state.range(0))));
  bool fits = false;
  for (auto _ : state) {
    fit::GroupFit f = fit::fit_group(s, v);
    fits = f.fits;
    benchmark::DoNotOptimize(f);
  }
  state.counters["decisions/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  if (!fits) state.SkipWithError("the stack should fit");
}

void OneNode(benchmark::State& state) {
  Decide(state, stack(12, 0.5, "kubernetes.io/hostname"));
}
void Packed(benchmark::State& state) {
  Decide(state, stack(200, 2, ""));
}
void Zone(benchmark::State& state) {
  Decide(state, stack(30, 2, "topology.kubernetes.io/zone"));
}

void Members(benchmark::State& state) {
  Decide(state, stack(1, 0.1, "", 10000));
}
void Spread(benchmark::State& state) {
  Decide(state, stack(12, 0.5, "", 1, true));
}

// Choice/M, and ChoiceSpread/M: the same spread over 5 regions, choosing 20 with maxSkew 1.
void choose(benchmark::State& state, int64_t count, const fit::ClusterSpread& spread) {
  const Fleet& f = fleet(50);
  fit::Group g = stack(30, 2, "");
  size_t clusters = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    std::vector<fit::ClusterCandidate> candidates;
    for (size_t c = 0; c < clusters; ++c) {
      // Clusters differ in how busy they are: from none of the pods to all of them.
      size_t busy = f.pods.size() * (c % 5) / 4;
      auto nodes = [&](const std::function<void(const json::object&)>& fn) {
        for (const json::object& n : f.nodes) fn(n);
      };
      auto pods = [&](const std::function<void(const json::object&)>& fn) {
        for (size_t p = 0; p < busy && p < f.pods.size(); ++p) fn(f.pods[p]);
      };
      fit::GroupFit fit = fit::fit_group_on(g, nodes, pods, {});
      candidates.push_back(
          {fmt::format("edge{}", c), fit.fits, fit.why, fit.left, fmt::format("region-{}", c % 5)});
    }
    fit::ClusterChoiceResult r = fit::choose_clusters(count, candidates, {}, spread);
    if (!r.complete) state.SkipWithError("the clusters asked for should fit");
    benchmark::DoNotOptimize(r);
  }
  state.counters["clusters/s"] = benchmark::Counter(
      static_cast<double>(clusters) * state.iterations(), benchmark::Counter::kIsRate);
}
void Choice(benchmark::State& state) {
  choose(state, 2, {});
}
void ChoiceSpread(benchmark::State& state) {
  choose(state, 20, {"region", 1, true});
}

// The spread alone at the bound: half of M candidates over 10 regions (every tenth one full),
// kept ones among them, maxSkew 2.
void SpreadOnly(benchmark::State& state) {
  auto m = static_cast<size_t>(state.range(0));
  std::vector<fit::SpreadCandidate> candidates;
  for (size_t c = 0; c < m; ++c)
    candidates.push_back({fmt::format("c{}", c), fmt::format("r{}", c % 10), c % 10 != 9,
                          c % 97 == 0, static_cast<int>((c * 37) % 101)});
  for (auto _ : state) {
    fit::SpreadChoice r =
        fit::choose_spread(static_cast<int64_t>(m / 2), candidates, {"region", 2, true});
    benchmark::DoNotOptimize(r);
  }
}

// A ResourceSlice of 8 GPUs (two of 40Gi, six of 80Gi) on each of the fleet's nodes.
const std::vector<json::object>& slices(size_t n) {
  static std::map<size_t, std::vector<json::object>> cache;
  auto [it, fresh] = cache.try_emplace(n);
  if (!fresh) return it->second;
  for (size_t i = 0; i < n; ++i) {
    json::array devices;
    for (int d = 0; d < 8; ++d)
      devices.push_back(
          json::object{{"name", fmt::format("gpu-{}", d)},
                       {"attributes", {{"type", {{"string", "gpu"}}}, {"index", {{"int", d}}}}},
                       {"capacity", {{"memory", {{"value", d < 2 ? "40Gi" : "80Gi"}}}}}});
    std::string node = fmt::format("node-{}", i);
    it->second.push_back(
        json::object{{"apiVersion", "resource.k8s.io/v1"},
                     {"kind", "ResourceSlice"},
                     {"metadata", {{"name", node + "-gpus"}}},
                     {"spec",
                      {{"driver", "gpu.example.com"},
                       {"nodeName", node},
                       {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
                       {"devices", std::move(devices)}}}});
  }
  return it->second;
}

void Devices(benchmark::State& state) {
  size_t n = static_cast<size_t>(state.range(0));
  const Fleet& f = fleet(n);
  const std::vector<json::object>& s = slices(n);
  json::object device_class = json::parse(R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"DeviceClass","metadata":{"name":"gpu.example.com"},"spec":{"selectors":[{"cel":
      {"expression":"device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].type == 'gpu'"}}]}})")
                                  .as_object();
  json::object claim_template = json::parse(R"({"apiVersion":"resource.k8s.io/v1",
      "kind":"ResourceClaimTemplate","metadata":{"name":"gpu","namespace":"default"},
      "spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.example.com",
      "selectors":[{"cel":{"expression":"device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"}}]}}]}}}})")
                                    .as_object();
  fit::Group g = stack(100, 0.5, "");
  json::object pod = json::parse(R"({"metadata":{"name":"trainer","namespace":"default",
      "labels":{"planter.nephio.org/stack":"fitted"}},"spec":{"resourceClaims":[{"name":"gpu",
      "resourceClaimTemplateName":"gpu"}],"containers":[{"name":"c","resources":{"requests":
      {"cpu":"500m","memory":"512Mi"},"claims":[{"name":"gpu"}]}}]}})")
                         .as_object();
  g.kinds = {{fit::PodInfo::from(pod), 100, false}};
  bool fits = false;
  for (auto _ : state) {
    fit::Snapshot v = view_of(f);
    v.add_volume_object(device_class);
    v.add_volume_object(claim_template);
    for (const json::object& o : s) v.add_volume_object(o);
    fit::GroupFit fit = fit::fit_group(g, v);
    fits = fit.fits;
    benchmark::DoNotOptimize(fit);
  }
  state.counters["decisions/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  if (!fits) state.SkipWithError("the stack should fit");
}

void sizes(benchmark::internal::Benchmark* b) {
  b->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(View)->Apply(sizes);
BENCHMARK(OneNode)->Apply(sizes);
BENCHMARK(Packed)->Apply(sizes);
BENCHMARK(Zone)->Apply(sizes);
BENCHMARK(Members)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(Spread)->Apply(sizes);
BENCHMARK(Choice)->Arg(200)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(ChoiceSpread)->Arg(200)->Unit(benchmark::kMillisecond);
BENCHMARK(SpreadOnly)->Arg(200)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(Devices)->Arg(1000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
