#include "plant/conditions.h"

#include <boost/json.hpp>

#include "model/object.h"

namespace planter::plant {

namespace json = boost::json;

const json::object* find_condition(const json::object& object, std::string_view type) {
  const json::value* conditions = find_path(object, {"status", "conditions"});
  if (!conditions || !conditions->is_array()) return nullptr;
  for (const json::value& c : conditions->as_array()) {
    if (!c.is_object()) continue;
    const json::string* t = find_string(c.as_object(), {"type"});
    if (t && *t == type) return &c.as_object();
  }
  return nullptr;
}

}  // namespace planter::plant
