#include "sim/resource_metrics.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cstdint>

#include "sim/json_access.h"
#include "sim/kube_scheduler/pod_resources.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr int64_t kIdleMilliCpu = 1;              // 1m
constexpr int64_t kIdleBytes = int64_t{4} << 20;  // 4Mi
constexpr std::string_view kWindow = "20.05s";    // metrics-server's, for one scrape

struct Usage {
  int64_t milli_cpu = 0;
  int64_t bytes = 0;
  Usage& operator+=(const Usage& o) {  // saturating: requests may be absurd
    if (__builtin_add_overflow(milli_cpu, o.milli_cpu, &milli_cpu)) milli_cpu = INT64_MAX;
    if (__builtin_add_overflow(bytes, o.bytes, &bytes)) bytes = INT64_MAX;
    return *this;
  }
};

// What one container uses: its requests (read as the sim's scheduler reads them), or an idle
// container's.
Usage container_usage(const json::object& container) {
  const json::object* res = object_at(container, "resources");
  sched::Resources req = sched::Resources::from_list(res ? object_at(*res, "requests") : nullptr);
  return {req.cpu_milli > 0 ? req.cpu_milli : kIdleMilliCpu,
          req.memory > 0 ? req.memory : kIdleBytes};
}

bool running(const json::object& pod) {
  return string_at(object_at(pod, "status"), "phase") == "Running";
}

// As metrics-server writes them: cpu in nanocores (millicores when that would not fit), memory
// in KiB.
json::object usage_json(const Usage& u) {
  std::string cpu = u.milli_cpu <= INT64_MAX / 1'000'000
                        ? fmt::format("{}n", u.milli_cpu * 1'000'000)
                        : fmt::format("{}m", u.milli_cpu);
  return json::object{{"cpu", std::move(cpu)},
                      {"memory", fmt::format("{}Ki", u.bytes / 1024 + (u.bytes % 1024 ? 1 : 0))}};
}

json::object metadata_of(const json::object& source, std::string_view now) {
  json::object meta{{"name", meta_string(source, "name")}, {"creationTimestamp", now}};
  if (std::string ns = meta_string(source, "namespace"); !ns.empty()) meta["namespace"] = ns;
  if (const json::object* m = object_at(source, "metadata"))
    if (const json::object* labels = object_at(*m, "labels")) meta["labels"] = *labels;
  return meta;
}

}  // namespace

std::vector<ResourceType> resource_metrics_types() {
  ResourceType nodes;
  nodes.group = std::string(kResourceMetricsGroup);
  nodes.version = "v1beta1";
  nodes.resource = "nodes";
  nodes.kind = "NodeMetrics";
  nodes.singular = "";
  nodes.namespaced = false;
  nodes.verbs = {"get", "list"};
  ResourceType pods = nodes;
  pods.resource = "pods";
  pods.kind = "PodMetrics";
  pods.namespaced = true;
  return {nodes, pods};
}

std::string_view resource_metrics_source(const ResourceType& type) {
  return type.kind == "NodeMetrics" ? "/nodes" : "/pods";
}

json::object pod_metrics(const json::object& pod, std::string_view now) {
  if (!running(pod)) return {};
  json::array containers;
  for (const json::object* c : containers_in(object_at(pod, "spec"), "containers"))
    containers.push_back(
        json::object{{"name", string_at(*c, "name")}, {"usage", usage_json(container_usage(*c))}});
  return json::object{{"kind", "PodMetrics"},
                      {"apiVersion", "metrics.k8s.io/v1beta1"},
                      {"metadata", metadata_of(pod, now)},
                      {"timestamp", now},
                      {"window", kWindow},
                      {"containers", std::move(containers)}};
}

json::object node_metrics(const json::object& node, const std::vector<const json::object*>& pods,
                          std::string_view now) {
  Usage total;
  for (const json::object* pod : pods)
    if (running(*pod))
      for (const json::object* c : containers_in(object_at(*pod, "spec"), "containers"))
        total += container_usage(*c);
  return json::object{{"kind", "NodeMetrics"},
                      {"apiVersion", "metrics.k8s.io/v1beta1"},
                      {"metadata", metadata_of(node, now)},
                      {"timestamp", now},
                      {"window", kWindow},
                      {"usage", usage_json(total)}};
}

}  // namespace planter::sim
