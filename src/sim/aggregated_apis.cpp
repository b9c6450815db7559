#include "sim/aggregated_apis.h"

#include "sim/handler.h"
#include "sim/json_access.h"
#include "sim/resource_metrics.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool kind_name(std::string_view s) {
  if (s.empty() || !(s.front() >= 'A' && s.front() <= 'Z')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

bool plural_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

}  // namespace

std::string aggregated_catalog_key(std::string_view apiservice_name) {
  return "apiservice/" + std::string(apiservice_name);
}

Result<std::vector<ResourceType>> aggregated_resource_types(const json::object& apiservice) {
  std::vector<ResourceType> out;
  const json::object* spec = object_at(&apiservice, "spec");
  std::string group = string_at(spec, "group"), version = string_at(spec, "version");
  std::string kinds = string_at(object_at(object_at(&apiservice, "metadata"), "annotations"),
                                std::string(kAggregatedKindsAnnotation));
  if (group.empty() || version.empty()) return out;
  if (kinds.empty()) {
    // metrics-server's APIService (or prometheus-adapter's): the resource metrics API, computed.
    if (group == kResourceMetricsGroup && version == "v1beta1") {
      out = resource_metrics_types();
      for (ResourceType& t : out)
        t.crd_name = aggregated_catalog_key(string_at(object_at(&apiservice, "metadata"), "name"));
    }
    return out;
  }
  std::string_view rest = kinds;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view entry = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (entry.empty()) continue;
    ResourceType t;
    t.group = group;
    t.version = version;
    if (auto colon = entry.find(':'); colon != std::string_view::npos) {
      std::string_view scope = entry.substr(colon + 1);
      if (scope != "Cluster" && scope != "Namespaced")
        return Error{std::string(kAggregatedKindsAnnotation) + ": \"" + std::string(entry) +
                     "\": the scope after ':' is Cluster or Namespaced"};
      t.namespaced = scope == "Namespaced";
      entry = entry.substr(0, colon);
    }
    std::string_view plural;
    if (auto slash = entry.find('/'); slash != std::string_view::npos) {
      plural = entry.substr(slash + 1);
      entry = entry.substr(0, slash);
    }
    if (!kind_name(entry) || (!plural.empty() && !plural_name(plural)))
      return Error{std::string(kAggregatedKindsAnnotation) + ": \"" + std::string(entry) +
                   "\" is not Kind, Kind/plural or Kind/plural:Cluster"};
    t.kind = std::string(entry);
    t.singular = lower(std::string(entry));
    t.resource = plural.empty() ? t.singular + "s" : std::string(plural);
    t.verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
    t.custom = true;  // stored and served as custom resources are, without a schema
    t.crd_name = aggregated_catalog_key(string_at(object_at(&apiservice, "metadata"), "name"));
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace planter::sim
