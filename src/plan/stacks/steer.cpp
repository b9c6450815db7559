#include "plan/stacks/steer.h"

#include <boost/json.hpp>
#include <charconv>

#include "model/strings.h"

namespace planter {

namespace json = boost::json;

namespace {

// The object at a dotted path with list indices; null when a step is missing.
json::object* object_at(json::object& body, std::string_view path) {
  json::value* at = nullptr;
  json::object* in = &body;
  for (std::string_view step : split(path, '.')) {
    size_t bracket = step.find('[');
    std::string_view key = step.substr(0, bracket);
    if (!in || !(at = in->if_contains(key))) return nullptr;
    while (bracket != std::string_view::npos) {
      size_t close = step.find(']', bracket);
      if (close == std::string_view::npos) return nullptr;
      size_t index = 0;
      auto [p, ec] = std::from_chars(step.data() + bracket + 1, step.data() + close, index);
      if (ec != std::errc() || !at->is_array() || index >= at->as_array().size()) return nullptr;
      at = &at->as_array()[index];
      bracket = step.find('[', close);
    }
    in = at->if_object();
  }
  return in;
}

}  // namespace

size_t steer_pods(json::object& body, const std::vector<std::string>& affinity_paths,
                  const std::string& key, const std::vector<std::string>& values) {
  json::array listed;
  for (const std::string& v : values) listed.emplace_back(v);
  json::value term = json::object{
      {"weight", 100},
      {"preference",
       {{"matchExpressions",
         json::array{json::object{{"key", key}, {"operator", "In"}, {"values", listed}}}}}}};
  size_t written = 0;
  for (const std::string& path : affinity_paths) {
    json::object* affinity = object_at(body, path);
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
