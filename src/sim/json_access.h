// Reading stored objects inside the sim: a missing or mistyped field reads as empty (or the
// fallback), never throws. Stored objects passed validation, but the sim's controllers also read
// whatever clients wrote into status and annotations.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/parse_options.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace planter::sim {

// Request bodies may nest as deep as kube-apiserver allows (10,000 levels): CRD schemas and
// managedFields go well past Boost.JSON's default of 32.
inline const boost::json::parse_options kParseLimits = [] {
  boost::json::parse_options o;
  o.max_depth = 10000;
  return o;
}();

inline const boost::json::object* object_at(const boost::json::object* o, std::string_view key) {
  auto* v = o ? o->if_contains(key) : nullptr;
  return v && v->is_object() ? &v->as_object() : nullptr;
}

inline const boost::json::object* object_at(const boost::json::object& o, std::string_view key) {
  return object_at(&o, key);
}

// The array at `key`, or null when there is none.
inline const boost::json::array* array_at(const boost::json::object* o, std::string_view key) {
  if (!o) return nullptr;
  const boost::json::value* v = o->if_contains(key);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

inline std::string string_at(const boost::json::object* o, std::string_view key) {
  auto* v = o ? o->if_contains(key) : nullptr;
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

inline std::string string_at(const boost::json::object& o, std::string_view key) {
  return string_at(&o, key);
}

inline int64_t int_at(const boost::json::object* o, std::string_view key, int64_t fallback = 0) {
  auto* v = o ? o->if_contains(key) : nullptr;
  if (v && v->is_int64()) return v->as_int64();
  if (v && v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  return fallback;
}

// metadata.<key> as a string ("name", "namespace", "uid", ...).
inline std::string meta_string(const boost::json::object& o, std::string_view key) {
  return string_at(object_at(&o, "metadata"), key);
}

// metadata.labels, or nullptr.
inline const boost::json::object* labels_of(const boost::json::object& o) {
  return object_at(object_at(&o, "metadata"), "labels");
}

// The objects of a pod spec's list `field` ("containers", "initContainers"), in order; none
// when `spec` is nullptr.
inline std::vector<const boost::json::object*> containers_in(const boost::json::object* spec,
                                                             std::string_view field) {
  std::vector<const boost::json::object*> out;
  auto* list = spec ? spec->if_contains(field) : nullptr;
  if (list && list->is_array())
    for (const auto& c : list->as_array())
      if (c.is_object()) out.push_back(&c.as_object());
  return out;
}

// The condition of `type` in a status object's `conditions`, or nullptr.
inline const boost::json::object* find_condition(const boost::json::object* status,
                                                 std::string_view type) {
  auto* conds = status ? status->if_contains("conditions") : nullptr;
  if (!conds || !conds->is_array()) return nullptr;
  for (const auto& c : conds->as_array())
    if (c.is_object() && string_at(c.as_object(), "type") == type) return &c.as_object();
  return nullptr;
}

// status.conditions[type].status == "True".
inline bool condition_true(const boost::json::object& obj, std::string_view type) {
  const boost::json::object* c = find_condition(object_at(&obj, "status"), type);
  return c && string_at(c, "status") == "True";
}

}  // namespace planter::sim
