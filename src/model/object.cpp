#include "model/object.h"

#include <fmt/format.h>

namespace planter {

namespace json = boost::json;

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  return fmt::format("{}:{}", file, line);
}

std::pair<std::string_view, std::string_view> split_api_version(std::string_view api_version) {
  auto slash = api_version.find('/');
  if (slash == std::string_view::npos) return {std::string_view{}, api_version};
  return {api_version.substr(0, slash), api_version.substr(slash + 1)};
}

std::string_view ObjectRef::group() const {
  return split_api_version(api_version).first;
}
std::string_view ObjectRef::version() const {
  return split_api_version(api_version).second;
}

std::string ObjectRef::id() const {
  return fmt::format("{}|{}|{}|{}", api_version, kind, ns, name);
}

std::string object_key(std::string_view group, std::string_view kind, std::string_view ns,
                       std::string_view name) {
  std::string k;
  k.reserve(group.size() + kind.size() + ns.size() + name.size() + 3);
  k.append(group).push_back('|');
  k.append(kind).push_back('|');
  k.append(ns).push_back('|');
  k.append(name);
  return k;
}

std::string ObjectRef::key() const {
  return object_key(group(), kind, ns, name);
}

std::string ObjectRef::display() const {
  if (ns.empty()) return fmt::format("{} {} {}", api_version, kind, name);
  return fmt::format("{} {} {}/{}", api_version, kind, ns, name);
}

std::string ObjectRef::short_form() const {
  if (ns.empty()) return fmt::format("{}/{}", kind, name);
  return fmt::format("{}/{}/{}", kind, ns, name);
}

const json::value* find_path(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::object* cur = &o;
  const json::value* v = nullptr;
  for (auto step : path) {
    if (cur == nullptr) return nullptr;
    v = cur->if_contains(step);
    if (v == nullptr) return nullptr;
    cur = v->if_object();
  }
  return v;
}

const json::string* find_string(const json::object& o,
                                std::initializer_list<std::string_view> path) {
  const json::value* v = find_path(o, path);
  return v ? v->if_string() : nullptr;
}

std::string string_field(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::string* s = find_string(o, path);
  return s ? std::string(*s) : std::string();
}

const json::object* Object::annotations() const {
  const json::value* v = find_path(body, {"metadata", "annotations"});
  return v ? v->if_object() : nullptr;
}

const json::object* Object::labels() const {
  const json::value* v = find_path(body, {"metadata", "labels"});
  return v ? v->if_object() : nullptr;
}

const json::string* string_in(const json::object* o, std::string_view key) {
  if (o == nullptr) return nullptr;
  const json::value* v = o->if_contains(key);
  return v ? v->if_string() : nullptr;
}

const json::string* Object::annotation(std::string_view key) const {
  return string_in(annotations(), key);
}

static json::object& child_object(json::object& parent, std::string_view key) {
  json::value& v = parent[key];
  if (!v.is_object()) v = json::object{};
  return v.as_object();
}

void Object::set_annotation(std::string_view key, std::string_view value) {
  child_object(child_object(body, "metadata"), "annotations")[key] = value;
}

void Object::set_namespace(std::string_view ns) {
  child_object(body, "metadata")["namespace"] = ns;
  ref.ns = std::string(ns);
}

}  // namespace planter
