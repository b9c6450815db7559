// Reads of the resource metrics API (resource_metrics.h): each NodeMetrics and PodMetrics is
// computed from the node or pod it describes when it is read; label selectors select the nodes
// and pods, as metrics-server's do.
#include <boost/json/serialize.hpp>
#include <map>

#include "sim/api_errors.h"
#include "sim/audit.h"
#include "sim/handler.h"
#include "sim/json_access.h"
#include "sim/resource_metrics.h"
#include "sim/selectors.h"

namespace planter::sim {

namespace {

using PodsByNode = std::map<std::string, std::vector<const json::object*>, std::less<>>;

// The pods bound to each node, by node name.
PodsByNode pods_by_node(const Store::Bucket& pods) {
  PodsByNode out;
  for (const auto& [key, pod] : pods)
    if (std::string node = string_at(object_at(*pod, "spec"), "nodeName"); !node.empty())
      out[node].push_back(pod.get());
  return out;
}

}  // namespace

bool is_resource_metrics(const ResourceType& t) {
  return t.group == kResourceMetricsGroup && !t.custom &&
         (t.kind == "NodeMetrics" || t.kind == "PodMetrics");
}

Response Handler::metrics_read(const Cluster::Target& t) {
  std::string when = rfc3339(now());
  bool nodes = t.type->kind == "NodeMetrics";
  std::string source_key(resource_metrics_source(*t.type));
  // A node's usage is its pods': grouped once per request, and only for NodeMetrics.
  auto by_node = nodes ? pods_by_node(c.store_.bucket("/pods")) : PodsByNode{};
  auto metrics_of = [&](const json::object& source) {
    if (!nodes) return pod_metrics(source, when);
    static const std::vector<const json::object*> kNone;
    auto it = by_node.find(meta_string(source, "name"));
    return node_metrics(source, it == by_node.end() ? kNone : it->second, when);
  };
  if (!t.name.empty()) {
    StoredObject source = c.store_.get(source_key, t.ns, t.name);
    json::object m = source ? metrics_of(*source) : json::object{};
    if (m.empty()) return not_found(*t.type, t.name);
    return Response{200, "application/json", json::serialize(m), {}};
  }
  auto labels = LabelSelector::parse(query(req, "labelSelector"));
  if (!labels) return bad_request("unable to parse requirement: " + labels.error().message);
  const Store::Bucket& sources = c.store_.bucket(source_key);
  json::array items;
  auto it = t.ns.empty() ? sources.begin() : sources.lower_bound(t.ns + "/");
  for (; it != sources.end(); ++it) {
    if (!t.ns.empty() && !std::string_view(it->first).starts_with(t.ns + "/")) break;
    if (!labels->matches(*it->second)) continue;
    json::object m = metrics_of(*it->second);
    if (!m.empty()) items.push_back(std::move(m));
  }
  json::object list{{"kind", t.type->kind + "List"},
                    {"apiVersion", t.type->api_version()},
                    {"metadata", json::object{}},
                    {"items", std::move(items)}};
  return Response{200, "application/json", json::serialize(list), {}};
}

}  // namespace planter::sim
