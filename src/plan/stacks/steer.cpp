#include "plan/stacks/steer.h"

#include <boost/json.hpp>

namespace planter {

namespace json = boost::json;

size_t steer_pods(json::object& body, const std::vector<PodPath>& affinity_paths,
                  const std::string& key, const std::vector<std::string>& values) {
  json::array listed;
  for (const std::string& v : values) listed.emplace_back(v);
  json::value term = json::object{
      {"weight", 100},
      {"preference",
       {{"matchExpressions",
         json::array{json::object{{"key", key}, {"operator", "In"}, {"values", listed}}}}}}};
  size_t written = 0;
  for (const PodPath& path : affinity_paths) {
    json::object* affinity = pod_path::object_at(body, path);
    if (!affinity) continue;
    json::value& na = (*affinity)["nodeAffinity"];
    if (!na.is_object()) na = json::object{};
    json::value& preferred = na.as_object()["preferredDuringSchedulingIgnoredDuringExecution"];
    if (!preferred.is_array()) preferred = json::array{};
    preferred.as_array().push_back(term);
    ++written;
  }
  return written;
}

}  // namespace planter
