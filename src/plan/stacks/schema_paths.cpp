#include "plan/stacks/schema_paths.h"

#include <boost/json.hpp>

namespace planter {

namespace json = boost::json;

namespace {

bool flag(const json::object& node, std::string_view key) {
  const json::value* v = node.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}

const json::object* object_in(const json::object& node, std::string_view key) {
  const json::value* v = node.if_contains(key);
  return v ? v->if_object() : nullptr;
}

}  // namespace

bool schema_keeps(const json::object& schema, std::string_view path) {
  const json::object* node = &schema;
  while (!path.empty()) {
    size_t dot = path.find('.');
    std::string_view step = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    size_t bracket = step.find('[');
    std::string_view name = step.substr(0, bracket);
    int indexes = 0;
    for (size_t i = bracket; i != std::string_view::npos && i < step.size();
         i = step.find('[', i + 1))
      ++indexes;
    if (!name.empty()) {
      const json::object* props = object_in(*node, "properties");
      const json::object* next = props ? object_in(*props, name) : nullptr;
      if (!next) {
        if (flag(*node, "x-kubernetes-preserve-unknown-fields")) return true;
        const json::value* extra = node->if_contains("additionalProperties");
        if (extra && extra->is_bool() && extra->as_bool()) return true;
        if (!extra || !extra->is_object()) return false;
        next = &extra->as_object();
      }
      node = next;
    }
    for (; indexes > 0; --indexes) {
      const json::object* items = object_in(*node, "items");
      if (!items) return flag(*node, "x-kubernetes-preserve-unknown-fields");
      node = items;
    }
  }
  return true;
}

}  // namespace planter
