// Reading the fields of objects as the API serves them, for the fit model's readers (pods,
// nodes, volumes, devices): a missing field, or one of another type, is null.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <string>
#include <string_view>

namespace planter::fit {

inline const boost::json::object* object_in(const boost::json::object* o, std::string_view key) {
  const boost::json::value* v = o ? o->if_contains(key) : nullptr;
  return v ? v->if_object() : nullptr;
}

inline const boost::json::array* array_in(const boost::json::object* o, std::string_view key) {
  const boost::json::value* v = o ? o->if_contains(key) : nullptr;
  return v ? v->if_array() : nullptr;
}

// o[key] when it is a string; "" otherwise.
inline std::string text_in(const boost::json::object* o, std::string_view key) {
  const boost::json::value* v = o ? o->if_contains(key) : nullptr;
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace planter::fit
